//! Snapshots as a game uses them: a blend halfway (in dB, in log
//! frequency) at half its fade, the snapshot started last winning, a stop
//! returning exactly to what the game set (also what it set meanwhile),
//! and bad input refused with nothing changed.

use std::time::Duration;

use voicepool_testkit::common::{channel, rms, sine, RATE};

use voicepool::{
    BusHandle, BusSettings, Effect, EffectParam, EngineSettings, OfflineEngine, PlayError,
    PlayParams, Snapshot, Sound,
};

fn level(amp: f32) -> Sound {
    Sound::from_samples(1, RATE, vec![amp; 4 * RATE as usize]).expect("sound")
}

/// An engine with a music bus playing a constant; the left channel's
/// level is the bus's volume times 0.5.
fn music_engine() -> (OfflineEngine, BusHandle) {
    let mut e = OfflineEngine::new(EngineSettings::default()).expect("engine");
    let music = e.create_bus().expect("bus");
    let p = PlayParams::default().bus(music).pan(-1.0).looping(true);
    e.play(&level(0.5), p).expect("play");
    e.render(480);
    (e, music)
}

/// The left channel's last sample after `blocks` blocks of 480 frames.
fn after(e: &mut OfflineEngine, blocks: usize) -> f32 {
    let mut x = 0.0;
    for _ in 0..blocks {
        x = e.render(480)[958];
    }
    x
}

fn db(x: f32) -> f32 {
    20.0 * x.log10()
}

#[test]
fn a_volume_is_halfway_in_db_at_half_the_fade() {
    let (mut e, music) = music_engine();
    let base = after(&mut e, 1);
    let s = e
        .create_snapshot(Snapshot::new().bus_volume(music, 0.01))
        .expect("snapshot");
    e.start_snapshot(s, Duration::from_secs(1)).expect("start");
    let half = after(&mut e, 50);
    assert!(
        (db(half / base) + 20.0).abs() < 0.2,
        "half way: {} dB",
        db(half / base)
    );
    let end = after(&mut e, 50);
    assert!(
        (db(end / base) + 40.0).abs() < 0.01,
        "the end: {} dB",
        db(end / base)
    );
}

#[test]
fn a_cutoff_is_halfway_in_log_frequency_at_half_the_fade() {
    // A 3,162 Hz tone (the geometric mean of 20 kHz and 500 Hz) through
    // the gliding filter at half time, against a filter set there.
    let tone = sine(3_162.0, 4.0, RATE, 0.5);
    let run = |glide: bool| {
        let mut e = OfflineEngine::new(EngineSettings::default()).expect("engine");
        let cutoff = if glide { 20_000.0 } else { 3_162.0 };
        let world = e
            .create_bus_with(BusSettings {
                effects: vec![Effect::LowPass { cutoff_hz: cutoff }],
                ..Default::default()
            })
            .expect("bus");
        e.play(&tone, PlayParams::default().bus(world))
            .expect("play");
        if glide {
            let s = e
                .create_snapshot(Snapshot::new().effect_param(
                    world,
                    0,
                    EffectParam::CutoffHz(500.0),
                ))
                .expect("snapshot");
            e.start_snapshot(s, Duration::from_secs(2)).expect("start");
        }
        e.render(RATE as usize - 480);
        rms(&channel(e.render(960), 0))
    };
    let (gliding, set) = (run(true), run(false));
    let off = 20.0 * (gliding / set).log10();
    assert!(off.abs() < 0.5, "{off} dB from a filter at 3,162 Hz");
}

/// A snapshot started (true) or stopped.
type Step = (bool, voicepool::SnapshotHandle);

