//! [`Loudness`]: how loud a sound is at every point of its length, as a
//! listener hears it, measured once at load so that stealing can ask "how
//! much would the listener lose over the next moments?" with two table reads.
//!
//! The measure is ITU-R BS.1770's: the signal is K-weighted (a high shelf of
//! about +4 dB above 2 kHz, where the ear is most sensitive, and a high-pass
//! near 38 Hz that discounts rumble), then its mean square is taken per
//! window and summed over channels. BS.1770 is the broadcast standard for
//! programme loudness (LUFS); its weighting ranks a 50 Hz rumble several dB
//! below a 3 kHz tone of the same RMS, as listeners do, and it is cheap: two
//! biquads per channel, run once at load.
//!
//! What is stored is the running sum of the windows' power (a prefix sum, in
//! `f64`), so that the mean power over *any* stretch of the sound, however
//! long, starting anywhere, wrapping around a loop any number of times, is
//! two reads and a division ([`Loudness::energy_to`]). Stealing asks for
//! stretches whose length depends on the voice's pitch (a voice at pitch 2
//! covers twice the sound in the same time), so fixed look-ahead tables would
//! not do.

use crate::math::Libm;

/// One analysis window: 5 ms.
pub(crate) const WINDOW_SECONDS: f64 = 0.005;

/// A sound's K-weighted power per window, as running sums.
pub(crate) struct Loudness {
    /// Frames per window (at the sound's rate), at least 1.
    window_frames: u32,
    /// Windows per frame: `1 / window_frames`.
    per_frame: f64,
    /// The sound's length in windows (fractional: the last window may be
    /// partial), its inverse (0 for an empty sound), and the energy of one
    /// whole pass: what a loop adds per lap.
    period: f64,
    inv_period: f64,
    lap_energy: f64,
    /// `prefix[i]`: the sum of the power of windows `0..i` (each window's
    /// mean square of the K-weighted signal, summed over channels).
    /// `windows + 1` entries, the first 0.
    prefix: Box<[f64]>,
}

impl Loudness {
    /// Measures interleaved `samples` (`channels` per frame, at least one
    /// frame) at `rate` Hz.
    pub(crate) fn measure(samples: &[f32], channels: usize, rate: u32) -> Loudness {
        let channels = channels.max(1);
        let frames = samples.len() / channels;
        let mut meter = Meter::new(channels, rate);
        let window_frames = meter.window_frames();
        let mut prefix = Vec::with_capacity(frames.div_ceil(window_frames) + 1);
        prefix.push(0.0);
        meter.push(&samples[..frames * channels], |sum| prefix.push(sum));
        meter.finish(|sum| prefix.push(sum));
        let per_frame = 1.0 / window_frames as f64;
        let period = frames as f64 * per_frame;
        let mut loudness = Loudness {
            window_frames: window_frames as u32,
            per_frame,
            period,
            inv_period: if period > 0.0 { 1.0 / period } else { 0.0 },
            lap_energy: 0.0,
            prefix: prefix.into_boxed_slice(),
        };
        loudness.lap_energy = loudness.integral(period);
        loudness
    }

    /// The power of the window holding source frame `at` (fractional, at
    /// least 0; 0 past the end): [`Loudness::power_at`] by a
    /// multiplication, for the audio thread.
    #[inline]
    pub(crate) fn power_near(&self, at: f64) -> f32 {
        // (A huge `at` saturates to an index past the end: 0.)
        let i = (at * self.per_frame) as usize;
        match (self.prefix.get(i), self.prefix.get(i + 1)) {
            (Some(a), Some(b)) => (b - a) as f32,
            _ => 0.0,
        }
    }

    /// The power of the window holding `frame` (0 past the end).
    pub(crate) fn power_at(&self, frame: u64) -> f32 {
        let i = (frame / u64::from(self.window_frames)) as usize;
        match (self.prefix.get(i), self.prefix.get(i + 1)) {
            (Some(a), Some(b)) => (b - a) as f32,
            _ => 0.0,
        }
    }

    /// The mean power per window over `span` frames of the sound from
    /// frame `from` (both fractional, `span > 0`). Past the end a one-shot
    /// is silent; a loop goes on from its start, as many times as it takes.
    /// (Stealing uses [`Loudness::energy_to`] directly, sharing the read at
    /// `from` between horizons.)
    #[cfg(test)]
    pub(crate) fn mean_power(&self, from: f64, span: f64, looping: bool) -> f64 {
        let energy = self.energy_to(from + span, looping) - self.energy_to(from, looping);
        energy * self.window_frames() / span
    }

