//! The output stage: master gain and a soft limiter, from the planar mix bus
//! to the interleaved output, clearing the bus behind it (so the next chunk
//! finds it silent and the mixer needs no clearing pass of its own).
//! Real-time safe: one pass over the block (the AVX2 one branches only
//! around the knee), no allocation, every output finite and within
//! `-1.0..=1.0`.

use crate::simd::Isa;

/// Where the output limiter starts bending the signal (about -0.9 dB).
pub const LIMITER_THRESHOLD: f32 = 0.9;

/// Writes `out[2k] = soft_limit(l[k] * gain)`, `out[2k + 1] = soft_limit(r[k] * gain)`
/// for every frame `k` that `l`, `r` and `out` all hold, and sets those
/// frames of `l` and `r` to 0.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn interleave_limited(
    l: &mut [f32],
    r: &mut [f32],
    gain: f32,
    out: &mut [f32],
    isa: Isa,
) {
    #[cfg(target_arch = "x86_64")]
    if let Isa::Avx2(_) = isa {
        // SAFETY: an `Avx2` token exists only on a CPU with AVX2.
        unsafe {
            // `x * 1.0` is `x` bit for bit (a NaN stays a NaN, and becomes
            // 0 either way), so unity gain skips the multiplication.
            if gain == 1.0 {
                interleave_limited_avx2::<false>(l, r, gain, out);
            } else {
                interleave_limited_avx2::<true>(l, r, gain, out);
            }
        };
        return;
    }
    interleave_limited_body(l, r, gain, out)
}

#[inline(always)]
fn interleave_limited_body(l: &mut [f32], r: &mut [f32], gain: f32, out: &mut [f32]) {
    let n = l.len().min(r.len()).min(out.len() / 2);
    for ((o, &a), &b) in out.chunks_exact_mut(2).zip(&*l).zip(&*r) {
        o[0] = soft_limit(a * gain);
        o[1] = soft_limit(b * gain);
    }
    l[..n].fill(0.0);
    r[..n].fill(0.0);
}