#[test]
fn the_snapshot_started_last_wins_and_a_stop_returns_exactly() {
    let (mut e, music) = music_engine();
    let base = after(&mut e, 1);
    let half = e
        .create_snapshot(Snapshot::new().bus_volume(music, 0.5))
        .expect("a");
    let fifth = e
        .create_snapshot(Snapshot::new().bus_volume(music, 0.2))
        .expect("b");
    let at = |e: &mut OfflineEngine| after(e, 3) / base;
    // (order of starts, stops, then the volume expected after each step)
    let cases: &[(&[Step], &[f32])] = &[
        (
            &[(true, half), (true, fifth), (false, fifth), (false, half)],
            &[0.5, 0.2, 0.5, 1.0],
        ),
        (
            &[(true, fifth), (true, half), (false, fifth), (false, half)],
            &[0.2, 0.5, 0.5, 1.0],
        ),
        (
            &[(true, half), (true, fifth), (false, half), (true, half)],
            &[0.5, 0.2, 0.2, 0.5],
        ),
    ];
    for (steps, want) in cases {
        for (&(start, s), &w) in steps.iter().zip(*want) {
            if start {
                e.start_snapshot(s, Duration::ZERO).expect("start");
            } else {
                e.stop_snapshot(s, Duration::ZERO).expect("stop");
            }
            let got = at(&mut e);
            assert!((got - w).abs() < 1e-6, "{steps:?}: {got}, want {w}");
        }
        e.stop_snapshot(half, Duration::ZERO).expect("clear");
        e.stop_snapshot(fifth, Duration::from_millis(30))
            .expect("clear");
        assert_eq!(after(&mut e, 6), base, "back exactly");
    }
}

#[test]
fn what_the_game_sets_while_a_snapshot_holds_it_comes_back_on_stop() {
    let (mut e, music) = music_engine();
    let base = after(&mut e, 1);
    let menu = e
        .create_snapshot(Snapshot::new().bus_volume(music, 0.1))
        .expect("menu");
    e.start_snapshot(menu, Duration::ZERO).expect("start");
    after(&mut e, 2);
    e.set_bus_volume(music, 0.6, Duration::ZERO).expect("set");
    let held = after(&mut e, 2);
    assert!(
        (held / base - 0.1).abs() < 1e-6,
        "the snapshot holds it: {}",
        held / base
    );
    e.stop_snapshot(menu, Duration::from_millis(50))
        .expect("stop");
    let back = after(&mut e, 10);
    assert!(
        (back / base - 0.6).abs() < 1e-6,
        "what the game set: {}",
        back / base
    );
}

#[test]
fn effect_parameters_come_back_to_the_buses_settings() {
    let tone = sine(2_000.0, 2.0, RATE, 0.5);
    let mut e = OfflineEngine::new(EngineSettings::default()).expect("engine");
    let world = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::LowPass { cutoff_hz: 8_000.0 }],
            ..Default::default()
        })
        .expect("bus");
    e.play(&tone, PlayParams::default().bus(world).looping(true))
        .expect("play");
    e.render(9_600);
    let open = rms(&channel(e.render(4_800), 0));
    let under = e
        .create_snapshot(Snapshot::new().effect_param(world, 0, EffectParam::CutoffHz(300.0)))
        .expect("snapshot");
    e.start_snapshot(under, Duration::from_millis(50))
        .expect("start");
    e.render(9_600);
    let muffled = rms(&channel(e.render(4_800), 0));
    e.stop_snapshot(under, Duration::from_millis(50))
        .expect("stop");
    e.render(9_600);
    let again = rms(&channel(e.render(4_800), 0));
    assert!(muffled < open * 0.1, "{open} -> {muffled}");
    assert!((again / open - 1.0).abs() < 1e-3, "{open} -> {again}");
}

#[test]
fn bad_snapshots_are_errors_and_change_nothing() {
    let (mut e, music) = music_engine();
    let other = OfflineEngine::new(EngineSettings::default()).expect("engine");
    let theirs = other.create_bus().expect("bus");
    let reverb = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Reverb {
                room: 0.5,
                damping: 0.5,
                wet: 0.3,
            }],
            ..Default::default()
        })
        .expect("bus");
    let bad = |s: Snapshot| e.create_snapshot(s).expect_err("refused");
    assert!(matches!(
        bad(Snapshot::new().bus_volume(music, f32::NAN)),
        PlayError::InvalidParameter { name: "volume", .. }
    ));
    assert_eq!(
        bad(Snapshot::new().bus_volume(theirs, 0.5)),
        PlayError::ForeignHandle
    );
    assert!(matches!(
        bad(Snapshot::new().effect_param(reverb, 0, EffectParam::CutoffHz(500.0))),
        PlayError::Invalid {
            name: "effect parameter",
            ..
        }
    ));
    assert!(matches!(
        bad(Snapshot::new().effect_param(reverb, 3, EffectParam::Wet(0.5))),
        PlayError::Invalid {
            name: "effect index",
            ..
        }
    ));
    assert!(matches!(
        bad(Snapshot::new().effect_param(reverb, 0, EffectParam::Wet(f32::NAN))),
        PlayError::InvalidParameter { name: "wet", .. }
    ));
    // None was made: the next one made is the first.
    let ok = e
        .create_snapshot(Snapshot::new().bus_volume(music, 2.0))
        .expect("ok");
    assert_eq!(ok.index(), 0);
    let foreign = other.create_snapshot(Snapshot::new()).expect("theirs");
    let foreign = other
        .create_snapshot(Snapshot::new().bus_volume(theirs, 0.1))
        .map(|_| foreign);
    assert_eq!(
        e.start_snapshot(foreign.expect("theirs"), Duration::ZERO),
        Err(PlayError::ForeignHandle)
    );
    let base = after(&mut e, 1);
    assert!(base > 0.0);
}

