//! A voice's life as the game sees it: which engine a handle belongs to,
//! the one terminal event every play gets (also when the audio side goes
//! away), `stop_all` reaching every voice that still sounds, and the frame
//! each event reports.

use voicepool_testkit::common;

use common::*;
use voicepool::{Engine, EngineSettings, Event, OfflineEngine, PlayError, PlayParams, TimedEvent};

fn peak(samples: &[f32]) -> f32 {
    samples.iter().fold(0.0f32, |m, s| m.max(s.abs()))
}

fn terminal_events(events: &[Event], voice: voicepool::VoiceHandle) -> Vec<Event> {
    events
        .iter()
        .filter(|e| e.is_terminal() && e.voice() == Some(voice))
        .copied()
        .collect()
}

#[test]
fn a_handle_from_another_engine_is_stale_there() {
    // A game with an effects engine and a music engine: the first play of
    // each gets the first handle either engine issues.
    let mut sfx = OfflineEngine::new(EngineSettings::default()).unwrap();
    let mut music = OfflineEngine::new(EngineSettings::default()).unwrap();
    let blip = sine(880.0, 1.0, RATE, 0.5);
    let tune = sine(220.0, 1.0, RATE, 0.5);
    let ha = sfx.play(&blip, PlayParams::default()).unwrap();
    let hb = music
        .play(&tune, PlayParams::default().looping(true).protected(true))
        .unwrap();
    sfx.render(480);
    music.render(480);
    assert_ne!(ha, hb, "handles of different engines never compare equal");
    assert!(!music.is_playing(ha), "a foreign handle is never playing");
    assert!(!sfx.is_playing(hb));

    // Every command with the foreign handle does nothing (and is no error:
    // a stale handle is not one either).
    music.stop(ha).unwrap();
    music.set_volume(ha, 0.0).unwrap();
    music.set_pan(ha, 1.0).unwrap();
    music.set_pitch(ha, 4.0).unwrap();
    let out = render_seconds(&mut music, 0.5);
    assert!(music.is_playing(hb), "the music plays on");
    let events: Vec<Event> = music.drain_events().collect();
    assert!(terminal_events(&events, hb).is_empty(), "{events:?}");
    // Still at full level, both sides, at its own pitch (no pan to the
    // right, no silence): the last 100 ms peak at 0.5 * cos(pi/4) per side.
    let tail = &out[out.len() - 9_600..];
    let (l, r): (Vec<f32>, Vec<f32>) = tail.chunks(2).map(|f| (f[0], f[1])).unzip();
    assert!((peak(&l) - 0.354).abs() < 0.01 && (peak(&r) - 0.354).abs() < 0.01);
    // And the effects engine's own voice is untouched by the music engine.
    assert!(sfx.is_playing(ha));
}

#[test]
fn dropping_the_mixer_ends_every_play_once() {
    let settings = EngineSettings {
        voices: 4,
        ..Default::default()
    };
    let (mut engine, mut mixer) = Engine::new(settings).unwrap();
    let hum = sine(110.0, 0.5, RATE, 0.3);
    let sounding = engine
        .play(&hum, PlayParams::default().looping(true))
        .unwrap();
    let mut block = [0.0f32; 2 * 256];
    mixer.process(&mut block);
    // Queued but never taken by the audio side.
    let queued = engine.play(&hum, PlayParams::default()).unwrap();
    assert_eq!(engine.stats().active_voices, 1);
    drop(mixer);

    // The game learns, without reading events first, that both are over.
    assert!(!engine.is_playing(sounding));
    assert!(!engine.is_playing(queued));
    assert_eq!(engine.stats().active_voices, 0);
    assert!(engine.slots().iter().all(|s| s.voice.is_none()));
    let events: Vec<TimedEvent> = engine.drain_timed_events();
    let plain: Vec<Event> = events.iter().map(|e| e.event).collect();
    for h in [sounding, queued] {
        assert_eq!(
            terminal_events(&plain, h),
            [Event::Ended { voice: h }],
            "{plain:?}"
        );
    }
    // At the frame the audio side stopped.
    assert!(events
        .iter()
        .filter(|e| matches!(e.event, Event::Ended { .. }))
        .all(|e| e.frame == 256));
    // Nothing more arrives later, and new calls say why they do nothing.
    assert!(engine.drain_events().next().is_none());
    assert_eq!(
        engine.play(&hum, PlayParams::default()),
        Err(PlayError::EngineStopped)
    );
    assert!(engine.drain_events().next().is_none());
}

