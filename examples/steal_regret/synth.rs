//! The scenarios' synthesized sounds, varied by the seeded generator.

use std::f32::consts::TAU;

use super::*;

/// Deterministic xorshift.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    pub fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn noise(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

/// One-pole low-pass over `x` at `cutoff` Hz.
pub fn low_pass(x: &mut [f32], cutoff: f32) {
    let a = (-std::f32::consts::TAU * cutoff / RATE as f32).exp();
    let mut y = 0.0;
    for s in x.iter_mut() {
        y = (1.0 - a) * *s + a * y;
        *s = y;
    }
}

/// A mono sound of `s` at [`RATE`].
pub fn mono(s: Vec<f32>, name: &str) -> Sound {
    Sound::from_samples(1, RATE, s)
        .expect("valid")
        .with_name(name)
}

/// A crack, a gap of `lo..hi` seconds, an echo.
pub fn gunshot(rng: &mut Rng, lo: f32, hi: f32) -> Sound {
    let gap = rng.range(lo, hi);
    let crack = secs(0.04);
    let mut s = vec![0.0; crack + secs(gap) + secs(0.3)];
    for (i, v) in s.iter_mut().enumerate().take(crack) {
        *v = rng.noise() * 0.9 * (-(i as f32) / secs(0.012) as f32).exp();
    }
    let echo_at = crack + secs(gap);
    let mut echo: Vec<f32> = (0..secs(0.3))
        .map(|i| rng.noise() * 0.35 * (-(i as f32) / secs(0.1) as f32).exp())
        .collect();
    low_pass(&mut echo, 2_500.0);
    s[echo_at..].copy_from_slice(&echo);
    mono(s, "gunshot")
}

/// A boom with a long rumbling tail.
pub fn explosion(rng: &mut Rng) -> Sound {
    let mut s: Vec<f32> = (0..secs(2.5))
        .map(|i| rng.noise() * (-(i as f32) / secs(0.5) as f32).exp())
        .collect();
    low_pass(&mut s, 400.0);
    s.iter_mut().for_each(|v| *v *= 3.0);
    mono(s, "explosion")
}

/// A vowel-like syllable: harmonics of `f0` under a smooth envelope.
fn syllable(f0: f32, len: usize, out: &mut Vec<f32>) {
    for i in 0..len {
        let t = i as f32 / RATE as f32;
        let env = (std::f32::consts::PI * i as f32 / len as f32).sin();
        let v: f32 = (1..=12)
            .map(|h| {
                let f = f0 * h as f32;
                let formant = (-((f - 700.0) / 400.0).powi(2)).exp()
                    + 0.6 * (-((f - 2_200.0) / 500.0).powi(2)).exp();
                (std::f32::consts::TAU * f * t).sin() * formant
            })
            .sum();
        out.push(0.25 * env * v);
    }
}

/// A line of dialogue: phrases of syllables, pauses between them.
pub fn dialogue(rng: &mut Rng) -> Sound {
    let mut s = Vec::new();
    let f0 = rng.range(110.0, 210.0);
    for phrase in 0..rng.pick(3) + 2 {
        if phrase > 0 {
            s.extend(std::iter::repeat_n(0.0, secs(rng.range(0.15, 0.45))));
        }
        for _ in 0..rng.pick(5) + 3 {
            syllable(
                f0 * rng.range(0.9, 1.15),
                secs(rng.range(0.08, 0.2)),
                &mut s,
            );
            s.extend(std::iter::repeat_n(0.0, secs(rng.range(0.01, 0.06))));
        }
    }
    mono(s, "dialogue")
}

/// A pain cry opening with 40 to 160 ms of silence.
pub fn pain(rng: &mut Rng) -> Sound {
    let mut s = vec![0.0; secs(rng.range(0.04, 0.16))];
    syllable(rng.range(250.0, 350.0), secs(0.35), &mut s);
    mono(s, "pain")
}

/// Glassy pings 90 ms apart (a sparkle burst).
pub fn ping_train(rng: &mut Rng) -> Sound {
    let f = rng.range(2_500.0, 4_500.0);
    let mut s = Vec::new();
    for _ in 0..rng.pick(6) + 4 {
        s.extend((0..secs(0.09)).map(|i| {
            let t = i as f32 / RATE as f32;
            0.5 * (std::f32::consts::TAU * f * t).sin() * (-t / 0.008).exp()
        }));
    }
    mono(s, "pings")
}

/// Quiet for its first 200 ms, then swelling to full.
pub fn swell(rng: &mut Rng) -> Sound {
    let f = rng.range(200.0, 600.0);
    let s = (0..secs(2.0))
        .map(|i| {
            let t = i as f32 / RATE as f32;
            let env = if t < 0.2 {
                0.01
            } else {
                (0.01 + (t - 0.2) * 1.2).min(0.7)
            };
            env * ((std::f32::consts::TAU * f * t).sin() + 0.3 * rng.noise())
        })
        .collect();
    mono(s, "swell")
}

