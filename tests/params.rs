//! Parameter validation at the API boundary, row by row of the table in
//! `voicepool::params` (and `voicepool::settings`): a clamped value renders
//! exactly as the end of the range it was clamped to; a NaN or infinite one
//! is refused before anything reaches the audio thread.

use std::time::Duration;

use voicepool::params::{MAX_FADE_SECONDS, MAX_PITCH, MAX_VOLUME, MIN_PITCH};
use voicepool::settings::{MAX_VOICES, OUTPUT_RATE_RANGE};
use voicepool::{
    EngineError, EngineSettings, Event, OfflineEngine, PlayError, PlayParams, Sound, VoiceHandle,
};

fn tone() -> Sound {
    let s: Vec<f32> = (0..9_600)
        .flat_map(|i| {
            let x = (i as f32 * 0.021).sin() * 0.2;
            [x, -x * 0.5]
        })
        .collect();
    Sound::from_samples(2, 48_000, s).unwrap()
}

fn engine() -> OfflineEngine {
    OfflineEngine::new(EngineSettings::default()).unwrap()
}

/// Output bits of playing `tone` with `params`, then (optionally) a set_*.
fn render(params: PlayParams, set: impl Fn(&OfflineEngine, VoiceHandle)) -> Vec<u32> {
    let mut e = engine();
    let h = e.play(&tone(), params).unwrap();
    let mut out: Vec<u32> = e.render(300).iter().map(|s| s.to_bits()).collect();
    set(&e, h);
    out.extend(e.render(3_000).iter().map(|s| s.to_bits()));
    out
}

fn same(a: PlayParams, b: PlayParams) {
    assert_eq!(render(a, |_, _| {}), render(b, |_, _| {}), "{a:?} vs {b:?}");
}

fn d() -> PlayParams {
    PlayParams::default()
}

#[test]
fn out_of_range_play_parameters_are_clamped_to_the_range_ends() {
    same(d().volume(100.0), d().volume(MAX_VOLUME));
    same(d().volume(f32::MAX), d().volume(MAX_VOLUME));
    same(d().volume(-3.0), d().volume(0.0));
    same(d().volume(1e-9), d().volume(0.0));
    same(d().pan(-7.0), d().pan(-1.0));
    same(d().pan(1e30), d().pan(1.0));
    same(d().pitch(1e-9), d().pitch(MIN_PITCH));
    same(d().pitch(1e9), d().pitch(MAX_PITCH));
    same(d().fade_in(-1.0), d().fade_in(0.0));
    same(d().fade_in(1e9), d().fade_in(MAX_FADE_SECONDS));
    // And in-range values are not touched: these differ.
    assert_ne!(
        render(d().volume(0.5), |_, _| {}),
        render(d().volume(0.6), |_, _| {})
    );
}

#[test]
fn out_of_range_set_values_are_clamped_the_same_way() {
    type Set = fn(&OfflineEngine, VoiceHandle, f32);
    let cases: [(f32, f32, Set); 6] = [
        (50.0, MAX_VOLUME, |e, h, v| e.set_volume(h, v).unwrap()),
        (-1.0, 0.0, |e, h, v| e.set_volume(h, v).unwrap()),
        (-9.0, -1.0, |e, h, v| e.set_pan(h, v).unwrap()),
        (9.0, 1.0, |e, h, v| e.set_pan(h, v).unwrap()),
        (1e-6, MIN_PITCH, |e, h, v| e.set_pitch(h, v).unwrap()),
        (1e6, MAX_PITCH, |e, h, v| e.set_pitch(h, v).unwrap()),
    ];
    for (wild, end, set) in cases {
        assert_eq!(
            render(d(), |e, h| set(e, h, wild)),
            render(d(), |e, h| set(e, h, end)),
            "{wild} vs {end}"
        );
    }
}

/// A silent (volume 0) voice is still a voice: it starts, holds its slot
/// and ends like any other.
#[test]
fn a_clamped_to_silent_voice_still_reports_its_life() {
    let mut e = engine();
    let h = e.play(&tone(), d().volume(-5.0)).unwrap();
    let out = e.render(20_000);
    assert!(out.iter().all(|&s| s == 0.0));
    let ev: Vec<Event> = e.drain_events().collect();
    assert_eq!(ev, [Event::Started { voice: h }, Event::Ended { voice: h }]);
}

