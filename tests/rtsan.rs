//! Real-time safety under LLVM's RealtimeSanitizer.
//!
//! Built normally, these are churn tests like any other. Built by
//! `scripts/rtsan.sh` (feature `rtsan-selftest`, RTSan linked in), every call
//! to `Mixer::process` runs in a real-time context and any allocation, free,
//! lock, sleep or blocking call inside it aborts the test process; the
//! `harness_*` tests prove that abort really happens.

use voicepool_testkit::common;
use voicepool_testkit::support;

use common::*;
use std::time::Duration;

use voicepool::{
    Engine, EngineSettings, Event, GroupSettings, OfflineEngine, PlayParams, Sound, StealPolicy,
};

/// Plays, stops, parameter changes and steals on a small pool with odd block
/// sizes; the game side drains events only now and then, so the event queue
/// fills; bursts fill the command queue; sounds lose their last game-side
/// reference while they play; voices end; the engine is dropped at the end.
#[test]
fn offline_engine_churn_in_realtime_context() {
    for policy in [
        StealPolicy::Quietest,
        StealPolicy::Oldest,
        StealPolicy::Reject,
    ] {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 5,
            steal_policy: policy,
            command_capacity: 32,
            event_capacity: 16,
            virtual_voices: 4,
            // Room for a chain made (and retried) while rendering.
            buses: 64,
            // With one policy, the audible window lets go of the quietest
            // (the volume-0 plays among them).
            audible_window: (policy == StealPolicy::Quietest).then_some(40.0),
            ..Default::default()
        })
        .unwrap();
        // Groups (a limit with each policy, one with a retrigger interval)
        // and buses, so their commands and states run in the real-time
        // context too.
        let groups = [
            (2, StealPolicy::Quietest, 0),
            (1, StealPolicy::Oldest, 3),
            (1, StealPolicy::Reject, 0),
        ]
        .map(|(max_voices, policy, ms)| {
            e.create_group(GroupSettings {
                max_voices,
                policy,
                min_interval: Duration::from_millis(ms),
            })
            .unwrap()
        });
        let buses = [e.create_bus().unwrap(), e.create_bus().unwrap()];
        // Effects, a duck, a nested bus; sends; one more bus made mid-run.
        let [hall, world, vehicles] = support::shaped_buses::shaped_buses(&e, buses[0]);
        // A snapshot over a volume (in dB), a cutoff and a reverb's wet.
        let menu = e
            .create_snapshot(
                voicepool::Snapshot::new()
                    .bus_volume(buses[0], 0.2)
                    .bus_volume(e.master_bus(), 0.7)
                    .effect_param(world, 0, voicepool::EffectParam::CutoffHz(400.0))
                    .effect_param(hall, 0, voicepool::EffectParam::Wet(0.9)),
            )
            .unwrap();
        let mut late = None;
        let mut chain = None;
        let armed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut handles = Vec::new();
        let mut paused = Vec::new();
        // Parameters that cues map to pitch, volume and a low-pass.
        let speed = e.create_param("speed", 10.0).unwrap();
        for i in 0..1_500usize {
            let s: Sound = if i % 10 == 0 {
                // Only this binding holds it: dropped right after play.
                sine(300.0 + i as f32, 0.05, 22_050, 0.4)
            } else if i % 10 == 5 {
                // A stereo loop of a few frames (read from its loop tile).
                let frames: Vec<f32> = (0..64).map(|k| (k % 7) as f32 * 0.05).collect();
                Sound::from_samples(2, 48_000, frames).unwrap()
            } else {
                sine(440.0, 0.2, 44_100, 0.4)
            };
            // Now and then a near-silent loop of the highest priority (not
            // stolen by the churn): the audible window lets it go.
            if i % 100 == 50 && policy == StealPolicy::Quietest {
                let _ = e.play(
                    &s,
                    PlayParams::default()
                        .looping(true)
                        .volume(0.0001)
                        .priority(255),
                );
            }
            // Bursts, churn, and lulls in which virtual voices come back.
            let burst = match i % 300 {
                220.. => 0,
                _ if i % 100 == 0 => 40,
                _ => 2,
            };
            for j in 0..burst {
                let p = PlayParams::default()
                    .volume(0.1 * (j % 10) as f32)
                    .pitch(0.5 + (i % 7) as f32 * 0.3)
                    .priority((j * 40) as u8)
                    .looping(j % 9 == 0)
                    .fade_in(if j % 5 == 0 { 0.002 } else { 0.0 })
                    // Virtual voices (virtualized, resumed, expired,
                    // dropped for room) and scheduled starts.
                    .virtualize(j % 2 == 1)
                    .start_at(if j % 3 == 2 { e.clock() + 700 } else { 0 });
                // Some positioned, moving, and virtual.
                // Some with a cone, air and an orientation (their own
                // low-pass).
                let p = if j % 3 == 0 {
                    let spatial = voicepool::Spatial {
                        cone: (j % 2 == 0).then_some(voicepool::Cone {
                            inner_deg: 90.0,
                            outer_deg: 270.0,
                            outer_gain: 0.2,
                            outer_lowpass_hz: 600.0,
                        }),
                        air_absorption: (i % 4) as f32 * 10.0,
                        ..Default::default()
                    };
                    p.position([(i % 30) as f32 - 15.0, 0.0, -2.0])
                        .velocity([0.0, 0.0, (j % 4) as f32 * 30.0])
                        .orientation([0.0, 0.0, 1.0])
                        .spatial(spatial)
                } else {
                    p
                };
                let p = match j % 4 {
                    0 => p.group(groups[i % 3]).bus(buses[j % 2]),
                    1 => p.bus(buses[i % 2]),
                    2 => p.group(groups[j % 3]),
                    _ => p,
                };
                let p = match (i + j) % 7 {
                    0 => p.bus(vehicles).send(hall, 0.3),
                    1 => p.bus(world),
                    2 => p.send(late.unwrap_or(hall), 0.5),
                    _ => p,
                };
                // Some as a layered cue: its commands reach each layer.
                let play = match (i + j) % 4 {
                    1 if j % 2 == 0 => e.play_cue(
                        &voicepool::Cue::new([s.clone()])
                            .map(
                                speed,
                                voicepool::Target::Pitch,
                                voicepool::Curve::linear([(0.0, 0.5), (100.0, 2.0)]),
                            )
                            .map(
                                speed,
                                voicepool::Target::LowPassHz,
                                voicepool::Curve::linear([(0.0, 400.0), (100.0, 9_000.0)]),
                            )
                            .layer(
                                voicepool::Cue::new([s.clone()])
                                    .map(
                                        speed,
                                        voicepool::Target::VolumeDb,
                                        voicepool::Curve::linear([(0.0, -30.0), (100.0, 0.0)]),
                                    )
                                    // Its send to the hall follows the speed.
                                    .map(
                                        speed,
                                        voicepool::Target::Send(hall),
                                        voicepool::Curve::linear([(0.0, 0.0), (100.0, 0.9)]),
                                    ),
                            ),
                        p,
                    ),
                    3 => e.play_cue(
                        &voicepool::Cue::new([s.clone(), s.clone()])
                            .pitch_range(0.9..=1.1)
                            .volume_range_db(-3.0..=0.0)
                            .layer(
                                voicepool::Cue::new([s.clone()]).delay(Duration::from_millis(3)),
                            ),
                        p,
                    ),
                    _ => e.play(&s, p),
                };
                if let Ok(h) = play {
                    handles.push(h);
                }
            }
            drop(s);
            // Parameters glide, for every play and for one.
            let _ = e.set_param(
                speed,
                (i % 100) as f32,
                Duration::from_millis(i as u64 % 30),
            );
            if let Some(&h) = handles.last() {
                let _ = e.set_play_param(h, speed, 80.0, Duration::from_millis(20));
            }
            let t = i as f32 * 0.02;
            let _ = e.set_listener(voicepool::Listener {
                position: [t, 0.0, t.sin() * 5.0].into(),
                forward: [t.cos(), 0.0, t.sin()].into(),
                ..Default::default()
            });
            for (k, &h) in handles.iter().rev().take(8).enumerate() {
                let _ = e.set_position(h, [t.cos() * 8.0, 0.0, -1.0], [0.0, 0.0, 40.0]);
                // Turned, and occluded or cleared, every block.
                let _ = e.set_orientation(h, [t.sin(), 0.0, t.cos()]);
                let occlusion = if (i + k) % 2 == 0 {
                    voicepool::Occlusion::NONE
                } else {
                    voicepool::Occlusion {
                        gain: 0.5,
                        lowpass_hz: 700.0,
                    }
                };
                let _ = e.set_occlusion(h, occlusion);
            }
            if let Some(&h) = handles.get(i % handles.len().max(1)) {
                let _ = e.set_volume(h, 0.3);
                let _ = e.set_pan(h, 0.5);
                let _ = e.set_pitch(h, 2.0);
                match i % 5 {
                    0 => {
                        let _ = e.pause(h);
                        paused.push(h);
                    }
                    1 => {
                        for h in paused.drain(..) {
                            let _ = e.resume(h);
                        }
                    }
                    2 => drop(e.fade_volume(h, 0.5, Duration::from_millis(20))),
                    3 => drop(e.stop_with_fade(h, Duration::from_millis(8))),
                    _ => drop(e.stop(h)),
                }
            }
            match i % 13 {
                0 => drop(e.set_effect_param(
                    world,
                    0,
                    voicepool::EffectParam::CutoffHz(300.0),
                    Duration::from_millis(40),
                )),
                6 => drop(e.set_effect_param(
                    world,
                    0,
                    voicepool::EffectParam::CutoffHz(12_000.0),
                    Duration::ZERO,
                )),
                9 => drop(e.set_effect_param(
                    hall,
                    0,
                    voicepool::EffectParam::Wet(0.5),
                    Duration::from_millis(20),
                )),
                // Through typed handles: a filter's cutoff, and a
                // parameter of a game's effect's own.
                3 => {
                    if let Ok(f) = e.filter(world, 0) {
                        let _ = f.set_cutoff(2_000.0, Duration::from_millis(10));
                    }
                    if let Some(own) = chain.and_then(|c| e.custom_effect(c, 0).ok()) {
                        let _ = own.set_custom_param(1, (i % 5) as f32, Duration::from_millis(5));
                    }
                }
                _ => {}
            }
            if i >= 400 && late.is_none() {
                late = support::shaped_buses::late_bus(&e);
            }
            // A chain of buses set up while rendering, its deepest low-pass
            // gliding to the top; a game's effect on it that panics, once.
            if i >= 400 && chain.is_none() {
                chain = support::shaped_buses::late_chain(&e, 6, &armed);
            }
            let _ = match i % 17 {
                2 => e.start_snapshot(menu, Duration::from_millis(i as u64 % 40)),
                11 => e.stop_snapshot(menu, Duration::from_millis(25)),
                _ => Ok(()),
            };
            match i % 9 {
                0 => drop(e.pause_bus(buses[i % 2])),
                2 => drop(e.resume_bus(buses[i % 2])),
                4 => drop(e.set_bus_volume(buses[i % 2], 0.4, Duration::from_millis(15))),
                5 => drop(e.set_master_volume(0.9, Duration::from_millis(5))),
                6 => drop(e.pause_bus(e.master_bus())),
                7 => drop(e.resume_bus(e.master_bus())),
                _ => {}
            }
            if i % 300 == 0 {
                let _ = e.stop_all();
            }
            if handles.len() > 200 {
                handles.drain(..100);
            }
            let frames = [1, 0, 17, 480, 1023, 64][i % 6];
            let out = if i == 700 && chain.is_some() {
                // The effect's panic (not real-time safe itself) in a block
                // of its own; containing it, and every block after, checked.
                armed.store(true, std::sync::atomic::Ordering::Relaxed);
                voicepool::bench_support::outside_rtsan(|| e.render(frames))
            } else {
                e.render(frames)
            };
            assert!(out.iter().all(|x| x.is_finite() && x.abs() <= 1.0));
            if i % 40 == 0 {
                e.drain_events().for_each(drop);
            }
        }
        let st = e.stats();
        assert!(chain.is_some(), "no bus chain was made while rendering");
        assert_eq!(st.effect_faults, 1, "{st:?}");
        assert!(st.dropped_commands > 0 && st.lost_events > 0, "{st:?}");
        if policy == StealPolicy::Reject {
            // The pool never steals; only a full group steals its own,
            // and a full virtual pool drops its least audible.
            let own = st.limited + st.virtual_dropped;
            assert!(st.rejections > 1_000 && st.steals <= own, "{st:?}");
        } else {
            assert!(st.started > 500 && st.ended > 100, "{st:?}");
            assert!(st.steals > 100 && st.limited > 100, "{st:?}");
        }
        assert!(st.virtualized > 100 && st.resumed > 5, "{st:?}");
        if policy == StealPolicy::Quietest {
            assert!(
                st.outside_window > 0,
                "the audible window let nothing go: {st:?}"
            );
        }
        drop(e);
    }
}

