//! The AVX2 kernels: [`super::exact`] compiled for AVX2, and
//! [`super::interp`] eight frames at a time, fetching source frames by
//! in-register permutes of window loads (steps up to 2) or by gathers.
//! Every output sample is computed with exactly the portable kernels'
//! `f32` operations in the same order, so the bits are the same.

use super::{exact, interp, Gain, FRAC_BITS, FRAC_MASK, FRAC_SCALE};

/// The largest step the AVX2 kernels take (2^13 source frames per output
/// frame; real steps stay below 2^13 / 4: rate ratio at most 96, pitch at most 64).
pub(super) const MAX_SIMD_STEP: u64 = 1 << 45;

/// [`exact`], compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn exact_avx2<const CH: usize, const RAMP: bool>(
    src: &[f32],
    l: &mut [f32],
    r: &mut [f32],
    g: Gain,
) {
    exact::<CH, RAMP>(src, l, r, g)
}

pub(super) const MODE_PERMUTE8: u8 = 0;
pub(super) const MODE_PERMUTE16: u8 = 1;
pub(super) const MODE_GATHER: u8 = 2;

/// [`interp`] eight frames at a time with AVX2, then the remainder with
/// [`interp`]. The eight positions are computed with 64-bit integer lanes;
/// the two source frames each needs are fetched by `MODE`:
///
/// - `MODE_PERMUTE8` (step <= 1): the eight frames span at most 8 source
///   frames from the group's first index `i0`, so unaligned loads of the
///   window (at `i0` and `i0 + 1`) and in-register permutes replace a gather
///   (`permute8!`, shared with the two-voice kernel).
/// - `MODE_PERMUTE16` (step <= 2): the same over 16 frames, with a blend
///   between two permutes.
/// - `MODE_GATHER`: hardware gathers (any step, mono or stereo).
///
/// The arithmetic per output sample is exactly [`interp`]'s.
///
/// # Safety
/// The CPU must support AVX2; `step <= 2^45`; and with `last_idx` the frame
/// of the last position, `pos + (l.len() - 1) * step`, every load lies in
/// `data`: `(last_idx + 9) * CH <= data.len()` for `MODE_PERMUTE8`,
/// `(last_idx + 17) * CH <= data.len()` for `MODE_PERMUTE16`,
/// `(last_idx + 2) * CH <= data.len()` for `MODE_GATHER`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn interp_avx2<const CH: usize, const RAMP: bool, const MODE: u8>(
    data: &[f32],
    pos: u64,
    step: u64,
    l: &mut [f32],
    r: &mut [f32],
    g: Gain,
) {
    use std::arch::x86_64::*;

    let n = l.len().min(r.len());
    let groups = n / 8;
    let base = data.as_ptr();
    let s = step as i64;
    // Offsets k * step for the lanes of two registers, ordered so that one
    // shuffle of their 32-bit halves yields frames 0..8 in order:
    // a = [0, 1 | 4, 5], b = [2, 3 | 6, 7] (128-bit halves).
    let off_a = _mm256_set_epi64x(5 * s, 4 * s, s, 0);
    let off_b = _mm256_set_epi64x(7 * s, 6 * s, 3 * s, 2 * s);
    let scale = _mm256_set1_ps(FRAC_SCALE);
    let seven = _mm256_set1_epi32(7);
    // Where frame r of 8 lands after a stereo window's deinterleaving
    // `shuffle_ps` (an involution: it swaps frames 2, 3 with 4, 5).
    let order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    let (gl0, gr0) = (_mm256_set1_ps(g.l), _mm256_set1_ps(g.r));
    let (dl, dr) = (_mm256_set1_ps(g.dl), _mm256_set1_ps(g.dr));
    let mut kf = _mm256_setr_ps(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);
    let eight = _mm256_set1_ps(8.0);
    let mut p = pos;
    for j in 0..groups {
        let (i0, rel, f) = positions8!(p, off_a, off_b, scale);
        let (vl, vr) = if MODE == MODE_GATHER {
            // SAFETY: (for all loads in this function) frame i0 + rel[k] is the
            // frame of position p + k * step <= last, so it and the next
            // frame are within `data` by the caller's contract for this
            // mode; likewise the windows below start at i0 <= last_idx.
            let w = unsafe { base.add(i0 * CH) };
            let idx = if CH == 1 {
                rel
            } else {
                _mm256_slli_epi32::<1>(rel)
            };
            // SAFETY: as above: frames i0 + rel[k] and the next are in `data`.
            let (al, bl) = unsafe {
                (
                    _mm256_i32gather_ps::<4>(w, idx),
                    _mm256_i32gather_ps::<4>(w.add(CH), idx),
                )
            };
            let vl = _mm256_add_ps(al, _mm256_mul_ps(_mm256_sub_ps(bl, al), f));
            let vr = if CH == 1 {
                vl
            } else {
                // SAFETY: as above, the right channel of the same frames
                // (CH == 2, so frame i0 + rel[k] + 1 ends at its sample 3).
                let (ar, br) = unsafe {
                    (
                        _mm256_i32gather_ps::<4>(w.add(1), idx),
                        _mm256_i32gather_ps::<4>(w.add(3), idx),
                    )
                };
                _mm256_add_ps(ar, _mm256_mul_ps(_mm256_sub_ps(br, ar), f))
            };
            (vl, vr)
        } else if MODE == MODE_PERMUTE8 {
            // SAFETY: MODE_PERMUTE8's contract: (last_idx + 9) * CH <=
            // data.len() with i0 <= last_idx, and a step of at most 1 keeps
            // every lane's offset at most 7.
            unsafe {
                if CH == 2 {
                    permute8!(2, base, i0, rel, f, order)
                } else {
                    permute8!(1, base, i0, rel, f, order)
                }
            }
        } else if CH == 2 {
            // SAFETY: i0 <= last_idx, so sample 2 * i0 is in `data` (the
            // window contract puts (last_idx + 17) * 2 samples in it).
            let w = unsafe { base.add(2 * i0) };
            // Each lane's frame within the deinterleaved window halves.
            let idx = _mm256_permutevar8x32_epi32(order, rel);
            // Left (even samples) and right (odd samples) of 8 interleaved
            // frames in two registers, frames in `order`.
            macro_rules! split {
                ($x0:expr, $x1:expr) => {
                    (
                        _mm256_shuffle_ps::<0b10_00_10_00>($x0, $x1),
                        _mm256_shuffle_ps::<0b11_01_11_01>($x0, $x1),
                    )
                };
            }
            // SAFETY: MODE_PERMUTE16's contract: (last_idx + 17) * 2 <=
            // data.len(), so the 32 samples from frame i0 (frames i0 ..
            // i0 + 16) and the 32 from frame i0 + 1 are in `data`.
            let (x0, x1, x2, x3, y0, y1, y2, y3) = unsafe {
                (
                    _mm256_loadu_ps(w),
                    _mm256_loadu_ps(w.add(8)),
                    _mm256_loadu_ps(w.add(16)),
                    _mm256_loadu_ps(w.add(24)),
                    _mm256_loadu_ps(w.add(2)),
                    _mm256_loadu_ps(w.add(10)),
                    _mm256_loadu_ps(w.add(18)),
                    _mm256_loadu_ps(w.add(26)),
                )
            };
            let high = _mm256_castsi256_ps(_mm256_cmpgt_epi32(rel, seven));
            let (xl0, xr0) = split!(x0, x1);
            let (xl1, xr1) = split!(x2, x3);
            let (yl0, yr0) = split!(y0, y1);
            let (yl1, yr1) = split!(y2, y3);
            // Lanes with rel > 7 take frame rel - 8 of the second half
            // (the permute uses the low 3 bits of `idx`).
            macro_rules! pick {
                ($lo:expr, $hi:expr) => {
                    _mm256_blendv_ps(
                        _mm256_permutevar8x32_ps($lo, idx),
                        _mm256_permutevar8x32_ps($hi, idx),
                        high,
                    )
                };
            }
            let (al, bl, ar, br) = (
                pick!(xl0, xl1),
                pick!(yl0, yl1),
                pick!(xr0, xr1),
                pick!(yr0, yr1),
            );
            (
                _mm256_add_ps(al, _mm256_mul_ps(_mm256_sub_ps(bl, al), f)),
                _mm256_add_ps(ar, _mm256_mul_ps(_mm256_sub_ps(br, ar), f)),
            )
        } else {
            // SAFETY: i0 <= last_idx < data.len() (mono: one sample a frame).
            let w = unsafe { base.add(i0) };
            // SAFETY: MODE_PERMUTE16's contract: last_idx + 17 <=
            // data.len(), so the 16 samples from i0 and from i0 + 1 are in
            // `data`.
            let (wa0, wa1, wb0, wb1) = unsafe {
                (
                    _mm256_loadu_ps(w),
                    _mm256_loadu_ps(w.add(8)),
                    _mm256_loadu_ps(w.add(1)),
                    _mm256_loadu_ps(w.add(9)),
                )
            };
            let high = _mm256_castsi256_ps(_mm256_cmpgt_epi32(rel, seven));
            let a = _mm256_blendv_ps(
                _mm256_permutevar8x32_ps(wa0, rel),
                _mm256_permutevar8x32_ps(wa1, rel),
                high,
            );
            let b = _mm256_blendv_ps(
                _mm256_permutevar8x32_ps(wb0, rel),
                _mm256_permutevar8x32_ps(wb1, rel),
                high,
            );
            let v = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), f));
            (v, v)
        };
        let (gl, gr) = if RAMP {
            (
                _mm256_add_ps(gl0, _mm256_mul_ps(dl, kf)),
                _mm256_add_ps(gr0, _mm256_mul_ps(dr, kf)),
            )
        } else {
            (gl0, gr0)
        };
        kf = _mm256_add_ps(kf, eight);
        // SAFETY: j < n / 8, so elements 8j .. 8j + 8 of `l` and `r` exist.
        unsafe {
            let pl = l.as_mut_ptr().add(8 * j);
            let pr = r.as_mut_ptr().add(8 * j);
            _mm256_storeu_ps(
                pl,
                _mm256_add_ps(_mm256_loadu_ps(pl), _mm256_mul_ps(vl, gl)),
            );
            _mm256_storeu_ps(
                pr,
                _mm256_add_ps(_mm256_loadu_ps(pr), _mm256_mul_ps(vr, gr)),
            );
        }
        p = p.wrapping_add(8 * step);
    }
    let done = groups * 8;
    // SAFETY: the remaining positions are a tail of the same segment, so
    // their frames are within `data` (implied by every mode's contract).
    unsafe {
        interp::<CH, RAMP>(data, p, step, &mut l[done..n], &mut r[done..n], g, done);
    }
}
