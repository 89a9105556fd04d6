//! Space at its edges: a move or a turn during a long fade is reached over
//! the next block like any other; listener vectors of any finite length
//! but zero; distances far past what `f32` squares hold; a command queue
//! of one slot.

use voicepool_testkit::common;

use std::time::Duration;

use common::*;
use voicepool::{
    DistanceModel, EngineSettings, Listener, OfflineEngine, PlayParams, Sound, Spatial,
};

/// A steady mono level of 0.5 (DC), looping: its output is its gains.
fn steady() -> Sound {
    dc(1.0, RATE, 0.5)
}

#[test]
fn a_teleport_during_a_long_fade_is_reached_over_the_next_block() {
    // (fade: a volume fade to 0.5 over 10 s, or a 5 s fade-in)
    for fade_in in [false, true] {
        let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
        let p = PlayParams::default()
            .looping(true)
            .position([0.0, 0.0, -1.0]);
        let p = if fade_in { p.fade_in(5.0) } else { p };
        let h = e.play(&steady(), p).unwrap();
        if !fade_in {
            e.fade_volume(h, 0.5, Duration::from_secs(10)).unwrap();
        }
        render_seconds(&mut e, 1.0);
        // The fade's level after 1 s (and after the next block).
        let fade_at = |s: f64| if fade_in { s / 5.0 } else { 1.0 - 0.05 * s };
        // 1 m to 10 m: a tenth of the level (inverse distance, min 1 m).
        e.set_position(h, [0.0, 0.0, -10.0], [0.0; 3]).unwrap();
        e.render(480);
        let block = e.render(480).to_vec();
        let left = channel(&block, 0);
        // Straight ahead: centred, 0.5 * cos(pi/4) a side at full gain.
        let full = 0.5 * std::f64::consts::FRAC_1_SQRT_2;
        let want = full * fade_at(1.01) * 0.1;
        let got = rms(&left);
        assert!(
            (got / want - 1.0).abs() < 0.03,
            "fade-in {fade_in}: {got} after the teleport, want {want}"
        );
        // And the fade goes on to its end time from there.
        let end: f64 = if fade_in { 5.0 } else { 10.0 };
        render_seconds(&mut e, (end - 1.02 - 0.5) as f32);
        let mid = rms(&channel(e.render(480), 0));
        let want_mid = full * fade_at(end - 0.5 + 0.01) * 0.1;
        assert!(
            (mid / want_mid - 1.0).abs() < 0.03,
            "fade-in {fade_in}: {mid} half a second before the fade's end, want {want_mid}"
        );
        render_seconds(&mut e, 1.0);
        let after = rms(&channel(e.render(480), 0));
        let want_after = full * fade_at(end) * 0.1;
        assert!(
            (after / want_after - 1.0).abs() < 0.01,
            "fade-in {fade_in}: {after} after the fade, want {want_after}"
        );
    }
}

#[test]
fn a_half_turn_during_a_fade_in_swaps_the_sides_at_once() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    // On the right, fading in over 5 s.
    e.play(
        &steady(),
        PlayParams::default()
            .looping(true)
            .position([3.0, 0.0, 0.0])
            .fade_in(5.0),
    )
    .unwrap();
    render_seconds(&mut e, 1.0);
    let before = e.render(480).to_vec();
    assert!(rms(&channel(&before, 1)) > 10.0 * rms(&channel(&before, 0)));
    // Facing +Z: the sound is now on the left.
    e.set_listener(Listener {
        forward: [0.0, 0.0, 1.0].into(),
        ..Listener::default()
    })
    .unwrap();
    e.render(480);
    let after = e.render(480).to_vec();
    let (l, r) = (rms(&channel(&after, 0)), rms(&channel(&after, 1)));
    assert!(l > 10.0 * r, "left {l}, right {r}");
    // Still fading in, not jumped to full: about 1.02 / 5 of it, at a
    // third (inverse distance at 3 m).
    let want = 0.5 * (1.02 / 5.0) / 3.0;
    assert!((l / want - 1.0).abs() < 0.03, "{l} vs {want}");
}

