//! Synthesizes the WAV files in `samples/` (so the project owns every sound
//! it ships). Deterministic: the same files, byte for byte, every run.
//!
//! ```text
//! cargo run --example make_samples            # writes samples/*.wav
//! cargo run --example make_samples -- DIR     # writes DIR/*.wav
//! ```
//!
//! - `swish.wav`: a wand swish, band-passed noise sweeping up and down (0.45 s).
//! - `sparkle_1.wav` .. `sparkle_6.wav`: short glassy bell tones (0.2 to 0.35 s).
//! - `ambience.wav`: a quiet stereo drone with wind that loops seamlessly (3 s).
//! - `footstep.wav`: a soft thump (0.2 s), for the game-loop example.

use std::f32::consts::TAU;
use std::path::{Path, PathBuf};

const RATE: u32 = 48_000;
/// The ambience is stereo at a lower rate to stay small.
const AMBIENCE_RATE: u32 = 24_000;

/// A small deterministic noise source (64-bit LCG).
struct Noise(u64);

impl Noise {
    /// Uniform in -1.0..1.0.
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    }
}

/// A state-variable filter (Chamberlin), band-pass and low-pass outputs.
#[derive(Default)]
struct Svf {
    low: f32,
    band: f32,
}

impl Svf {
    fn run(&mut self, x: f32, cutoff: f32, q: f32, rate: u32) -> (f32, f32) {
        let f = 2.0 * (std::f32::consts::PI * cutoff / rate as f32).sin();
        self.low += f * self.band;
        let high = x - self.low - self.band / q;
        self.band += f * high;
        (self.band, self.low)
    }
}

fn normalize(samples: &mut [f32], peak: f32) {
    let max = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    if max > 0.0 {
        samples.iter_mut().for_each(|s| *s *= peak / max);
    }
}

/// Short linear fades so no file starts or ends with a click.
fn fade_edges(samples: &mut [f32], channels: usize, fade_in: usize, fade_out: usize) {
    let frames = samples.len() / channels;
    for i in 0..fade_in.min(frames) {
        let g = i as f32 / fade_in as f32;
        samples[i * channels..(i + 1) * channels]
            .iter_mut()
            .for_each(|s| *s *= g);
    }
    for i in 0..fade_out.min(frames) {
        let g = i as f32 / fade_out as f32;
        let f = frames - 1 - i;
        samples[f * channels..(f + 1) * channels]
            .iter_mut()
            .for_each(|s| *s *= g);
    }
}

fn swish() -> Vec<f32> {
    let n = (RATE as f32 * 0.45) as usize;
    let mut noise = Noise(1);
    let (mut a, mut b) = (Svf::default(), Svf::default());
    let mut out: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f32 / n as f32;
            // The wand's arc: the band rises fast, then falls away.
            let sweep = (t * std::f32::consts::PI).sin().powf(0.7);
            let cutoff = 350.0 + 3_200.0 * sweep;
            let x = noise.next();
            let (band, _) = a.run(x, cutoff, 2.5, RATE);
            let (band2, _) = b.run(band, cutoff * 1.02, 2.5, RATE);
            let env = (t / 0.18).min(1.0).powf(1.5) * (1.0 - t).powf(1.8);
            band2 * env
        })
        .collect();
    normalize(&mut out, 0.8);
    fade_edges(&mut out, 1, 48, 480);
    out
}

fn sparkle(index: usize) -> Vec<f32> {
    let f0 = [2_093.0, 2_637.0, 3_136.0, 3_520.0, 4_186.0, 2_349.0][index % 6];
    let seconds = [0.3, 0.25, 0.35, 0.2, 0.22, 0.28][index % 6];
    let n = (RATE as f32 * seconds) as usize;
    // Inharmonic partials of a small glass bell.
    let partials = [
        (1.0, 1.0, 14.0),
        (2.76, 0.5, 22.0),
        (5.40, 0.25, 35.0),
        (8.93, 0.12, 50.0),
    ];
    let mut noise = Noise(100 + index as u64);
    let mut out: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f32 / RATE as f32;
            // Partials above 11 kHz are left out, so that even played 1.7x
            // faster nothing folds back past the Nyquist frequency.
            let tone: f32 = partials
                .iter()
                .filter(|&&(ratio, _, _)| f0 * ratio <= 11_000.0)
                .map(|&(ratio, gain, decay)| {
                    gain * (TAU * f0 * ratio * t).sin() * (-t * decay).exp()
                })
                .sum();
            let tick = noise.next() * (-t * 900.0).exp() * 0.3;
            tone + tick
        })
        .collect();
    normalize(&mut out, 0.6);
    fade_edges(&mut out, 1, 24, 960);
    out
}

