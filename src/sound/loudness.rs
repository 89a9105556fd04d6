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
//! two reads and a division ([`Loudness::mean_power`]). Stealing asks for
//! stretches whose length depends on the voice's pitch (a voice at pitch 2
//! covers twice the sound in the same time), so fixed look-ahead tables would
//! not do.

/// One analysis window: 5 ms.
pub(crate) const WINDOW_SECONDS: f64 = 0.005;

/// A sound's K-weighted power per window, as running sums.
pub(crate) struct Loudness {
    /// Frames per window (at the sound's rate), at least 1.
    window_frames: u32,
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
        let window_frames = ((f64::from(rate) * WINDOW_SECONDS).round() as usize).max(1);
        let mut filters: Vec<KWeighting> = (0..channels).map(|_| KWeighting::new(rate)).collect();
        let windows = frames.div_ceil(window_frames);
        let mut prefix = Vec::with_capacity(windows + 1);
        let mut sum = 0.0f64;
        prefix.push(sum);
        for window in samples[..frames * channels].chunks(window_frames * channels) {
            let n = (window.len() / channels) as f64;
            let mut power = 0.0f64;
            for (c, filter) in filters.iter_mut().enumerate() {
                let mut sq = 0.0f64;
                for frame in window.chunks_exact(channels) {
                    let y = filter.run(f64::from(frame[c]));
                    sq += y * y;
                }
                power += sq / n;
            }
            sum += power;
            prefix.push(sum);
        }
        Loudness {
            window_frames: window_frames as u32,
            prefix: prefix.into_boxed_slice(),
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
    /// Real-time safe: a few arithmetic operations and four reads.
    #[inline]
    pub(crate) fn mean_power(&self, from: f64, span: f64, looping: bool) -> f32 {
        let w = f64::from(self.window_frames);
        let (a, b) = (from / w, (from + span) / w);
        let total = (self.prefix.len() - 1) as f64; // windows
        let energy = if looping {
            self.looped_integral(b, total) - self.looped_integral(a, total)
        } else {
            self.integral(b.min(total)) - self.integral(a.min(total))
        };
        let windows = span / w;
        if windows > 0.0 && energy > 0.0 {
            (energy / windows) as f32
        } else {
            0.0
        }
    }

    /// The power summed from the start to `x` windows in (`0 <= x <=
    /// windows`), linear within a window.
    #[inline]
    fn integral(&self, x: f64) -> f64 {
        let x = x.max(0.0);
        let i = x as usize;
        let f = x - i as f64;
        match (self.prefix.get(i), self.prefix.get(i + 1)) {
            (Some(&lo), Some(&hi)) => lo + (hi - lo) * f,
            (Some(&lo), None) => lo,
            _ => self.prefix.last().copied().unwrap_or(0.0),
        }
    }

    /// [`Loudness::integral`] of a sound repeated forever.
    #[inline]
    fn looped_integral(&self, x: f64, windows: f64) -> f64 {
        if windows <= 0.0 {
            return 0.0;
        }
        let laps = (x / windows).floor();
        let whole = self.prefix.last().copied().unwrap_or(0.0);
        laps * whole + self.integral(x - laps * windows)
    }
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
        let k = (std::f64::consts::PI * f0 / rate).tan();
        let vh = 10f64.powf(gain_db / 20.0);
        let vb = vh.powf(0.499_666_774_154_541_6);
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
        let k = (std::f64::consts::PI * f0 / rate).tan();
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
