//! Queue pressure: a game that sends faster than the audio thread drains gets
//! `QueueFull` (counted, never a wait, never a lost `Ended` for a voice that
//! started); a game that never reads its events loses only the oldest ones
//! beyond `event_capacity`, counted, and `is_playing` stays right.

use voicepool_testkit::support;

use std::collections::HashMap;

use support::voice_of;

use voicepool::{
    Engine, EngineSettings, Event, OfflineEngine, PlayError, PlayParams, Sound, VoiceHandle,
};

fn blip() -> Sound {
    Sound::from_samples(1, 48_000, vec![0.1; 48]).unwrap()
}

/// Terminal events per handle.
fn terminals(events: &[Event]) -> HashMap<VoiceHandle, u32> {
    let mut t = HashMap::new();
    for e in events.iter().filter(|e| e.is_terminal()) {
        *t.entry(voice_of(e).unwrap()).or_insert(0) += 1;
    }
    t
}

#[test]
fn a_full_command_queue_is_an_error_counted_in_stats() {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 4,
        command_capacity: 8,
        ..Default::default()
    })
    .unwrap();
    let sound = blip();
    let mut ok = Vec::new();
    let mut full = 0;
    for _ in 0..100 {
        match engine.play(&sound, PlayParams::default()) {
            Ok(h) => ok.push(h),
            Err(PlayError::QueueFull) => full += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((ok.len(), full), (8, 92));
    // stop_all, stop and set_* of a live voice hit the same full queue.
    assert_eq!(engine.stop_all(), Err(PlayError::QueueFull));
    assert_eq!(engine.stop(ok[0]), Err(PlayError::QueueFull));
    assert_eq!(engine.set_volume(ok[0], 0.5), Err(PlayError::QueueFull));
    assert_eq!(engine.stats().dropped_commands, 95);

    // Every play that was accepted is reported: 4 start, 4 are stolen or
    // start after a steal, and all end.
    let mut events = Vec::new();
    for _ in 0..10 {
        engine.render(480);
        events.extend(engine.drain_events());
    }
    let t = terminals(&events);
    for h in &ok {
        assert_eq!(t.get(h), Some(&1), "{h:?}: {events:?}");
        assert!(!engine.is_playing(*h));
    }
    assert_eq!(t.len(), ok.len());
    assert_eq!(engine.stats().lost_events, 0);
    // The queue has room again.
    assert!(engine.play(&sound, PlayParams::default()).is_ok());
}

/// The audio side never drops an event, even when one block has more to
/// report than the event queue holds and nobody reads events between blocks
/// (as with a live engine whose game thread is busy). It holds commands back
/// instead; they stay queued and take effect in later blocks.
#[test]
fn the_audio_side_never_drops_an_event_it_promised() {
    let settings = EngineSettings {
        voices: 64,
        event_capacity: 4,
        command_capacity: 256,
        steal_policy: voicepool::StealPolicy::Quietest,
        ..Default::default()
    };
    let (mut engine, mut mixer) = Engine::new(settings).unwrap();
    let sound = blip();
    let handles: Vec<VoiceHandle> = (0..200)
        .map(|_| engine.play(&sound, PlayParams::default()).unwrap())
        .collect();
    // Render with no game-side call in between: nothing is pumped.
    let mut block = vec![0.0f32; 2 * 64];
    for _ in 0..50 {
        mixer.process(&mut block);
    }
    let st = engine.stats();
    assert_eq!(st.lost_events, 0, "the audio side dropped events: {st:?}");
    // Now the game looks: reading pumps the queue, the mixer catches up.
    let mut events: Vec<Event> = Vec::new();
    for _ in 0..200 {
        events.extend(engine.drain_events());
        mixer.process(&mut block);
    }
    events.extend(engine.drain_events());
    let st = engine.stats();
    assert_eq!(st.lost_events, 0, "{st:?}");
    assert_eq!(st.started + st.rejections, 200, "{st:?}");
    let t = terminals(&events);
    for h in &handles {
        assert_eq!(t.get(h), Some(&1), "{h:?}");
        assert!(!engine.is_playing(*h));
    }
}

/// A game that never drains events: the backlog keeps the newest
/// `event_capacity`, the rest are counted lost, and `is_playing` is still
/// exact for every handle.
#[test]
fn a_game_that_never_drains_loses_only_the_oldest_events_counted() {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 8,
        event_capacity: 5,
        ..Default::default()
    })
    .unwrap();
    let sound = blip();
    let mut handles = Vec::new();
    for _ in 0..30 {
        handles.push(engine.play(&sound, PlayParams::default()).unwrap());
        engine.render(16);
    }
    for _ in 0..10 {
        engine.render(480);
    }
    for h in &handles {
        assert!(
            !engine.is_playing(*h),
            "{h:?} ended, but is_playing says no"
        );
    }
    let st = engine.stats();
    let emitted = st.started + st.steals + st.rejections + st.ended;
    assert_eq!(st.lost_events, emitted - 5, "{st:?}");
    // What is left are the newest five, among them the last voice's Ended.
    let kept: Vec<Event> = engine.drain_events().collect();
    assert_eq!(kept.len(), 5);
    let last = *handles.last().unwrap();
    assert!(kept.contains(&Event::Ended { voice: last }), "{kept:?}");
}

