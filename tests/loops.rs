//! Looping voices read exactly the frames they should, at every pitch and
//! loop length: across the loop seam, over several wraps in one output frame,
//! and for loops only a few frames long.

use voicepool_testkit::common;

use common::RATE;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};

/// A loop of `frames` frames: one period of a low sine (a rumble) when it
/// is long, a few arbitrary values when it is very short.
fn loop_samples(frames: usize) -> Vec<f32> {
    (0..frames)
        .map(|i| {
            let t = i as f64 / frames as f64;
            (0.8 * (t * std::f64::consts::TAU).sin() + 0.1 * (i % 3) as f64 - 0.1) as f32
        })
        .collect()
}

/// The sound read at source position `p` (in frames) of a loop, linearly
/// interpolated between frame floor(p) and the next, wrapping.
fn expected_at(s: &[f32], p: f64) -> f64 {
    let n = s.len() as f64;
    let p = p % n;
    let i = p.floor() as usize;
    let f = p - p.floor();
    let a = f64::from(s[i % s.len()]);
    let b = f64::from(s[(i + 1) % s.len()]);
    a + (b - a) * f
}

#[test]
fn loops_play_what_the_loop_holds_at_every_pitch() {
    // (loop frames, source rate, pitch)
    let cases: &[(usize, u32, f32)] = &[
        (960, 48_000, 1.0),   // a 50 Hz rumble, one period
        (960, 48_000, 1.5),   // steps that jump over the seam
        (960, 48_000, 2.25),  // the seam's frame skipped entirely
        (960, 44_100, 3.7),   // resampled too
        (64, 48_000, 64.0),   // every output frame wraps (one loop per frame)
        (16, 48_000, 64.0),   // several wraps in one output frame
        (4, 48_000, 1.0),     // a 4-frame loop
        (3, 48_000, 1.3),     // a 3-frame loop, fractional step
        (1, 48_000, 1.0),     // a single frame, held
        (4_800, 48_000, 1.0), // long loops (read from the sound itself)
        (4_800, 48_000, 1.5),
        (4_097, 44_100, 2.25),
        (4_801, 48_000, 7.9),
        (5_000, 48_000, 64.0), // a wrap every 78 output frames
    ];
    for &(frames, rate, pitch) in cases {
        let s = loop_samples(frames);
        let sound = Sound::from_samples(1, rate, s.clone()).unwrap();
        let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
        e.play(&sound, PlayParams::default().looping(true).pitch(pitch))
            .unwrap();
        let mut out = Vec::new();
        for _ in 0..20 {
            out.extend_from_slice(e.render(480));
        }
        let step = f64::from(rate) / f64::from(RATE) * f64::from(pitch);
        let gain = std::f64::consts::FRAC_1_SQRT_2; // centre pan, mono
        let mut worst = (0.0f64, 0usize);
        for (k, frame) in out.chunks(2).enumerate() {
            let want = expected_at(&s, k as f64 * step) * gain;
            let err = (f64::from(frame[0]) - want).abs();
            if err > worst.0 {
                worst = (err, k);
            }
        }
        assert!(
            worst.0 < 1e-4,
            "{frames}-frame loop at {rate} Hz, pitch {pitch}: off by {:.4} at output frame {}",
            worst.0,
            worst.1
        );
    }
}