/// Low rumble (mostly below 60 Hz), loopable.
pub fn rumble(rng: &mut Rng) -> Sound {
    let mut s: Vec<f32> = (0..secs(3.0)).map(|_| rng.noise() * 4.0).collect();
    low_pass(&mut s, 60.0);
    low_pass(&mut s, 60.0);
    mono(s, "rumble")
}

/// One footstep then silence: a running loop of steps `period` apart.
pub fn running(step: &Sound, period: f32) -> Sound {
    let mut s: Vec<f32> = step
        .samples()
        .iter()
        .step_by(step.channels() as usize)
        .copied()
        .collect();
    s.resize(secs(period), 0.0);
    mono(s, "running")
}

/// A passing vehicle's engine: a buzzy tone at 70 to 140 Hz with road
/// noise, 3 to 6 s.
pub fn engine(rng: &mut Rng) -> Sound {
    let f0 = rng.range(70.0, 140.0);
    let len = secs(rng.range(3.0, 6.0));
    let mut noise: Vec<f32> = (0..len).map(|_| rng.noise() * 0.15).collect();
    low_pass(&mut noise, 1_500.0);
    let s = (0..len)
        .map(|i| {
            let phase = (f0 * i as f32 / RATE as f32).fract();
            let edge = (i.min(len - i) as f32 / secs(0.05) as f32).min(1.0);
            ((2.0 * phase - 1.0) * 0.35 + noise[i]) * edge
        })
        .collect();
    mono(s, "engine")
}

/// Something flying: band-limited noise, 1 to 2 s.
pub fn whoosh(rng: &mut Rng) -> Sound {
    let len = secs(rng.range(1.0, 2.0));
    let mut s: Vec<f32> = (0..len).map(|_| rng.noise() * 0.8).collect();
    low_pass(&mut s, 3_000.0);
    for (i, v) in s.iter_mut().enumerate() {
        *v *= (i.min(len - i) as f32 / secs(0.1) as f32).min(1.0);
    }
    mono(s, "whoosh")
}

/// A fountain or fire: steady noise, looped.
pub fn steady(rng: &mut Rng) -> Sound {
    let mut s: Vec<f32> = (0..secs(2.0)).map(|_| rng.noise() * 0.5).collect();
    low_pass(&mut s, rng.range(800.0, 4_000.0));
    mono(s, "steady")
}

/// A held note: a steady tone for 0.25 to 0.9 s that stops (a 5 ms
/// release), then 30 to 200 ms of silence left in the file.
pub fn held_note(rng: &mut Rng) -> Sound {
    let (hold, release, tail) = (
        secs(rng.range(0.25, 0.9)),
        secs(0.005),
        secs(rng.range(0.03, 0.2)),
    );
    let f = rng.range(220.0, 880.0) * std::f32::consts::TAU / RATE as f32;
    let s: Vec<f32> = (0..hold + release + tail)
        .map(|i| {
            let env = if i < hold {
                1.0
            } else if i < hold + release {
                1.0 - (i - hold) as f32 / release as f32
            } else {
                0.0
            };
            0.6 * env * (f * i as f32).sin()
        })
        .collect();
    mono(s, "held note")
}

/// A two-pole resonator (a band-pass) at `centre` Hz, `width` Hz wide,
/// over `x`, added into `out` times `gain`.
fn resonate(x: &[f32], centre: f32, width: f32, gain: f32, out: &mut [f32]) {
    let r = (-std::f32::consts::PI * width / RATE as f32).exp();
    let c = 2.0 * r * (TAU * centre / RATE as f32).cos();
    let (mut y1, mut y2) = (0.0, 0.0);
    for (o, &v) in out.iter_mut().zip(x) {
        let y = (1.0 - r) * v + c * y1 - r * r * y2;
        (y2, y1) = (y1, y);
        *o += gain * y;
    }
}

/// Fades `s` in and out over `len` frames, then scales it to a K-weighted
/// RMS of `level` (sounds of different spectra then sound as loud).
fn finish(s: &mut [f32], len: usize, level: f64) {
    let n = s.len();
    for (i, v) in s.iter_mut().enumerate() {
        *v *= (i.min(n - 1 - i) as f32 / len as f32).min(1.0);
    }
    let mut x: Vec<f64> = s.iter().map(|&v| f64::from(v)).collect();
    k_weight(&mut x);
    let rms = (x.iter().map(|v| v * v).sum::<f64>() / n as f64).sqrt();
    let gain = (level / rms.max(1e-12)) as f32;
    s.iter_mut().for_each(|v| *v *= gain);
}

