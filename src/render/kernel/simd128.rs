//! The interpolating kernel in WebAssembly SIMD128 (builds for `wasm32`
//! with the `simd128` target feature: every current browser runs it; a
//! module has no way to ask at run time, so the build chooses).
//!
//! Four output frames at a time: their four 32.32 positions, the
//! interpolation fractions converted four at once, each frame's two source
//! samples per channel loaded into lanes (WebAssembly has no gather), then
//! the interpolation, the gains and the sums four lanes wide. (Two
//! unaligned loads of a mono sound's five frames and a byte swizzle of
//! each, where a step of at most 1 keeps four frames within five, measured
//! slower under V8 than the four loads per vector.) Every lane
//! computes exactly what [`super::interp`] computes for its frame, with the
//! same `f32` operations in the same order (no fused multiply-add), so the
//! output is bit-identical to the portable kernel's (and so to the native
//! render: `scripts/wasm_scene.sh` compares every sample).
//!
//! Real-time contract: no allocation, no panics; the caller's one bounds
//! check ([`super::mix`]) justifies every unchecked load.

use core::arch::wasm32::*;

use super::{interp, Gain, FRAC_BITS, FRAC_SCALE};

/// Adds `min(l.len(), r.len())` interpolated frames into `l` and `r`, as
/// [`interp`] does (with `k0 = 0`).
///
/// # Safety
/// Every frame index read, `(pos + k * step) >> 32` and the one after it
/// for `k < l.len()`, must lie within `data` (all `CH` samples of it), and
/// `l.len() == r.len()`.
#[inline(always)]
pub(super) unsafe fn interp_simd128<const CH: usize, const RAMP: bool>(
    data: &[f32],
    pos: u64,
    step: u64,
    l: &mut [f32],
    r: &mut [f32],
    g: Gain,
) {
    let n = l.len().min(r.len());
    let groups = n / 4;
    let base = data.as_ptr();
    let scale = f32x4_splat(FRAC_SCALE);
    let four = f32x4_splat(4.0);
    let (gl0, gr0) = (f32x4_splat(g.l), f32x4_splat(g.r));
    let (dl, dr) = (f32x4_splat(g.dl), f32x4_splat(g.dr));
    let mut kf = f32x4(0.0, 1.0, 2.0, 3.0);
    let mut p = pos;
    for j in 0..groups {
        let ps = [
            p,
            p.wrapping_add(step),
            p.wrapping_add(step.wrapping_mul(2)),
            p.wrapping_add(step.wrapping_mul(3)),
        ];
        let i = ps.map(|p| (p >> FRAC_BITS) as usize * CH);
        // The fractions as `frac` computes them: the top 24 bits of each
        // position's fraction, as an i32, converted and scaled.
        let low = u32x4(ps[0] as u32, ps[1] as u32, ps[2] as u32, ps[3] as u32);
        let f = f32x4_mul(f32x4_convert_i32x4(u32x4_shr(low, 8)), scale);
        // SAFETY: frames `p >> 32` and the next, for each of these four
        // positions, lie within `data` (the function's precondition), so
        // indices `i ..= i + 2 * CH - 1` do.
        let at = |k: usize| unsafe { *base.add(k) };
        let (al, bl) = (
            f32x4(at(i[0]), at(i[1]), at(i[2]), at(i[3])),
            f32x4(at(i[0] + CH), at(i[1] + CH), at(i[2] + CH), at(i[3] + CH)),
        );
        let vl = f32x4_add(al, f32x4_mul(f32x4_sub(bl, al), f));
        let vr = if CH == 1 {
            vl
        } else {
            let (ar, br) = (
                f32x4(at(i[0] + 1), at(i[1] + 1), at(i[2] + 1), at(i[3] + 1)),
                f32x4(at(i[0] + 3), at(i[1] + 3), at(i[2] + 3), at(i[3] + 3)),
            );
            f32x4_add(ar, f32x4_mul(f32x4_sub(br, ar), f))
        };
        let (gl, gr) = if RAMP {
            (
                f32x4_add(gl0, f32x4_mul(dl, kf)),
                f32x4_add(gr0, f32x4_mul(dr, kf)),
            )
        } else {
            (gl0, gr0)
        };
        kf = f32x4_add(kf, four);
        // SAFETY: j < n / 4, so elements 4j .. 4j + 4 of `l` and `r` exist;
        // unaligned loads and stores are what v128_load and v128_store do.
        unsafe {
            let ol = l.as_mut_ptr().add(4 * j) as *mut v128;
            let or = r.as_mut_ptr().add(4 * j) as *mut v128;
            v128_store(ol, f32x4_add(v128_load(ol), f32x4_mul(vl, gl)));
            v128_store(or, f32x4_add(v128_load(or), f32x4_mul(vr, gr)));
        }
        p = p.wrapping_add(step.wrapping_mul(4));
    }
    let done = groups * 4;
    // SAFETY: the remaining positions are a tail of the segment, whose
    // frames (and the next) lie within `data` (the precondition).
    unsafe {
        interp::<CH, RAMP>(data, p, step, &mut l[done..n], &mut r[done..n], g, done);
    }
}
