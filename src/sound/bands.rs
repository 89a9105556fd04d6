//! [`Bands`]: how a sound's energy is spread over four coarse bands (below
//! 250 Hz, 250 Hz to 1 kHz, 1 to 4 kHz, above 4 kHz), measured once at
//! load, so that stealing can tell what a bus's filters take from it: a
//! high sound behind a 300 Hz low-pass is worth less than a low one.
//!
//! Measured over at most the first [`MEASURED_SECONDS`] (a bounded cost
//! at load), the sound's channels summed, with two-pole low-passes at the
//! band edges: each band's energy is what the low-pass above it passes
//! less what the one below passes. Coarse by design (a filter's slope
//! blurs the edges); the layout leaves room for finer bands per window.

use crate::math::Libm;

/// The bands' representative frequencies, in Hz (a filter's response is
/// read there).
pub(crate) const BAND_HZ: [f32; 4] = [125.0, 500.0, 2_000.0, 8_000.0];

/// The edges between the bands, in Hz.
const EDGES: [f32; 3] = [250.0, 1_000.0, 4_000.0];

/// The most of a sound measured.
const MEASURED_SECONDS: usize = 2;

/// Each band's share of a sound's energy (summing to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bands(pub(crate) [f32; 4]);

impl Bands {
    /// No knowledge: an even spread (streams, silent sounds).
    pub(crate) const FLAT: Bands = Bands([0.25; 4]);

    /// Each band's share times `through` (a filter's power gain in each
    /// band): what is left of the sound after it, as shares of the
    /// sound's energy.
    #[inline]
    pub(crate) fn shaped(&self, through: [f32; 4]) -> Bands {
        Bands([
            self.0[0] * through[0],
            self.0[1] * through[1],
            self.0[2] * through[2],
            self.0[3] * through[3],
        ])
    }

    /// The spread of interleaved `samples` (`channels` per frame) at
    /// `rate`.
    pub(crate) fn measure(samples: &[f32], channels: usize, rate: u32) -> Bands {
        let channels = channels.max(1);
        let frames = (samples.len() / channels).min(MEASURED_SECONDS * rate as usize);
        let mut lows = EDGES.map(|hz| LowPass::new(hz, rate));
        let mut energy = [0.0f64; 4]; // below each edge, then all
        for f in 0..frames {
            let x: f32 = samples[f * channels..(f + 1) * channels].iter().sum();
            for (k, lp) in lows.iter_mut().enumerate() {
                let y = lp.tick(x);
                energy[k] += f64::from(y) * f64::from(y);
            }
            energy[3] += f64::from(x) * f64::from(x);
        }
        if energy[3] <= 0.0 {
            return Bands::FLAT;
        }
        // Each band: what passes below its top edge less what passes below
        // its bottom one (never negative, though a slope can overshoot).
        let mut below = 0.0;
        let mut share = [0.0f32; 4];
        for (k, s) in share.iter_mut().enumerate() {
            let top = energy[k].max(below);
            *s = ((top - below) / energy[3]) as f32;
            below = top;
        }
        let total: f32 = share.iter().sum();
        if total > 0.0 {
            Bands(share.map(|s| s / total))
        } else {
            Bands::FLAT
        }
    }
}

/// A two-pole (Butterworth) state-variable low-pass, for measuring.
struct LowPass {
    a: [f32; 3],
    ic1: f32,
    ic2: f32,
}

impl LowPass {
    fn new(hz: f32, rate: u32) -> LowPass {
        let hz = hz.min(rate as f32 * 0.45);
        let g = (std::f32::consts::PI * hz / rate as f32).lm_tan();
        let k = std::f32::consts::SQRT_2;
        let a1 = 1.0 / (1.0 + g * (g + k));
        LowPass {
            a: [a1, g * a1, g * g * a1],
            ic1: 0.0,
            ic2: 0.0,
        }
    }

    fn tick(&mut self, v0: f32) -> f32 {
        let v3 = v0 - self.ic2;
        let v1 = self.a[0] * self.ic1 + self.a[1] * v3;
        let v2 = self.ic2 + self.a[1] * self.ic1 + self.a[2] * v3;
        self.ic1 = 2.0 * v1 - self.ic1;
        self.ic2 = 2.0 * v2 - self.ic2;
        v2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(hz: f32) -> Vec<f32> {
        (0..48_000)
            .map(|i| (i as f32 * hz * std::f32::consts::TAU / 48_000.0).lm_sin())
            .collect()
    }

    #[test]
    fn a_tone_lands_in_its_band() {
        for (k, hz) in [(0, 80.0), (1, 500.0), (2, 2_000.0), (3, 10_000.0)] {
            let b = Bands::measure(&sine(hz), 1, 48_000);
            assert!(b.0[k] > 0.7, "{hz} Hz: {b:?}");
            assert!((b.0.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
        assert_eq!(Bands::measure(&[0.0; 100], 1, 48_000), Bands::FLAT);
    }
}