/// The raw mixer driven the way a custom audio callback would, with the
/// game side on another thread.
#[test]
fn mixer_on_its_own_thread_with_a_game_thread_playing() {
    let (engine, mut mixer) = Engine::new(EngineSettings {
        voices: 8,
        ..Default::default()
    })
    .unwrap();
    let ctl = engine.controller();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let game_done = std::sync::Arc::clone(&done);
    let game = std::thread::spawn(move || {
        let s = sine(500.0, 0.01, 48_000, 0.5);
        for i in 0..3_000 {
            let _ = ctl.play(&s, PlayParams::default().pan((i % 3) as f32 - 1.0));
        }
        game_done.store(true, std::sync::atomic::Ordering::Release);
    });
    let audio = std::thread::spawn(move || {
        let mut buf = vec![0.0f32; 2 * 256];
        // At least 4,000 blocks, and on until the game thread is done (an
        // unpaced mixer can otherwise finish before the first play).
        let mut blocks = 0u64;
        while blocks < 4_000 || !done.load(std::sync::atomic::Ordering::Acquire) {
            mixer.process(&mut buf);
            blocks += 1;
        }
        for _ in 0..100 {
            mixer.process(&mut buf);
        }
        mixer // handed back: dropped off the real-time context
    });
    game.join().unwrap();
    let mixer = audio.join().unwrap();
    mixer.check_invariants().unwrap();
    assert!(engine.stats().started > 0);
}

