//! The mixer's AVX2 kernels (used when the CPU has AVX2) and its portable
//! kernels render the same bits, so an offline render is the same on every
//! machine; and a render is the same every time.

use voicepool::bench_support::SplitMix;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};

/// A script touching every kernel: mono and stereo sources, rate-matched
/// and resampled, pitch down, up by less than 2 and by more, loops, fades,
/// volume and pan ramps, a stop, and blocks of odd sizes.
fn render(portable: bool) -> Vec<u32> {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 16,
        ..Default::default()
    })
    .unwrap();
    if portable {
        engine.mixer_mut().force_portable_kernels();
    }
    let tone = |channels: u16, rate: u32, frames: usize| {
        let s: Vec<f32> = (0..frames * channels as usize)
            .map(|i| ((i * 7919 % 1000) as f32 / 1000.0 - 0.5) * 0.8)
            .collect();
        Sound::from_samples(channels, rate, s).unwrap()
    };
    let sounds = [
        tone(1, 48_000, 3_000),
        tone(1, 44_100, 2_000),
        tone(2, 48_000, 2_500),
        tone(2, 22_050, 1_000),
        tone(1, 96_000, 5_000),
    ];
    let mut handles = Vec::new();
    for (i, pitch) in [1.0, 0.5, 1.3, 1.9, 3.7, 0.93].iter().enumerate() {
        for (j, sound) in sounds.iter().enumerate() {
            if (i + j) % 3 == 0 {
                continue;
            }
            let p = PlayParams::default()
                .pitch(*pitch)
                .volume(0.1 + 0.05 * j as f32)
                .pan(-0.8 + 0.3 * i as f32)
                .looping(j % 2 == 0)
                .fade_in(if i % 2 == 0 { 0.003 } else { 0.0 });
            if let Ok(h) = engine.play(sound, p) {
                handles.push(h);
            }
        }
    }
    let mut out = Vec::new();
    for (k, frames) in [480usize, 1, 333, 2_000, 64, 480, 777, 480]
        .iter()
        .enumerate()
    {
        if let Some(&h) = handles.get(k * 2) {
            engine.set_volume(h, 0.05 * k as f32).unwrap();
            engine.set_pan(h, 0.9 - 0.2 * k as f32).unwrap();
        }
        if k == 4 {
            engine.stop(handles[1]).unwrap();
        }
        out.extend(engine.render(*frames).iter().map(|s| s.to_bits()));
    }
    out
}

#[test]
fn portable_and_simd_kernels_render_the_same_bits() {
    let simd = render(false);
    assert!(simd.iter().any(|&b| b != 0));
    assert_eq!(simd, render(true));
}

#[test]
fn a_render_is_the_same_every_time() {
    assert_eq!(render(false), render(false));
}

/// Stereo sources at pitches around each AVX2 window's bound (step 1 and 2
/// source frames per output frame) and beyond, from sounds at several rates,
/// long and short (a short loop plays from its loop tile), started a few
/// frames apart, with fades, volume and pan ramps and blocks of odd sizes.
fn render_stereo(portable: bool) -> Vec<u32> {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 64,
        ..Default::default()
    })
    .unwrap();
    if portable {
        engine.mixer_mut().force_portable_kernels();
    }
    let tone = |rate: u32, frames: usize| {
        let s: Vec<f32> = (0..frames * 2)
            .map(|i| ((i * 7919 % 1009) as f32 / 1009.0 - 0.5) * 0.8)
            .collect();
        Sound::from_samples(2, rate, s).unwrap()
    };
    let sounds = [
        tone(44_100, 3_000),
        tone(48_000, 2_000),
        tone(22_050, 1_500),
        tone(96_000, 4_000),
        tone(44_100, 37),
    ];
    let pitches = [
        0.3, 0.93, 0.999, 1.0, 1.001, 1.088, 1.5, 1.999, 2.0, 2.001, 2.2, 3.7,
    ];
    let mut handles = Vec::new();
    let mut out = Vec::new();
    for (i, pitch) in pitches.iter().enumerate() {
        for (j, sound) in sounds.iter().enumerate() {
            if (i + j) % 2 == 0 {
                continue;
            }
            let p = PlayParams::default()
                .pitch(*pitch)
                .volume(0.05 + 0.02 * j as f32)
                .pan(-0.9 + 0.15 * i as f32)
                .looping(j != 1)
                .fade_in(if i % 3 == 0 { 0.002 } else { 0.0 });
            if let Ok(h) = engine.play(sound, p) {
                handles.push(h);
            }
        }
        out.extend(engine.render(3 + i).iter().map(|s| s.to_bits()));
    }
    for (k, frames) in [480usize, 1, 333, 2_000, 64, 480, 777, 480]
        .iter()
        .enumerate()
    {
        for &h in handles.iter().skip(k).step_by(5) {
            engine.set_volume(h, 0.02 + 0.01 * k as f32).unwrap();
            engine.set_pan(h, 0.7 - 0.2 * k as f32).unwrap();
        }
        out.extend(engine.render(*frames).iter().map(|s| s.to_bits()));
    }
    out
}

