//! The masked-regret measure: what of a voice the listener would lose if it
//! were cut, counting only what stays audible above the masking the other
//! voices make.
//!
//! This is the example's own masking estimate, deliberately simple and
//! written apart from the engine (it uses nothing of voicepool but its
//! public API, through the futures rendered in `main.rs`), so that it can
//! judge the engine's masking-aware stealing rather than repeat it:
//!
//! - Each play's future, rendered alone, is summed to mono (L + R) and cut
//!   into 10 ms windows (480 frames); each window is analysed with a
//!   1024-point Hann-windowed FFT centred on it, and the power summed into
//!   the 24 Bark critical bands (everything above 15.5 kHz goes to the top
//!   band), scaled (Parseval) so that a band's power is comparable to a
//!   mean-square signal power.
//! - The masking threshold in a window is made from the maskers' summed
//!   band powers, spread across bands in Bark (a masker reaches the bands
//!   above it at -10 dB per band and those below at -25 dB per band),
//!   lowered by 10 dB (between the usual ~15 dB for a tonal masker and ~5
//!   dB for noise), and never below the threshold in quiet (Terhardt's
//!   formula at the band's centre, with a full-scale sine at 90 dB SPL).
//! - A voice's audible power is, per window and band, what of its power is
//!   above that threshold, weighted by the K-weighting filter's power gain
//!   at the band's centre, summed over bands and averaged over the windows.
//!
//! At a steal the maskers of a candidate are every other voice sounding
//! right after it: the real voices alive, less the victim actually stolen
//! and the candidate itself (a voice never masks itself), plus the
//! newcomer. (The *kept* variant keeps the victim among the maskers: what
//! the listener would lose had the candidate been cut instead of it.)

use std::sync::OnceLock;

use super::*;

/// The 24 Bark critical bands' edges (Hz).
const EDGES: [f64; 25] = [
    0.0, 100.0, 200.0, 300.0, 400.0, 510.0, 630.0, 770.0, 920.0, 1080.0, 1270.0, 1480.0, 1720.0,
    2000.0, 2320.0, 2700.0, 3150.0, 3700.0, 4400.0, 5300.0, 6400.0, 7700.0, 9500.0, 12000.0,
    15500.0,
];
/// Their centres (Hz; Zwicker's).
const CENTRES: [f64; BANDS] = [
    50.0, 150.0, 250.0, 350.0, 450.0, 570.0, 700.0, 840.0, 1000.0, 1170.0, 1370.0, 1600.0, 1850.0,
    2150.0, 2500.0, 2900.0, 3400.0, 4000.0, 4800.0, 5800.0, 7000.0, 8500.0, 10500.0, 13500.0,
];
const BANDS: usize = 24;
/// The analysis hop: 10 ms.
pub const HOP: usize = 480;
/// The FFT's length, centred on each hop.
const N: usize = 1024;
/// Masking lies this far (dB) below the spread masker.
const OFFSET_DB: f64 = 10.0;

/// A play's future as band powers per [`HOP`] of its life.
pub struct Bands {
    windows: Vec<[f32; BANDS]>,
}

impl Bands {
    /// Analyses `mono` (a play's future, L + R, from its start) over
    /// `windows` hops.
    pub fn analyse(mono: &[f64], windows: usize) -> Bands {
        let a = analyser();
        let mut energy = vec![0.0];
        for x in mono {
            energy.push(energy.last().unwrap() + x * x);
        }
        let span = |w: usize| {
            let centre = (w * HOP + HOP / 2) as isize;
            (centre - N as isize / 2, centre + N as isize / 2)
        };
        let clip = |i: isize| i.clamp(0, mono.len() as isize) as usize;
        // Silent windows (most of a short sound's future) need no FFT.
        let sounding: Vec<usize> = (0..windows)
            .filter(|&w| {
                let (lo, hi) = span(w);
                energy[clip(hi)] - energy[clip(lo)] > 1e-18
            })
            .collect();
        let mut out = Bands {
            windows: vec![[0.0; BANDS]; windows],
        };
        let (mut re, mut im) = (vec![0.0; N], vec![0.0; N]);
        // Two real windows per complex FFT: one as the real part, one as
        // the imaginary.
        for pair in sounding.chunks(2) {
            for (k, &w) in pair.iter().enumerate() {
                let dst = if k == 0 { &mut re } else { &mut im };
                let (lo, _) = span(w);
                for (n, d) in dst.iter_mut().enumerate() {
                    let i = lo + n as isize;
                    let x = if i >= 0 && (i as usize) < mono.len() {
                        mono[i as usize]
                    } else {
                        0.0
                    };
                    *d = x * a.hann[n];
                }
            }
            if pair.len() == 1 {
                im.fill(0.0);
            }
            a.fft(&mut re, &mut im);
            for bin in 0..=N / 2 {
                let m = (N - bin) % N;
                let (zr, zi, cr, ci) = (re[bin], im[bin], re[m], im[m]);
                let first = ((zr + cr).powi(2) + (zi - ci).powi(2)) / 4.0;
                let second = ((zr - cr).powi(2) + (zi + ci).powi(2)) / 4.0;
                let (b, scale) = (a.band[bin], a.scale[bin]);
                out.windows[pair[0]][b] += (first * scale) as f32;
                if let Some(&w) = pair.get(1) {
                    out.windows[w][b] += (second * scale) as f32;
                }
            }
        }
        out
    }

    /// Its band powers in the scenario's hop `w`, for a play that started
    /// at frame `start` (none before it started or after its future).
    fn at(&self, w: usize, start: u64) -> Option<&[f32; BANDS]> {
        let from_start = (w * HOP) as i64 - start as i64;
        if from_start < 0 {
            return None;
        }
        self.windows.get(from_start as usize / HOP)
    }
}

