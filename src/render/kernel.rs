//! Mixing kernels: the inner loops that add one voice's segment of frames
//! into the planar mix bus (one buffer per output channel).
//!
//! A segment is a run of output frames over which nothing changes but the
//! source position (which advances by a fixed step) and, during a ramp, the
//! gain (which changes by a fixed amount per frame). [`super::voice::Voice`]
//! cuts its block into segments at the sound's end, the loop point and the
//! end of a gain ramp, so the loops here never branch on voice state.
//!
//! Every kernel has a portable scalar version and, on x86-64 machines with
//! AVX2 (detected at run time; nothing is assumed at compile time), an AVX2
//! version. The two compute every output sample with the same `f32`
//! operations in the same order (no fused multiply-add), so a render is
//! bit-identical on every machine, with or without AVX2. The unit tests check
//! this.
//!
//! Real-time contract: no allocation, no panics. Each entry point checks once
//! that every frame the segment will read lies inside the sample data, and
//! renders nothing if not; the loops then index without bounds checks, each
//! `unsafe` block justified by that one check.

use crate::simd::Isa;

/// Fractional bits of a source position (32.32 fixed point).
pub(crate) const FRAC_BITS: u32 = 32;
/// 1.0 in 32.32 fixed point.
pub(crate) const FRAC_ONE: u64 = 1 << FRAC_BITS;
/// The fraction bits of a 32.32 position.
pub(crate) const FRAC_MASK: u64 = FRAC_ONE - 1;
/// The largest step the AVX2 kernels take (2^13 source frames per output
/// frame; real steps stay below 2^13 / 4: rate ratio at most 96, pitch at most 64).
#[cfg(target_arch = "x86_64")]
const MAX_SIMD_STEP: u64 = 1 << 45;
/// Interpolation uses the top 24 bits of the fraction (all an `f32` holds).
const FRAC_SCALE: f32 = 1.0 / (1u32 << 24) as f32;

/// Gain per output channel at a segment's first frame, and its change per
/// frame (used only by ramp segments).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gain {
    pub(crate) l: f32,
    pub(crate) r: f32,
    pub(crate) dl: f32,
    pub(crate) dr: f32,
}

/// The interpolation fraction of a 32.32 position: its top 24 fraction bits,
/// converted exactly.
#[inline(always)]
pub(crate) fn frac(p: u64) -> f32 {
    (((p as u32) >> 8) as i32) as f32 * FRAC_SCALE
}

/// Linear interpolation as every kernel computes it.
#[inline(always)]
pub(crate) fn lerp(a: f32, b: f32, f: f32) -> f32 {
    a + (b - a) * f
}

/// Gains at frame `k` of a segment. (`k` is an `i32` so that vectorized
/// loops convert it with one instruction; segments are far shorter than
/// 2^24 frames, so the conversion is exact.)
#[inline(always)]
fn gains_at<const RAMP: bool>(g: Gain, k: i32) -> (f32, f32) {
    if RAMP {
        let k = k as f32;
        (g.l + g.dl * k, g.r + g.dr * k)
    } else {
        (g.l, g.r)
    }
}