/// A zombie's groan, 1 to 3 s: a buzzy voice at 100 to 180 Hz sagging in
/// pitch, with a slow wobble and breath, through two formants (450 to 650
/// Hz and 900 to 1300 Hz) over a dull body; it swells in over 200 ms and
/// dies away over its last 40 %.
pub fn groan(rng: &mut Rng) -> Sound {
    let (f0, len, wobble) = (
        rng.range(100.0, 180.0),
        secs(rng.range(1.0, 3.0)),
        rng.range(3.0, 6.0),
    );
    let mut phase = 0.0f32;
    let source: Vec<f32> = (0..len)
        .map(|i| {
            let sag = 1.0 - 0.15 * i as f32 / len as f32;
            let vibrato = 1.0 + 0.03 * (TAU * wobble * i as f32 / RATE as f32).sin();
            phase = (phase + f0 * sag * vibrato / RATE as f32).fract();
            (2.0 * phase - 1.0) + 0.3 * rng.noise()
        })
        .collect();
    let mut s = source.clone();
    low_pass(&mut s, 400.0);
    s.iter_mut().for_each(|v| *v *= 0.3);
    resonate(&source, rng.range(450.0, 650.0), 120.0, 1.0, &mut s);
    resonate(&source, rng.range(900.0, 1300.0), 180.0, 0.5, &mut s);
    for (i, v) in s.iter_mut().enumerate() {
        let left = (len - i) as f32 / len as f32;
        *v *= (i as f32 / secs(0.2) as f32).min(1.0) * (left / 0.4).min(1.0);
    }
    finish(&mut s, secs(0.01), 0.25);
    mono(s, "groan")
}

/// A music bed looping every 4 s (8 beats at 120 bpm): a chord of four
/// notes (root 196 to 294 Hz, major or minor, with the octave) every two
/// beats, their harmonics up to 2 kHz, struck on each beat and falling to
/// a held level.
pub fn music(rng: &mut Rng) -> Sound {
    let beat = secs(0.5);
    let chords: Vec<Vec<f32>> = (0..4)
        .map(|_| {
            let root = 196.0 * 2f32.powf(rng.pick(8) as f32 / 12.0);
            let third = if rng.pick(2) == 0 { 4.0 } else { 3.0 };
            [0.0, third, 7.0, 12.0]
                .iter()
                .map(|st: &f32| root * 2f32.powf(st / 12.0))
                .collect()
        })
        .collect();
    let edge = secs(0.005) as f32;
    let mut s: Vec<f32> = (0..8 * beat)
        .map(|i| {
            let (t, in_chord) = (i as f32 / RATE as f32, i % (2 * beat));
            let fades = (in_chord.min(2 * beat - 1 - in_chord) as f32 / edge).min(1.0);
            let strike = (-((i % beat) as f32) / secs(0.15) as f32).exp();
            let x: f32 = chords[i / (2 * beat)]
                .iter()
                .flat_map(|&f| (1..=(2_000.0 / f) as usize).map(move |h| (f, h as f32)))
                .map(|(f, h)| (TAU * f * h * t).sin() / h)
                .sum();
            (0.4 + 0.6 * strike) * fades * x
        })
        .collect();
    finish(&mut s, 1, 0.25);
    mono(s, "music")
}

/// A steady hum at 300 to 600 Hz with a weaker octave, 1.5 to 3 s.
pub fn hum(rng: &mut Rng) -> Sound {
    let (f, len) = (rng.range(300.0, 600.0), secs(rng.range(1.5, 3.0)));
    let mut s: Vec<f32> = (0..len)
        .map(|i| {
            let t = i as f32 / RATE as f32;
            (TAU * f * t).sin() + 0.3 * (TAU * 2.0 * f * t).sin()
        })
        .collect();
    finish(&mut s, secs(0.03), 0.25);
    mono(s, "hum")
}

/// Something quiet high up, 1.5 to 3 s: hiss around 6 to 10 kHz, or
/// chimes at 6 to 9 kHz, 150 to 300 ms apart.
pub fn high(rng: &mut Rng) -> Sound {
    let len = secs(rng.range(1.5, 3.0));
    let mut s = vec![0.0; len];
    if rng.pick(2) == 0 {
        let noise: Vec<f32> = (0..len).map(|_| rng.noise()).collect();
        let mut once = vec![0.0; len];
        resonate(&noise, 8_000.0, 2_500.0, 1.0, &mut once);
        resonate(&once, 8_000.0, 2_500.0, 1.0, &mut s);
    } else {
        let gap = secs(rng.range(0.15, 0.3));
        for start in (0..len).step_by(gap) {
            let f = rng.range(6_000.0, 9_000.0);
            for (i, v) in s[start..].iter_mut().enumerate().take(secs(0.4)) {
                let t = i as f32 / RATE as f32;
                *v += (TAU * f * t).sin() * (-t / 0.05).exp();
            }
        }
    }
    finish(&mut s, secs(0.03), 0.25);
    mono(s, "high")
}
