//! [`Spectrum`]: how a sound's energy is spread over the ear's 24 critical
//! bands, window by window, measured once at load, so that stealing can
//! tell what of a voice the other voices mask (`voices::masking`): a hum
//! under music in the same band is hidden, the same hum beside a bass line
//! is not.
//!
//! Each window (about 21 ms: 1024 frames at 44.1 or 48 kHz) is one
//! Hann-windowed FFT of the sound's channels summed; its bins' power is
//! summed into the critical bands of Zwicker's Bark scale. What is kept per
//! window is each band's *share* of the window's power, a byte per band in
//! quarter-decibel steps below the whole (0 to -63.75 dB): 24 bytes a
//! window, 1.1 KiB per second of sound at 48 kHz. How loud the window is
//! comes from the loudness analysis (`sound::loudness`); the spectrum only
//! says where that loudness lies.
//!
//! The FFT is this module's own (radix 2, in `f32`, twiddles from the
//! pure-Rust `libm`): the same bytes on every platform, so a steal decided
//! by masking is the same natively and in WebAssembly.

use super::bands::{Bands, COARSE_EDGES_HZ, MEASURED_SECONDS};
use crate::math::Libm;

/// Critical bands.
pub(crate) const BANDS: usize = 24;

/// The band edges, in Hz (Zwicker's critical bands; the last band takes
/// everything above 12 kHz).
const EDGES_HZ: [f32; BANDS + 1] = [
    0.0, 100.0, 200.0, 300.0, 400.0, 510.0, 630.0, 770.0, 920.0, 1_080.0, 1_270.0, 1_480.0,
    1_720.0, 2_000.0, 2_320.0, 2_700.0, 3_150.0, 3_700.0, 4_400.0, 5_300.0, 6_400.0, 7_700.0,
    9_500.0, 12_000.0, 15_500.0,
];

/// Each band's centre, in Hz (where weights and thresholds are read).
pub(crate) const CENTRE_HZ: [f32; BANDS] = [
    50.0, 150.0, 250.0, 350.0, 450.0, 570.0, 700.0, 840.0, 1_000.0, 1_170.0, 1_370.0, 1_600.0,
    1_850.0, 2_150.0, 2_500.0, 2_900.0, 3_400.0, 4_000.0, 4_800.0, 5_800.0, 7_000.0, 8_500.0,
    10_500.0, 13_500.0,
];

/// One window's spread: per band, its share of the window's power as a
/// quarter-decibel step below the whole ([`share`] decodes it).
pub(crate) type Shape = [u8; BANDS];

/// A window with no power: every band at the bottom step.
pub(crate) const SILENT: Shape = [u8::MAX; BANDS];

/// The share of power step `q` of a [`Shape`] stands for, `10^(-q / 40)`
/// (`2^(-q log2(10) / 40)`), to within 6 % (0.26 dB): the float's bits
/// built directly, the exponent and a straight line through the mantissa
/// (Mitchell's approximation). Integer arithmetic only, so the same on
/// every platform, and cheap enough to decode 24 bands three times per
/// voice per refresh.
#[inline]
pub(crate) fn share(q: u8) -> f32 {
    // 2^23 x log2(10) / 40: one step, in the float's bits.
    const STEP_BITS: u32 = 696_653;
    f32::from_bits(0x3F80_0000 - u32::from(q) * STEP_BITS)
}

/// The step of a [`Shape`] nearest share `x` (0 to 1), by the inverse of
/// [`share`]'s approximation (the float's bits as a logarithm), so that
/// a share decodes to itself within a step: integer arithmetic, the same
/// on every platform, and no library call per band.
#[inline]
fn step(x: f32) -> u8 {
    const STEP_BITS: u32 = 696_653;
    let bits = x.clamp(1e-30, 1.0).to_bits();
    let below = 0x3F80_0000u32.saturating_sub(bits);
    ((below + STEP_BITS / 2) / STEP_BITS).min(255) as u8
}

/// A sound's spread over the critical bands, window by window.
pub(crate) struct Spectrum {
    /// Frames per window, at the sound's rate (a power of two), as a
    /// shift.
    window_shift: u32,
    shapes: Box<[Shape]>,
}

impl Spectrum {
    /// Nothing measured (a stream, an empty sound): no window.
    pub(crate) fn unmeasured(rate: u32) -> Spectrum {
        Spectrum {
            window_shift: window_frames(rate).trailing_zeros(),
            shapes: Box::new([]),
        }
    }