/// Stereo, `seconds` long, looping without a seam.
fn ambience(seconds: f32) -> Vec<f32> {
    let n = (AMBIENCE_RATE as f32 * seconds) as usize;
    let overlap = AMBIENCE_RATE as usize / 2;
    let mut noise = Noise(7);
    let mut filters = [Svf::default(), Svf::default()];
    // Render n + overlap frames; then cross-fade the extra tail into the head.
    let raw: Vec<[f32; 2]> = (0..n + overlap)
        .map(|i| {
            let t = i as f32 / AMBIENCE_RATE as f32;
            // Every slow cycle divides the loop length, so the loop is exact.
            let phase = t / seconds;
            let mut frame = [0.0f32; 2];
            for (ch, f) in filters.iter_mut().enumerate() {
                let wind_cut = 500.0 + 300.0 * (TAU * (phase * 2.0 + ch as f32 * 0.25)).sin();
                let (_, low) = f.run(noise.next(), wind_cut, 0.9, AMBIENCE_RATE);
                let gust = 0.6 + 0.4 * (TAU * (phase + ch as f32 * 0.5)).sin();
                let drone = 0.5 * (TAU * 55.0 * t).sin() + 0.3 * (TAU * 82.5 * t).sin();
                let swell = 0.7 + 0.3 * (TAU * phase * 2.0).cos();
                frame[ch] = low * gust * 0.9 + drone * swell * 0.35;
            }
            frame
        })
        .collect();
    let mut out = Vec::with_capacity(n * 2);
    for i in 0..n {
        let frame = if i < overlap {
            let w = i as f32 / overlap as f32;
            let (a, b) = (raw[i], raw[n + i]);
            [a[0] * w + b[0] * (1.0 - w), a[1] * w + b[1] * (1.0 - w)]
        } else {
            raw[i]
        };
        out.extend_from_slice(&frame);
    }
    normalize(&mut out, 0.5);
    out
}

fn footstep() -> Vec<f32> {
    let n = (RATE as f32 * 0.2) as usize;
    let mut noise = Noise(3);
    let mut lp = Svf::default();
    let mut phase = 0.0f32;
    let mut out: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f32 / RATE as f32;
            let freq = 60.0 + 90.0 * (-t * 40.0).exp();
            phase += TAU * freq / RATE as f32;
            let (_, scuff) = lp.run(noise.next(), 900.0, 0.7, RATE);
            (phase.sin() * (-t * 28.0).exp()) + scuff * (-t * 45.0).exp() * 0.8
        })
        .collect();
    normalize(&mut out, 0.7);
    fade_edges(&mut out, 1, 24, 480);
    out
}

fn write(dir: &Path, name: &str, channels: u16, rate: u32, samples: &[f32]) -> PathBuf {
    let path = dir.join(name);
    let spec = hound::WavSpec {
        channels,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut wav = hound::WavWriter::create(&path, spec)
        .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", path.display())));
    for &s in samples {
        let v = (s.clamp(-1.0, 1.0) * 32_767.0).round() as i16;
        wav.write_sample(v)
            .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", path.display())));
    }
    wav.finalize()
        .unwrap_or_else(|e| fail(&format!("cannot finish {}: {e}", path.display())));
    path
}

fn fail(message: &str) -> ! {
    eprintln!("make_samples: {message}");
    std::process::exit(1);
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("samples"));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        fail(&format!("cannot create {}: {e}", dir.display()));
    }
    let mut written = vec![write(&dir, "swish.wav", 1, RATE, &swish())];
    for i in 0..6 {
        let name = format!("sparkle_{}.wav", i + 1);
        written.push(write(&dir, &name, 1, RATE, &sparkle(i)));
    }
    written.push(write(
        &dir,
        "ambience.wav",
        2,
        AMBIENCE_RATE,
        &ambience(3.0),
    ));
    written.push(write(&dir, "footstep.wav", 1, RATE, &footstep()));
    for path in written {
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!("wrote {} ({:.1} KB)", path.display(), size as f64 / 1024.0);
    }
}