/// [`interleave_limited_body`] with AVX2, eight frames at a time (same
/// results, bit for bit), multiplying by `gain` only if `SCALED`. Where all
/// eight frames of both channels are within the threshold and above the
/// output floor (the common case: a mix that is not being limited),
/// [`soft_limit`] is the identity, so they are written as they are and the
/// knee (a division) is skipped; otherwise the knee is computed for the
/// eight frames with [`soft_limit`]'s exact operations.
///
/// That test runs on the magnitudes' bits as integers: for floats of the
/// same sign their bits order as the numbers do, and a NaN's bits are above
/// infinity's, so one integer maximum and minimum over both channels find
/// the loudest and quietest lanes (NaN counting as loudest), and the signs
/// of their differences from the limits' bits tell whether any lane is out.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn interleave_limited_avx2<const SCALED: bool>(
    l: &mut [f32],
    r: &mut [f32],
    gain: f32,
    out: &mut [f32],
) {
    use std::arch::x86_64::*;

    let n = l.len().min(r.len()).min(out.len() / 2);
    let groups = n / 8;
    let g = _mm256_set1_ps(gain);
    let sign = _mm256_set1_ps(-0.0);
    let t = _mm256_set1_ps(LIMITER_THRESHOLD);
    let magnitude = _mm256_set1_epi32(i32::MAX);
    let t_bits = _mm256_set1_epi32(LIMITER_THRESHOLD.to_bits() as i32);
    let floor_bits = _mm256_set1_epi32(OUTPUT_FLOOR.to_bits() as i32);
    let floor = _mm256_set1_ps(OUTPUT_FLOOR);
    let inf = _mm256_set1_ps(f32::INFINITY);
    let one_minus_t = _mm256_set1_ps(1.0 - LIMITER_THRESHOLD);
    let k = _mm256_set1_ps(KNEE_OFFSET);
    // `soft_limit` on eight lanes, with the same operations in the same
    // order (a NaN lane is written as 0 whatever the blend made of it).
    let limit = |x: __m256| {
        let a = _mm256_andnot_ps(sign, x);
        let q = _mm256_div_ps(_mm256_sub_ps(a, t), _mm256_add_ps(a, k));
        let bent = _mm256_add_ps(t, _mm256_mul_ps(one_minus_t, q));
        let y = _mm256_blendv_ps(bent, a, _mm256_cmp_ps::<_CMP_LE_OQ>(a, t));
        let keep = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_GE_OQ>(a, floor),
            _mm256_cmp_ps::<_CMP_LT_OQ>(a, inf),
        );
        let y = _mm256_and_ps(y, keep);
        _mm256_or_ps(y, _mm256_and_ps(x, sign))
    };
    for j in 0..groups {
        // SAFETY: j < n / 8 with n <= l.len(), r.len() and out.len() / 2, so
        // frames 8j .. 8j + 8 of `l` and `r` (read, then cleared), and
        // samples 16j .. 16j + 16 of `out`, exist.
        unsafe {
            let (pl, pr) = (l.as_mut_ptr().add(8 * j), r.as_mut_ptr().add(8 * j));
            let (mut xl, mut xr) = (_mm256_loadu_ps(pl), _mm256_loadu_ps(pr));
            _mm256_storeu_ps(pl, _mm256_setzero_ps());
            _mm256_storeu_ps(pr, _mm256_setzero_ps());
            if SCALED {
                xl = _mm256_mul_ps(xl, g);
                xr = _mm256_mul_ps(xr, g);
            }
            // Lanes where `soft_limit` is the identity: floor <= |x| <= T.
            let al = _mm256_and_si256(_mm256_castps_si256(xl), magnitude);
            let ar = _mm256_and_si256(_mm256_castps_si256(xr), magnitude);
            // (All four are in 0 ..= i32::MAX, so neither difference
            // overflows: each is negative exactly where a lane is out.)
            let over = _mm256_sub_epi32(t_bits, _mm256_max_epi32(al, ar));
            let under = _mm256_sub_epi32(_mm256_min_epi32(al, ar), floor_bits);
            let outside = _mm256_castsi256_ps(_mm256_or_si256(over, under));
            let (yl, yr) = if _mm256_testz_ps(outside, outside) == 1 {
                (xl, xr)
            } else {
                (limit(xl), limit(xr))
            };
            // Interleave: frames 0-3 and 4-7 of (l, r) pairs.
            let lo = _mm256_unpacklo_ps(yl, yr); // l0 r0 l1 r1 | l4 r4 l5 r5
            let hi = _mm256_unpackhi_ps(yl, yr); // l2 r2 l3 r3 | l6 r6 l7 r7
            let o = out.as_mut_ptr().add(16 * j);
            _mm256_storeu_ps(o, _mm256_permute2f128_ps::<0x20>(lo, hi));
            _mm256_storeu_ps(o.add(8), _mm256_permute2f128_ps::<0x31>(lo, hi));
        }
    }
    let done = groups * 8;
    interleave_limited_body(
        &mut l[done..n],
        &mut r[done..n],
        gain,
        &mut out[2 * done..2 * n],
    );
}

/// Output magnitudes below this (about -600 dBFS) are written as 0, so no
/// denormal number ever reaches the device, whatever `master_gain` is.
const OUTPUT_FLOOR: f32 = 1.0e-30;

/// `1 - 2T`, exact in `f32` (Sterbenz: `2T` is within a factor of two of 1).
const KNEE_OFFSET: f32 = 1.0 - 2.0 * LIMITER_THRESHOLD;

