//! Output safety: whatever the game plays, the device gets finite samples in
//! -1.0..=1.0; the limiter leaves quiet mixes untouched; stops, steals and
//! volume changes ramp instead of clicking.

use std::time::Duration;

use voicepool::mixer::LIMITER_THRESHOLD;
use voicepool::params::MAX_VOLUME;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, StealPolicy};

fn dc(channels: u16, value: f32, frames: usize) -> Sound {
    Sound::from_samples(channels, 48_000, vec![value; frames * channels as usize]).unwrap()
}

fn assert_safe(out: &[f32]) {
    for (i, &s) in out.iter().enumerate() {
        assert!(s.is_finite() && s.abs() <= 1.0, "sample {i} = {s}");
    }
}

/// Up to 4,096 voices of a full-scale-times-four square wave at the loudest
/// volume, through the largest master gain: sums up to about 7e5 in f32 that
/// the limiter brings within ±1.0, with no NaN, no wrap, and the sign kept.
/// As `Mixer::process` documents, the knee approaches 1.0 and never passes
/// it; sums that far beyond full scale round to exactly 1.0.
#[test]
fn many_loud_voices_summed_stay_finite_and_bounded() {
    let square: Vec<f32> = (0..48_000)
        .map(|i| if (i / 50) % 2 == 0 { 1e6 } else { -1e6 })
        .collect();
    let loud = Sound::from_samples(1, 48_000, square).unwrap();
    // (voices, master gain, whether the peak is exactly 1.0)
    for (voices, gain, at_one) in [(64, 1.0, false), (64, 16.0, false), (4_096, 16.0, true)] {
        let mut e = OfflineEngine::new(EngineSettings {
            voices,
            master_gain: gain,
            command_capacity: voices,
            event_capacity: 2 * voices,
            ..Default::default()
        })
        .unwrap();
        // All start together, once the audio side has taken every play
        // (at most 1,024 a block).
        let start = 480 * voices.div_ceil(1_024) as u64;
        for _ in 0..voices {
            let params = PlayParams::default().volume(1e9).looping(true);
            e.play(&loud, params.start_at(start)).unwrap();
        }
        e.render(start as usize);
        let out = e.render(480).to_vec();
        assert_safe(&out);
        // The square's sign survives: positive half-periods stay positive.
        assert!(out[0] > LIMITER_THRESHOLD && out[2 * 60] < -LIMITER_THRESHOLD);
        let peak = out.iter().fold(0.0f32, |m, s| m.max(s.abs()));
        assert_eq!(
            peak == 1.0,
            at_one,
            "{voices} voices, gain {gain}: peak {peak}"
        );
    }
}

/// Voices in opposite phase cancel exactly; nothing odd comes of a huge
/// intermediate sum.
#[test]
fn opposite_voices_cancel() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    e.play(&dc(1, 4.0, 4_800), PlayParams::default().volume(MAX_VOLUME))
        .unwrap();
    e.play(
        &dc(1, -4.0, 4_800),
        PlayParams::default().volume(MAX_VOLUME),
    )
    .unwrap();
    assert!(e.render(1_000).iter().all(|&s| s == 0.0));
}

/// Below the threshold the limiter is exactly transparent; master gain is a
/// plain multiply before it; gain 0 is silence however loud the voices.
#[test]
fn quiet_mixes_pass_unchanged_and_master_gain_scales() {
    let sound = dc(2, 0.8, 4_800); // stereo: centre pan leaves both at volume
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    e.play(&sound, PlayParams::default().volume(0.5)).unwrap();
    assert!(e.render(480).iter().all(|&s| s == 0.8f32 * 0.5));

    let mut e = OfflineEngine::new(EngineSettings {
        master_gain: 0.25,
        ..Default::default()
    })
    .unwrap();
    e.play(&sound, PlayParams::default()).unwrap();
    assert!(e.render(480).iter().all(|&s| s == 0.8f32 * 0.25));

    let mut e = OfflineEngine::new(EngineSettings {
        master_gain: 0.0,
        ..Default::default()
    })
    .unwrap();
    for _ in 0..8 {
        e.play(&dc(1, 4.0, 4_800), PlayParams::default().volume(MAX_VOLUME))
            .unwrap();
    }
    assert!(e.render(480).iter().all(|&s| s == 0.0));
}

/// A ramp from 0 to the loudest sample value: the output follows it exactly
/// up to the threshold, then bends smoothly (monotonic, no step larger than
/// the input's) towards 1.0 without reaching past it.
#[test]
fn the_limiter_curve_is_transparent_then_smooth_and_bounded() {
    let n = 48_000;
    let ramp: Vec<f32> = (0..n).map(|i| 4.0 * i as f32 / n as f32).collect();
    let step = 4.0 / n as f32;
    let sound =
        Sound::from_samples(2, 48_000, ramp.iter().flat_map(|&x| [x, x]).collect()).unwrap();
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    e.play(&sound, PlayParams::default()).unwrap();
    let out = e.render(n).to_vec();
    assert_safe(&out);
    let left: Vec<f32> = out.iter().step_by(2).copied().collect();
    for (i, (&y, &x)) in left.iter().zip(&ramp).enumerate() {
        if x <= LIMITER_THRESHOLD {
            assert_eq!(
                y, x,
                "frame {i}: below the threshold the limiter is transparent"
            );
        } else {
            assert!(y < x && y > LIMITER_THRESHOLD, "frame {i}: {x} -> {y}");
        }
    }
    for w in left.windows(2) {
        assert!(w[1] >= w[0], "monotonic");
        assert!(
            w[1] - w[0] <= step * 1.001,
            "no step larger than the input's"
        );
    }
    assert!(*left.last().unwrap() > 0.95);
}

