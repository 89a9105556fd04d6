//! The game-side API: controllers on other threads, handles, stats, WAV output.

use voicepool_testkit::common;

use std::collections::HashMap;

use common::*;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayError, PlayParams, Sound};

#[test]
fn several_threads_trigger_sounds_and_every_play_ends_exactly_once() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 4,
        command_capacity: 4096,
        ..Default::default()
    })
    .unwrap();
    let s = sine(500.0, 0.02, RATE, 0.3);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let ctl = e.controller();
            let s = s.clone();
            std::thread::spawn(move || {
                (0..200)
                    .map(|i| {
                        ctl.play(
                            &s,
                            PlayParams::default().pan(t as f32 / 2.0 - 1.0).priority(i),
                        )
                        .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let handles: Vec<_> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert_eq!(handles.len(), 800);
    render_seconds(&mut e, 0.5);
    let mut terminal: HashMap<_, usize> = HashMap::new();
    for ev in e.drain_events() {
        if let Some(voice) = ev.voice().filter(|_| ev.is_terminal()) {
            *terminal.entry(voice).or_default() += 1;
        }
    }
    for h in &handles {
        assert_eq!(terminal.get(h), Some(&1), "{h:?}");
        assert!(!e.is_playing(*h));
    }
    let st = e.stats();
    assert_eq!(st.started + st.rejections, 800);
    assert_eq!(st.ended + st.steals + st.rejections, 800);
    assert_eq!(st.active_voices, 0);
    assert_eq!(st.peak_active_voices, 4);
}

#[test]
fn a_full_queue_is_an_error_not_a_wait_and_nothing_is_lost() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 2,
        command_capacity: 8,
        ..Default::default()
    })
    .unwrap();
    let s = sine(500.0, 0.01, RATE, 0.3);
    let mut ok = Vec::new();
    for _ in 0..8 {
        ok.push(e.play(&s, PlayParams::default()).unwrap());
    }
    assert_eq!(e.play(&s, PlayParams::default()), Err(PlayError::QueueFull));
    assert_eq!(e.stats().dropped_commands, 1);
    render_seconds(&mut e, 0.1);
    let events: Vec<Event> = e.drain_events().collect();
    for h in ok {
        assert_eq!(
            events
                .iter()
                .filter(|ev| ev.is_terminal() && ev.voice() == Some(h))
                .count(),
            1
        );
    }
    // The queue drained: plays work again.
    assert!(e.play(&s, PlayParams::default()).is_ok());
}

#[test]
fn nan_parameters_are_rejected_at_the_call() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let s = sine(500.0, 1.0, RATE, 0.3);
    assert!(matches!(
        e.play(&s, PlayParams::default().volume(f32::NAN)),
        Err(PlayError::InvalidParameter { name: "volume", .. })
    ));
    let h = e.play(&s, PlayParams::default()).unwrap();
    assert!(e.set_pitch(h, f32::INFINITY).is_err());
    assert!(e.set_pan(h, f32::NAN).is_err());
    let out = render_seconds(&mut e, 0.1);
    assert!(out.iter().all(|x| x.is_finite()));
    assert_eq!(e.stats().started, 1);
}

#[test]
fn render_to_wav_writes_what_render_would() {
    let script = |e: &mut OfflineEngine, s: &Sound| {
        e.play(s, PlayParams::default().pan(0.3)).unwrap();
    };
    let s = sine(440.0, 0.3, 44_100, 0.5);
    let mut a = OfflineEngine::new(EngineSettings::default()).unwrap();
    script(&mut a, &s);
    let rendered = render_seconds(&mut a, 0.5);
    let path = std::env::temp_dir().join(format!("voicepool-wav-{}.wav", std::process::id()));
    let mut b = OfflineEngine::new(EngineSettings::default()).unwrap();
    script(&mut b, &s);
    b.render_to_wav(&path, 0.5).unwrap();
    let mut r = hound::WavReader::open(&path).unwrap();
    assert_eq!(r.spec().channels, 2);
    assert_eq!(r.spec().sample_rate, 48_000);
    let written: Vec<f32> = r.samples::<f32>().map(Result::unwrap).collect();
    assert_eq!(written, rendered);
    assert!(b.render_to_wav(&path, f64::NAN).is_err());
    let bad_dir = std::env::temp_dir().join("no-such-dir-voicepool/x.wav");
    let err = b.render_to_wav(&bad_dir, 0.1).unwrap_err();
    assert!(err.to_string().contains("no-such-dir-voicepool"), "{err}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn bad_settings_are_an_error_that_names_the_field() {
    for (settings, field) in [
        (
            EngineSettings {
                voices: 0,
                ..Default::default()
            },
            "voices",
        ),
        (
            EngineSettings {
                sample_rate: 0,
                ..Default::default()
            },
            "sample_rate",
        ),
        (
            EngineSettings {
                command_capacity: 0,
                ..Default::default()
            },
            "command_capacity",
        ),
        (
            EngineSettings {
                master_gain: f32::NAN,
                ..Default::default()
            },
            "master_gain",
        ),
    ] {
        let err = OfflineEngine::new(settings).unwrap_err();
        assert!(err.to_string().contains(field), "{err}");
    }
}

#[test]
fn slots_show_what_is_playing_and_how_loud() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 3,
        ..Default::default()
    })
    .unwrap();
    // A 1 kHz sine at 0.5, long enough to fill every look-ahead horizon.
    let s = sine(1_000.0, 3.0, RATE, 0.5);
    let h = e.play(&s, PlayParams::default().volume(0.5)).unwrap();
    e.render(480);
    let slots = e.slots();
    assert_eq!(slots.len(), 3);
    let busy: Vec<_> = slots.iter().filter(|v| v.voice.is_some()).collect();
    assert_eq!(busy.len(), 1);
    assert_eq!(busy[0].voice, Some(h));
    // Volume 0.5 times the sine's RMS (0.354), K-weighted (+0.691 dB at
    // 1 kHz); a centred mono voice's two sides sum to its full power.
    let want = 0.5 * 0.5 / 2f32.sqrt() * 10f32.powf(0.691 / 20.0);
    assert!(
        (busy[0].level / want - 1.0).abs() < 0.01,
        "{} vs {want}",
        busy[0].level
    );
}