    /// Measures interleaved `samples` (`channels` per frame) at `rate` Hz.
    #[cfg(test)]
    pub(crate) fn measure(samples: &[f32], channels: usize, rate: u32) -> Spectrum {
        Spectrum::measure_with_bands(samples, channels, rate).0
    }

    /// Measures interleaved `samples` (`channels` per frame) at `rate` Hz,
    /// and from the same FFTs, over the first [`MEASURED_SECONDS`], the
    /// sound's spread over the four coarse bands of [`Bands`] (what bus
    /// filters are heard through).
    pub(crate) fn measure_with_bands(
        samples: &[f32],
        channels: usize,
        rate: u32,
    ) -> (Spectrum, Bands) {
        let channels = channels.max(1);
        let frames = samples.len() / channels;
        let n = window_frames(rate);
        let mut fft = Fft::new(n, rate);
        let mut shapes = Vec::with_capacity(frames.div_ceil(n));
        let mut block = vec![0.0f32; n];
        let coarse_until = MEASURED_SECONDS * rate as usize;
        let mut coarse = [0.0f64; 4];
        let mut start = 0;
        while start < frames {
            let end = (start + n).min(frames);
            let frames_in = &samples[start * channels..end * channels];
            let (head, tail) = block.split_at_mut(end - start);
            match channels {
                1 => head.copy_from_slice(frames_in),
                2 => {
                    for (x, f) in head.iter_mut().zip(frames_in.chunks_exact(2)) {
                        *x = f[0] + f[1];
                    }
                }
                _ => {
                    for (x, f) in head.iter_mut().zip(frames_in.chunks_exact(channels)) {
                        *x = f.iter().sum();
                    }
                }
            }
            tail.fill(0.0);
            let (shape, window_coarse) = fft.shape(&mut block);
            shapes.push(shape);
            if start < coarse_until {
                for (c, w) in coarse.iter_mut().zip(window_coarse) {
                    *c += f64::from(w);
                }
            }
            start = end;
        }
        let spectrum = Spectrum {
            window_shift: n.trailing_zeros(),
            shapes: shapes.into_boxed_slice(),
        };
        (spectrum, Bands::from_energies(coarse))
    }

    /// The windows' shapes averaged (each window's shares weighing the
    /// same; silent windows left out): a sound's spread as a whole,
    /// [`SILENT`] for none.
    pub(crate) fn average(&self) -> Shape {
        if self.shapes.is_empty() {
            return SILENT;
        }
        let mut mean = [0.0f32; BANDS];
        for shape in self.shapes.iter().filter(|&s| *s != SILENT) {
            for (m, &q) in mean.iter_mut().zip(shape) {
                *m += share(q);
            }
        }
        let total: f32 = mean.iter().sum();
        if total.is_nan() || total <= 0.0 {
            return SILENT;
        }
        mean.map(|m| step(m / total))
    }

    /// The shape of the window holding source frame `at` (fractional; a
    /// loop's positions run on through its laps, `frames` long), `None`
    /// past a one-shot's end or for a sound not measured.
    #[inline]
    pub(crate) fn shape_at(&self, at: f64, frames: usize, looping: bool) -> Option<&Shape> {
        if self.shapes.is_empty() || at.is_nan() || at < 0.0 {
            return None;
        }
        let mut frame = at as u64;
        if looping && frames > 0 && frame >= frames as u64 {
            frame %= frames as u64;
        }
        self.shapes.get((frame >> self.window_shift) as usize)
    }
}

/// Frames per window at `rate`: a power of two of 21 to 23 ms (1024 at
/// 44.1 and 48 kHz, 2048 at 96 kHz), at least 128: bins 47 Hz apart at
/// 48 kHz, narrower than the narrowest band.
fn window_frames(rate: u32) -> usize {
    ((rate as usize).max(6_000) / 47).next_power_of_two()
}

/// A real FFT of one size: a complex FFT of half the size over the even
/// and odd samples, then split. With the Hann window, the twiddles, and
/// which band each bin falls in.
struct Fft {
    n: usize,
    hann: Vec<f32>,
    /// `e^(-2 pi i k / (n/2))`, `k < n/4`, for the half-size FFT.
    twiddles: Vec<(f32, f32)>,
    /// `e^(-2 pi i k / n)`, `k <= n/2`, for the split.
    split: Vec<(f32, f32)>,
    /// Per bin `0..=n/2`, its band, and its coarse band (`Bands`).
    band_of: Vec<u8>,
    coarse_of: Vec<u8>,
    re: Vec<f32>,
    im: Vec<f32>,
}