/// The FFT's tables, the window and the bins' bands and scales.
struct Analyser {
    reverse: Vec<usize>,
    /// e^(-2 pi i k / N), k < N / 2.
    twiddles: Vec<(f64, f64)>,
    hann: Vec<f64>,
    band: Vec<usize>,
    /// Per bin up to N / 2: what turns |X|^2 into mean-square power
    /// (Parseval, the window's energy, both halves of the spectrum).
    scale: Vec<f64>,
}

fn analyser() -> &'static Analyser {
    static A: OnceLock<Analyser> = OnceLock::new();
    A.get_or_init(|| {
        let bits = N.trailing_zeros();
        let hann: Vec<f64> = (0..N)
            .map(|n| 0.5 - 0.5 * (std::f64::consts::TAU * n as f64 / N as f64).cos())
            .collect();
        let energy: f64 = hann.iter().map(|w| w * w).sum();
        Analyser {
            reverse: (0..N)
                .map(|i| i.reverse_bits() >> (usize::BITS - bits))
                .collect(),
            twiddles: (0..N / 2)
                .map(|k| {
                    let a = -std::f64::consts::TAU * k as f64 / N as f64;
                    (a.cos(), a.sin())
                })
                .collect(),
            band: (0..=N / 2)
                .map(|bin| {
                    let f = bin as f64 * f64::from(RATE) / N as f64;
                    (0..BANDS).find(|&b| f < EDGES[b + 1]).unwrap_or(BANDS - 1)
                })
                .collect(),
            scale: (0..=N / 2)
                .map(|bin| {
                    let both = if bin == 0 || bin == N / 2 { 1.0 } else { 2.0 };
                    both / (N as f64 * energy)
                })
                .collect(),
            hann,
        }
    })
}

impl Analyser {
    /// In-place iterative radix-2 FFT of length [`N`].
    fn fft(&self, re: &mut [f64], im: &mut [f64]) {
        for i in 0..N {
            let j = self.reverse[i];
            if i < j {
                re.swap(i, j);
                im.swap(i, j);
            }
        }
        let mut len = 2;
        while len <= N {
            let (half, step) = (len / 2, N / len);
            for start in (0..N).step_by(len) {
                for k in 0..half {
                    let (c, s) = self.twiddles[k * step];
                    let (a, b) = (start + k, start + k + half);
                    let (tr, ti) = (re[b] * c - im[b] * s, re[b] * s + im[b] * c);
                    (re[b], im[b]) = (re[a] - tr, im[a] - ti);
                    (re[a], im[a]) = (re[a] + tr, im[a] + ti);
                }
            }
            len *= 2;
        }
    }
}

/// Per band: the K-weighting's power gain at its centre, the threshold in
/// quiet as a band power, and how a masker's power in each band spreads
/// to it (offset included).
struct Model {
    k: [f64; BANDS],
    quiet: [f64; BANDS],
    spread: [[f64; BANDS]; BANDS],
}

fn model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| {
        let mut m = Model {
            k: [0.0; BANDS],
            quiet: [0.0; BANDS],
            spread: [[0.0; BANDS]; BANDS],
        };
        for (b, &f) in CENTRES.iter().enumerate() {
            // The reference K-weighting's steady-state power gain on a sine
            // at the centre (the last half of a second of it).
            let mut x: Vec<f64> = (0..RATE as usize)
                .map(|i| (std::f64::consts::TAU * f * i as f64 / f64::from(RATE)).sin())
                .collect();
            let dry: f64 = x[x.len() / 2..].iter().map(|v| v * v).sum();
            k_weight(&mut x);
            m.k[b] = x[x.len() / 2..].iter().map(|v| v * v).sum::<f64>() / dry;
            // Terhardt's threshold in quiet (dB SPL); a full-scale sine
            // (mean square 0.5) is 90 dB SPL.
            let khz = f / 1000.0;
            let spl = 3.64 * khz.powf(-0.8) - 6.5 * (-0.6 * (khz - 3.3).powi(2)).exp()
                + 1e-3 * khz.powi(4);
            m.quiet[b] = 0.5 * 10f64.powf((spl - 90.0) / 10.0);
            for (j, s) in m.spread[b].iter_mut().enumerate() {
                // Masker band j reaching band b, dz bands up or down.
                let dz = b as f64 - j as f64;
                let db = if dz >= 0.0 { -10.0 * dz } else { 25.0 * dz };
                *s = 10f64.powf((db - OFFSET_DB) / 10.0);
            }
        }
        m
    })
}

/// A play's bands and the frame it started.
pub type Sounding<'a> = (&'a Bands, u64);

/// The mean audible K-weighted power of `voice` over `len` hops from the
/// scenario's hop `from`: per hop and band, what of its power lies above
/// the threshold `maskers` make (and above the threshold in quiet).
pub fn audible(voice: Sounding, maskers: &[Sounding], from: usize, len: usize) -> f64 {
    let m = model();
    let mut total = 0.0;
    for w in from..from + len {
        let Some(p) = voice.0.at(w, voice.1) else {
            continue;
        };
        if p.iter().all(|&x| x == 0.0) {
            continue;
        }
        let mut masker = [0.0f64; BANDS];
        for q in maskers.iter().filter_map(|&(b, s)| b.at(w, s)) {
            for (sum, &x) in masker.iter_mut().zip(q) {
                *sum += f64::from(x);
            }
        }
        for ((&power, spread), (&k, &quiet)) in
            p.iter().zip(&m.spread).zip(m.k.iter().zip(&m.quiet))
        {
            let masking: f64 = spread.iter().zip(&masker).map(|(s, x)| s * x).sum();
            total += k * (f64::from(power) - masking.max(quiet)).max(0.0);
        }
    }
    total / len as f64
}
