//! A parameter driving a send (`Target::Send`): the level a cue's play
//! sends at follows the curve as a fixed `PlayParams::send` would and
//! glides without a step; bad sends are refused. (That stealing hears it:
//! `tests/cue_params.rs`, with the other targets.)

use std::time::Duration;

use voicepool_testkit::common::{channel, RATE};

use voicepool::{
    BusHandle, Cue, Curve, EngineSettings, OfflineEngine, PlayError, PlayParams, Sound, Target,
};

/// An engine with a muted bus for the plays (`dry`: only what they send
/// is heard) and a plain bus they send to (`wet`).
fn engine(voices: usize) -> (OfflineEngine, BusHandle, BusHandle) {
    let e = OfflineEngine::new(EngineSettings {
        voices,
        ..EngineSettings::default()
    })
    .expect("engine");
    let dry = e.create_bus().expect("dry");
    let wet = e.create_bus().expect("wet");
    e.set_bus_volume(dry, 0.0, Duration::ZERO).expect("mute");
    (e, dry, wet)
}

fn level(amp: f32, frames: usize) -> Sound {
    Sound::from_samples(1, RATE, vec![amp; frames]).expect("sound")
}

#[test]
fn a_send_follows_its_curve_as_a_fixed_send_would() {
    let curve = Curve::linear([(0.0, 0.0), (10.0, 0.25), (20.0, 1.0), (30.0, 1.5)]);
    for x in [-3.0, 0.0, 2.5, 10.0, 14.0, 20.0, 26.0, 40.0] {
        let (mut e, dry, wet) = engine(4);
        let p = e.create_param("wetness", x).expect("param");
        let flat = level(0.25, 48_000);
        let cue = Cue::new([flat.clone()]).map(p, Target::Send(wet), curve.clone());
        let want = curve.value_at(x).expect("curve");
        let on_dry = PlayParams::default().bus(dry);
        e.play(&flat, on_dry.pan(-1.0).send(wet, want))
            .expect("reference");
        e.play_cue(&cue, on_dry.pan(1.0)).expect("cue");
        e.render(960);
        let out = e.render(480).to_vec();
        let (left, right) = (channel(&out, 0), channel(&out, 1));
        let (got, reference) = (right[479], left[479]);
        assert!(
            (got - reference).abs() <= 1e-3 * reference.abs() + 1e-7,
            "x {x}: sent {got}, a fixed send of {want} gives {reference}"
        );
        if want > 0.0 {
            assert!(got > 0.0, "x {x}: nothing sent");
        }
    }
}

#[test]
fn a_send_glides_without_a_step_and_is_halfway_at_half_time() {
    let (mut e, dry, wet) = engine(4);
    let p = e.create_param("wetness", 0.0).expect("param");
    let cue = Cue::new([level(0.5, 96_000)]).map(
        p,
        Target::Send(wet),
        Curve::linear([(0.0, 0.0), (1.0, 1.0)]),
    );
    e.play_cue(&cue, PlayParams::default().bus(dry))
        .expect("cue");
    e.render(480);
    let glide = 9_600;
    e.set_param(p, 1.0, Duration::from_secs_f64(glide as f64 / RATE as f64))
        .expect("set");
    // In blocks of 10 ms, as a live device asks: each block ramps to
    // where the glide will be at its end.
    let out: Vec<f32> = (0..2 * glide / 480)
        .flat_map(|_| channel(e.render(480), 0))
        .collect();
    let full = out[out.len() - 1];
    assert!(full > 0.2, "the send never opened: {full}");
    let half = out[glide / 2];
    assert!(
        (half / full - 0.5).abs() < 0.06,
        "at half the glide: {half} of {full}"
    );
    // A linear glide moves full / glide a frame; no frame jumps more than
    // twice that.
    let most = out
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max);
    assert!(
        most <= 2.0 * full / glide as f32,
        "a step of {most} (a frame's share {})",
        full / glide as f32
    );
}

#[test]
fn bad_sends_are_refused_naming_the_field() {
    let (mut e, _dry, wet) = engine(4);
    let other = OfflineEngine::new(EngineSettings::default()).expect("other");
    let foreign = other.create_bus().expect("foreign bus");
    let p = e.create_param("wetness", 0.0).expect("param");
    let flat = level(0.25, 480);
    let up = Curve::linear([(0.0, 0.0), (1.0, 1.0)]);
    let hall = e.create_bus().expect("hall");
    let world = e.create_bus().expect("world");
    let cases: [(&str, Cue, PlayParams, &str); 5] = [
        (
            "a bus of another engine",
            Cue::new([flat.clone()]).map(p, Target::Send(foreign), up.clone()),
            PlayParams::default(),
            "map",
        ),
        (
            "a NaN level",
            Cue::new([flat.clone()]).map(p, Target::Send(wet), Curve::linear([(0.0, f32::NAN)])),
            PlayParams::default(),
            "curve",
        ),
        (
            "two buses",
            Cue::new([flat.clone()])
                .map(p, Target::Send(wet), up.clone())
                .map(p, Target::Send(hall), up.clone()),
            PlayParams::default(),
            "map",
        ),
        (
            "a play sending where one of its layers does not",
            Cue::new([flat.clone()])
                .layer(Cue::new([flat.clone()]).map(p, Target::Send(hall), up.clone()))
                .layer(Cue::new([flat.clone()]).map(p, Target::Send(world), up.clone())),
            PlayParams::default().send(hall, 1.0),
            "send",
        ),
        (
            "a play sending elsewhere",
            Cue::new([flat.clone()]).map(p, Target::Send(wet), up.clone()),
            PlayParams::default().send(hall, 0.5),
            "send",
        ),
    ];
    for (what, cue, params, field) in cases {
        let got = e.play_cue(&cue, params);
        let named = match got {
            Err(PlayError::Invalid { name, .. })
            | Err(PlayError::InvalidParameter { name, .. }) => name,
            other => panic!("{what}: {other:?}"),
        };
        assert_eq!(named, field, "{what}");
    }
    // Nothing was played.
    e.render(480);
    assert_eq!(e.drain_events().count(), 0);
    // A level below 0 is clamped to 0 (silence), above MAX_VOLUME to it.
    let clamped = Cue::new([flat]).map(p, Target::Send(wet), Curve::linear([(0.0, -1.0)]));
    assert!(clamped.check().is_ok());
}
