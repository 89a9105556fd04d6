//! [`Bands`]: how a sound's energy is spread over four coarse bands (below
//! 250 Hz, 250 Hz to 1 kHz, 1 to 4 kHz, above 4 kHz), measured once at
//! load, so that stealing can tell what a bus's filters take from it: a
//! high sound behind a 300 Hz low-pass is worth less than a low one.
//!
//! Measured over at most the first [`MEASURED_SECONDS`], the sound's
//! channels summed, by the FFTs of the critical-band analysis
//! (`sound::spectrum`), which sum each bin's power into its coarse band as
//! well: no pass of its own.

#[cfg(any(test, feature = "hooks"))]
use crate::math::Libm;

/// The bands' representative frequencies, in Hz (a filter's response is
/// read there).
pub(crate) const BAND_HZ: [f32; 4] = [125.0, 500.0, 2_000.0, 8_000.0];

/// The edges between the bands, in Hz.
pub(crate) const COARSE_EDGES_HZ: [f32; 3] = [250.0, 1_000.0, 4_000.0];

/// The most of a sound measured.
pub(crate) const MEASURED_SECONDS: usize = 2;

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

    /// The spread given each band's energy (what `sound::spectrum`'s FFTs
    /// sum at load); even for none.
    pub(crate) fn from_energies(energy: [f64; 4]) -> Bands {
        let total: f64 = energy.iter().sum();
        if total.is_nan() || total <= 0.0 {
            return Bands::FLAT;
        }
        Bands(energy.map(|e| (e / total) as f32))
    }

    /// The spread of interleaved `samples` (`channels` per frame) at
    /// `rate`, by filters: how it was measured before the spectrum's FFTs
    /// did it at no extra cost (kept to compare the two, in tests and
    /// benchmarks).
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn measure(samples: &[f32], channels: usize, rate: u32) -> Bands {
        let channels = channels.max(1);
        let frames = (samples.len() / channels).min(MEASURED_SECONDS * rate as usize);
        let mut lows = COARSE_EDGES_HZ.map(|hz| LowPass::new(hz, rate));
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
#[cfg(any(test, feature = "hooks"))]
struct LowPass {
    a: [f32; 3],
    ic1: f32,
    ic2: f32,
}

#[cfg(any(test, feature = "hooks"))]
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
        use crate::sound::spectrum::Spectrum;
        for (k, hz) in [(0, 80.0), (1, 500.0), (2, 2_000.0), (3, 10_000.0)] {
            for b in [
                Bands::measure(&sine(hz), 1, 48_000),
                Spectrum::measure_with_bands(&sine(hz), 1, 48_000).1,
            ] {
                assert!(b.0[k] > 0.7, "{hz} Hz: {b:?}");
                assert!((b.0.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            }
        }
        assert_eq!(Bands::measure(&[0.0; 100], 1, 48_000), Bands::FLAT);
        assert_eq!(
            Spectrum::measure_with_bands(&[0.0; 100], 1, 48_000).1,
            Bands::FLAT
        );
    }
}
