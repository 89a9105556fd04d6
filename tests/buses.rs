//! Buses: volume (exact, with fades that never jump), pause and resume at
//! the exact position, the master volume at run time, the number of buses
//! fixed at start, and a bus's volume counting in stealing.

use voicepool_testkit::common;

use std::time::Duration;

use common::*;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayError, PlayParams, Sound, StealPolicy};

fn engine() -> OfflineEngine {
    OfflineEngine::new(EngineSettings::default()).unwrap()
}

/// Every sample different: sample k is k / frames * 0.8 (a slow saw), so a
/// position can be read off the output.
fn ramp_sound(frames: usize) -> Sound {
    let s = (0..frames)
        .map(|k| k as f32 / frames as f32 * 0.8)
        .collect();
    Sound::from_samples(1, RATE, s).unwrap()
}

fn largest_step(x: &[f32]) -> f32 {
    x.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max)
}

#[test]
fn bus_volume_scales_the_output_exactly() {
    let tone = sine(440.0, 0.5, RATE, 0.4);
    let mut reference = engine();
    reference.play(&tone, PlayParams::default()).unwrap();
    let want = render_seconds(&mut reference, 0.5);
    for volume in [0.0f32, 0.25, 0.5, 1.0, 2.0] {
        let mut e = engine();
        let bus = e.create_bus().unwrap();
        e.set_bus_volume(bus, volume, Duration::ZERO).unwrap();
        e.play(&tone, PlayParams::default().bus(bus)).unwrap();
        let got = render_seconds(&mut e, 0.5);
        let scaled: Vec<f32> = want.iter().map(|x| x * volume).collect();
        assert!(got == scaled, "bus volume {volume}");
    }
}

#[test]
fn master_volume_changes_at_run_time() {
    let tone = sine(440.0, 1.0, RATE, 0.4);
    let mut reference = engine();
    reference.play(&tone, PlayParams::default()).unwrap();
    let want = render_seconds(&mut reference, 0.4);
    let mut e = engine();
    e.play(&tone, PlayParams::default()).unwrap();
    let mut got = render_seconds(&mut e, 0.2);
    e.set_master_volume(0.5, Duration::ZERO).unwrap();
    got.extend(render_seconds(&mut e, 0.2));
    let half = want.len() / 2;
    assert!(got[..half] == want[..half]);
    let scaled: Vec<f32> = want[half..].iter().map(|x| x * 0.5).collect();
    assert!(got[half..] == scaled[..]);
    // EngineSettings::master_gain is where the master volume starts.
    let mut quiet = OfflineEngine::new(EngineSettings {
        master_gain: 0.5,
        ..Default::default()
    })
    .unwrap();
    quiet.play(&tone, PlayParams::default()).unwrap();
    let q = render_seconds(&mut quiet, 0.2);
    let scaled: Vec<f32> = want[..half].iter().map(|x| x * 0.5).collect();
    assert!(q == scaled);
}

#[test]
fn a_bus_fade_is_linear_on_time_and_never_jumps() {
    for (start, target, ms) in [(1.0f32, 0.0f32, 100u64), (1.0, 0.5, 250), (0.0, 1.0, 40)] {
        let mut e = engine();
        let bus = e.create_bus().unwrap();
        e.set_bus_volume(bus, start, Duration::ZERO).unwrap();
        e.play(
            &dc(2.0, RATE, 0.5),
            PlayParams::default().bus(bus).pan(-1.0),
        )
        .unwrap();
        render_seconds(&mut e, 0.1);
        e.set_bus_volume(bus, target, Duration::from_millis(ms))
            .unwrap();
        let left = channel(&render_seconds(&mut e, 0.5), 0);
        let frames = (ms * 48) as usize;
        let step = 0.5 * (target - start).abs() / frames as f32;
        assert!((left[0] - 0.5 * start).abs() < 1e-6, "{start}->{target}");
        assert!(
            largest_step(&left) <= step * 1.01 + 1e-7,
            "{start}->{target}"
        );
        // On target at the fade's end, and from then on.
        assert!(left[frames..]
            .iter()
            .all(|&x| (x - 0.5 * target).abs() < 1e-6));
        assert!((left[frames - 1] - 0.5 * target).abs() > step * 0.5);
    }
}