/// Adds `min(l.len(), r.len())` frames of a `channels`-channel source into
/// `l` and `r`: frame `k` is the source read at 32.32 position
/// `pos + k * step`, linearly interpolated, times the gain at `k` (constant
/// unless `ramp`). A mono source feeds both outputs; a stereo one feeds left
/// from left and right from right.
///
/// `data` is interleaved. Returns `false` and adds nothing if a frame the
/// segment needs (its last position's frame and the one after it) lies
/// outside `data`; a voice's segment arithmetic rules that out.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mix(
    isa: Isa,
    channels: usize,
    data: &[f32],
    pos: u64,
    step: u64,
    l: &mut [f32],
    r: &mut [f32],
    g: Gain,
    ramp: bool,
) -> bool {
    let n = l.len().min(r.len());
    let (l, r) = (&mut l[..n], &mut r[..n]);
    if n == 0 {
        return true;
    }
    // The last position read; positions only grow, so every frame index the
    // segment reads is at most `last_idx + 1`.
    let Some(last) = step
        .checked_mul(n as u64 - 1)
        .and_then(|d| pos.checked_add(d))
    else {
        return false;
    };
    let Ok(last_idx) = usize::try_from(last >> FRAC_BITS) else {
        return false;
    };
    let ch = if channels == 1 { 1 } else { 2 };
    // Samples the scalar kernels need: every channel of frame last_idx + 1.
    let Some(needed) = last_idx.checked_add(2).and_then(|f| f.checked_mul(ch)) else {
        return false;
    };
    if needed > data.len() {
        return false;
    }
    if step == FRAC_ONE && pos & FRAC_MASK == 0 {
        // Rate-matched, pitch 1.0: a straight copy with gain.
        let start = (pos >> FRAC_BITS) as usize * ch;
        let src = &data[start..start + n * ch]; // within `needed`, checked above
        #[cfg(target_arch = "x86_64")]
        if let Isa::Avx2(_) = isa {
            // SAFETY: an `Avx2` token exists only on a CPU with AVX2
            // (`Isa::detect`); `exact_avx2` needs nothing else.
            unsafe {
                match (ch, ramp) {
                    (1, false) => exact_avx2::<1, false>(src, l, r, g),
                    (1, true) => exact_avx2::<1, true>(src, l, r, g),
                    (_, false) => exact_avx2::<2, false>(src, l, r, g),
                    (_, true) => exact_avx2::<2, true>(src, l, r, g),
                }
            }
            return true;
        }
        match (ch, ramp) {
            (1, false) => exact::<1, false>(src, l, r, g),
            (1, true) => exact::<1, true>(src, l, r, g),
            (_, false) => exact::<2, false>(src, l, r, g),
            (_, true) => exact::<2, true>(src, l, r, g),
        }
        return true;
    }
    #[cfg(target_arch = "x86_64")]
    if matches!(isa, Isa::Avx2(_)) && step <= MAX_SIMD_STEP {
        // The window each AVX2 variant loads: 9 or 17 frames (all `ch`
        // samples of each) from the first index of each group of 8 (at most
        // `last_idx`), or for the gathers exactly the frames the scalar code
        // reads.
        // (No overflow: `(last_idx + 2) * ch <= data.len()`, checked above,
        // and a slice of `f32` holds fewer than `usize::MAX / 4` of them.)
        let (mode, window) = match step {
            s if s <= FRAC_ONE => (MODE_PERMUTE8, (last_idx + 9) * ch),
            s if s <= 2 * FRAC_ONE => (MODE_PERMUTE16, (last_idx + 17) * ch),
            _ => (MODE_GATHER, needed),
        };
        if window <= data.len() {
            // SAFETY: the CPU has AVX2 (an `Avx2` token), and every load the
            // kernel makes lies within `data`: checked just above for its
            // mode's window, given positions that only grow from `pos` to
            // `last`; and `step <= 2^45` as the kernel requires.
            unsafe {
                match (ch, ramp, mode) {
                    (1, false, MODE_PERMUTE8) => {
                        interp_avx2::<1, false, MODE_PERMUTE8>(data, pos, step, l, r, g)
                    }
                    (1, true, MODE_PERMUTE8) => {
                        interp_avx2::<1, true, MODE_PERMUTE8>(data, pos, step, l, r, g)
                    }
                    (1, false, MODE_PERMUTE16) => {
                        interp_avx2::<1, false, MODE_PERMUTE16>(data, pos, step, l, r, g)
                    }
                    (1, true, MODE_PERMUTE16) => {
                        interp_avx2::<1, true, MODE_PERMUTE16>(data, pos, step, l, r, g)
                    }
                    (1, false, _) => interp_avx2::<1, false, MODE_GATHER>(data, pos, step, l, r, g),
                    (1, true, _) => interp_avx2::<1, true, MODE_GATHER>(data, pos, step, l, r, g),
                    (_, false, MODE_PERMUTE8) => {
                        interp_avx2::<2, false, MODE_PERMUTE8>(data, pos, step, l, r, g)
                    }
                    (_, true, MODE_PERMUTE8) => {
                        interp_avx2::<2, true, MODE_PERMUTE8>(data, pos, step, l, r, g)
                    }
                    (_, false, MODE_PERMUTE16) => {
                        interp_avx2::<2, false, MODE_PERMUTE16>(data, pos, step, l, r, g)
                    }
                    (_, true, MODE_PERMUTE16) => {
                        interp_avx2::<2, true, MODE_PERMUTE16>(data, pos, step, l, r, g)
                    }
                    (_, false, _) => interp_avx2::<2, false, MODE_GATHER>(data, pos, step, l, r, g),
                    (_, true, _) => interp_avx2::<2, true, MODE_GATHER>(data, pos, step, l, r, g),
                }
            }
            return true;
        }
    }
    // SAFETY: `needed <= data.len()` was checked above: every frame index
    // read is at most `last_idx + 1`, all `ch` samples of it included.
    unsafe {
        match (ch, ramp) {
            (1, false) => interp::<1, false>(data, pos, step, l, r, g, 0),
            (1, true) => interp::<1, true>(data, pos, step, l, r, g, 0),
            (_, false) => interp::<2, false>(data, pos, step, l, r, g, 0),
            (_, true) => interp::<2, true>(data, pos, step, l, r, g, 0),
        }
    }
    true
}

