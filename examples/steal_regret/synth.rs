//! The scenarios' synthesized sounds, varied by the seeded generator.

use super::*;

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