/// Several game threads play through `Controller`s while the owner renders
/// and drains: every accepted play gets exactly one terminal event, and
/// every `QueueFull` is counted.
#[test]
fn controllers_on_many_threads_lose_nothing() {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 16,
        command_capacity: 32,
        ..Default::default()
    })
    .unwrap();
    let sound = blip();
    let threads = 4;
    let per_thread = 400;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let (accepted, full): (Vec<VoiceHandle>, u64) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|i| {
                let ctl = engine.controller();
                let (sound, done) = (&sound, &done);
                scope.spawn(move || {
                    let (mut ok, mut full) = (Vec::new(), 0u64);
                    for n in 0..per_thread {
                        let p = PlayParams::default().volume(0.1).priority((n % 3) as u8);
                        match ctl.play(sound, p) {
                            Ok(h) => {
                                ok.push(h);
                                if n % 7 == i && ctl.stop(h) == Err(PlayError::QueueFull) {
                                    full += 1;
                                }
                            }
                            Err(PlayError::QueueFull) => {
                                full += 1;
                                std::thread::yield_now();
                            }
                            Err(e) => panic!("{e}"),
                        }
                    }
                    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    (ok, full)
                })
            })
            .collect();
        let mut events = Vec::new();
        while done.load(std::sync::atomic::Ordering::SeqCst) < threads {
            engine.render(64);
            events.extend(engine.drain_events());
        }
        let mut all = Vec::new();
        let mut full = 0;
        for w in workers {
            let (ok, f) = w.join().unwrap();
            all.extend(ok);
            full += f;
        }
        for _ in 0..100 {
            engine.render(480);
            events.extend(engine.drain_events());
        }
        let t = terminals(&events);
        for h in &all {
            assert_eq!(t.get(h), Some(&1), "{h:?}");
        }
        (all, full)
    });
    let st = engine.stats();
    assert_eq!(st.dropped_commands, full);
    assert_eq!(st.lost_events, 0);
    assert_eq!(
        st.steals + st.rejections + st.ended,
        accepted.len() as u64,
        "{st:?}"
    );
    assert!(accepted.iter().all(|h| !engine.is_playing(*h)));
}