impl Fft {
    fn new(n: usize, rate: u32) -> Fft {
        let tau = std::f64::consts::TAU;
        let m = n / 2;
        let hann = (0..n)
            .map(|i| (0.5 - 0.5 * (tau * i as f64 / n as f64).lm_cos()) as f32)
            .collect();
        let twiddles = (0..m / 2)
            .map(|k| {
                let a = -tau * k as f64 / m as f64;
                (a.lm_cos() as f32, a.lm_sin() as f32)
            })
            .collect();
        let split = (0..=m)
            .map(|k| {
                let a = -tau * k as f64 / n as f64;
                (a.lm_cos() as f32, a.lm_sin() as f32)
            })
            .collect();
        let band_of = (0..=m)
            .map(|k| {
                let hz = k as f32 * rate as f32 / n as f32;
                EDGES_HZ[1..BANDS].iter().filter(|&&e| hz >= e).count() as u8
            })
            .collect();
        let coarse_of = (0..=m)
            .map(|k| {
                let hz = k as f32 * rate as f32 / n as f32;
                COARSE_EDGES_HZ.iter().filter(|&&e| hz >= e).count() as u8
            })
            .collect();
        Fft {
            n,
            hann,
            twiddles,
            split,
            band_of,
            coarse_of,
            re: vec![0.0; m],
            im: vec![0.0; m],
        }
    }

    /// The band shape of `x` (`n` samples; windowed in place), and its
    /// power in the four coarse bands.
    fn shape(&mut self, x: &mut [f32]) -> (Shape, [f32; 4]) {
        let mut power = [0.0f32; BANDS];
        let mut coarse = [0.0f32; 4];
        self.band_powers(x, &mut power, &mut coarse);
        let total: f32 = power.iter().sum();
        if total.is_nan() || total <= 1e-20 {
            return (SILENT, coarse);
        }
        let inv = 1.0 / total;
        let shape = power.map(|p| step(p * inv));
        (shape, coarse)
    }

    /// Sums the power of each bin of windowed `x` into its band.
    fn band_powers(&mut self, x: &mut [f32], power: &mut [f32; BANDS], coarse: &mut [f32; 4]) {
        let m = self.n / 2;
        for (v, w) in x.iter_mut().zip(&self.hann) {
            *v *= w;
        }
        let (re, im) = (&mut self.re[..m], &mut self.im[..m]);
        for k in 0..m {
            re[k] = x[2 * k];
            im[k] = x[2 * k + 1];
        }
        fft_in_place(re, im, &self.twiddles);
        // Split into the real signal's bins 0..=m.
        for k in 0..=m {
            // Z[k] and conj Z[m - k], indices taken mod m (no division).
            let (i, j) = (if k == m { 0 } else { k }, if k == 0 { 0 } else { m - k });
            let (zr, zi) = (re[i], im[i]);
            let (cr, ci) = (re[j], -im[j]);
            // Even part (z + conj z') / 2, odd part (z - conj z') / 2i.
            let (er, ei) = (0.5 * (zr + cr), 0.5 * (zi + ci));
            let (or, oi) = (0.5 * (zi - ci), -0.5 * (zr - cr));
            let (wr, wi) = self.split[k];
            let xr = er + wr * or - wi * oi;
            let xi = ei + wr * oi + wi * or;
            // Bins other than 0 and n/2 stand for two (their mirror).
            let twice = if k == 0 || k == m { 1.0 } else { 2.0 };
            let p = twice * (xr * xr + xi * xi);
            power[usize::from(self.band_of[k])] += p;
            coarse[usize::from(self.coarse_of[k])] += p;
        }
    }
}