/// Streamed plays started, read, run dry, seeked, paused, stopped, stolen
/// and handed over, every block rendered in the real-time context.
#[test]
fn streaming_churn_in_realtime_context() {
    let mut buf = vec![0.0f32; 2 * 1_024];
    let churned = support::stream_churn::stream_churn(|engine, frames| {
        engine.pump_stream_loader();
        engine.mixer_mut().process(&mut buf[..2 * frames]);
    });
    assert!(churned.streams_started > 100 && churned.streams_stolen > 10);
    assert!(churned.stats.stream_underruns >= 4, "{:?}", churned.stats);
}

/// The loader on its own thread (as a live engine runs it) feeding a
/// mixer driven like a custom audio callback: streamed plays read rings
/// the loader thread fills concurrently, and slots pass from play to play.
///
/// Nothing here depends on how fast the loader runs (a debug build under
/// RTSan on a busy machine decodes slower than real time): each step waits
/// for the event it needs, however many blocks that takes, up to a
/// generous wall-clock bound.
#[test]
fn streams_fed_by_the_loader_thread_in_realtime_context() {
    let dir = support::Scratch::new("rtsan-stream-thread");
    let file = dir.path("music.flac");
    support::sox(&[
        "-n",
        "-r",
        "44100",
        "-c",
        "2",
        file.to_str().unwrap(),
        "synth",
        "0.5",
        "sine",
        "440",
    ]);
    let music = Sound::stream_file(&file).unwrap();
    let (mut engine, mut mixer) = Engine::new(EngineSettings {
        voices: 4,
        streams: 2,
        ..Default::default()
    })
    .unwrap();
    let mut live = LiveRun {
        buf: vec![0.0; 2 * 480],
        events: Vec::new(),
        heard: false,
        deadline: std::time::Instant::now() + Duration::from_secs(120),
    };
    // A loop holds one slot throughout; one-shots take the other in turn,
    // each played as soon as the slot of the one before is handed back.
    let looped = live.play(&mut engine, &mut mixer, &music, true);
    let mut plays = vec![looped];
    for _ in 0..3 {
        let shot = live.play(&mut engine, &mut mixer, &music, false);
        live.run_until(&mut engine, &mut mixer, |e| {
            e.contains(&Event::Ended { voice: shot })
        });
        plays.push(shot);
    }
    engine.stop(looped).unwrap();
    live.run_until(&mut engine, &mut mixer, |e| {
        e.contains(&Event::Ended { voice: looped })
    });
    assert!(live.heard);
    for voice in plays {
        let starts = live
            .events
            .iter()
            .filter(|e| **e == Event::Started { voice })
            .count();
        let ends = live
            .events
            .iter()
            .filter(|e| e.voice() == Some(voice) && e.is_terminal())
            .count();
        assert_eq!((starts, ends), (1, 1), "{voice:?}: {:?}", live.events);
    }
}

