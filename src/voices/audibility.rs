//! What a voice is worth hearing: the loudness the listener would lose over
//! the next moments if the voice were cut now. Stealing takes the voice with
//! the least of it.
//!
//! The estimate is predictive: it covers what the voice *will* play, from its
//! position on, at its pitch (a voice at pitch 2 covers twice as much of its
//! sound in the same time), around its loop as often as it wraps, and with
//! its gain as it will be (a fade-in still rising, a stop's fade falling, a
//! ramp toward a new volume or pan). So a pause in speech, the silence
//! between a gunshot and its echo, the gap between two pings or the quiet
//! start of a swell does not make a voice look quiet.
//!
//! The content's loudness comes from the sound's load-time analysis
//! ([`crate::sound::loudness`]: BS.1770 K-weighted power, as running sums), so
//! the whole estimate is a few table reads and a few dozen flops per voice.
//!
//! # Horizons and weights
//!
//! The loss is the mean of the voice's K-weighted power over three horizons,
//! 100 ms, 300 ms and 1 s, averaged with equal weights. That is a weighting
//! of the future that falls with distance: the first 100 ms count about 7
//! times as much per millisecond as 100..300 ms, and those about 5 times as
//! much as 300 ms..1 s. The near future matters most (the cut is heard at
//! once, and the new sound masks it best there), but a voice whose next
//! 300 ms are silent and whose last 700 ms are loud (a gunshot's echo) still
//! counts for a quarter of its loud level, against nothing in the 5 ms
//! look of a level meter. `BENCHMARKS.md` ("Stealing quality") measures the
//! choice against oracles of each horizon.

use crate::sound::loudness::{EnergyCurve, Loudness};

/// Horizons (seconds of output) and their weights; the weights sum to 1.
pub(crate) const HORIZONS: [(f64, f64); 3] = [(0.1, 1.0 / 3.0), (0.3, 1.0 / 3.0), (1.0, 1.0 / 3.0)];

/// How a voice will play from now on, as far as audibility goes: plain data
/// read off a rendering voice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Playback {
    /// Source position, in frames of the sound (fractional; for a loop it
    /// may be several periods in).
    pub(crate) position: f64,
    /// Source frames per output frame (rate ratio times pitch).
    pub(crate) step: f64,
    /// Whether it wraps at the end.
    pub(crate) looping: bool,
    /// Per output channel: the gain now and the gain a ramp heads for, and
    /// the output frames left in that ramp (0: no ramp).
    pub(crate) gain: [f32; 2],
    pub(crate) target: [f32; 2],
    pub(crate) ramp_left: u32,
    /// Source channels: a stereo source's power is summed over its two.
    pub(crate) channels: usize,
    /// Per horizon, what the voice's distance will make of its power
    /// against now (1: it stays where it is, or is not positioned): a
    /// voice rushing closer counts for where it will be.
    pub(crate) ahead: Ahead,
}

/// Per horizon of [`HORIZONS`], a factor on a positioned voice's power
/// gain for where it will be then against where it is now; the least
/// power gain to count it at now (a voice silent by distance gets its
/// level from a -140 dB floor, for the factors to scale: 0 otherwise);
/// and what its own low-pass (cone, occlusion, air) lets through of each
/// of the sound's bands (`sound::bands`), as power.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ahead(pub(crate) [f32; 3], pub(crate) f32, pub(crate) [f32; 4]);

impl Ahead {
    /// Staying where it is, unfiltered (or not positioned).
    pub(crate) const STILL: Ahead = Ahead([1.0; 3], 0.0, [1.0; 4]);
}

/// The horizons in output frames at one output rate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Audibility {
    /// Per horizon: its length in output frames, its weight divided by
    /// that length (so the mean is a multiplication, not a division).
    horizons: [(f64, f64); 3],
}

impl Audibility {
    pub(crate) fn new(out_rate: u32) -> Audibility {
        let rate = f64::from(out_rate.max(1));
        Audibility {
            horizons: HORIZONS.map(|(seconds, weight)| {
                let frames = (seconds * rate).max(1.0);
                (frames, weight / frames)
            }),
        }
    }