/// Unity gain up to [`LIMITER_THRESHOLD`] `T`, then a smooth knee towards
/// 1.0: `T + (1 - T) * u / (1 + u)` with `u = (|x| - T) / (1 - T)`, computed
/// as `T + (1 - T) * (|x| - T) / (|x| + 1 - 2T)` (the same curve, one
/// division instead of two, and no overflow: the quotient is at most 1).
/// Non-finite input becomes 0, and so does anything below [`OUTPUT_FLOOR`].
/// Branch-free, so that the compiler vectorizes the loop that calls it.
///
/// Denormals inside the mix: none are made in the first place, rather than
/// flushed by the CPU (changing the floating-point control register from
/// Rust is not something the language allows for). Samples are stored as
/// exact 0 below 1e-15 at load, volumes below 1e-5 are 0, and every gain a
/// voice or ramp produces is far above the denormal range, so each voice's
/// contribution to the bus is 0 or a normal number.
#[inline(always)]
fn soft_limit(x: f32) -> f32 {
    const T: f32 = LIMITER_THRESHOLD;
    let a = x.abs();
    let bent = T + (1.0 - T) * ((a - T) / (a + KNEE_OFFSET));
    let y = if a <= T { a } else { bent };
    // NaN and infinity fail `a < INFINITY`.
    let y = if (OUTPUT_FLOOR..f32::INFINITY).contains(&a) {
        y
    } else {
        0.0
    };
    y.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::soft_limit;

    /// The AVX2 output stage (when this CPU has AVX2) writes exactly the
    /// portable one's bits: quiet and loud stretches, the threshold, the
    /// floor, zeros of both signs, huge, infinite and NaN samples, any
    /// gain (unity too), lengths that are not a multiple of eight; and both
    /// leave the bus they read silent.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_output_stage_matches_the_portable_one_bit_for_bit() {
        use crate::simd::Isa;
        if Isa::detect() == Isa::Scalar {
            return;
        }
        let mut z = 99u64;
        let mut next = move || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        let special = [
            0.0,
            -0.0,
            0.9,
            -0.9,
            0.900_000_1,
            1e-30,
            -1e-30,
            9.9e-31,
            1e-40,
            f32::MAX,
            -f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7F80_0001), // a signalling NaN
            f32::from_bits(0xFFC0_1234), // a negative NaN with a payload
            1e30,
            3.0,
        ];
        for round in 0..400 {
            let n = (next() % 100) as usize;
            let quiet = round % 3 == 0;
            let mut sample = || {
                let k = next();
                if !quiet && k % 11 == 0 {
                    special[(k >> 8) as usize % special.len()]
                } else {
                    ((k >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
                        * if quiet { 0.8 } else { 2.5 }
                }
            };
            let l: Vec<f32> = (0..n).map(|_| sample()).collect();
            let r: Vec<f32> = (0..n).map(|_| sample()).collect();
            let gain = [1.0, 0.5, 1.7, 0.0][round % 4];
            let mut want = vec![7.0f32; 2 * n];
            let mut got = vec![7.0f32; 2 * n];
            let (mut l1, mut r1) = (l.clone(), r.clone());
            super::interleave_limited(&mut l1, &mut r1, gain, &mut want, Isa::Scalar);
            let (mut l2, mut r2) = (l.clone(), r.clone());
            super::interleave_limited(&mut l2, &mut r2, gain, &mut got, Isa::detect());
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "round {round} gain {gain}");
            for bus in [&l1, &r1, &l2, &r2] {
                assert!(bus.iter().all(|&x| x.to_bits() == 0), "round {round}");
            }
        }
    }

    /// The knee, computed with one division, is the curve
    /// `T + (1 - T) u / (1 + u)`, `u = (|x| - T) / (1 - T)`, to within one
    /// unit in the last place everywhere above the threshold (what the
    /// two-division form it replaced achieved too).
    #[test]
    fn the_knee_is_its_curve_to_within_an_ulp() {
        let t = f64::from(super::LIMITER_THRESHOLD);
        let exact = |x: f32| {
            let u = (f64::from(x) - t) / (1.0 - t);
            t + (1.0 - t) * u / (1.0 + u)
        };
        let mut x = super::LIMITER_THRESHOLD.next_up();
        let mut checked = 0;
        while x < f32::MAX {
            let (y, want) = (soft_limit(x), exact(x));
            let ulp = f64::from((want as f32).next_up()) - f64::from(want as f32);
            assert!((f64::from(y) - want).abs() <= ulp, "{x}: {y} vs {want}");
            assert!(y <= 1.0 && soft_limit(-x) == -y, "{x}");
            // Every float up to 1.5, then steps of 0.1 %.
            x = if x < 1.5 { x.next_up() } else { x * 1.001 };
            checked += 1;
        }
        assert!(checked > 1_000_000);
    }

    #[test]
    fn limiter_is_transparent_below_threshold_and_bounded_above() {
        assert_eq!(soft_limit(0.5), 0.5);
        assert_eq!(soft_limit(-0.9), -0.9);
        assert!(soft_limit(1.0) < 1.0 && soft_limit(1.0) > 0.9);
        assert!(soft_limit(1e30) <= 1.0);
        assert!(soft_limit(-1e30) >= -1.0);
        assert_eq!(soft_limit(f32::NAN), 0.0);
        assert_eq!(soft_limit(f32::INFINITY), 0.0);
        assert!(soft_limit(f32::MAX) <= 1.0 && soft_limit(f32::MAX) > 0.9);
        assert!(soft_limit(-f32::MAX) >= -1.0);
        assert_eq!(soft_limit(1e-40), 0.0);
        assert_eq!(soft_limit(-1e-31), 0.0);
        assert_eq!(soft_limit(1e-29), 1e-29);
        // Monotonic: louder in, louder (or equal) out.
        let mut last = 0.0;
        for i in 0..1000 {
            let y = soft_limit(i as f32 * 0.01);
            assert!(y >= last);
            last = y;
        }
    }
}