/// Largest jump between consecutive output samples of one channel.
fn max_jump(out: &[f32]) -> f32 {
    let left: Vec<f32> = out.iter().step_by(2).copied().collect();
    left.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max)
}

/// Stop, stop_all, steal and volume changes ramp: on a constant (DC) sound,
/// where any cut would be a step, no two consecutive samples differ by more
/// than a fade's slope.
#[test]
fn stops_steals_and_volume_changes_do_not_click() {
    let sound = dc(1, 0.5, 96_000);
    let settings = EngineSettings {
        voices: 1,
        steal_policy: StealPolicy::Oldest,
        min_voice_age: Duration::ZERO,
        ..Default::default()
    };
    // Each scenario starts one voice, renders into its steady part, acts,
    // then renders across the change.
    type Act = fn(&mut OfflineEngine, voicepool::VoiceHandle, &Sound);
    let acts: [(&str, Act); 4] = [
        ("stop", |e, h, _| e.stop(h).unwrap()),
        ("stop_all", |e, _, _| e.stop_all().unwrap()),
        ("set_volume", |e, h, _| e.set_volume(h, 0.0).unwrap()),
        ("steal", |e, _, s| {
            // The thief is silent, so what is heard is the victim's fade.
            e.play(s, PlayParams::default().volume(0.0)).unwrap();
        }),
    ];
    for (name, act) in acts {
        let mut e = OfflineEngine::new(settings.clone()).unwrap();
        let h = e.play(&sound, PlayParams::default()).unwrap();
        e.render(4_800);
        let before = *e.render(1).first().unwrap();
        assert!(before > 0.3, "{name}: steady level {before}");
        act(&mut e, h, &sound);
        let mut out = vec![before, before];
        out.extend_from_slice(e.render(4_800));
        let jump = max_jump(&out);
        // The shortest fade (steal, 5 ms = 240 frames) from about 0.35.
        assert!(jump < 0.35 / 200.0, "{name}: a jump of {jump}");
        assert!(out[out.len() - 2].abs() < 1e-6, "{name}: silent at the end");
    }
}

use voicepool_testkit::support;

/// `render_to_wav` refuses durations it cannot honour before writing
/// anything, reports I/O failures naming the file, and writes exactly what
/// `render` produces.
#[test]
fn render_to_wav_refuses_bad_durations_and_round_trips() {
    use voicepool::output::offline::{RenderError, MAX_WAV_FRAMES};
    let dir = support::Scratch::new("render-wav");
    let path = dir.path("out.wav");
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    for s in [f64::NAN, -1.0, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            e.render_to_wav(&path, s),
            Err(RenderError::InvalidDuration(_))
        ));
    }
    let too_long = (MAX_WAV_FRAMES + 1) as f64 / 48_000.0;
    for s in [too_long, 1e300, f64::MAX] {
        match e.render_to_wav(&path, s) {
            Err(RenderError::TooLong { max_seconds, .. }) => {
                assert!((max_seconds - MAX_WAV_FRAMES as f64 / 48_000.0).abs() < 1e-6)
            }
            other => panic!("{s}: {other:?}"),
        }
    }
    assert!(!path.exists(), "nothing written for a refused duration");
    assert_eq!(e.stats().frames_rendered, 0);

    // Unwritable path: an I/O error naming it.
    let bad = dir.path("no/such/dir/out.wav");
    match e.render_to_wav(&bad, 0.1) {
        Err(RenderError::Io { path, .. }) => assert_eq!(path, bad),
        other => panic!("{other:?}"),
    }

    // Round trip: the file holds exactly what render() gives.
    let tone: Vec<f32> = (0..4_800).map(|i| (i as f32 * 0.01).sin() * 2.0).collect();
    let sound = Sound::from_samples(1, 48_000, tone).unwrap();
    let settings = EngineSettings::default();
    let mut a = OfflineEngine::new(settings.clone()).unwrap();
    a.play(&sound, PlayParams::default().pan(0.3)).unwrap();
    a.render_to_wav(&path, 0.125).unwrap();
    let mut b = OfflineEngine::new(settings).unwrap();
    b.play(&sound, PlayParams::default().pan(0.3)).unwrap();
    let mut expected = Vec::new();
    for _ in 0..12 {
        expected.extend_from_slice(b.render(480));
    }
    expected.extend_from_slice(b.render(240)); // 0.125 s = 12.5 blocks
    let written = Sound::from_wav_file(&path).unwrap();
    assert_eq!(written.channels(), 2);
    assert_eq!(written.samples().len(), expected.len());
    let differ = written
        .samples()
        .iter()
        .zip(&expected)
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differ, 0, "samples differ between the file and render()");
}

/// Zero-frame and one-frame blocks still apply commands and keep time.
#[test]
fn empty_and_single_frame_blocks_work() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let h = e.play(&dc(1, 0.5, 3), PlayParams::default()).unwrap();
    assert!(e.render(0).is_empty());
    let ev: Vec<voicepool::Event> = e.drain_events().collect();
    assert_eq!(ev, [voicepool::Event::Started { voice: h }]);
    for _ in 0..3 {
        assert_eq!(e.render(1).len(), 2);
    }
    e.render(1);
    assert!(!e.is_playing(h));
    assert_eq!(e.stats().frames_rendered, 4);
}