#[test]
fn stop_all_also_silences_voices_still_fading_after_a_steal() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 1,
        steal_fade: std::time::Duration::from_secs(10),
        ..Default::default()
    })
    .unwrap();
    let tone = sine(440.0, 1.0, RATE, 0.5);
    let first = e.play(&tone, PlayParams::default().looping(true)).unwrap();
    render_seconds(&mut e, 0.1);
    let thief = e.play(&tone, PlayParams::default().looping(true)).unwrap();
    render_seconds(&mut e, 0.01);
    let events: Vec<Event> = e.drain_events().collect();
    assert!(events.contains(&Event::Stolen {
        victim: first,
        by: thief
    }));
    e.stop_all().unwrap();
    // The default stop fade is a few milliseconds: half a second later
    // nothing sounds, neither the thief nor the voice it stole from.
    render_seconds(&mut e, 0.5);
    let after = render_seconds(&mut e, 0.1);
    assert_eq!(peak(&after), 0.0, "a voice still sounds after stop_all");
    assert!(!e.is_playing(thief));
}

/// The frame an `Ended` reports is the output frame at which the voice
/// stopped sounding (its last frame + 1), wherever it falls in a block.
#[test]
fn ended_reports_the_frame_the_voice_stopped_sounding() {
    // (sound frames, pitch, frames rendered before the play, block size,
    // expected Ended frame)
    let cases: &[(usize, f32, usize, usize, u64)] = &[
        (240, 1.0, 1_000, 10_000, 1_240), // the case that was reported at 11,000
        (240, 2.0, 1_000, 10_000, 1_120), // at double speed
        (5_000, 1.0, 1_000, 10_000, 6_000), // past the mix bus's 1024-frame pieces
        (240, 1.0, 0, 100, 240),          // ends exactly at a block boundary
        (250, 1.0, 0, 100, 250),          // mid-block, in the third block
    ];
    for &(frames, pitch, before, block, want) in cases {
        let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
        let blip = voicepool::Sound::from_samples(1, RATE, vec![0.25; frames]).unwrap();
        e.render(before);
        let h = e.play(&blip, PlayParams::default().pitch(pitch)).unwrap();
        let mut out = Vec::new();
        for _ in 0..(12_000 / block) {
            out.extend_from_slice(e.render(block));
        }
        let events = e.drain_timed_events();
        let started = events
            .iter()
            .find(|t| t.event == Event::Started { voice: h })
            .unwrap();
        assert_eq!(
            started.frame, before as u64,
            "Started: the block's first frame"
        );
        let ended = events
            .iter()
            .find(|t| t.event == Event::Ended { voice: h })
            .unwrap_or_else(|| panic!("no Ended for {frames} frames: {events:?}"));
        assert_eq!(ended.frame, want, "{frames} frames at pitch {pitch}");
        // And the audio agrees: the last non-zero frame is just before it.
        let last = out.chunks(2).rposition(|f| f[0] != 0.0).unwrap() + before;
        assert_eq!(last as u64 + 1, want, "{frames} frames at pitch {pitch}");
    }
}

#[test]
fn ended_after_a_stop_is_when_the_fade_finished() {
    let mut e = OfflineEngine::new(EngineSettings {
        stop_fade: std::time::Duration::from_millis(5),
        ..Default::default()
    })
    .unwrap();
    let tone = dc(1.0, RATE, 0.5);
    let h = e.play(&tone, PlayParams::default().looping(true)).unwrap();
    e.render(1_000);
    e.stop(h).unwrap();
    e.render(4_800);
    let ended = e
        .drain_timed_events()
        .into_iter()
        .find(|t| t.event == Event::Ended { voice: h })
        .unwrap();
    assert_eq!(ended.frame, 1_000 + 240, "5 ms after the stop took effect");
}

/// `AudioEngine` may be moved to (and shared with) another thread where the
/// platform's output stream can be: the docs say so, and this keeps them
/// honest on Linux.
#[cfg(target_os = "linux")]
#[test]
fn audio_engine_is_send_and_sync_on_linux() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<voicepool::AudioEngine>();
}