    /// The power of all windows from the start of the sound up to frame
    /// `at` (fractional, from 0; linear within a window), summed: for a
    /// loop as if the sound repeated forever, for a one-shot held at its
    /// total after the end. The difference of two is the energy between
    /// them. Two table reads; no division and no library call.
    #[inline]
    pub(crate) fn energy_to(&self, at: f64, looping: bool) -> f64 {
        match self.locate(at, looping) {
            (Some(laps), rest) => laps * self.lap_energy + self.integral(rest),
            (None, x) => self.integral(x),
        }
    }

    /// Where frame `at` falls, in windows: for a loop, the whole laps
    /// before it and the windows into its lap; otherwise the windows from
    /// the start.
    #[inline]
    fn locate(&self, at: f64, looping: bool) -> (Option<f64>, f64) {
        let x = (at * self.per_frame).max(0.0);
        if looping && self.period > 0.0 {
            // Truncation is floor for x >= 0 (and saturates, never wraps);
            // through i64, which x86-64 converts in one instruction.
            let laps = (x * self.inv_period) as i64 as f64;
            (Some(laps), (x - laps * self.period).max(0.0))
        } else {
            (None, x)
        }
    }

    /// Asks the CPU to start loading the cache line of the first table
    /// entry [`Loudness::energy_to`]`(at, looping)` reads (its neighbour is
    /// on the same line seven times in eight; past a one-shot's end nothing
    /// is fetched). A hint: it changes nothing and cannot fault.
    #[inline]
    pub(crate) fn prefetch_to(&self, at: f64, looping: bool) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let i = self.locate(at, looping).1 as i64 as usize;
            if let Some(entry) = self.prefix.get(i) {
                // SAFETY: a prefetch never faults and changes no state the
                // program sees; the address is an element of `prefix`.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(entry).cast()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (at, looping);
    }

    /// Frames per analysis window.
    #[inline]
    pub(crate) fn window_frames(&self) -> f64 {
        f64::from(self.window_frames)
    }

    /// The power summed from the start to `x` windows in (`x >= 0`),
    /// linear within a window, the total past the end.
    #[inline]
    fn integral(&self, x: f64) -> f64 {
        // Through i64 (one instruction on x86-64; x >= 0, and a huge x
        // saturates to an index past the end, which reads the total).
        let i = x as i64;
        let f = x - i as f64;
        let i = i as usize;
        match (self.prefix.get(i), self.prefix.get(i + 1)) {
            (Some(&lo), Some(&hi)) => lo + (hi - lo) * f,
            _ => self.prefix.last().copied().unwrap_or(0.0),
        }
    }
}

/// What stealing reads of a sound's loudness: the energy summed from its
/// start up to a (fractional) frame. [`Loudness`] answers from its table;
/// a stream answers from the windows its loader has measured so far
/// (`stream::source`).
pub(crate) trait EnergyCurve {
    /// The power of all windows from the start up to frame `at` (see
    /// [`Loudness::energy_to`]).
    fn energy_to(&self, at: f64, looping: bool) -> f64;
    /// Frames per analysis window.
    fn window_frames(&self) -> f64;
}

impl EnergyCurve for Loudness {
    #[inline]
    fn energy_to(&self, at: f64, looping: bool) -> f64 {
        Loudness::energy_to(self, at, looping)
    }
    #[inline]
    fn window_frames(&self) -> f64 {
        Loudness::window_frames(self)
    }
}

/// The same power everywhere: what stealing assumes of a streamed play
/// before its loader has measured any of it.
pub(crate) struct Flat {
    power: f64,
    window_frames: f64,
}

impl Flat {
    /// `power` per window of 5 ms at `rate`.
    pub(crate) fn new(power: f64, rate: u32) -> Flat {
        Flat {
            power,
            window_frames: (f64::from(rate) * WINDOW_SECONDS).round().max(1.0),
        }
    }
}

impl EnergyCurve for Flat {
    fn energy_to(&self, at: f64, _looping: bool) -> f64 {
        at.max(0.0) / self.window_frames * self.power
    }
    fn window_frames(&self) -> f64 {
        self.window_frames
    }
}

