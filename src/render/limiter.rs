//! The output stage: master gain and a soft limiter, from the planar mix bus
//! to the interleaved output. Real-time safe: one branch-free pass, no
//! allocation, every output finite and within `-1.0..=1.0`.

use crate::simd::Isa;

/// Where the output limiter starts bending the signal (about -0.9 dB).
pub const LIMITER_THRESHOLD: f32 = 0.9;

/// Writes `out[2k] = soft_limit(l[k] * gain)`, `out[2k + 1] = soft_limit(r[k] * gain)`.
pub(crate) fn interleave_limited(l: &[f32], r: &[f32], gain: f32, out: &mut [f32], isa: Isa) {
    #[cfg(target_arch = "x86_64")]
    if let Isa::Avx2(_) = isa {
        // SAFETY: an `Avx2` token exists only on a CPU with AVX2.
        unsafe { interleave_limited_avx2(l, r, gain, out) };
        return;
    }
    interleave_limited_body(l, r, gain, out)
}

#[inline(always)]
fn interleave_limited_body(l: &[f32], r: &[f32], gain: f32, out: &mut [f32]) {
    for ((o, &a), &b) in out.chunks_exact_mut(2).zip(l).zip(r) {
        o[0] = soft_limit(a * gain);
        o[1] = soft_limit(b * gain);
    }
}

/// [`interleave_limited_body`] compiled for AVX2 (same results).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn interleave_limited_avx2(l: &[f32], r: &[f32], gain: f32, out: &mut [f32]) {
    interleave_limited_body(l, r, gain, out)
}

/// Output magnitudes below this (about -600 dBFS) are written as 0, so no
/// denormal number ever reaches the device, whatever `master_gain` is.
const OUTPUT_FLOOR: f32 = 1.0e-30;

/// Unity gain up to [`LIMITER_THRESHOLD`], then a smooth knee towards 1.0.
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
    // Capped so that u / (1 + u) stays finite for the largest finite input.
    let u = ((a - T) / (1.0 - T)).min(1.0e30);
    let bent = T + (1.0 - T) * (u / (1.0 + u));
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