#[test]
fn a_full_queue_refuses_a_start_and_keeps_the_mix_as_it_was() {
    let mut e = OfflineEngine::new(EngineSettings {
        command_capacity: 4,
        ..EngineSettings::default()
    })
    .expect("engine");
    let buses: Vec<BusHandle> = (0..3).map(|_| e.create_bus().expect("bus")).collect();
    e.render(480);
    let all = buses
        .iter()
        .fold(Snapshot::new(), |s, &b| s.bus_volume(b, 0.5));
    let s = e.create_snapshot(all).expect("snapshot");
    let hum = level(0.1);
    e.play(&hum, PlayParams::default()).expect("one");
    e.play(&hum, PlayParams::default()).expect("two");
    // Two places left, three volumes to move.
    assert_eq!(
        e.start_snapshot(s, Duration::ZERO),
        Err(PlayError::QueueFull)
    );
    e.render(480);
    // Not started: a stop does nothing, a start now works.
    e.stop_snapshot(s, Duration::ZERO).expect("nothing");
    assert!(e.start_snapshot(s, Duration::ZERO).is_ok());
}

#[test]
fn an_effect_handles_change_while_a_snapshot_holds_it_comes_back_on_stop() {
    let tone = sine(2_000.0, 2.0, RATE, 0.5);
    let run = |via_snapshot: bool| {
        let mut e = OfflineEngine::new(EngineSettings::default()).expect("engine");
        let world = e
            .create_bus_with(BusSettings {
                effects: vec![Effect::LowPass {
                    cutoff_hz: 20_000.0,
                }],
                ..Default::default()
            })
            .expect("bus");
        e.play(&tone, PlayParams::default().bus(world).looping(true))
            .expect("play");
        let s = e
            .create_snapshot(Snapshot::new().effect_param(world, 0, EffectParam::CutoffHz(300.0)))
            .expect("snapshot");
        if via_snapshot {
            e.start_snapshot(s, Duration::ZERO).expect("start");
        }
        e.render(4_800);
        let held = rms(&channel(e.render(4_800), 0));
        // The game sets 1 kHz through the typed handle.
        e.filter(world, 0)
            .expect("a filter")
            .set_cutoff(1_000.0, Duration::ZERO)
            .expect("set");
        e.render(4_800);
        let during = rms(&channel(e.render(4_800), 0));
        e.stop_snapshot(s, Duration::ZERO).expect("stop");
        e.render(4_800);
        (held, during, rms(&channel(e.render(4_800), 0)))
    };
    let (held, during, after) = run(true);
    let (_, reference, _) = run(false); // 1 kHz, no snapshot
    assert!(
        (during / held - 1.0).abs() < 1e-3,
        "the snapshot holds 300 Hz: {held} -> {during}"
    );
    assert!(
        (after / reference - 1.0).abs() < 1e-3,
        "back to 1 kHz: {after} vs {reference}"
    );
}

#[test]
fn a_stop_with_no_fade_is_at_once_even_mid_glide() {
    let (mut e, music) = music_engine();
    let base = after(&mut e, 1);
    let slow = e
        .create_snapshot(Snapshot::new().bus_volume(music, 0.1))
        .expect("slow");
    e.start_snapshot(slow, Duration::from_secs(10))
        .expect("start");
    after(&mut e, 10);
    e.set_bus_volume(music, 0.1, Duration::ZERO)
        .expect("held: remembered");
    e.stop_snapshot(slow, Duration::ZERO).expect("stop");
    let now = after(&mut e, 2) / base;
    assert!((now - 0.1).abs() < 1e-6, "{now}");
}