/// A mixer driven block by block like an audio callback, about ten times
/// faster than real time, with the events it produced.
struct LiveRun {
    buf: Vec<f32>,
    events: Vec<Event>,
    heard: bool,
    deadline: std::time::Instant,
}

impl LiveRun {
    fn block(&mut self, engine: &mut Engine, mixer: &mut voicepool::Mixer) {
        assert!(
            std::time::Instant::now() < self.deadline,
            "not done within 120 s (a failsafe against a hang): {:?}\n{:?}",
            engine.stats(),
            self.events
        );
        mixer.process(&mut self.buf);
        self.heard |= self.buf.iter().any(|&s| s != 0.0);
        self.events.extend(engine.drain_events());
        std::thread::sleep(Duration::from_millis(1));
    }

    /// Plays `sound`, rendering blocks while every stream slot is busy.
    fn play(
        &mut self,
        engine: &mut Engine,
        mixer: &mut voicepool::Mixer,
        sound: &Sound,
        looping: bool,
    ) -> voicepool::VoiceHandle {
        loop {
            match engine.play(sound, PlayParams::default().looping(looping)) {
                Ok(voice) => return voice,
                Err(voicepool::PlayError::TooManyStreams { .. }) => self.block(engine, mixer),
                Err(e) => panic!("{e}"),
            }
        }
    }

