//! The AVX2 fetch of eight interpolated source frames from a window of the
//! sample data (`MODE_PERMUTE8`: a step of at most 1), shared by the
//! one-voice kernel ([`super::avx2`]) and the two-voice kernel
//! ([`super::pair`]) so that both compute the same bits the same way.
//!
//! They are macros, not functions, so that the fetch is written once yet
//! always compiled inside its caller's AVX2 loop (a function with a target
//! feature cannot be `#[inline(always)]`; sharing it must not hang on the
//! inliner's choice in the hottest loop).
//! Each expands to intrinsics only, in the caller's `unsafe` context, with
//! `std::arch::x86_64::*`, `FRAC_BITS` and `FRAC_MASK` in scope.

/// The eight positions from 32.32 position `$p` at the lane offsets
/// `$off_a`, `$off_b` (`k * step`, ordered `[0, 1 | 4, 5]` and
/// `[2, 3 | 6, 7]` so that one shuffle of their 32-bit halves puts frames
/// 0..8 in order): `(i0, rel, f)`, the group's first source frame, each
/// lane's frame offset from it, and each lane's interpolation fraction
/// (its top 24 fraction bits times `$scale`, exactly as `frac` computes it).
macro_rules! positions8 {
    ($p:expr, $off_a:expr, $off_b:expr, $scale:expr) => {{
        let p: u64 = $p;
        let i0 = (p >> FRAC_BITS) as usize;
        let fr = _mm256_set1_epi64x((p & FRAC_MASK) as i64);
        let ra = _mm256_castsi256_ps(_mm256_add_epi64(fr, $off_a));
        let rb = _mm256_castsi256_ps(_mm256_add_epi64(fr, $off_b));
        // Low halves: fraction bits; high halves: frame offset from i0.
        let lo = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(ra, rb));
        let rel = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(ra, rb));
        let f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32::<8>(lo)), $scale);
        (i0, rel, f)
    }};
}

/// `MODE_PERMUTE8`'s fetch for a `1`- or `2`-channel source: from the
/// sample data at `$base`, each lane's frame `i0 + rel` and the next, by
/// unaligned loads of the window from frame `$i0` and from `$i0 + 1` and
/// in-register permutes, interpolated at `$f`: `(left, right)` (a mono
/// source's value twice).
///
/// Mono: two loads, two permutes. Stereo: four loads (each window of 8
/// interleaved frames is two registers), four `shuffle_ps` that split the
/// two windows into left and right (frames in the lane order `$order` =
/// `[0, 1, 4, 5, 2, 3, 6, 7]`), one permute that maps each lane's frame
/// into that order, then four permutes.
///
/// Safety (the caller's): every lane's frame offset is at most 7 (a step
/// of at most 1), and `($i0 + 9) * channels` samples lie in the data.
macro_rules! permute8 {
    (1, $base:expr, $i0:expr, $rel:expr, $f:expr, $order:expr) => {{
        let w = $base.add($i0);
        let (wa, wb) = (_mm256_loadu_ps(w), _mm256_loadu_ps(w.add(1)));
        let a = _mm256_permutevar8x32_ps(wa, $rel);
        let b = _mm256_permutevar8x32_ps(wb, $rel);
        let v = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), $f));
        (v, v)
    }};
    (2, $base:expr, $i0:expr, $rel:expr, $f:expr, $order:expr) => {{
        let w = $base.add(2 * $i0);
        // Each lane's frame within the deinterleaved window halves.
        let idx = _mm256_permutevar8x32_epi32($order, $rel);
        let (x0, x1, y0, y1) = (
            _mm256_loadu_ps(w),
            _mm256_loadu_ps(w.add(8)),
            _mm256_loadu_ps(w.add(2)),
            _mm256_loadu_ps(w.add(10)),
        );
        // Left (even samples) and right (odd samples), frames in `order`.
        let (xl, xr) = (
            _mm256_shuffle_ps::<0b10_00_10_00>(x0, x1),
            _mm256_shuffle_ps::<0b11_01_11_01>(x0, x1),
        );
        let (yl, yr) = (
            _mm256_shuffle_ps::<0b10_00_10_00>(y0, y1),
            _mm256_shuffle_ps::<0b11_01_11_01>(y0, y1),
        );
        let (al, bl) = (
            _mm256_permutevar8x32_ps(xl, idx),
            _mm256_permutevar8x32_ps(yl, idx),
        );
        let (ar, br) = (
            _mm256_permutevar8x32_ps(xr, idx),
            _mm256_permutevar8x32_ps(yr, idx),
        );
        (
            _mm256_add_ps(al, _mm256_mul_ps(_mm256_sub_ps(bl, al), $f)),
            _mm256_add_ps(ar, _mm256_mul_ps(_mm256_sub_ps(br, ar), $f)),
        )
    }};
}
