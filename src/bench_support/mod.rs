//! Support for voicepool's own benchmarks, soak run and profiling. **Not part
//! of the public API**: hidden from the docs, may change or vanish in any
//! release. It exists so that `benches/` can measure internal pieces (pool
//! acquire/release, victim choice) without those pieces being made public.

// Test hooks, not public API: no `Debug` owed.
#![allow(missing_debug_implementations)]

mod pool;
mod workload;

pub use pool::*;
pub use workload::*;

use std::f32::consts::TAU;
use std::sync::Arc;

use crate::control::params::PlayParams;
use crate::control::settings::EngineSettings;
use crate::control::Engine;
use crate::math::Libm;
use crate::mixer::Mixer;
use crate::output::offline::OfflineEngine;
use crate::protocol::VoiceHandle;
use crate::protocol::{EngineId, NO_GROUP};
use crate::render::voice::Voice;
use crate::simd::Isa;
use crate::sound::{Sound, SoundData};
use crate::voices::free_list::{FreeList, Slot};
use crate::voices::{Identity, Newcomer, VoicePool};

/// Output frames per block in the benchmark workloads (10 ms at 48 kHz).
pub const BLOCK: usize = 480;

/// Eight one-second mono sine sounds at `rate` (110 Hz to 880 Hz, amplitude 0.5).
pub fn sine_sounds(rate: u32) -> Vec<Sound> {
    (0..8)
        .map(|k| {
            let f = 110.0 * (k + 1) as f32;
            let s: Vec<f32> = (0..rate)
                .map(|i| 0.5 * (TAU * f * i as f32 / rate as f32).lm_sin())
                .collect();
            Sound::from_samples(1, rate, s).expect("valid sine")
        })
        .collect()
}

/// Eight one-second stereo sine sounds at `rate` (left 110 Hz to 880 Hz,
/// right a fifth above, amplitude 0.5), interleaved.
pub fn stereo_sine_sounds(rate: u32) -> Vec<Sound> {
    (0..8)
        .map(|k| {
            let f = 110.0 * (k + 1) as f32;
            let s: Vec<f32> = (0..rate)
                .flat_map(|i| {
                    let t = TAU * i as f32 / rate as f32;
                    [0.5 * (f * t).lm_sin(), 0.5 * (1.5 * f * t).lm_sin()]
                })
                .collect();
            Sound::from_samples(2, rate, s).expect("valid sine")
        })
        .collect()
}

/// `count` different mono sounds at `rate`, sound `k` lasting 1 to 2
/// seconds (`1 + (k % 16) / 16` s) and holding its own mix of two sines
/// (amplitude 0.5): with hundreds of them the sample data (about 260 kB
/// each at 44.1 kHz) is far larger than any cache.
pub fn distinct_sounds(count: usize, rate: u32) -> Vec<Sound> {
    (0..count)
        .map(|k| {
            let frames = rate as usize + rate as usize * (k % 16) / 16;
            let f = 100.0 + 7.0 * k as f32;
            let g = 1.5 * f + 3.0;
            let s: Vec<f32> = (0..frames)
                .map(|i| {
                    let t = TAU * i as f32 / rate as f32;
                    0.3 * (f * t).lm_sin() + 0.2 * (g * t).lm_sin()
                })
                .collect();
            Sound::from_samples(1, rate, s).expect("valid sound")
        })
        .collect()
}

/// An engine and its mixer, for driving the mixer directly.
pub fn engine_and_mixer(settings: EngineSettings) -> (Engine, Mixer) {
    Engine::new(settings).expect("valid settings")
}

/// Re-estimates the audibility of every live voice of `mixer` once (the
/// voice manager's refresh, normally spread over blocks).
pub fn refresh_all_levels(mixer: &mut Mixer) {
    mixer.refresh_all_levels();
}

/// The load-time loudness analysis alone (K-weighting, 5 ms windows,
/// running sums) of interleaved `samples`; returns its total energy so
/// the work cannot be optimized away.
pub fn measure_loudness(samples: &[f32], channels: usize, rate: u32) -> f64 {
    let l = crate::sound::loudness::Loudness::measure(samples, channels, rate);
    l.energy_to(f64::MAX / 4.0, false)
}

/// The four-band analysis as it was made before the critical-band
/// analysis took it over (filters; now no longer run at load) of
/// interleaved `samples`; returns the top band's share.
pub fn measure_bands(samples: &[f32], channels: usize, rate: u32) -> f32 {
    crate::sound::bands::Bands::measure(samples, channels, rate).0[3]
}

/// The load-time critical-band analysis alone (what masking reads: a
/// spectrum per 21 ms window, and from it the four coarse bands) of
/// interleaved `samples`; returns the last window's top band step.
pub fn measure_spectrum(samples: &[f32], channels: usize, rate: u32) -> u8 {
    let (s, _) = crate::sound::spectrum::Spectrum::measure_with_bands(samples, channels, rate);
    let frames = samples.len() / channels.max(1);
    s.shape_at(frames.saturating_sub(1) as f64, frames, false)
        .map_or(0, |q| q[crate::sound::spectrum::BANDS - 1])
}

/// The output stage alone ([`crate::render::limiter`]): `l` and `r` through
/// `gain` and the soft limiter, interleaved into `out` (and the two left
/// silent, as the mixer's bus is after it), with the kernels this machine
/// uses.
pub fn output_stage(l: &mut [f32], r: &mut [f32], gain: f32, out: &mut [f32]) {
    crate::render::limiter::interleave_limited(l, r, gain, out, Isa::detect());
}

/// True when the mixer kernels use AVX2 on this machine.
pub fn simd_kernels_available() -> bool {
    Isa::detect() != Isa::Scalar
}

/// `size_of` a pool slot, in bytes.
pub fn slot_bytes() -> usize {
    std::mem::size_of::<Slot<Voice>>()
}

/// splitmix64: a small, fixed pseudo-random generator for voicepool's own
/// tests, soak run and benches, so a seed means the same run on every
/// machine.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is immaterial here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.bits() % n
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// Uniform in `0.0..1.0`, 24 bits.
    pub fn unit(&mut self) -> f32 {
        (self.bits() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Runs `f` with RealtimeSanitizer's checks bypassed on this thread (with
/// the `rtsan` feature, linked with the runtime as `scripts/rtsan.sh`
/// does; otherwise it simply runs `f`): for a test's block in which a
/// game's effect panics on purpose, since a panic itself (its payload,
/// its message) is not real-time safe. Every other block stays checked.
pub fn outside_rtsan<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "rtsan")]
    let _off = {
        // LLVM 19's names (`rtsan-standalone` calls LLVM 20's).
        extern "C" {
            fn __rtsan_off();
            fn __rtsan_on();
        }
        struct On;
        impl Drop for On {
            fn drop(&mut self) {
                // SAFETY: pairs the `__rtsan_off` below, on the same thread.
                unsafe { __rtsan_on() }
            }
        }
        // SAFETY: a counter in RTSan's per-thread state; `On` undoes it.
        unsafe { __rtsan_off() };
        On
    };
    f()
}