#[test]
fn portable_and_simd_kernels_render_stereo_sources_the_same_bits() {
    let simd = render_stereo(false);
    assert!(simd.iter().any(|&b| b != 0));
    assert_eq!(simd, render_stereo(true));
}

/// Many voices each playing a different sound, mono or stereo, long (up to
/// 2 s, so that more than 8 MiB of distinct sample data is in play and the
/// mixer fetches voices' data ahead) or short (a loop read from its loop
/// tile), at random rates, pitches (within and beyond the window kernels'
/// bounds), start positions (seeks), loop or one-shot, with fades, volume,
/// pan and pitch changes, loud enough in places for the output limiter to
/// bend, in blocks of odd sizes.
fn render_distinct(portable: bool, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix(seed);
    let voices = 64;
    let mut engine = OfflineEngine::new(EngineSettings {
        voices,
        command_capacity: 1024,
        event_capacity: 1024,
        ..Default::default()
    })
    .unwrap();
    if portable {
        engine.mixer_mut().force_portable_kernels();
    }
    let rates = [22_050u32, 44_100, 48_000, 96_000];
    let mut handles = Vec::new();
    let mut keep = Vec::new();
    for i in 0..voices {
        let channels = 1 + (rng.bits() % 2) as u16;
        let rate = rates[(rng.bits() % 4) as usize];
        let frames = if i % 5 == 0 {
            1 + (rng.bits() % 3_000) as usize
        } else {
            44_100 + (rng.bits() % 44_100) as usize
        };
        let f = 0.001 + 0.05 * rng.unit();
        let samples: Vec<f32> = (0..frames * channels as usize)
            .map(|k| {
                (k as f32 * f).sin() * 0.6 + ((k * 7_919 % 1_013) as f32 / 1_013.0 - 0.5) * 0.3
            })
            .collect();
        let sound = Sound::from_samples(channels, rate, samples).unwrap();
        let pitch = [0.25, 0.93, 1.0, 1.0, 1.37, 1.999, 2.0, 2.5, 3.9][(rng.bits() % 9) as usize]
            * (1.0 + 0.01 * rng.unit());
        let p = PlayParams::default()
            .pitch(pitch)
            .volume(0.05 + 0.4 * rng.unit())
            .pan(rng.unit() * 2.0 - 1.0)
            .looping(!rng.bits().is_multiple_of(4))
            .fade_in(if i % 3 == 0 { 0.002 } else { 0.0 });
        let h = engine.play(&sound, p).unwrap();
        let at = std::time::Duration::from_secs_f64(
            f64::from(rng.unit()) * frames as f64 / f64::from(rate),
        );
        engine.seek(h, at).unwrap();
        handles.push(h);
        keep.push(sound);
    }
    let mut out = Vec::new();
    for k in 0..12 {
        for _ in 0..4 {
            let h = handles[(rng.bits() % voices as u64) as usize];
            let _ = engine.set_volume(h, 0.05 + 0.5 * rng.unit());
            let _ = engine.set_pan(h, rng.unit() * 2.0 - 1.0);
            let _ = engine.set_pitch(h, 0.5 + 2.0 * rng.unit());
        }
        let frames = [480usize, 1, 333, 2_000, 64, 480, 777, 17][k % 8];
        out.extend(engine.render(frames).iter().map(|s| s.to_bits()));
    }
    out
}

#[test]
fn portable_and_simd_kernels_render_distinct_sounds_the_same_bits() {
    for seed in [1, 2, 3] {
        let simd = render_distinct(false, seed);
        assert!(simd.iter().any(|&b| b != 0));
        assert!(
            simd.iter().any(|&b| f32::from_bits(b).abs() > 0.9),
            "the limiter bends somewhere"
        );
        assert_eq!(simd, render_distinct(true, seed), "seed {seed}");
    }
}
