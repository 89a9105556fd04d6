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
//! version; the interpolating kernel also has a SIMD128 version in
//! WebAssembly built with it (`simd128.rs`). They compute every output
//! sample with the same `f32` operations in the same order (no fused
//! multiply-add), so a render is bit-identical on every machine, with or
//! without AVX2, and in WebAssembly. The unit tests check AVX2 against the
//! portable code; `scripts/wasm_scene.sh`, SIMD128 against the native render.
//!
//! Real-time contract: no allocation, no panics. Each entry point checks once
//! that every frame the segment will read lies inside the sample data, and
//! renders nothing if not; the loops then index without bounds checks, each
//! `unsafe` block justified by that one check.

use crate::simd::Isa;

#[cfg(target_arch = "x86_64")]
#[macro_use]
mod fetch8;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
use avx2::{exact_avx2, interp_avx2, MAX_SIMD_STEP, MODE_GATHER, MODE_PERMUTE16, MODE_PERMUTE8};
mod pair;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;
#[cfg(test)]
mod tests;

pub(crate) use pair::{mix_pair, Segment};

/// Fractional bits of a source position (32.32 fixed point).
pub(crate) const FRAC_BITS: u32 = 32;
/// 1.0 in 32.32 fixed point.
pub(crate) const FRAC_ONE: u64 = 1 << FRAC_BITS;
/// The fraction bits of a 32.32 position.
pub(crate) const FRAC_MASK: u64 = FRAC_ONE - 1;
/// Interpolation uses the top 24 bits of the fraction (all an `f32` holds).
pub(super) const FRAC_SCALE: f32 = 1.0 / (1u32 << 24) as f32;

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

/// The source frame of the last of `n` positions (`n >= 1`) from `pos` at
/// `step`: positions only grow, so every frame a segment reads is at most
/// this one and the next. `None` if it does not fit the arithmetic (no real
/// segment gets there).
#[inline(always)]
fn last_frame(pos: u64, step: u64, n: usize) -> Option<usize> {
    let last = step
        .checked_mul(n as u64 - 1)
        .and_then(|d| pos.checked_add(d))?;
    usize::try_from(last >> FRAC_BITS).ok()
}

/// Whether a segment is a straight copy: rate-matched at pitch 1.0 from a
/// whole frame (the exact kernels, no interpolation).
#[inline(always)]
fn is_copy(pos: u64, step: u64) -> bool {
    step == FRAC_ONE && pos & FRAC_MASK == 0
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
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
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
    // Every frame index the segment reads is at most `last_idx + 1`.
    let Some(last_idx) = last_frame(pos, step, n) else {
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
    if is_copy(pos, step) {
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
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if let Isa::Simd128 = isa {
        use simd128::interp_simd128;
        // SAFETY: `needed <= data.len()` was checked above: every frame
        // index read is at most `last_idx + 1`, all `ch` samples of it
        // included; `l` and `r` were cut to `n` frames each.
        unsafe {
            match (ch, ramp) {
                (1, false) => interp_simd128::<1, false>(data, pos, step, l, r, g),
                (1, true) => interp_simd128::<1, true>(data, pos, step, l, r, g),
                (_, false) => interp_simd128::<2, false>(data, pos, step, l, r, g),
                (_, true) => interp_simd128::<2, true>(data, pos, step, l, r, g),
            }
        }
        return true;
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
pub(super) fn exact<const CH: usize, const RAMP: bool>(
    src: &[f32],
    l: &mut [f32],
    r: &mut [f32],
    g: Gain,
) {
    let frames = src.chunks_exact(CH);
    for (k, ((ol, or), s)) in (0..).zip(l.iter_mut().zip(r.iter_mut()).zip(frames)) {
        let (gl, gr) = gains_at::<RAMP>(g, k);
        *ol += s[0] * gl;
        *or += s[CH - 1] * gr;
    }
}

/// Any step: linear interpolation between neighbouring frames, one frame at
/// a time. `k0` is the index of `l[0]` within the segment (for the ramp).
///
/// # Safety
/// Every frame index read, `(pos + k * step) >> 32` and the one after it for
/// `k < l.len()`, must lie within `data` (all `CH` samples of it).
#[inline(always)]
pub(super) unsafe fn interp<const CH: usize, const RAMP: bool>(
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
