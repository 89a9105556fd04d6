//! The render path allocates and frees nothing: a counting global allocator
//! watches `Mixer::process` while thousands of plays, stops, parameter
//! changes and steals churn through a small pool.

#[global_allocator]
static ALLOCATOR: voicepool::alloc_check::CountingAllocator =
    voicepool::alloc_check::CountingAllocator;
use voicepool::alloc_check as counting_alloc;
use voicepool_testkit::support;

use counting_alloc::allocations;
use std::time::Duration;

use voicepool::{Engine, EngineSettings, GroupSettings, PlayError, PlayParams, Sound, StealPolicy};

fn tone(freq: f32, frames: usize, rate: u32, channels: u16) -> Sound {
    let s = (0..frames * channels as usize)
        .map(|i| (i as f32 * freq / rate as f32).sin() * 0.5)
        .collect();
    Sound::from_samples(channels, rate, s).unwrap()
}

#[test]
fn the_counter_sees_an_allocation_when_there_is_one() {
    // Proves the harness can fail: an allocation on this thread is counted.
    let before = allocations();
    let v = std::hint::black_box(vec![1u8; 64]);
    assert_eq!(v.len(), 64);
    assert!(allocations() > before);
}

#[test]
fn mixing_under_heavy_churn_allocates_and_frees_nothing() {
    let settings = EngineSettings {
        voices: 8,
        // Room for a chain made (and retried) while rendering.
        buses: 64,
        command_capacity: 64,
        event_capacity: 32, // small, so the audio side's event queue overflows
        steal_policy: StealPolicy::Quietest,
        // Small, so virtual voices are dropped for room as well as
        // virtualized, resumed and expired.
        virtual_voices: 6,
        // The audible window lets go of the silent plays (volume 0 below)
        // and of voices far under the loudest: ended or sent virtual.
        audible_window: Some(60.0),
        ..Default::default()
    };
    let (mut engine, mut mixer) = Engine::new(settings).unwrap();
    // Groups of every policy (one with a retrigger interval) and buses,
    // all used below, so their commands and states churn too.
    let groups: Vec<_> = [
        (2, StealPolicy::Quietest, 0),
        (3, StealPolicy::Oldest, 5),
        (1, StealPolicy::Reject, 0),
    ]
    .into_iter()
    .map(|(max_voices, policy, ms)| {
        engine
            .create_group(GroupSettings {
                max_voices,
                policy,
                min_interval: Duration::from_millis(ms),
            })
            .unwrap()
    })
    .collect();
    let buses = [engine.create_bus().unwrap(), engine.create_bus().unwrap()];
    // Effects, a duck, a nested bus; sends; one more bus made mid-run.
    let [hall, world, vehicles] = support::shaped_buses::shaped_buses(&engine, buses[0]);
    // Two snapshots over the same values, started and stopped in turn
    // (volumes gliding in dB, a cutoff and a reverb's wet).
    let snapshots = [
        engine
            .create_snapshot(
                voicepool::Snapshot::new()
                    .bus_volume(buses[0], 0.2)
                    .effect_param(world, 0, voicepool::EffectParam::CutoffHz(400.0))
                    .effect_param(hall, 0, voicepool::EffectParam::Wet(0.9)),
            )
            .unwrap(),
        engine
            .create_snapshot(
                voicepool::Snapshot::new()
                    .bus_volume(buses[0], 0.6)
                    .bus_volume(engine.master_bus(), 0.7),
            )
            .unwrap(),
    ];
    let mut late = None;
    let mut chain = None;
    let armed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut sounds = vec![
        tone(440.0, 4_410, 44_100, 1),
        tone(300.0, 24_000, 48_000, 2),
        tone(900.0, 800, 22_050, 1),
        // A loop of a few frames, read from its loop tile when looping.
        tone(2_000.0, 64, 48_000, 2),
    ];
    // Parameters, mapped by cues to volume, pitch and a low-pass.
    let speed = engine.create_param("speed", 0.0).unwrap();
    let load = engine.create_param("load", 0.5).unwrap();
    // Cues: layered (some delayed), varied in pitch and level, each
    // pick; some with parameter maps.
    let cues = [
        voicepool::Cue::new(sounds.clone())
            .pick(voicepool::Pick::Shuffle)
            .pitch_range(0.8..=1.25)
            .volume_range_db(-6.0..=0.0)
            .layer(voicepool::Cue::new([sounds[1].clone()]).delay(Duration::from_millis(7))),
        voicepool::Cue::new([sounds[0].clone(), sounds[2].clone()])
            .pick(voicepool::Pick::Random)
            .weights([1.0, 3.0])
            .layer(voicepool::Cue::new([sounds[3].clone()]).looping(true))
            .layer(voicepool::Cue::new(sounds.clone()).pick(voicepool::Pick::Sequence)),
        voicepool::Cue::new([sounds[1].clone(), sounds[2].clone()])
            .map(
                speed,
                voicepool::Target::Pitch,
                voicepool::Curve::linear([(0.0, 0.5), (100.0, 2.0)]),
            )
            .map(
                load,
                voicepool::Target::LowPassHz,
                voicepool::Curve::linear([(0.0, 300.0), (1.0, 12_000.0)]),
            )
            .layer(
                voicepool::Cue::new([sounds[0].clone()])
                    .map(
                        speed,
                        voicepool::Target::VolumeDb,
                        voicepool::Curve::linear([(0.0, -20.0), (50.0, 0.0)]),
                    )
                    // Its send to the hall follows the load.
                    .map(
                        load,
                        voicepool::Target::Send(hall),
                        voicepool::Curve::linear([(0.0, 0.0), (1.0, 0.8)]),
                    ),
            ),
    ];
    let mut handles = Vec::new();
    let mut buf = vec![0.0f32; 2 * 1024];
    let (mut played, mut queue_full) = (0u64, 0u64);
    // Allocations, reallocations and frees counted inside `process`.
    let mut in_render = 0u64;

    for i in 0..4_000usize {
        // A fresh sound now and then, whose only game-side reference is
        // dropped while it plays: the audio side must not free it.
        if i % 97 == 0 {
            let short_lived = tone(200.0 + i as f32, 3_000, 32_000, 1);
            engine.play(&short_lived, PlayParams::default()).unwrap();
            sounds.push(short_lived);
            if sounds.len() > 7 {
                sounds.remove(4);
            }
        }
        // Bursts, steady churn, and now and then a lull in which voices
        // end and virtual voices come back.
        let bursts = match i % 400 {
            300.. => 0,
            _ if i % 50 == 0 => 80,
            _ => 1 + i % 4,
        };
        for j in 0..bursts {
            let s = &sounds[(i + j) % sounds.len()];
            let p = PlayParams::default()
                .volume((j % 5) as f32 * 0.3)
                .pan(((i + j) % 9) as f32 / 4.0 - 1.0)
                .pitch(0.25 + ((i * 7 + j) % 16) as f32 * 0.25)
                .priority(((i + j) % 4) as u8 * 64)
                .protected(j == 0 && i % 500 == 0)
                .looping((i + j) % 17 == 0)
                // Half of the plays keep time when they lose their voice;
                // some start later, mid-block or blocks ahead.
                .virtualize((i + j) % 2 == 0)
                .start_at(if j % 3 == 1 {
                    engine.clock() + (i % 2_000) as u64
                } else {
                    0
                });
            // A third of them positioned (some moving, some virtual).
            // Some with a cone, air and an orientation (their own
            // low-pass).
            let p = if (i + j) % 3 == 0 {
                let x = ((i * 13 + j) % 41) as f32 - 20.0;
                let spatial = voicepool::Spatial {
                    cone: (j % 2 == 0).then_some(voicepool::Cone {
                        inner_deg: 60.0,
                        outer_deg: 200.0,
                        outer_gain: 0.3,
                        outer_lowpass_hz: 800.0,
                    }),
                    air_absorption: (j % 3) as f32 * 20.0,
                    ..Default::default()
                };
                p.position([x, 0.0, -3.0])
                    .velocity([0.0, 0.0, (j % 3) as f32 * 20.0])
                    .orientation([1.0, 0.0, (j % 5) as f32 - 2.0])
                    .spatial(spatial)
            } else {
                p
            };
            let p = match (i + j) % 5 {
                0 => p.group(groups[j % 3]).bus(buses[j % 2]),
                1 => p.group(groups[i % 3]),
                2 => p.bus(buses[i % 2]),
                _ => p,
            };
            let unsent = p;
            let p = match (i + j) % 7 {
                0 => p.bus(vehicles).send(hall, 0.3),
                1 => p.bus(world),
                2 => p.send(late.unwrap_or(hall), 0.5),
                _ => p,
            };
            // Every sixth a cue, layered: its commands reach each layer.
            let play = match (i + j) % 6 {
                // (A cue that maps a send to the hall sends nowhere else.)
                5 if (i + j) % 7 == 2 => engine.play_cue(&cues[(i / 6 + j) % cues.len()], unsent),
                5 => engine.play_cue(&cues[(i / 6 + j) % cues.len()], p),
                _ => engine.play(s, p),
            };
            match play {
                Ok(h) => {
                    played += 1;
                    handles.push(h);
                }
                Err(PlayError::QueueFull) => queue_full += 1,
                Err(e) => panic!("{e}"),
            }
        }
        // Parameters glide, for every play and for one.
        let _ = engine.set_param(
            speed,
            (i % 120) as f32,
            Duration::from_millis(i as u64 % 40),
        );
        let _ = engine.set_param(load, (i % 7) as f32 / 6.0, Duration::ZERO);
        if let Some(&h) = handles.last() {
            let _ = engine.set_play_param(h, speed, 90.0, Duration::from_millis(25));
        }
        // The listener walks and turns; positioned voices move (a
        // command for an unpositioned or ended play does nothing).
        let t = i as f32 * 0.01;
        let _ = engine.set_listener(voicepool::Listener {
            position: [t.sin() * 10.0, 0.0, t].into(),
            forward: [t.sin(), 0.0, -t.cos()].into(),
            velocity: [3.0, 0.0, 0.0].into(),
            ..Default::default()
        });
        for (k, &h) in handles.iter().rev().take(12).enumerate() {
            let _ = engine.set_position(h, [t.cos() * 15.0, 1.0, -4.0], [5.0, 0.0, 0.0]);
            // Turned, and occluded or cleared, every block.
            let _ = engine.set_orientation(h, [t.cos(), 0.0, t.sin()]);
            let occlusion = match (i + k) % 3 {
                0 => voicepool::Occlusion::NONE,
                n => voicepool::Occlusion {
                    gain: 0.3 * n as f32,
                    lowpass_hz: 300.0 * n as f32,
                },
            };
            let _ = engine.set_occlusion(h, occlusion);
        }
        if let Some(&h) = handles.get(i * 3 % handles.len().max(1)) {
            let _ = engine.set_volume(h, 0.7);
            let _ = engine.set_pan(h, -0.3);
            let _ = engine.set_pitch(h, 1.5);
            if i % 3 == 0 {
                let _ = engine.stop(h);
            }
            match i % 7 {
                0 => drop(engine.pause(h)),
                1 => drop(engine.resume(h)),
                2 => drop(engine.fade_volume(h, 0.2, Duration::from_millis(30))),
                3 => drop(engine.stop_with_fade(h, Duration::from_millis(15))),
                _ => {}
            }
        }
        // Effect parameters gliding; a bus with effects made while it runs.
        match i % 13 {
            0 => drop(engine.set_effect_param(
                world,
                0,
                voicepool::EffectParam::CutoffHz(300.0),
                Duration::from_millis(40),
            )),
            6 => drop(engine.set_effect_param(
                world,
                0,
                voicepool::EffectParam::CutoffHz(12_000.0),
                Duration::ZERO,
            )),
            9 => drop(engine.set_effect_param(
                hall,
                0,
                voicepool::EffectParam::Wet(0.5 + (i % 2) as f32 * 0.5),
                Duration::from_millis(20),
            )),
            // Through typed handles: a filter's cutoff, and a parameter of
            // a game's effect's own.
            3 => {
                if let Ok(f) = engine.filter(world, 0) {
                    let _ = f.set_cutoff(2_000.0, Duration::from_millis(10));
                }
                if let Some(own) = chain.and_then(|c| engine.custom_effect(c, 0).ok()) {
                    let _ = own.set_custom_param(1, (i % 5) as f32, Duration::from_millis(5));
                }
            }
            _ => {}
        }
        if i >= 2_000 && late.is_none() {
            late = support::shaped_buses::late_bus(&engine);
        }
        // A chain of buses set up while rendering, its deepest low-pass
        // gliding to the top; a game's effect on it that panics, once.
        if i >= 2000 && chain.is_none() {
            chain = support::shaped_buses::late_chain(&engine, 6, &armed);
        }
        // Snapshots blending in and out, over each other.
        let snapshot = snapshots[i / 7 % 2];
        let fade = Duration::from_millis(i as u64 % 50);
        let _ = match i % 7 {
            1 => engine.start_snapshot(snapshot, fade),
            4 => engine.stop_snapshot(snapshot, fade),
            _ => Ok(()),
        };
        // Buses fading, pausing (mid-fade too) and resuming; the master too.
        let bus = buses[i % 2];
        match i % 11 {
            0 => drop(engine.pause_bus(bus)),
            3 => drop(engine.resume_bus(bus)),
            5 => drop(engine.set_bus_volume(bus, 0.3, Duration::from_millis(20))),
            7 => drop(engine.set_master_volume(0.8, Duration::from_millis(10))),
            8 => drop(engine.pause_bus(engine.master_bus())),
            9 => drop(engine.resume_bus(engine.master_bus())),
            _ => {}
        }
        if i % 400 == 399 {
            let _ = engine.stop_all();
        }
        if handles.len() > 256 {
            handles.drain(..128);
        }
        // Odd block sizes, including 0 and 1 frame.
        let frames = [0, 1, 7, 64, 480, 1024, 333][i % 7];
        if i == 2_600 && chain.is_some() {
            // The effect's panic allocates (its payload and message): a
            // block of its own, not counted (nor checked by RTSan, where
            // the suite runs under it); containing it, and every block
            // after, counted.
            armed.store(true, std::sync::atomic::Ordering::Relaxed);
            voicepool::bench_support::outside_rtsan(|| mixer.process(&mut buf[..frames * 2]));
            continue;
        }
        let before = allocations();
        mixer.process(&mut buf[..frames * 2]);
        in_render += allocations() - before;
        if i % 25 == 0 {
            engine.drain_events().for_each(drop);
        }
    }
    let stats = engine.stats();
    eprintln!("{played} played; {stats:?}");
    assert_eq!(in_render, 0, "render path allocated or freed; {stats:?}");
    assert!(late.is_some(), "no bus was made while the audio ran");
    assert!(chain.is_some(), "no bus chain was made while the audio ran");
    assert_eq!(stats.effect_faults, 1, "{stats:?}");
    // The churn really happened.
    assert!(played > 10_000, "{played}");
    assert!(stats.steals > 2_000, "{stats:?}");
    assert!(stats.ended > 100, "{stats:?}");
    assert!(stats.rejections > 0, "{stats:?}");
    assert!(stats.limited > 100, "groups were not exercised: {stats:?}");
    assert!(
        stats.outside_window > 10,
        "the audible window let nothing go: {stats:?}"
    );
    assert!(
        stats.virtualized > 1_000 && stats.resumed > 20,
        "virtual voices were not exercised: {stats:?}"
    );
    // Plays and the set_* calls that found the queue full are all counted.
    assert!(
        queue_full > 0 && stats.dropped_commands >= queue_full,
        "{stats:?}"
    );
    assert!(
        stats.lost_events > 0,
        "event queue never overflowed: {stats:?}"
    );
    assert!(buf.iter().all(|s| s.is_finite()));
    mixer.check_invariants().unwrap();
}