#[test]
fn listener_vectors_of_any_finite_length_but_zero_are_accepted() {
    let heard = |forward: [f32; 3], up: [f32; 3]| {
        let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
        e.play(
            &steady(),
            PlayParams::default()
                .looping(true)
                .position([2.0, 0.0, -1.0]),
        )
        .unwrap();
        e.set_listener(Listener {
            forward: forward.into(),
            up: up.into(),
            ..Listener::default()
        })
        .unwrap_or_else(|err| panic!("{forward:?} {up:?}: {err}"));
        e.render(960);
        e.render(480).to_vec()
    };
    let unit = heard([0.0, 0.0, -1.0], [0.0, 1.0, 0.0]);
    for scale in [1e20f32, f32::MAX, 1e-20, 1e-42, f32::MIN_POSITIVE] {
        let scaled = heard([0.0, 0.0, -scale], [0.0, scale, 0.0]);
        assert_eq!(scaled, unit, "forward and up of length {scale}");
    }
    // Any finite direction, however long: the same as its unit vector
    // (within rounding).
    let long = heard([0.0, f32::MAX, -f32::MAX], [0.0, f32::MAX, f32::MAX]);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let unit = heard([0.0, h, -h], [0.0, h, h]);
    for (a, b) in long.iter().zip(&unit) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
    // Zero and parallel are still refused, naming the field.
    let e = OfflineEngine::new(EngineSettings::default()).unwrap();
    for (forward, up, field) in [
        ([0.0; 3], [0.0, 1.0, 0.0], "listener forward"),
        ([0.0, 0.0, -1.0], [0.0; 3], "listener up"),
        ([0.0, 0.0, -1.0], [0.0, 0.0, f32::MAX], "listener up"),
    ] {
        let err = e
            .set_listener(Listener {
                forward: forward.into(),
                up: up.into(),
                ..Listener::default()
            })
            .unwrap_err();
        assert!(err.to_string().contains(field), "{err}");
    }
}

#[test]
fn distance_gains_hold_far_past_what_f32_squares_hold() {
    // (model, max distance, source distance, the formula's gain)
    let cases = [
        (
            DistanceModel::Linear,
            f32::MAX,
            1e30f32,
            1.0 - 1e30 / f32::MAX,
        ),
        (DistanceModel::Linear, f32::MAX, 1e38, 1.0 - 1e38 / f32::MAX),
        (DistanceModel::Inverse, 1e30, 1e25, 1.0 / 1e25),
        (DistanceModel::None, 100.0, 3e38, 1.0),
    ];
    let near = |model| {
        let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
        e.play(
            &steady(),
            PlayParams::default()
                .looping(true)
                .position([0.0, 0.0, -1.0])
                .spatial(Spatial {
                    distance: model,
                    ..Spatial::default()
                }),
        )
        .unwrap();
        e.render(960);
        rms(&channel(e.render(480), 0))
    };
    for (model, max, d, gain) in cases {
        let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
        e.play(
            &steady(),
            PlayParams::default()
                .looping(true)
                .position([0.0, 0.0, -d])
                .spatial(Spatial {
                    distance: model,
                    max_distance: max,
                    ..Spatial::default()
                }),
        )
        .unwrap();
        e.render(960);
        let got = rms(&channel(e.render(480), 0));
        let want = near(model) * f64::from(gain);
        // (Relative: the inverse case's level is about 3.5e-26.)
        assert!(
            want > 0.0 && (got / want - 1.0).abs() <= 1e-3,
            "{model:?} at {d} m (max {max}): {got}, want {want}"
        );
    }
}

#[test]
fn a_queue_of_one_slot_takes_a_positioned_play() {
    let mut e = OfflineEngine::new(EngineSettings {
        command_capacity: 1,
        ..Default::default()
    })
    .unwrap();
    let h = e
        .play(
            &steady(),
            PlayParams::default()
                .looping(true)
                .position([1.0, 0.0, 0.0]),
        )
        .unwrap();
    e.render(480);
    assert!(e.is_playing(h));
    assert!(rms(e.render(480)) > 0.1);
    // Every later one too, one per block.
    for k in 0..4 {
        let p = PlayParams::default().position([k as f32, 0.0, -2.0]);
        e.play(&steady(), p).unwrap();
        e.render(480);
    }
}

#[test]
fn a_positioned_fade_in_goes_on_while_the_voice_is_virtual() {
    // One voice, held by a loud loop of the highest priority; a positioned
    // loop fading in over 2 s waits virtual, then comes back after 3 s:
    // its fade-in has run its course meanwhile, as the time it kept has.
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 1,
        ..Default::default()
    })
    .unwrap();
    let hold = e
        .play(
            &sine(300.0, 1.0, RATE, 0.5),
            PlayParams::default().looping(true).priority(255),
        )
        .unwrap();
    let waiting = e
        .play(
            &steady(),
            PlayParams::default()
                .looping(true)
                .virtualize(true)
                .position([0.0, 0.0, -1.0])
                .fade_in(2.0),
        )
        .unwrap();
    render_seconds(&mut e, 3.0);
    assert!(e.is_playing(waiting));
    e.stop(hold).unwrap();
    render_seconds(&mut e, 0.2);
    let back = rms(&channel(e.render(480), 0));
    // Full level, straight ahead at 1 m: 0.5 * cos(pi/4).
    let full = 0.5 * std::f64::consts::FRAC_1_SQRT_2;
    assert!((back / full - 1.0).abs() < 0.02, "{back} vs {full}");
}