#[test]
fn a_paused_bus_is_silent_holds_its_place_and_resumes_exactly() {
    let fade = 240; // the default pause fade, 5 ms
    let saw = ramp_sound(96_000);
    let mut e = engine();
    let sfx = e.create_bus().unwrap();
    let a = e
        .play(&saw, PlayParams::default().bus(sfx).pan(-1.0))
        .unwrap();
    let b = e
        .play(&dc(4.0, RATE, 0.3), PlayParams::default().pan(1.0))
        .unwrap();
    let p = 4_800; // pause at 100 ms
    let mut out = e.render(p).to_vec();
    e.pause_bus(sfx).unwrap();
    out.extend(render_seconds(&mut e, 0.9)); // to frame 48_000
    let r = out.len() / 2;
    e.resume_bus(sfx).unwrap();
    out.extend(render_seconds(&mut e, 0.5));
    let (left, right) = (channel(&out, 0), channel(&out, 1));
    // The other bus plays on throughout.
    assert!(right.iter().all(|&x| x == 0.3));
    // The fade out is smooth, then silence until the resume.
    assert!(largest_step(&left[p - 1..p + fade + 1]) < 0.8 / 96_000.0 + 0.4 / fade as f32);
    assert!(left[p + fade..r].iter().all(|&x| x == 0.0));
    // After the fade back in, exactly the sound from where it was held:
    // it moved on by one fade while fading out and one while fading in.
    let held = p + 2 * fade;
    let want: Vec<f32> = (0..10_000)
        .map(|k| (held + k) as f32 / 96_000.0 * 0.8)
        .collect();
    assert!(left[r + fade..r + fade + 10_000] == want[..]);
    assert!(e.is_playing(a) && e.is_playing(b));
    assert!(!e.drain_events().any(|ev| matches!(ev, Event::Ended { .. })));
}

#[test]
fn pausing_the_master_holds_every_voice_and_stopping_a_held_voice_ends_it() {
    let mut e = engine();
    let music = e.create_bus().unwrap();
    let a = e
        .play(&dc(1.0, RATE, 0.3), PlayParams::default().bus(music))
        .unwrap();
    let b = e.play(&dc(1.0, RATE, 0.3), PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.1);
    e.pause_bus(e.master_bus()).unwrap();
    render_seconds(&mut e, 0.1);
    // Long after the 1 s sounds would have ended: silent, held, playing.
    let out = render_seconds(&mut e, 2.0);
    assert!(out.iter().all(|&x| x == 0.0));
    assert!(e.is_playing(a) && e.is_playing(b));
    e.stop(a).unwrap();
    e.render(480);
    let ended: Vec<Event> = e
        .drain_events()
        .filter(|ev| matches!(ev, Event::Ended { .. }))
        .collect();
    assert_eq!(ended, [Event::Ended { voice: a }]);
    e.resume_bus(e.master_bus()).unwrap();
    let out = render_seconds(&mut e, 0.1);
    assert!(out.iter().any(|&x| x != 0.0));
}

#[test]
fn a_quiet_bus_counts_in_stealing() {
    // Two equal voices; the one on a bus turned down is the one to go.
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 2,
        steal_policy: StealPolicy::Quietest,
        ..Default::default()
    })
    .unwrap();
    let ambience = e.create_bus().unwrap();
    let tone = sine(440.0, 2.0, RATE, 0.5);
    // The one to go is the younger: a tie would take the older.
    let kept = e.play(&tone, PlayParams::default()).unwrap();
    let low = e.play(&tone, PlayParams::default().bus(ambience)).unwrap();
    render_seconds(&mut e, 0.1);
    // In the same block as the play: the ranking already counts it.
    e.set_bus_volume(ambience, 0.1, Duration::from_millis(50))
        .unwrap();
    let new = e.play(&tone, PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.01);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: low,
            by: new
        }]
    );
    assert!(e.is_playing(kept));
}

#[test]
fn buses_are_fixed_at_start_and_foreign_ones_do_nothing() {
    let e = OfflineEngine::new(EngineSettings {
        buses: 1,
        ..Default::default()
    })
    .unwrap();
    let bus = e.create_bus().unwrap();
    assert_eq!(e.create_bus(), Err(PlayError::TooManyBuses { max: 1 }));
    let mut other = engine();
    let tone = dc(0.5, RATE, 0.5);
    assert_eq!(
        other.play(&tone, PlayParams::default().bus(bus)),
        Err(PlayError::ForeignHandle)
    );
    other.play(&tone, PlayParams::default()).unwrap();
    // Another engine's bus: nothing happens to this engine's sound.
    other.set_bus_volume(bus, 0.0, Duration::ZERO).unwrap();
    other.pause_bus(bus).unwrap();
    assert!(other.render(480).iter().all(|&x| x != 0.0));
    // NaN is rejected, out of range clamped.
    assert!(matches!(
        e.set_bus_volume(bus, f32::NAN, Duration::ZERO),
        Err(PlayError::InvalidParameter { .. })
    ));
    e.set_bus_volume(bus, 99.0, Duration::from_secs(3_600))
        .unwrap();
}