/// A sound the game has dropped is freed by the next `drain_events` after
/// its last voice ends, not kept until many more sounds have been played
/// (a large music track must not linger).
#[test]
fn dropped_sounds_are_freed_once_their_voices_end() {
    let mut engine = OfflineEngine::new(EngineSettings::default()).unwrap();
    let music = Sound::from_samples(2, 48_000, vec![0.1; 2 * 4_800]).unwrap();
    let sfx = blip();
    let h = engine
        .play(&music, PlayParams::default().looping(true))
        .unwrap();
    engine.play(&sfx, PlayParams::default()).unwrap();
    drop(music);
    engine.render(480);
    engine.drain_events().for_each(drop);
    // The looping voice still holds the music: it must be kept.
    assert_eq!(engine.sounds_in_flight(), 2);
    engine.stop(h).unwrap();
    engine.render(4_800);
    engine.drain_events().for_each(drop);
    // The game still holds `sfx`; the music is gone.
    assert_eq!(engine.sounds_in_flight(), 1);
    drop(sfx);
    engine.drain_events().for_each(drop);
    assert_eq!(engine.sounds_in_flight(), 0);
}

/// When the audio side is gone (its mixer dropped, as after a device
/// failure), calls return `EngineStopped` at once; nothing blocks and no
/// handle is issued.
#[test]
fn a_stopped_audio_side_is_an_error_not_a_hang() {
    let (mut engine, mut mixer) = Engine::new(EngineSettings::default()).unwrap();
    let sound = blip();
    let h = engine.play(&sound, PlayParams::default()).unwrap();
    let mut block = [0.0f32; 2 * 480];
    mixer.process(&mut block);
    drop(mixer);
    assert_eq!(
        engine.play(&sound, PlayParams::default()),
        Err(PlayError::EngineStopped)
    );
    assert_eq!(engine.stop_all(), Err(PlayError::EngineStopped));
    // The events reported before the end are still there.
    let events: Vec<Event> = engine.drain_events().collect();
    assert_eq!(
        events,
        [Event::Started { voice: h }, Event::Ended { voice: h }]
    );
    assert!(!engine.is_playing(h));
    assert_eq!(engine.stats().dropped_commands, 0);
}

/// Once the audio side is gone, every call that sends a command answers
/// `EngineStopped`, whatever it is and whatever handle it is given: a game
/// learns the engine stopped from any call, not from some calls only.
#[test]
fn every_call_answers_engine_stopped_once_the_mixer_is_gone() {
    use std::time::Duration;
    use voicepool::GroupSettings;
    let (engine, mut mixer) = Engine::new(EngineSettings::default()).unwrap();
    let sound = blip();
    let bus = engine.create_bus().unwrap();
    let live = engine
        .play(&sound, PlayParams::default().looping(true))
        .unwrap();
    let ended = engine.play(&sound, PlayParams::default()).unwrap();
    mixer.process(&mut [0.0f32; 2 * 480]);
    drop(mixer);
    type Call = fn(&Engine, VoiceHandle, voicepool::BusHandle, &Sound) -> Result<(), PlayError>;
    let calls: [(&str, Call); 18] = [
        ("play", |e, _, _, s| {
            e.play(s, PlayParams::default()).map(drop)
        }),
        ("create_bus", |e, _, _, _| e.create_bus().map(drop)),
        ("create_group", |e, _, _, _| {
            e.create_group(GroupSettings::default()).map(drop)
        }),
        ("stop", |e, h, _, _| e.stop(h)),
        ("set_volume", |e, h, _, _| e.set_volume(h, 0.5)),
        ("set_pan", |e, h, _, _| e.set_pan(h, 0.5)),
        ("set_pitch", |e, h, _, _| e.set_pitch(h, 1.5)),
        ("stop_all", |e, _, _, _| e.stop_all()),
        ("set_bus_volume", |e, _, b, _| {
            e.set_bus_volume(b, 0.5, Duration::from_millis(10))
        }),
        ("set_master_volume", |e, _, _, _| {
            e.set_master_volume(0.5, Duration::ZERO)
        }),
        ("pause_bus", |e, _, b, _| e.pause_bus(b)),
        ("resume_bus", |e, _, b, _| e.resume_bus(b)),
        ("pause", |e, h, _, _| e.pause(h)),
        ("resume", |e, h, _, _| e.resume(h)),
        ("stop_with_fade", |e, h, _, _| {
            e.stop_with_fade(h, Duration::from_millis(10))
        }),
        ("fade_volume", |e, h, _, _| {
            e.fade_volume(h, 0.1, Duration::from_millis(10))
        }),
        ("seek", |e, h, _, _| e.seek(h, Duration::from_millis(1))),
        ("master pause_bus", |e, _, _, _| e.pause_bus(e.master_bus())),
    ];
    for (name, call) in calls {
        for h in [live, ended] {
            assert_eq!(
                call(&engine, h, bus, &sound),
                Err(PlayError::EngineStopped),
                "{name} with {h:?}"
            );
        }
    }
}