    fn run_until(
        &mut self,
        engine: &mut Engine,
        mixer: &mut voicepool::Mixer,
        done: impl Fn(&[Event]) -> bool,
    ) {
        while !done(&self.events) {
            self.block(engine, mixer);
        }
    }
}

#[cfg(feature = "rtsan-selftest")]
mod harness {
    use std::process::Command;

    /// Runs one `child_*` test in a fresh process and returns (exit ok, stderr).
    fn run_child(name: &str) -> (bool, String) {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                name,
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("VOICEPOOL_RTSAN_CHILD", "1")
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn require_rtsan() {
        assert!(
            std::env::var_os("RTSAN_ENABLE").is_some(),
            "the rtsan-selftest feature is meant for scripts/rtsan.sh, which links RTSan"
        );
    }

    #[test]
    fn harness_reports_an_allocation_in_a_realtime_context() {
        require_rtsan();
        let (ok, stderr) = run_child("harness::child_allocates");
        assert!(!ok, "RTSan let an allocation through:\n{stderr}");
        assert!(stderr.contains("Real-time violation"), "{stderr}");
        assert!(
            stderr.contains("`malloc`") || stderr.contains("`calloc`"),
            "{stderr}"
        );
    }

    #[test]
    fn harness_reports_a_mutex_lock_in_a_realtime_context() {
        require_rtsan();
        let (ok, stderr) = run_child("harness::child_locks");
        assert!(!ok, "RTSan let a mutex lock through:\n{stderr}");
        assert!(stderr.contains("Real-time violation"), "{stderr}");
        assert!(stderr.contains("`pthread_mutex_lock`"), "{stderr}");
    }

    #[test]
    #[ignore = "run as a child process by the harness tests"]
    fn child_allocates() {
        if std::env::var_os("VOICEPOOL_RTSAN_CHILD").is_some() {
            voicepool::rtsan_selftest::allocate_in_realtime();
        }
    }

    #[test]
    #[ignore = "run as a child process by the harness tests"]
    fn child_locks() {
        if std::env::var_os("VOICEPOOL_RTSAN_CHILD").is_some() {
            voicepool::rtsan_selftest::lock_in_realtime();
        }
    }
}

/// The game side never waits for the audio side: with the mixer stalled (never
/// processing), a full command queue makes every call return `QueueFull` at
/// once. A hang here would trip the watchdog, not a timing threshold.
#[test]
fn game_calls_return_queue_full_while_the_mixer_is_stalled() {
    use std::sync::mpsc;
    use std::time::Duration;
    use voicepool::PlayError;

    let (mut engine, mut mixer) = Engine::new(EngineSettings {
        voices: 4,
        command_capacity: 16,
        ..Default::default()
    })
    .unwrap();
    let s = sine(440.0, 5.0, 48_000, 0.5);
    let live = engine.play(&s, PlayParams::default()).unwrap();
    let mut buf = [0.0f32; 64];
    mixer.process(&mut buf); // `live` is playing; from now on the mixer stalls
    engine.drain_events().for_each(drop);
    let ctl = engine.controller();
    let (done, watchdog) = mpsc::channel();
    std::thread::spawn(move || {
        let mut full = 0;
        for i in 0..20_000 {
            let results = [
                ctl.play(&s, PlayParams::default()).err(),
                ctl.stop(live).err(),
                ctl.set_volume(live, 0.5).err(),
                ctl.set_pan(live, 0.1).err(),
                ctl.set_pitch(live, 1.5).err(),
                ctl.stop_all().err(),
            ];
            full += results
                .iter()
                .filter(|r| **r == Some(PlayError::QueueFull))
                .count();
            if i == 0 {
                assert!(
                    results.iter().any(Option::is_none),
                    "the queue was empty at first"
                );
            }
        }
        done.send(full).unwrap();
    });
    let full = watchdog
        .recv_timeout(Duration::from_secs(120))
        .expect("game-side calls blocked while the mixer was stalled");
    assert!(full > 100_000, "{full}");
    assert_eq!(engine.stats().dropped_commands, full as u64);
    // The mixer wakes up and the queued commands take effect; nothing is stuck.
    mixer.process(&mut buf);
    assert!(engine.drain_events().count() > 0);
    drop(mixer);
    assert_eq!(
        engine.play(&sine(440.0, 0.1, 48_000, 0.5), PlayParams::default()),
        Err(PlayError::EngineStopped)
    );
}

/// The live engine on ALSA's unpaced `null` device (through the repo's test
/// config), run in a child process: a second of callbacks while a game
/// thread triggers bursts into a small command queue (it fills), nobody reads
/// events for the first half (the event queue fills), every sound loses its
/// last game-side reference right after `play`, voices end, and the engine
/// is dropped at the end. Under `scripts/rtsan.sh` the data callback's body
/// is a non-blocking context, so any violation there aborts the child.
#[test]
fn live_engine_churn_on_the_null_device() {
    use std::process::Command;
    let conf = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/alsa/capture_f32.conf");
    let capture = std::env::temp_dir().join(format!("voicepool-rtsan-{}.raw", std::process::id()));
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "live_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("VOICEPOOL_LIVE_CHILD", "1")
        .env("VOICEPOOL_CAPTURE", &capture)
        .env(
            "ALSA_CONFIG_PATH",
            format!("/usr/share/alsa/alsa.conf:{conf}"),
        )
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&capture);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("live churn passed"),
        "live churn child failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    for line in stdout
        .lines()
        .filter_map(|l| l.find("live churn:").map(|i| &l[i..]))
    {
        println!("{line}");
    }
}

