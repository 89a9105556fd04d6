//! Moving emitters from the game loop: `set_position` writes a table the
//! audio side reads each block, with no command, so a frame can move
//! thousands of emitters whatever the queue's size; a stale handle moves
//! nothing, even once its play's place in the table went to another play;
//! a handle read from an event moves its play as the one `play` returned.

use voicepool_testkit::common;

use common::*;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Spatial};

fn peak(out: &[f32]) -> f32 {
    out.iter().fold(0.0f32, |m, &x| m.max(x.abs()))
}

const EMITTERS: usize = 3_000;

/// Where emitter `k` starts: 2 to 6 m ahead, 3 m either side.
fn near(k: usize) -> [f32; 3] {
    [(k % 7) as f32 - 3.0, 0.0, -2.0 - (k % 5) as f32]
}

/// 16 voices and 3,000 looping virtual emitters, started at `near(k)`
/// moved `away` metres further ahead, with a command queue of 64.
fn emitters(away: f32) -> (OfflineEngine, Vec<voicepool::VoiceHandle>) {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 16,
        virtual_voices: EMITTERS,
        command_capacity: 64,
        ..Default::default()
    })
    .unwrap();
    let hum = dc(1.0, RATE, 0.01);
    let mut handles = Vec::new();
    while handles.len() < EMITTERS {
        for _ in 0..32.min(EMITTERS - handles.len()) {
            let [x, y, z] = near(handles.len());
            let p = PlayParams::default()
                .looping(true)
                .virtualize(true)
                .position([x, y, z - away]);
            handles.push(e.play(&hum, p).unwrap());
        }
        e.render(480);
    }
    e.render(4_800);
    (e, handles)
}

#[test]
fn a_frame_moving_thousands_of_emitters_never_meets_a_full_queue() {
    let (mut e, handles) = emitters(0.0);
    let before = peak(e.render(480));
    // Every frame, every emitter moves: 1 km further ahead by the last.
    for frame in 1..=10 {
        let out = frame as f32 * 100.0;
        for (k, &h) in handles.iter().enumerate() {
            let [x, y, z] = near(k);
            e.set_position(h, [x, y, z - out], [0.0, 0.0, -6_000.0])
                .unwrap();
        }
        e.render(480);
    }
    // Still again: no doppler left.
    for (k, &h) in handles.iter().enumerate() {
        let [x, y, z] = near(k);
        e.set_position(h, [x, y, z - 1_000.0], [0.0; 3]).unwrap();
    }
    e.render(4_800);
    let after = peak(e.render(480));
    assert_eq!(e.stats().dropped_commands, 0);
    assert!(handles.iter().all(|&h| e.is_playing(h)));
    // As loud as the same scene started 1 km away.
    let (mut there, _) = emitters(1_000.0);
    let want = peak(there.render(480));
    assert!(after < before / 10.0, "{before} -> {after}");
    let db = 20.0 * (after / want).log10();
    assert!(db.abs() < 0.1, "{after} against {want}: {db:.2} dB");
}

/// Renders `plays` positioned one-shots in turn (each ended before the
/// next), then a looping one at 3 m; with `stale`, every ended play's
/// handle is then moved far away (its place in the table has gone to a
/// later play by then). Returns the looping play's last block.
fn last_play_after(plays: usize, stale: bool) -> Vec<f32> {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 1,
        virtual_voices: 0,
        command_capacity: 2,
        ..Default::default()
    })
    .unwrap();
    let blip = dc(0.005, RATE, 0.5);
    let mut old = Vec::new();
    for k in 0..plays {
        let at = [k as f32, 0.0, -4.0];
        old.push(e.play(&blip, PlayParams::default().position(at)).unwrap());
        e.render(960);
    }
    assert!(old.iter().all(|&h| !e.is_playing(h)));
    let hum = sine(440.0, 1.0, RATE, 0.5);
    let last = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .position([3.0, 0.0, 0.0]),
        )
        .unwrap();
    e.render(480);
    if stale {
        for &h in &old {
            e.set_position(h, [500.0, 0.0, 0.0], [300.0, 0.0, 0.0])
                .unwrap();
        }
    }
    e.render(960);
    assert!(e.is_playing(last));
    e.render(480).to_vec()
}

#[test]
fn a_stale_handle_moves_nothing_even_once_its_place_is_reused() {
    // Four places in the table (one voice, two queued commands, one
    // newcomer): eleven plays reuse each of them.
    let quiet = last_play_after(10, false);
    assert!(peak(&quiet) > 0.1);
    assert_eq!(last_play_after(10, true), quiet);
}

#[test]
fn a_handle_from_an_event_moves_its_play() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let hum = dc(1.0, RATE, 0.5);
    let spatial = Spatial {
        max_distance: 1_000.0,
        ..Default::default()
    };
    let h = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .position([0.0, 0.0, -1.0])
                .spatial(spatial),
        )
        .unwrap();
    e.render(960);
    let near = peak(e.render(480));
    let from_event = e
        .drain_events()
        .find_map(|ev| match ev {
            Event::Started { voice } => Some(voice),
            _ => None,
        })
        .unwrap();
    assert_eq!(from_event, h);
    e.set_position(from_event, [0.0, 0.0, -10.0], [0.0; 3])
        .unwrap();
    e.render(960);
    let far = peak(e.render(480));
    let db = 20.0 * (far / near).log10();
    assert!((db + 20.0).abs() < 0.1, "{near} -> {far}: {db:.2} dB");
}