/// Streamed plays: starting, reading, running dry, seeking, pausing,
/// stopping, being stolen and handing their slots over allocate and free
/// nothing on the audio side (the loader, run between blocks here, may).
#[test]
fn streaming_allocates_and_frees_nothing() {
    let mut buf = vec![0.0f32; 2 * 1_024];
    let mut in_render = 0u64;
    let churned = support::stream_churn::stream_churn(|engine, frames| {
        engine.pump_stream_loader();
        let before = allocations();
        engine.mixer_mut().process(&mut buf[..2 * frames]);
        in_render += allocations() - before;
    });
    let stats = churned.stats;
    assert_eq!(
        in_render, 0,
        "the render path allocated or freed; {stats:?}"
    );
    eprintln!(
        "{} streams started, {} stolen, {} seeks; {stats:?}",
        churned.streams_started, churned.streams_stolen, churned.seeks
    );
    assert!(churned.streams_started > 100, "{}", churned.streams_started);
    assert!(churned.streams_stolen > 10, "{}", churned.streams_stolen);
    assert!(
        churned.seeks > 50 && stats.stream_underruns > 3,
        "{stats:?}"
    );
}

/// A `stop_all` swept over a large virtual pool, with commands for the
/// stopped voices and new virtual plays during the sweep, allocates and
/// frees nothing on the audio side.
#[test]
fn sweeping_a_stopped_virtual_pool_allocates_and_frees_nothing() {
    let mut buf = vec![0.0f32; 2 * 1_024];
    let mut in_render = 0u64;
    let stats = support::virtual_sweep::virtual_sweep(|mixer, frames| {
        let before = allocations();
        mixer.process(&mut buf[..2 * frames]);
        in_render += allocations() - before;
    });
    assert_eq!(
        in_render, 0,
        "the render path allocated or freed; {stats:?}"
    );
    assert!(
        stats.virtualized >= 6_000 && stats.ended >= 6_000,
        "{stats:?}"
    );
}