#[test]
#[ignore = "run as a child process by live_engine_churn_on_the_null_device"]
fn live_child() {
    use std::time::{Duration, Instant};
    use voicepool::AudioEngine;
    if std::env::var_os("VOICEPOOL_LIVE_CHILD").is_none() {
        return;
    }
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use voicepool::output::cpal::CallbackPhase;
    // The hook parks the audio thread (a spin on an atomic: no syscall, so
    // it is itself real-time clean) while the game floods the queue, so the
    // queue fills deterministically rather than by a race.
    static HOLD: AtomicBool = AtomicBool::new(false);
    static HELD: AtomicBool = AtomicBool::new(false);
    fn hook(phase: CallbackPhase) {
        if phase == CallbackPhase::Enter {
            while HOLD.load(SeqCst) {
                HELD.store(true, SeqCst);
                std::hint::spin_loop();
            }
        }
    }
    let settings = EngineSettings {
        voices: 6,
        command_capacity: 16,
        event_capacity: 32,
        buffer_frames: Some(256),
        ..Default::default()
    };
    let mut engine = AudioEngine::start_with_hook(settings, hook).expect("the null PCM opens");
    HOLD.store(true, SeqCst);
    let parked = Instant::now();
    while !HELD.load(SeqCst) {
        assert!(
            parked.elapsed() < Duration::from_secs(60),
            "no callback came"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let blip = sine(800.0, 0.01, 48_000, 0.5);
    let refused = (0..64)
        .filter(|_| engine.play(&blip, PlayParams::default()).is_err())
        .count();
    drop(blip); // its only game-side reference goes while it is queued
    HOLD.store(false, SeqCst);
    assert_eq!(
        refused,
        64 - 16,
        "a stalled audio side fills the 16-slot queue"
    );
    let ctl = engine.controller();
    let game = std::thread::spawn(move || {
        let start = Instant::now();
        let (mut ok, mut full, mut i) = (0u64, 0u64, 0u32);
        while start.elapsed() < Duration::from_secs(1) {
            // A new sound each time, dropped by the game right after play.
            let s = sine(300.0 + (i % 50) as f32 * 20.0, 0.01, 44_100, 0.5);
            for j in 0..8 {
                match ctl.play(&s, PlayParams::default().pitch(1.0 + j as f32 * 0.1)) {
                    Ok(h) => {
                        ok += 1;
                        let _ = ctl.set_pan(h, -0.5);
                        if j % 3 == 0 {
                            let _ = ctl.stop(h);
                        }
                    }
                    Err(_) => full += 1,
                }
            }
            drop(s);
            i += 1;
            std::thread::sleep(Duration::from_micros(200));
        }
        (ok, full)
    });
    // Events pile up unread.
    std::thread::sleep(Duration::from_millis(500));
    // The device "goes away" under the churn: the output thread takes the
    // audio side out of the running stream (whose callbacks then play
    // silence) and opens the device again; both streams' callbacks run in
    // the real-time context.
    engine.simulate_device_loss();
    let mut ended = 0;
    while !game.is_finished() {
        ended += engine
            .drain_events()
            .filter(|e| matches!(e, voicepool::Event::Ended { .. }))
            .count();
        std::thread::sleep(Duration::from_millis(5));
    }
    let (ok, full) = game.join().unwrap();
    let recovered = Instant::now();
    while engine.stats().recoveries == 0 {
        assert!(
            recovered.elapsed() < Duration::from_secs(60),
            "never recovered"
        );
        engine.drain_events().for_each(drop);
        std::thread::sleep(Duration::from_millis(5));
    }
    let stats = engine.stats();
    drop(engine);
    println!(
        "live churn: {ok} plays accepted, {full} refused (queue full), {} started, {} steals, {} ended ({ended} seen), {} frames, {} recoveries, {} callbacks ({} late, worst {:?} against {:?})",
        stats.started, stats.steals, stats.ended, stats.frames_rendered, stats.recoveries,
        stats.callbacks, stats.late_callbacks, stats.worst_callback, stats.callback_budget
    );
    assert!(stats.frames_rendered > 48_000, "the stream ran");
    assert!(
        ok > 100 && full > 0,
        "queue never filled: {ok} ok, {full} full"
    );
    assert!(stats.started > 100 && stats.ended > 10, "{stats:?}");
    println!("live churn passed");
}

/// A `stop_all` swept over a large virtual pool (with commands for the
/// stopped voices and new virtual plays during the sweep), every block
/// rendered in the real-time context.
#[test]
fn virtual_sweep_in_realtime_context() {
    let mut buf = vec![0.0f32; 2 * 1_024];
    let stats = support::virtual_sweep::virtual_sweep(|mixer, frames| {
        mixer.process(&mut buf[..2 * frames]);
    });
    assert!(
        stats.virtualized >= 6_000 && stats.ended >= 6_000,
        "{stats:?}"
    );
}