/// Step 1.0 from a whole-frame position: `src` holds exactly the frames.
/// Written so that the compiler vectorizes it for whatever the target has.
#[inline(always)]
fn exact<const CH: usize, const RAMP: bool>(src: &[f32], l: &mut [f32], r: &mut [f32], g: Gain) {
    let frames = src.chunks_exact(CH);
    for (k, ((ol, or), s)) in (0..).zip(l.iter_mut().zip(r.iter_mut()).zip(frames)) {
        let (gl, gr) = gains_at::<RAMP>(g, k);
        *ol += s[0] * gl;
        *or += s[CH - 1] * gr;
    }
}

/// [`exact`], compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn exact_avx2<const CH: usize, const RAMP: bool>(
    src: &[f32],
    l: &mut [f32],
    r: &mut [f32],
    g: Gain,
) {
    exact::<CH, RAMP>(src, l, r, g)
}

/// Any step: linear interpolation between neighbouring frames, one frame at
/// a time. `k0` is the index of `l[0]` within the segment (for the ramp).
///
/// # Safety
/// Every frame index read, `(pos + k * step) >> 32` and the one after it for
/// `k < l.len()`, must lie within `data` (all `CH` samples of it).
#[inline(always)]
unsafe fn interp<const CH: usize, const RAMP: bool>(
    data: &[f32],
    pos: u64,
    step: u64,
    l: &mut [f32],
    r: &mut [f32],
    g: Gain,
    k0: usize,
) {
    let mut p = pos;
    for (k, (ol, or)) in (k0 as i32..).zip(l.iter_mut().zip(r.iter_mut())) {
        let i = (p >> FRAC_BITS) as usize * CH;
        // SAFETY: frames `p >> 32` and the next are within `data` (the
        // function's precondition), so indices `i ..= i + 2 * CH - 1` are.
        let (al, bl, ar, br) = unsafe {
            (
                *data.get_unchecked(i),
                *data.get_unchecked(i + CH),
                *data.get_unchecked(i + CH - 1),
                *data.get_unchecked(i + 2 * CH - 1),
            )
        };
        let f = frac(p);
        let vl = lerp(al, bl, f);
        let vr = if CH == 1 { vl } else { lerp(ar, br, f) };
        let (gl, gr) = gains_at::<RAMP>(g, k);
        *ol += vl * gl;
        *or += vr * gr;
        p = p.wrapping_add(step);
    }
}