#[test]
fn nan_and_infinity_are_refused_and_nothing_is_sent() {
    let bad = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -f32::NAN];
    let mut e = engine();
    let sound = tone();
    let first = e.play(&sound, d()).unwrap();
    for v in bad {
        let plays = [
            ("volume", d().volume(v)),
            ("pan", d().pan(v)),
            ("pitch", d().pitch(v)),
            ("fade_in", d().fade_in(v)),
        ];
        for (name, p) in plays {
            match e.play(&sound, p) {
                Err(PlayError::InvalidParameter { name: n, value }) => {
                    assert_eq!(n, name);
                    assert!(!value.is_finite());
                }
                other => panic!("{name} = {v}: {other:?}"),
            }
        }
        for (name, r) in [
            ("volume", e.set_volume(first, v)),
            ("pan", e.set_pan(first, v)),
            ("pitch", e.set_pitch(first, v)),
        ] {
            assert!(
                matches!(r, Err(PlayError::InvalidParameter { name: n, .. }) if n == name),
                "{name} = {v}: {r:?}"
            );
        }
    }
    // Rejected plays used up no handle and sent nothing.
    let next = e.play(&sound, d()).unwrap();
    assert_eq!(next.id(), first.id() + 1);
    e.render(100_000);
    let ev: Vec<Event> = e.drain_events().collect();
    assert_eq!(ev.len(), 4, "{ev:?}");
    assert_eq!(e.stats().dropped_commands, 0);
    // The first voice played as if no bad value had been sent: compare with
    // a clean engine.
    let mut clean = engine();
    clean.play(&sound, d()).unwrap();
    let mut other = engine();
    let h = other.play(&sound, d()).unwrap();
    let _ = other.set_volume(h, f32::NAN);
    let _ = other.set_pitch(h, f32::INFINITY);
    assert_eq!(clean.render(2_000).to_vec(), other.render(2_000).to_vec());
}

/// NaN is refused even for a stale handle (validation comes first), and a
/// stale handle with a good value is a quiet no-op.
#[test]
fn stale_handles_are_no_ops_but_nan_is_still_refused() {
    let mut e = engine();
    let h = e
        .play(&Sound::from_samples(1, 48_000, vec![0.5; 10]).unwrap(), d())
        .unwrap();
    e.render(480);
    assert!(!e.is_playing(h));
    assert_eq!(e.stop(h), Ok(()));
    assert_eq!(e.set_volume(h, 0.3), Ok(()));
    assert!(matches!(
        e.set_pan(h, f32::NAN),
        Err(PlayError::InvalidParameter { .. })
    ));
}

fn settings_error(s: EngineSettings, field: &str) {
    match OfflineEngine::new(s.clone()) {
        Err(EngineError::InvalidSettings(r)) => assert!(r.contains(field), "{field}: {r}"),
        other => panic!("{field} in {s:?}: {other:?}"),
    }
    assert!(s.validate().is_err());
}

#[test]
fn settings_out_of_range_are_refused_naming_the_field() {
    let d = EngineSettings::default;
    let long = Duration::from_secs(61);
    settings_error(EngineSettings { voices: 0, ..d() }, "voices");
    settings_error(
        EngineSettings {
            voices: MAX_VOICES + 1,
            ..d()
        },
        "voices",
    );
    settings_error(
        EngineSettings {
            sample_rate: 0,
            ..d()
        },
        "sample_rate",
    );
    settings_error(
        EngineSettings {
            sample_rate: OUTPUT_RATE_RANGE.end() + 1,
            ..d()
        },
        "sample_rate",
    );
    settings_error(
        EngineSettings {
            command_capacity: 0,
            ..d()
        },
        "command_capacity",
    );
    settings_error(
        EngineSettings {
            command_capacity: (1 << 20) + 1,
            ..d()
        },
        "command_capacity",
    );
    settings_error(
        EngineSettings {
            event_capacity: 0,
            ..d()
        },
        "event_capacity",
    );
    settings_error(
        EngineSettings {
            min_voice_age: long,
            ..d()
        },
        "min_voice_age",
    );
    settings_error(
        EngineSettings {
            steal_fade: long,
            ..d()
        },
        "steal_fade",
    );
    settings_error(
        EngineSettings {
            stop_fade: Duration::MAX,
            ..d()
        },
        "stop_fade",
    );
    settings_error(
        EngineSettings {
            param_ramp: long,
            ..d()
        },
        "param_ramp",
    );
    for g in [f32::NAN, f32::INFINITY, -0.5, 16.5] {
        settings_error(
            EngineSettings {
                master_gain: g,
                ..d()
            },
            "master_gain",
        );
    }
    settings_error(
        EngineSettings {
            buffer_frames: Some(0),
            ..d()
        },
        "buffer_frames",
    );
}