/// The calls that send a command also read the audio side's events: a game
/// that only ever calls one of them (and never `drain_events`) still gets
/// every call through, even with the smallest event queue.
#[test]
fn calls_that_never_drain_still_keep_the_event_queue_moving() {
    use std::time::Duration;
    use voicepool::GroupSettings;
    type Call = fn(&Engine, voicepool::BusHandle) -> Result<(), PlayError>;
    let calls: [(&str, Call); 6] = [
        ("stop_all", |e, _| e.stop_all()),
        ("set_bus_volume", |e, b| {
            e.set_bus_volume(b, 0.9, Duration::ZERO)
        }),
        ("set_master_volume", |e, _| {
            e.set_master_volume(0.9, Duration::ZERO)
        }),
        ("pause_bus", |e, b| e.pause_bus(b)),
        ("resume_bus", |e, b| e.resume_bus(b)),
        ("create_group", |e, _| {
            e.create_group(GroupSettings::default()).map(drop)
        }),
    ];
    let tone = Sound::from_samples(1, 48_000, vec![0.1; 4_800]).unwrap();
    for (name, call) in calls {
        let (engine, mut mixer) = Engine::new(EngineSettings {
            voices: 4,
            event_capacity: 1,
            command_capacity: 64,
            groups: 4_096,
            ..Default::default()
        })
        .unwrap();
        let bus = engine.create_bus().unwrap();
        let mut block = [0.0f32; 2 * 480];
        for _ in 0..4 {
            engine
                .play(&tone, PlayParams::default().looping(true).bus(bus))
                .unwrap();
        }
        let mut refused = 0;
        for _ in 0..2_000 {
            if call(&engine, bus).is_err() {
                refused += 1;
            }
            mixer.process(&mut block);
        }
        assert_eq!(refused, 0, "{name}: calls refused");
        assert_eq!(engine.stats().dropped_commands, 0, "{name}");
    }
}

/// A queue far larger than a block takes: the audio side takes at most
/// 1,024 commands a block (bounded work per block, whatever the queue's
/// capacity) and the rest in the blocks after, in order, none lost.
#[test]
fn a_huge_queue_is_taken_a_bounded_number_of_commands_a_block() {
    let (mut engine, mut mixer) = Engine::new(EngineSettings {
        voices: 8,
        steal_policy: voicepool::StealPolicy::Reject,
        command_capacity: 10_000,
        event_capacity: 20_000,
        ..Default::default()
    })
    .unwrap();
    let sound = Sound::from_samples(1, 48_000, vec![0.1; 48_000]).unwrap();
    let plays: Vec<VoiceHandle> = (0..5_000)
        .map(|_| engine.play(&sound, PlayParams::default()).unwrap())
        .collect();
    let mut block = [0.0f32; 2 * 480];
    let mut taken = Vec::new();
    for _ in 0..5 {
        mixer.process(&mut block);
        let events: Vec<Event> = engine.drain_events().collect();
        taken.push(
            events
                .iter()
                .filter(|e| matches!(e, Event::Started { .. } | Event::Rejected { .. }))
                .count(),
        );
    }
    assert_eq!(taken, [1_024, 1_024, 1_024, 1_024, 904]);
    assert_eq!(engine.stats().started, 8);
    assert_eq!(engine.stats().rejections, 4_992);
    assert!(plays[..8].iter().all(|&h| engine.is_playing(h)));
}