#[cfg(target_arch = "x86_64")]
const MODE_PERMUTE8: u8 = 0;
#[cfg(target_arch = "x86_64")]
const MODE_PERMUTE16: u8 = 1;
#[cfg(target_arch = "x86_64")]
const MODE_GATHER: u8 = 2;

/// [`interp`] eight frames at a time with AVX2, then the remainder with
/// [`interp`]. The eight positions are computed with 64-bit integer lanes;
/// the two source frames each needs are fetched by `MODE`:
///
/// - `MODE_PERMUTE8` (step <= 1): the eight frames span at most 8 source
///   frames from the group's first index `i0`, so unaligned loads of the
///   window (at `i0` and `i0 + 1`) and in-register permutes replace a gather.
///   Mono: two loads, two permutes. Stereo: two loads of 8 interleaved
///   frames each; one `shuffle_ps` per channel splits each into left and
///   right (in the lane order `[0, 1, 4, 5, 2, 3, 6, 7]`, which the permute
///   indices absorb), then four permutes.
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
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn interp_avx2<const CH: usize, const RAMP: bool, const MODE: u8>(
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
        let i0 = (p >> FRAC_BITS) as usize;
        let fr = _mm256_set1_epi64x((p & FRAC_MASK) as i64);
        let ra = _mm256_add_epi64(fr, off_a);
        let rb = _mm256_add_epi64(fr, off_b);
        let (ra, rb) = (_mm256_castsi256_ps(ra), _mm256_castsi256_ps(rb));
        // Low halves: fraction bits; high halves: frame offset from i0.
        let lo = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(ra, rb));
        let rel = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(ra, rb));
        let f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32::<8>(lo)), scale);
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
        } else if CH == 2 {
            // SAFETY: i0 <= last_idx, so sample 2 * i0 is in `data` (the
            // window contract puts (last_idx + 9) * 2 samples in it).
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
            let (al, bl, ar, br) = if MODE == MODE_PERMUTE8 {
                // SAFETY: MODE_PERMUTE8's contract: (last_idx + 9) * 2 <=
                // data.len(), so the 16 samples from frame i0 (frames i0 ..
                // i0 + 8) and the 16 from frame i0 + 1 are in `data`.
                let (x0, x1, y0, y1) = unsafe {
                    (
                        _mm256_loadu_ps(w),
                        _mm256_loadu_ps(w.add(8)),
                        _mm256_loadu_ps(w.add(2)),
                        _mm256_loadu_ps(w.add(10)),
                    )
                };
                let (xl, xr) = split!(x0, x1);
                let (yl, yr) = split!(y0, y1);
                (
                    _mm256_permutevar8x32_ps(xl, idx),
                    _mm256_permutevar8x32_ps(yl, idx),
                    _mm256_permutevar8x32_ps(xr, idx),
                    _mm256_permutevar8x32_ps(yr, idx),
                )
            } else {
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
                (
                    pick!(xl0, xl1),
                    pick!(yl0, yl1),
                    pick!(xr0, xr1),
                    pick!(yr0, yr1),
                )
            };
            (
                _mm256_add_ps(al, _mm256_mul_ps(_mm256_sub_ps(bl, al), f)),
                _mm256_add_ps(ar, _mm256_mul_ps(_mm256_sub_ps(br, ar), f)),
            )
        } else {
            // SAFETY: i0 <= last_idx < data.len() (mono: one sample a frame).
            let w = unsafe { base.add(i0) };
            let (a, b) = if MODE == MODE_PERMUTE8 {
                // SAFETY: MODE_PERMUTE8's contract: last_idx + 9 <= data.len(),
                // so the 8 samples from i0 and from i0 + 1 are in `data`.
                let (wa, wb) = unsafe { (_mm256_loadu_ps(w), _mm256_loadu_ps(w.add(1))) };
                (
                    _mm256_permutevar8x32_ps(wa, rel),
                    _mm256_permutevar8x32_ps(wb, rel),
                )
            } else {
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
                (
                    _mm256_blendv_ps(
                        _mm256_permutevar8x32_ps(wa0, rel),
                        _mm256_permutevar8x32_ps(wa1, rel),
                        high,
                    ),
                    _mm256_blendv_ps(
                        _mm256_permutevar8x32_ps(wb0, rel),
                        _mm256_permutevar8x32_ps(wb1, rel),
                        high,
                    ),
                )
            };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A little deterministic generator (no dependency needed for this).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn f32(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn render(
        isa: Isa,
        ch: usize,
        data: &[f32],
        pos: u64,
        step: u64,
        n: usize,
        g: Gain,
        ramp: bool,
    ) -> Vec<u32> {
        let mut l = vec![0.25f32; n];
        let mut r = vec![-0.5f32; n];
        assert!(mix(isa, ch, data, pos, step, &mut l, &mut r, g, ramp));
        l.iter().chain(&r).map(|x| x.to_bits()).collect()
    }

    /// The AVX2 kernels (when this CPU has them) produce exactly the scalar
    /// kernels' bits, for every mode, ramped or not, at any start.
    #[test]
    fn simd_and_scalar_kernels_agree_bit_for_bit() {
        let mut rng = Rng(7);
        let frames = 3_000;
        for ch in [1usize, 2] {
            let mut data: Vec<f32> = (0..frames * ch).map(|_| rng.f32()).collect();
            data.extend(std::iter::repeat_n(0.0, 16 * ch));
            let steps = [
                FRAC_ONE,
                FRAC_ONE / 3,
                (0.91875 * FRAC_ONE as f64) as u64,
                FRAC_ONE + 12_345,
                2 * FRAC_ONE,
                2 * FRAC_ONE + 1,
                (5.3 * FRAC_ONE as f64) as u64,
            ];
            for &step in &steps {
                for _ in 0..20 {
                    let n = (rng.next() % 300) as usize;
                    let span = (step as u128 * n as u128) >> 32;
                    let max_start = frames as u128 - span - 2;
                    let start = (rng.next() as u128 % max_start) as u64;
                    let pos = (start << 32)
                        | if rng.next().is_multiple_of(3) {
                            0
                        } else {
                            rng.next() & FRAC_MASK
                        };
                    let g = Gain {
                        l: rng.f32(),
                        r: rng.f32(),
                        dl: rng.f32() * 1e-3,
                        dr: rng.f32() * 1e-3,
                    };
                    for ramp in [false, true] {
                        let scalar = render(Isa::Scalar, ch, &data, pos, step, n, g, ramp);
                        let best = render(Isa::detect(), ch, &data, pos, step, n, g, ramp);
                        assert_eq!(
                            scalar, best,
                            "ch {ch} step {step:#x} pos {pos:#x} n {n} ramp {ramp}"
                        );
                    }
                }
            }
        }
    }

    /// Every AVX2 mode (when this CPU has AVX2), called directly, matches
    /// the scalar kernel bit for bit: stereo and mono, random positions,
    /// steps below, around and at each window's bound and beyond it, ramps
    /// on and off, all lengths up to a few groups, on sound-like data (its
    /// frames then 16 zero guard frames) and loop-tile-like data (a short
    /// period repeated, then 17 frames carrying on), read right up to the
    /// last frame the voice's segment arithmetic allows.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn each_simd_mode_matches_the_scalar_kernel_bit_for_bit() {
        if !matches!(Isa::detect(), Isa::Avx2(_)) {
            return;
        }
        let mut rng = Rng(15);
        let one = FRAC_ONE as f64;
        let steps: Vec<u64> = [
            0.001, 0.25, 0.5, 0.91875, 0.999_999, 1.0, 1.000_001, 1.088, 1.5, 1.999_999, 2.0,
            2.000_001, 2.177, 3.7,
        ]
        .iter()
        .map(|&x| (x * one) as u64)
        .chain([
            FRAC_ONE - 1,
            FRAC_ONE + 1,
            2 * FRAC_ONE - 1,
            2 * FRAC_ONE + 1,
        ])
        .collect();
        let mut runs = 0;
        for ch in [1usize, 2] {
            for tile in [false, true] {
                // Sound: `frames` frames + 16 guard frames of zeros, read up
                // to frame `frames` (the last position's frame below it).
                // Tile: `period` frames + 17 carrying on, read likewise.
                let frames = 40 + (rng.next() % 400) as usize;
                let mut data: Vec<f32> = if tile {
                    let period = 1 + (rng.next() % 7) as usize;
                    let cycle: Vec<f32> = (0..period * ch).map(|_| rng.f32()).collect();
                    cycle
                        .iter()
                        .copied()
                        .cycle()
                        .take((frames + 17) * ch)
                        .collect()
                } else {
                    (0..frames * ch).map(|_| rng.f32()).collect()
                };
                data.resize((frames + 16 + usize::from(tile)) * ch, 0.0);
                for &step in &steps {
                    for _ in 0..60 {
                        let n = 1 + (rng.next() % 70) as usize;
                        let span = step * (n as u64 - 1);
                        // Any start whose last position's frame is below
                        // `frames`; one in four as late as that allows.
                        let max_pos = ((frames as u64) << FRAC_BITS) - 1;
                        let Some(room) = max_pos.checked_sub(span) else {
                            continue;
                        };
                        let pos = if rng.next().is_multiple_of(4) {
                            room - rng.next() % FRAC_ONE.min(room + 1)
                        } else {
                            rng.next() % (room + 1)
                        };
                        let pos = if rng.next().is_multiple_of(5) {
                            pos & !FRAC_MASK
                        } else {
                            pos
                        };
                        let last_idx = ((pos + span) >> FRAC_BITS) as usize;
                        let g = Gain {
                            l: rng.f32(),
                            r: rng.f32(),
                            dl: rng.f32() * 1e-2,
                            dr: rng.f32() * 1e-2,
                        };
                        for ramp in [false, true] {
                            let mut want_l: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
                            let mut want_r: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
                            let (l0, r0) = (want_l.clone(), want_r.clone());
                            // SAFETY: the last position's frame is below
                            // `frames`, and frame `frames` is in `data`.
                            unsafe {
                                match (ch, ramp) {
                                    (1, false) => interp::<1, false>(
                                        &data,
                                        pos,
                                        step,
                                        &mut want_l,
                                        &mut want_r,
                                        g,
                                        0,
                                    ),
                                    (1, true) => interp::<1, true>(
                                        &data,
                                        pos,
                                        step,
                                        &mut want_l,
                                        &mut want_r,
                                        g,
                                        0,
                                    ),
                                    (_, false) => interp::<2, false>(
                                        &data,
                                        pos,
                                        step,
                                        &mut want_l,
                                        &mut want_r,
                                        g,
                                        0,
                                    ),
                                    (_, true) => interp::<2, true>(
                                        &data,
                                        pos,
                                        step,
                                        &mut want_l,
                                        &mut want_r,
                                        g,
                                        0,
                                    ),
                                }
                            }
                            let modes = [
                                (MODE_PERMUTE8, FRAC_ONE, 9),
                                (MODE_PERMUTE16, 2 * FRAC_ONE, 17),
                                (MODE_GATHER, MAX_SIMD_STEP, 2),
                            ];
                            for (mode, bound, window) in modes {
                                if step > bound || (last_idx + window) * ch > data.len() {
                                    continue;
                                }
                                let (mut l, mut r) = (l0.clone(), r0.clone());
                                macro_rules! call {
                                    ($ch:literal, $ramp:literal, $mode:ident) => {
                                        interp_avx2::<$ch, $ramp, $mode>(
                                            &data, pos, step, &mut l, &mut r, g,
                                        )
                                    };
                                }
                                // SAFETY: the CPU has AVX2 (checked above),
                                // step <= 2^45, and the mode's window fits
                                // (checked just above).
                                unsafe {
                                    match (ch, ramp, mode) {
                                        (1, false, MODE_PERMUTE8) => call!(1, false, MODE_PERMUTE8),
                                        (1, true, MODE_PERMUTE8) => call!(1, true, MODE_PERMUTE8),
                                        (1, false, MODE_PERMUTE16) => {
                                            call!(1, false, MODE_PERMUTE16)
                                        }
                                        (1, true, MODE_PERMUTE16) => call!(1, true, MODE_PERMUTE16),
                                        (1, false, _) => call!(1, false, MODE_GATHER),
                                        (1, true, _) => call!(1, true, MODE_GATHER),
                                        (_, false, MODE_PERMUTE8) => call!(2, false, MODE_PERMUTE8),
                                        (_, true, MODE_PERMUTE8) => call!(2, true, MODE_PERMUTE8),
                                        (_, false, MODE_PERMUTE16) => {
                                            call!(2, false, MODE_PERMUTE16)
                                        }
                                        (_, true, MODE_PERMUTE16) => call!(2, true, MODE_PERMUTE16),
                                        (_, false, _) => call!(2, false, MODE_GATHER),
                                        (_, true, _) => call!(2, true, MODE_GATHER),
                                    }
                                }
                                let bits =
                                    |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                                assert_eq!(
                                    (bits(&l), bits(&r)),
                                    (bits(&want_l), bits(&want_r)),
                                    "ch {ch} tile {tile} mode {mode} step {step:#x} pos {pos:#x} n {n} ramp {ramp}"
                                );
                                runs += 1;
                            }
                            // And through `mix`, which picks the mode.
                            let (mut l, mut r) = (l0.clone(), r0.clone());
                            assert!(mix(
                                Isa::detect(),
                                ch,
                                &data,
                                pos,
                                step,
                                &mut l,
                                &mut r,
                                g,
                                ramp
                            ));
                            let (mut sl, mut sr) = (l0, r0);
                            assert!(mix(
                                Isa::Scalar,
                                ch,
                                &data,
                                pos,
                                step,
                                &mut sl,
                                &mut sr,
                                g,
                                ramp
                            ));
                            assert!(l
                                .iter()
                                .zip(&sl)
                                .chain(r.iter().zip(&sr))
                                .all(|(a, b)| a.to_bits() == b.to_bits()));
                        }
                    }
                }
            }
        }
        assert!(runs > 10_000, "{runs}");
    }

    #[test]
    fn a_segment_reading_past_the_data_renders_nothing() {
        let data = [1.0f32; 10];
        let g = Gain {
            l: 1.0,
            r: 1.0,
            dl: 0.0,
            dr: 0.0,
        };
        let (mut l, mut r) = ([0.0f32; 8], [0.0f32; 8]);
        assert!(!mix(
            Isa::detect(),
            1,
            &data,
            5 << 32,
            FRAC_ONE,
            &mut l,
            &mut r,
            g,
            false
        ));
        assert!(!mix(
            Isa::detect(),
            1,
            &data,
            u64::MAX - 3,
            FRAC_ONE,
            &mut l,
            &mut r,
            g,
            false
        ));
        assert_eq!(l, [0.0; 8]);
        assert!(mix(
            Isa::detect(),
            1,
            &data,
            0,
            FRAC_ONE,
            &mut l,
            &mut r,
            g,
            false
        ));
        assert_eq!(l, [1.0; 8]);
    }

    #[test]
    fn exact_and_interpolated_paths_agree_on_whole_positions() {
        let data: Vec<f32> = (0..64).map(|i| i as f32 * 0.01).collect();
        let g = Gain {
            l: 0.5,
            r: 0.25,
            dl: 0.0,
            dr: 0.0,
        };
        let mut l = [0.0f32; 32];
        let mut r = [0.0f32; 32];
        assert!(mix(
            Isa::detect(),
            1,
            &data,
            3 << 32,
            FRAC_ONE,
            &mut l,
            &mut r,
            g,
            false
        ));
        for k in 0..32 {
            assert_eq!(l[k], data[3 + k] * 0.5);
            assert_eq!(r[k], data[3 + k] * 0.25);
        }
    }
}