#[test]
fn settings_at_the_range_ends_are_accepted() {
    let d = EngineSettings::default;
    let max = Duration::from_secs(60);
    for s in [
        EngineSettings { voices: 1, ..d() },
        EngineSettings {
            voices: MAX_VOICES,
            ..d()
        },
        EngineSettings {
            sample_rate: *OUTPUT_RATE_RANGE.start(),
            ..d()
        },
        EngineSettings {
            sample_rate: *OUTPUT_RATE_RANGE.end(),
            ..d()
        },
        EngineSettings {
            command_capacity: 1,
            event_capacity: 1,
            ..d()
        },
        EngineSettings {
            command_capacity: 1 << 20,
            event_capacity: 1 << 20,
            ..d()
        },
        EngineSettings {
            min_voice_age: Duration::ZERO,
            steal_fade: Duration::ZERO,
            stop_fade: Duration::ZERO,
            param_ramp: Duration::ZERO,
            ..d()
        },
        EngineSettings {
            min_voice_age: max,
            steal_fade: max,
            stop_fade: max,
            param_ramp: max,
            ..d()
        },
        EngineSettings {
            master_gain: 0.0,
            ..d()
        },
        EngineSettings {
            master_gain: 16.0,
            buffer_frames: Some(1),
            ..d()
        },
    ] {
        let mut e = OfflineEngine::new(s.clone()).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        e.play(&tone(), PlayParams::default()).unwrap();
        assert!(e.render(64).iter().all(|x| x.is_finite() && x.abs() <= 1.0));
    }
}

/// Sample data made in code follows the same rules: NaN refused, huge
/// values clamped, wrong channel counts and rates refused.
#[test]
fn from_samples_validates_like_a_file() {
    use voicepool::SoundError;
    assert!(matches!(
        Sound::from_samples(1, 48_000, vec![0.0, f32::NAN]),
        Err(SoundError::NonFiniteSample { index: 1, .. })
    ));
    assert!(matches!(
        Sound::from_samples(3, 48_000, vec![0.0; 3]),
        Err(SoundError::Unsupported { .. })
    ));
    assert!(matches!(
        Sound::from_samples(0, 48_000, vec![0.0; 3]),
        Err(SoundError::Unsupported { .. })
    ));
    assert!(matches!(
        Sound::from_samples(2, 48_000, vec![0.0; 3]),
        Err(SoundError::PartialFrame { .. })
    ));
    assert!(matches!(
        Sound::from_samples(1, 0, vec![0.0]),
        Err(SoundError::BadSampleRate { .. })
    ));
    assert!(matches!(
        Sound::from_samples(1, 48_000, vec![]),
        Err(SoundError::Empty { .. })
    ));
    let s = Sound::from_samples(1, 48_000, vec![f32::MAX, -1e9]).unwrap();
    assert_eq!(s.samples(), [4.0, -4.0]);
}

#[test]
fn pitch_zero_or_below_is_refused_not_clamped() {
    let e = engine();
    let sound = tone();
    let first = e.play(&sound, d()).unwrap();
    for v in [0.0, -0.0, -2.0, -1e30] {
        let r = e.play(&sound, d().pitch(v));
        assert!(
            matches!(r, Err(PlayError::InvalidParameter { name: "pitch", value }) if value == v),
            "{v}: {r:?}"
        );
        let r = e.set_pitch(first, v);
        assert!(
            matches!(r, Err(PlayError::InvalidParameter { name: "pitch", .. })),
            "{v}: {r:?}"
        );
        let text = e.play(&sound, d().pitch(v)).unwrap_err().to_string();
        assert!(text.contains("pitch") && text.contains("above 0"), "{text}");
    }
    // Nothing was sent: the next handle follows the first.
    assert_eq!(e.play(&sound, d()).unwrap().id(), first.id() + 1);
}

#[test]
fn debug_shows_the_values_that_will_be_used() {
    let p = d().volume(100.0).pan(-7.0).pitch(1e9).fade_in(-1.0);
    let shown = format!("{p:?}");
    for part in [
        format!("volume: {MAX_VOLUME:?}"),
        "pan: -1.0".to_string(),
        format!("pitch: {MAX_PITCH:?}"),
        "fade_in: 0.0".to_string(),
    ] {
        assert!(shown.contains(&part), "{shown} lacks {part}");
    }
    // Built from clamped values or from the wild ones: the same params.
    assert_eq!(
        p,
        d().volume(MAX_VOLUME)
            .pan(-1.0)
            .pitch(MAX_PITCH)
            .fade_in(0.0)
    );
}