    /// The voice's expected loss, in K-weighted power units (0 for silence;
    /// comparable across voices, sounds and rates). Real-time safe: eight
    /// table reads and one division.
    pub(crate) fn level(&self, loudness: &impl EnergyCurve, p: &Playback) -> f32 {
        if p.step <= 0.0 {
            return 0.0;
        }
        // Energy is summed per window; over a span of `frames * step`
        // source frames that is `frames * step / window` windows.
        let scale = loudness.window_frames() / p.step;
        let now = loudness.energy_to(p.position, p.looping);
        let steady = (p.ramp_left == 0).then(|| mean_gain_power(p, 1.0));
        let mut sum = 0.0f64;
        for (&(frames, weight_per_frame), &ahead) in self.horizons.iter().zip(&p.ahead.0) {
            let energy = loudness.energy_to(p.position + frames * p.step, p.looping) - now;
            if energy > 0.0 {
                let gain = steady
                    .unwrap_or_else(|| mean_gain_power(p, frames))
                    .max(f64::from(p.ahead.1));
                sum += weight_per_frame * scale * energy * gain * f64::from(ahead);
            }
        }
        sum as f32
    }

    /// Asks the CPU to start loading the parts of `loudness`'s table that
    /// [`Audibility::level`] of `p` will read, so that a level computed a
    /// few voices later does not wait on memory (a hint: it changes
    /// nothing).
    #[inline]
    pub(crate) fn prefetch(&self, loudness: &Loudness, p: &Playback) {
        loudness.prefetch_to(p.position, p.looping);
        for &(frames, _) in &self.horizons {
            loudness.prefetch_to(p.position + frames * p.step, p.looping);
        }
    }
}

/// The mean over the next `frames` output frames of the voice's power gain:
/// each output channel's gain squared, summed (for a stereo source, whose
/// content power is summed over its channels, halved), following the ramp
/// in progress and then holding its target.
fn mean_gain_power(p: &Playback, frames: f64) -> f64 {
    let r = f64::from(p.ramp_left);
    let mut sum = 0.0;
    for c in 0..2 {
        let (g0, g1) = (f64::from(p.gain[c]), f64::from(p.target[c]));
        sum += if r <= 0.0 {
            g1 * g1
        } else if r >= frames {
            // Only part of the ramp lies within the horizon.
            let end = g0 + (g1 - g0) * (frames / r);
            (g0 * g0 + g0 * end + end * end) / 3.0
        } else {
            (r * (g0 * g0 + g0 * g1 + g1 * g1) / 3.0 + (frames - r) * g1 * g1) / frames
        };
    }
    if p.channels == 2 {
        sum * 0.5
    } else {
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn playback(gain: f32, target: f32, ramp_left: u32) -> Playback {
        Playback {
            position: 0.0,
            step: 1.0,
            looping: false,
            gain: [gain; 2],
            target: [target; 2],
            ramp_left,
            channels: 1,
            ahead: Ahead::STILL,
        }
    }

    #[test]
    fn the_gain_follows_the_ramp_then_holds() {
        // Steady: the gain squared, both channels.
        assert!((mean_gain_power(&playback(0.5, 0.5, 0), 100.0) - 0.5).abs() < 1e-12);
        // A fade to silence over the whole horizon: a third of the start.
        assert!((mean_gain_power(&playback(1.0, 0.0, 100), 100.0) - 2.0 / 3.0).abs() < 1e-12);
        // A fade-in over half the horizon, then full: (1/3 * 50 + 50) / 100.
        let m = mean_gain_power(&playback(0.0, 1.0, 50), 100.0);
        assert!((m - 2.0 * (50.0 / 3.0 + 50.0) / 100.0).abs() < 1e-12);
        // A long fade-in of which the horizon sees the first tenth.
        let m = mean_gain_power(&playback(0.0, 1.0, 1_000), 100.0);
        assert!((m - 2.0 * 0.01 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn weights_sum_to_one_and_horizons_grow() {
        let total: f64 = HORIZONS.iter().map(|h| h.1).sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert!(HORIZONS.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
