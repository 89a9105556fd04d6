//! The AVX2 rows of a batch of direct-sound filters (`batch.rs`):
//! eight frames of eight lanes at a time, turned from lanes into rows by
//! an 8 x 8 transpose in registers (not a store and a load per sample),
//! both groups of eight lanes run side by side, and turned back.
//! Bit-identical to `batch::run_rows`: the same multiplies and adds in
//! the same order (no fused multiply-add), tested in `direct`'s tests.

use std::arch::x86_64::{
    __m256, _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_permute2f128_ps,
    _mm256_setzero_ps, _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_sub_ps, _mm256_unpackhi_ps,
    _mm256_unpacklo_ps,
};

use super::batch::{run_rows, Coefficients, State, LANES};

/// Eight frames of eight lanes.
const W: usize = 8;

/// Runs every lane's recursion over frames `rows` of `buf` (lane `j` at
/// `buf[j * stride..]`), as [`run_rows`] does.
///
/// # Safety
///
/// The CPU must have AVX2, and `buf` must hold `LANES * stride` samples
/// with `rows.end <= stride`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn rows(
    c: &Coefficients,
    s: &mut State,
    buf: &mut [f32],
    stride: usize,
    rows: std::ops::Range<usize>,
) {
    if buf.len() < LANES * stride || rows.end > stride {
        return;
    }
    let whole = (rows.end - rows.start) / W * W;
    let base = buf.as_mut_ptr();
    // Per group of eight lanes: its coefficients and state.
    let mut k = [[zero(); 5]; 2];
    let (mut s1, mut s2) = ([zero(); 2], [zero(); 2]);
    for g in 0..2 {
        let at = g * W;
        // SAFETY: each array holds `LANES` = 16 lanes: 8 from `at`.
        unsafe {
            k[g] = [
                _mm256_loadu_ps(c.m11.as_ptr().add(at)),
                _mm256_loadu_ps(c.b1.as_ptr().add(at)),
                _mm256_loadu_ps(c.b2.as_ptr().add(at)),
                _mm256_loadu_ps(c.c1.as_ptr().add(at)),
                _mm256_loadu_ps(c.d.as_ptr().add(at)),
            ];
            s1[g] = _mm256_loadu_ps(s.s1.as_ptr().add(at));
            s2[g] = _mm256_loadu_ps(s.s2.as_ptr().add(at));
        }
    }
    let mut i = rows.start;
    while i < rows.start + whole {
        // The two groups' frames, as rows: row `f` is frame `i + f`.
        let mut x = [[zero(); W]; 2];
        for (g, x) in x.iter_mut().enumerate() {
            let mut lanes = [zero(); W];
            for (j, lane) in lanes.iter_mut().enumerate() {
                // SAFETY: lane `g * 8 + j`'s frames `i..i + 8` lie at
                // `base + (g * 8 + j) * stride + i`, with `g * 8 + j < 16`
                // and `i + 8 <= rows.end <= stride`: within `buf`
                // (checked above).
                *lane = unsafe { _mm256_loadu_ps(base.add((g * W + j) * stride + i)) };
            }
            *x = transpose(lanes);
        }
        let mut y = [[zero(); W]; 2];
        // (The two groups' states in registers of their own: one chain
        // each, side by side.)
        let ([mut a0, mut a1], [mut b0, mut b1]) = (s1, s2);
        for f in 0..W {
            y[0][f] = step(&k[0], &mut a0, &mut b0, x[0][f]);
            y[1][f] = step(&k[1], &mut a1, &mut b1, x[1][f]);
        }
        (s1, s2) = ([a0, a1], [b0, b1]);
        for (g, y) in y.into_iter().enumerate() {
            let lanes = transpose(y);
            for (j, lane) in lanes.into_iter().enumerate() {
                // SAFETY: as the loads above.
                unsafe { _mm256_storeu_ps(base.add((g * W + j) * stride + i), lane) };
            }
        }
        i += W;
    }
    for g in 0..2 {
        // SAFETY: `s.s1` and `s.s2` hold 16 lanes: 8 from `g * 8`.
        unsafe {
            _mm256_storeu_ps(s.s1.as_mut_ptr().add(g * W), s1[g]);
            _mm256_storeu_ps(s.s2.as_mut_ptr().add(g * W), s2[g]);
        }
    }
    if i < rows.end {
        run_rows(c, s, buf, stride, i..rows.end);
    }
}

/// One frame of eight lanes: the output, and the state moved on (the
/// arithmetic of `batch::run_rows`).
#[inline]
#[target_feature(enable = "avx2")]
fn step(k: &[__m256; 5], s1: &mut __m256, s2: &mut __m256, x: __m256) -> __m256 {
    let [m11, b1, b2, c1, d] = *k;
    let (a, b) = (*s1, *s2);
    let v = _mm256_sub_ps(x, b);
    *s1 = _mm256_add_ps(_mm256_mul_ps(m11, a), _mm256_mul_ps(b1, v));
    *s2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(b1, a), b), _mm256_mul_ps(b2, v));
    _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(c1, a), b), _mm256_mul_ps(d, v))
}

/// Eight zeros.
#[inline]
#[target_feature(enable = "avx2")]
fn zero() -> __m256 {
    _mm256_setzero_ps()
}

/// An 8 x 8 transpose: `r[a]`'s element `b` comes out as element `a` of
/// row `b`.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose(r: [__m256; W]) -> [__m256; W] {
    let t0 = _mm256_unpacklo_ps(r[0], r[1]);
    let t1 = _mm256_unpackhi_ps(r[0], r[1]);
    let t2 = _mm256_unpacklo_ps(r[2], r[3]);
    let t3 = _mm256_unpackhi_ps(r[2], r[3]);
    let t4 = _mm256_unpacklo_ps(r[4], r[5]);
    let t5 = _mm256_unpackhi_ps(r[4], r[5]);
    let t6 = _mm256_unpacklo_ps(r[6], r[7]);
    let t7 = _mm256_unpackhi_ps(r[6], r[7]);
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ]
}