/// An iterative radix-2 decimation-in-time FFT of `re + i im` (a power of
/// two long), in place; `twiddles[k] = e^(-2 pi i k / len)`, `k < len/2`.
fn fft_in_place(re: &mut [f32], im: &mut [f32], twiddles: &[(f32, f32)]) {
    let m = re.len();
    if m < 2 {
        return;
    }
    // Bit-reversed order.
    let bits = m.trailing_zeros();
    for i in 0..m {
        let j = i.reverse_bits() >> (usize::BITS - bits);
        if j > i {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut half = 1;
    while half < m {
        let stride = m / (2 * half);
        for (re, im) in re
            .chunks_exact_mut(2 * half)
            .zip(im.chunks_exact_mut(2 * half))
        {
            let (re_lo, re_hi) = re.split_at_mut(half);
            let (im_lo, im_hi) = im.split_at_mut(half);
            let pairs = re_lo.iter_mut().zip(im_lo).zip(re_hi.iter_mut().zip(im_hi));
            for (((ar, ai), (br, bi)), &(wr, wi)) in pairs.zip(twiddles.iter().step_by(stride)) {
                let tr = *br * wr - *bi * wi;
                let ti = *br * wi + *bi * wr;
                *br = *ar - tr;
                *bi = *ai - ti;
                *ar += tr;
                *ai += ti;
            }
        }
        half *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f32, frames: usize) -> Vec<f32> {
        (0..frames)
            .map(|i| (i as f32 * hz * std::f32::consts::TAU / 48_000.0).lm_sin())
            .collect()
    }

    fn band_of_hz(hz: f32) -> usize {
        EDGES_HZ[1..BANDS].iter().filter(|&&e| hz >= e).count()
    }

    #[test]
    fn a_tone_lands_in_its_critical_band() {
        for hz in [150.0, 450.0, 1_000.0, 2_500.0, 5_800.0, 10_500.0] {
            let s = Spectrum::measure(&tone(hz, 4_800), 1, 48_000);
            let shape = s.shape_at(2_000.0, 4_800, false).unwrap();
            let b = band_of_hz(hz);
            assert!(share(shape[b]) > 0.6, "{hz} Hz: {shape:?}");
            // The neighbours two bands off hold little (the Hann window's
            // leakage only).
            for (k, &q) in shape.iter().enumerate() {
                if k + 2 <= b || k >= b + 2 {
                    assert!(share(q) < 0.01, "{hz} Hz, band {k}: {shape:?}");
                }
            }
        }
    }

    #[test]
    fn windows_follow_the_sound_and_loops_wrap() {
        let mut s = tone(250.0, 4_096);
        s.extend(tone(5_000.0, 4_096));
        let sp = Spectrum::measure(&s, 1, 48_000);
        assert_eq!(sp.shapes.len(), 8);
        let low = band_of_hz(250.0);
        let high = band_of_hz(5_000.0);
        let main = |at: f64, looping: bool, b: usize| {
            share(sp.shape_at(at, 8_192, looping).unwrap()[b]) > 0.9
        };
        assert!(main(1_000.0, false, low));
        assert!(main(6_000.0, false, high));
        // Past the end of a one-shot: nothing; of a loop: its start again.
        assert!(sp.shape_at(9_000.0, 8_192, false).is_none());
        assert!(main(8_192.0 + 1_000.0, true, low));
        // Silence is the silent shape.
        let quiet = Spectrum::measure(&[0.0; 1_024], 1, 48_000);
        assert_eq!(quiet.shape_at(0.0, 1_024, false), Some(&SILENT));
        // On average, the two tones share the power.
        let mean = sp.average();
        assert!((share(mean[low]) - 0.5).abs() < 0.1, "{mean:?}");
        assert!((share(mean[high]) - 0.5).abs() < 0.1, "{mean:?}");
        assert_eq!(quiet.average(), SILENT);
    }

    #[test]
    fn shares_decode_quarter_decibels() {
        assert_eq!(share(0), 1.0);
        // A share and its step round-trip within half a step (to the
        // bottom step, -63.75 dB).
        for i in 0..1_000 {
            let x = 10f32.powf(-(i as f32) * 0.0063);
            let back = share(step(x));
            assert!((10.0 * (back / x).log10()).abs() < 0.2, "{x} -> {back}");
        }
        for q in 0..=255u8 {
            let exact = 10f64.powf(-f64::from(q) / 40.0);
            let db = 10.0 * (f64::from(share(q)) / exact).log10();
            assert!(db.abs() < 0.27, "step {q}: {db} dB off");
        }
        assert!(share(255) > 0.0);
        // The FFT keeps Parseval: a white noise spreads by bandwidth.
        let mut x = 1u32;
        let noise: Vec<f32> = (0..48_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x as f32 / u32::MAX as f32) * 2.0 - 1.0
            })
            .collect();
        let sp = Spectrum::measure(&noise, 1, 48_000);
        let shape = sp.shape_at(24_000.0, 48_000, false).unwrap();
        // 100 Hz (100 to 200 Hz) against 2,500 Hz (9.5 to 12 kHz).
        let ratio = share(shape[22]) / share(shape[1]);
        assert!((ratio / 25.0 - 1.0).abs() < 0.6, "{ratio}");
    }
}