/// The measurement run a frame at a time: what [`Loudness::measure`] does
/// to a whole sound, and what a stream's loader does to what it decodes,
/// with the same arithmetic in the same order (so a streamed sound ranks
/// exactly as the same sound decoded).
pub(crate) struct Meter {
    /// Mono or stereo (sounds are downmixed before they are measured).
    channels: usize,
    filters: [KWeighting; 2],
    /// Per channel, the sum of squares in the window so far.
    squares: [f64; 2],
    window_frames: usize,
    in_window: usize,
    sum: f64,
}

impl Meter {
    pub(crate) fn new(channels: usize, rate: u32) -> Meter {
        Meter {
            channels: channels.clamp(1, 2),
            filters: [KWeighting::new(rate), KWeighting::new(rate)],
            squares: [0.0; 2],
            window_frames: ((f64::from(rate) * WINDOW_SECONDS).round() as usize).max(1),
            in_window: 0,
            sum: 0.0,
        }
    }

    /// Frames per window.
    pub(crate) fn window_frames(&self) -> usize {
        self.window_frames
    }

    /// Measures more interleaved frames; `emit` gets the running sum after
    /// each window they complete.
    pub(crate) fn push(&mut self, samples: &[f32], mut emit: impl FnMut(f64)) {
        let ch = self.channels;
        let mut rest = &samples[..samples.len() / ch * ch];
        while !rest.is_empty() {
            // The rest of the current window, a channel at a time.
            let take = (self.window_frames - self.in_window).min(rest.len() / ch);
            let (part, after) = rest.split_at(take * ch);
            for c in 0..ch {
                let filter = &mut self.filters[c];
                let mut sq = self.squares[c];
                for frame in part.chunks_exact(ch) {
                    let y = filter.run(f64::from(frame[c]));
                    sq += y * y;
                }
                self.squares[c] = sq;
            }
            self.in_window += take;
            if self.in_window == self.window_frames {
                emit(self.close_window());
            }
            rest = after;
        }
    }

    /// Closes a partial last window, if there is one.
    pub(crate) fn finish(&mut self, mut emit: impl FnMut(f64)) {
        if self.in_window > 0 {
            emit(self.close_window());
        }
    }

    fn close_window(&mut self) -> f64 {
        let n = self.in_window as f64;
        let mut power = 0.0f64;
        for sq in &mut self.squares[..self.channels] {
            power += *sq / n;
            *sq = 0.0;
        }
        self.in_window = 0;
        self.sum += power;
        self.sum
    }
}

/// The K-weighting's power gain at `hz` (its response at 48 kHz): what
/// loudness makes of a band of sound there, for masking's per-band sums.
pub(crate) fn k_power_gain(hz: f64) -> f64 {
    let w = std::f64::consts::TAU * hz.clamp(0.0, 24_000.0) / 48_000.0;
    // z^-1 and z^-2 on the unit circle.
    let (c1, s1) = (w.lm_cos(), -w.lm_sin());
    let (c2, s2) = ((2.0 * w).lm_cos(), -(2.0 * w).lm_sin());
    let mut gain = 1.0;
    for stage in &KWeighting::new(48_000).stages {
        let (b, a) = (stage.b, stage.a);
        let (nr, ni) = (b[0] + b[1] * c1 + b[2] * c2, b[1] * s1 + b[2] * s2);
        let (dr, di) = (1.0 + a[0] * c1 + a[1] * c2, a[0] * s1 + a[1] * s2);
        gain *= (nr * nr + ni * ni) / (dr * dr + di * di);
    }
    gain
}

/// BS.1770's K-weighting for one channel: its two biquads (a high shelf,
/// then a high-pass), with coefficients for any sample rate derived from the
/// standard's analog prototypes by the bilinear transform (at 48 kHz they
/// are the standard's published coefficients).
struct KWeighting {
    stages: [Biquad; 2],
}

/// A direct-form-I biquad in `f64`.
struct Biquad {
    b: [f64; 3],
    a: [f64; 2],
    x: [f64; 2],
    y: [f64; 2],
}

impl Biquad {
    fn run(&mut self, x: f64) -> f64 {
        let y = self.b[0] * x + self.b[1] * self.x[0] + self.b[2] * self.x[1]
            - self.a[0] * self.y[0]
            - self.a[1] * self.y[1];
        self.x = [x, self.x[0]];
        self.y = [y, self.y[0]];
        y
    }
}

impl KWeighting {
    fn new(rate: u32) -> KWeighting {
        let rate = f64::from(rate);
        // Stage 1: the high shelf (BS.1770-4's pre-filter).
        let f0 = 1_681.974_450_955_533;
        let gain_db = 3.999_843_853_973_347;
        let q = 0.707_175_236_955_419_6;
        let k = (std::f64::consts::PI * f0 / rate).lm_tan();
        let vh = 10f64.lm_powf(gain_db / 20.0);
        let vb = vh.lm_powf(0.499_666_774_154_541_6);
        let a0 = 1.0 + k / q + k * k;
        let shelf = Biquad {
            b: [
                (vh + vb * k / q + k * k) / a0,
                2.0 * (k * k - vh) / a0,
                (vh - vb * k / q + k * k) / a0,
            ],
            a: [2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
            x: [0.0; 2],
            y: [0.0; 2],
        };
        // Stage 2: the "RLB" high-pass.
        let f0 = 38.135_470_876_024_44;
        let q = 0.500_327_037_323_877_3;
        let k = (std::f64::consts::PI * f0 / rate).lm_tan();
        let a0 = 1.0 + k / q + k * k;
        let high_pass = Biquad {
            b: [1.0, -2.0, 1.0],
            a: [2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
            x: [0.0; 2],
            y: [0.0; 2],
        };
        KWeighting {
            stages: [shelf, high_pass],
        }
    }

    fn run(&mut self, x: f64) -> f64 {
        let y = self.stages[0].run(x);
        self.stages[1].run(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 kHz at `amp` for `loud` frames, then `quiet` frames of silence,
    /// at 48 kHz (window 240 frames).
    fn measure(amp: f32, loud: usize, quiet: usize) -> Loudness {
        let mut s: Vec<f32> = (0..loud)
            .map(|i| amp * (i as f32 * std::f32::consts::TAU / 48.0).lm_sin())
            .collect();
        s.resize(loud + quiet, 0.0);
        Loudness::measure(&s, 1, 48_000)
    }

    #[test]
    fn k_weighting_gains_follow_the_standard_curve() {
        let db = |hz: f64| 10.0 * k_power_gain(hz).log10();
        // Flat near 500 Hz, about +4 dB in the presence region, and the
        // high-pass well down at 20 Hz.
        assert!(db(500.0).abs() < 0.5, "{}", db(500.0));
        assert!((db(8_000.0) - 4.0).abs() < 0.3, "{}", db(8_000.0));
        assert!(db(20.0) < -8.0, "{}", db(20.0));
    }

    #[test]
    fn mean_power_covers_any_stretch_of_a_one_shot() {
        let l = measure(0.5, 48_000, 0);
        let p = l.mean_power(12_000.0, 4_800.0, false);
        // A steady tone: any stretch inside has the window power.
        assert!(
            (p / f64::from(l.power_at(24_000)) - 1.0).abs() < 1e-3,
            "{p}"
        );
        // Half the stretch past the end: half the power.
        let half = l.mean_power(48_000.0 - 2_400.0, 4_800.0, false);
        assert!((half / p - 0.5).abs() < 1e-3, "{half} vs {p}");
        assert_eq!(l.mean_power(60_000.0, 4_800.0, false), 0.0);
    }

    #[test]
    fn a_loop_wraps_as_often_as_the_stretch_lasts() {
        // 2,400 frames loud, 2,400 silent (10 windows each).
        let l = measure(0.5, 2_400, 2_400);
        let loud = l.mean_power(0.0, 2_400.0, true);
        // 3.5 periods from the start: 4 loud halves of 7.
        let p = l.mean_power(0.0, 3.5 * 4_800.0, true);
        assert!((p / loud - 4.0 / 7.0).abs() < 1e-3, "{p} vs {loud}");
        // Many periods on, the same stretch has the same power.
        let later = l.mean_power(100.0 * 4_800.0 + 1_200.0, 4_800.0, true);
        let first = l.mean_power(1_200.0, 4_800.0, true);
        assert!((later / first - 1.0).abs() < 1e-9);
        // A one-shot of the same does not wrap (only the filters ring on).
        assert!(l.mean_power(2_400.0, 4_800.0, false) < 0.01 * loud);
    }
}
