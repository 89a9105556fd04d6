//! Parameters as a game drives them: curves met within 0.1 dB and 0.1 %,
//! glides with no step, a play's own value apart from the engine's,
//! stealing and virtual voices hearing what a parameter did, and bad
//! input refused.

use std::time::Duration;

use voicepool_testkit::common::{channel, rms, sine, RATE};

use voicepool::{
    Cue, Curve, EngineSettings, Event, OfflineEngine, PlayError, PlayParams, Sound, Target,
};

fn engine(voices: usize) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        ..EngineSettings::default()
    })
    .expect("engine")
}

fn level(amp: f32, frames: usize) -> Sound {
    Sound::from_samples(1, RATE, vec![amp; frames]).expect("sound")
}

fn db(x: f32) -> f32 {
    20.0 * x.abs().log10()
}

#[test]
fn volume_and_pitch_follow_their_curves_within_a_tenth() {
    let xs = [-5.0, 0.0, 7.5, 15.0, 30.0, 45.0, 60.0, 99.0];
    let volume = Curve::linear([(0.0, -30.0), (15.0, -6.0), (60.0, 3.0)]);
    let pitch = Curve::linear([(0.0, 0.5), (30.0, 1.0), (60.0, 1.9)]);
    // A constant: its level is the gain. A ramp: its slope is gain x pitch.
    let flat = level(0.25, 96_000);
    let ramp = Sound::from_samples(1, RATE, (0..96_000).map(|i| i as f32 / 96_000.0).collect())
        .expect("ramp");
    for x in xs {
        let mut e = engine(4);
        let p = e.create_param("x", 0.0).expect("param");
        let loud = Cue::new([flat.clone()]).map(p, Target::VolumeDb, volume.clone());
        e.play(&flat, PlayParams::default().pan(-1.0))
            .expect("reference");
        e.play_cue(&loud, PlayParams::default().pan(1.0))
            .expect("volume");
        e.set_param(p, x, Duration::ZERO).expect("set");
        e.render(960);
        let out = e.render(480).to_vec();
        let (left, right) = (channel(&out, 0), channel(&out, 1));
        let got = db(right[479] / left[479]);
        let want = volume.value_at(x).expect("curve");
        assert!((got - want).abs() < 0.1, "x {x}: {got} dB, want {want}");

        let mut e = engine(4);
        let p = e.create_param("x", x).expect("param");
        let bent = Cue::new([ramp.clone()]).map(p, Target::Pitch, pitch.clone());
        e.play(&ramp, PlayParams::default().pan(-1.0))
            .expect("reference");
        e.play_cue(&bent, PlayParams::default().pan(1.0))
            .expect("pitch");
        e.render(960);
        let out = e.render(480).to_vec();
        let (left, right) = (channel(&out, 0), channel(&out, 1));
        let slope = |c: &[f32]| c[479] - c[0];
        let got = slope(&right) / slope(&left);
        let want = pitch.value_at(x).expect("curve");
        assert!(
            (got / want - 1.0).abs() < 1e-3,
            "x {x}: pitch {got}, want {want}"
        );
    }
}

#[test]
fn a_low_pass_follows_its_curve() {
    // A 4 kHz tone under a 1 kHz two-pole Butterworth low-pass, then 8 kHz.
    let tone = sine(4_000.0, 2.0, RATE, 0.5);
    for (x, cutoff) in [(0.0f32, 1_000.0f32), (1.0, 8_000.0)] {
        let mut e = engine(4);
        let p = e.create_param("muffle", x).expect("param");
        let cue = Cue::new([tone.clone()]).map(
            p,
            Target::LowPassHz,
            Curve::linear([(0.0, 1_000.0), (1.0, 8_000.0)]),
        );
        e.play(&tone, PlayParams::default().pan(-1.0))
            .expect("reference");
        e.play_cue(&cue, PlayParams::default().pan(1.0))
            .expect("filtered");
        e.render(4_800);
        let out = e.render(4_800).to_vec();
        let got = db((rms(&channel(&out, 1)) / rms(&channel(&out, 0))) as f32);
        let w = |f: f32| (std::f32::consts::PI * f / RATE as f32).tan();
        let want = -10.0 * (1.0 + (w(4_000.0) / w(cutoff)).powi(4)).log10();
        assert!(
            (got - want).abs() < 0.3,
            "cutoff {cutoff}: {got} dB, want {want}"
        );
    }
}

#[test]
fn a_glide_has_no_step_and_is_halfway_at_half_time() {
    let mut e = engine(4);
    let p = e.create_param("swell", 0.0).expect("param");
    let cue = Cue::new([level(0.5, 96_000)]).map(
        p,
        Target::VolumeDb,
        Curve::linear([(0.0, -20.0), (1.0, 0.0)]),
    );
    e.play_cue(&cue, PlayParams::default()).expect("play");
    e.render(960);
    e.set_param(p, 1.0, Duration::from_millis(200))
        .expect("glide");
    // In blocks of 10 ms, as a live device asks: each block ramps to
    // where the glide will be at its end.
    let left: Vec<f32> = (0..30).flat_map(|_| channel(e.render(480), 0)).collect();
    let (start, end) = (left[0], left[14_399]);
    assert!((db(end / start) - 20.0).abs() < 0.05, "{start} -> {end}");
    // Rising all the way, never by more than 3 times the mean step (a
    // glide even in dB rises 2.56 times faster at its end than on
    // average; a block's change at once would be 480 times).
    let mean = (end - start) / 9_600.0;
    for w in left.windows(2) {
        assert!(w[1] >= w[0] - 1e-7, "a fall: {w:?}");
        assert!(w[1] - w[0] < 3.0 * mean, "a step: {w:?}, mean {mean}");
    }
    // Linear in the parameter, so in dB: -10 dB at half time.
    let half = db(left[4_800] / end);
    assert!((half + 10.0).abs() < 0.5, "half way: {half} dB");
}

#[test]
fn a_plays_own_value_leaves_the_others_and_the_engines_value() {
    let mut e = engine(4);
    let p = e.create_param("distance", 0.0).expect("param");
    let cue = Cue::new([level(0.5, 96_000)]).map(
        p,
        Target::VolumeDb,
        Curve::linear([(0.0, 0.0), (1.0, -20.0)]),
    );
    let left = e
        .play_cue(&cue, PlayParams::default().pan(-1.0))
        .expect("left");
    e.play_cue(&cue, PlayParams::default().pan(1.0))
        .expect("right");
    e.render(960);
    // (A change is reached over the block after it.)
    let at = |e: &mut OfflineEngine| {
        e.render(480);
        let out = e.render(480).to_vec();
        (out[958], out[959])
    };
    let (l0, r0) = at(&mut e);
    e.set_play_param(left, p, 1.0, Duration::ZERO).expect("own");
    let (l1, r1) = at(&mut e);
    assert!(
        (db(l1 / l0) + 20.0).abs() < 0.05 && r1 == r0,
        "{l0} {r0} -> {l1} {r1}"
    );
    // The engine's value moves the other play, not the one with its own.
    e.set_param(p, 0.5, Duration::ZERO).expect("global");
    let (l2, r2) = at(&mut e);
    assert!(
        l2 == l1 && (db(r2 / r0) + 10.0).abs() < 0.05,
        "{l1} {r1} -> {l2} {r2}"
    );
}

#[test]
fn a_parameter_that_lowers_a_voice_has_it_stolen_first() {
    // Two equal voices; the one a parameter turned down goes, whether it
    // turned down its volume or the send it is heard through (its own bus
    // muted). (Tones: stealing hears K-weighted loudness, which a
    // constant has none of.)
    for through_send in [false, true] {
        for down_first in [true, false] {
            let mut e = engine(2);
            let p = e.create_param("fade", 0.0).expect("param");
            let (target, curve, params) = if through_send {
                let dry = e.create_bus().expect("dry");
                let wet = e.create_bus().expect("wet");
                e.set_bus_volume(dry, 0.0, Duration::ZERO).expect("mute");
                let curve = Curve::linear([(0.0, 1.0), (1.0, 0.03)]);
                (Target::Send(wet), curve, PlayParams::default().bus(dry))
            } else {
                let curve = Curve::linear([(0.0, 0.0), (1.0, -30.0)]);
                (Target::VolumeDb, curve, PlayParams::default())
            };
            let cue = Cue::new([sine(440.0, 2.0, RATE, 0.3)]).map(p, target, curve);
            let a = e.play_cue(&cue, params).expect("a");
            let b = e.play_cue(&cue, params).expect("b");
            let down = if down_first { a } else { b };
            e.set_play_param(down, p, 1.0, Duration::ZERO)
                .expect("down");
            e.render(4_800);
            e.drain_events().for_each(drop);
            let c = e
                .play(&sine(440.0, 2.0, RATE, 0.3), PlayParams::default())
                .expect("c");
            e.render(480);
            let events: Vec<Event> = e.drain_events().collect();
            let stolen = Event::Stolen {
                victim: down,
                by: c,
            };
            assert!(events.contains(&stolen), "send {through_send}: {events:?}");
        }
    }
}

#[test]
fn a_virtual_voice_hears_its_parameter_and_comes_back_or_goes() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 1,
        virtual_voices: 4,
        ..EngineSettings::default()
    })
    .expect("engine");
    let p = e.create_param("duck", 0.0).expect("param");
    let cue = Cue::new([sine(440.0, 2.0, RATE, 0.4)]).looping(true).map(
        p,
        Target::VolumeDb,
        Curve::linear([(0.0, 0.0), (1.0, -40.0)]),
    );
    let loud = e
        .play_cue(&cue, PlayParams::default().virtualize(true))
        .expect("cue");
    e.render(4_800);
    let other = e
        .play(
            &sine(440.0, 2.0, RATE, 0.1),
            PlayParams::default().looping(true).virtualize(true),
        )
        .expect("other");
    e.render(4_800);
    let events: Vec<Event> = e.drain_events().collect();
    assert!(
        events.contains(&Event::Virtualized { voice: other }),
        "{events:?}"
    );
    // Turned down by 40 dB, the cue is worth less than the other: they
    // trade places.
    e.set_param(p, 1.0, Duration::ZERO).expect("duck");
    e.render(48_000);
    let events: Vec<Event> = e.drain_events().collect();
    assert!(
        events.contains(&Event::Resumed { voice: other }),
        "{events:?}"
    );
    assert!(
        events.contains(&Event::Virtualized { voice: loud }),
        "{events:?}"
    );
}

#[test]
fn layers_follow_their_cues_maps_and_an_unpositioned_play_keeps_its_pan() {
    let mut e = engine(4);
    let p = e.create_param("x", 0.0).expect("param");
    let cue = Cue::new([level(0.2, 96_000)])
        .layer(Cue::new([level(0.3, 96_000)]))
        .map(
            p,
            Target::VolumeDb,
            Curve::linear([(0.0, 0.0), (1.0, -20.0)]),
        );
    let h = e
        .play_cue(&cue, PlayParams::default().pan(-1.0))
        .expect("play");
    e.render(960);
    let before = e.render(480)[958];
    e.set_param(p, 1.0, Duration::ZERO).expect("set");
    e.render(480);
    let after = e.render(480)[958];
    assert!(
        (db(after / before) + 20.0).abs() < 0.05,
        "{before} -> {after}"
    );
    assert_eq!(e.render(480)[959], 0.0, "panned hard left");
    e.set_pan(h, 1.0).expect("pan");
    e.render(960);
    let out = e.render(480).to_vec();
    assert!(
        out[958].abs() < 1e-6 && out[959] > 0.0,
        "now right: {:?}",
        &out[958..]
    );
}

#[test]
fn bad_parameters_are_errors_naming_the_field() {
    let e = engine(4);
    let other = engine(4);
    let name = |r: Result<(), PlayError>| match r {
        Err(PlayError::Invalid { name, .. } | PlayError::InvalidParameter { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    assert_eq!(name(e.create_param("x", f32::NAN).map(drop)), "value");
    let p = e.create_param("x", 0.0).expect("param");
    assert_eq!(name(e.create_param("x", 0.0).map(drop)), "name");
    assert_eq!(name(e.set_param(p, f32::INFINITY, Duration::ZERO)), "value");
    let foreign = other.create_param("x", 0.0).expect("param");
    assert_eq!(
        e.set_param(foreign, 1.0, Duration::ZERO),
        Err(PlayError::ForeignHandle)
    );
    let s = level(0.1, 480);
    let cue = |t: Target, c: Curve| Cue::new([s.clone()]).map(p, t, c).check();
    assert_eq!(name(cue(Target::VolumeDb, Curve::linear([]))), "curve");
    assert_eq!(
        name(cue(Target::VolumeDb, Curve::linear([(f32::NAN, 0.0)]))),
        "curve"
    );
    assert_eq!(
        name(cue(Target::Pitch, Curve::linear([(0.0, 1.0), (1.0, 0.0)]))),
        "curve"
    );
    assert_eq!(
        name(cue(Target::LowPassHz, Curve::linear([(0.0, -5.0)]))),
        "curve"
    );
    let many = Curve::linear((0..17).map(|i| (i as f32, 0.0)));
    assert_eq!(name(cue(Target::VolumeDb, many)), "curve");
    let flat = Curve::linear([(0.0, 0.0)]);
    let five = (0..5).fold(Cue::new([s.clone()]), |c, _| {
        c.map(p, Target::VolumeDb, flat.clone())
    });
    assert_eq!(name(five.check()), "map");
    let mixed = Cue::new([s.clone()])
        .map(p, Target::VolumeDb, flat.clone())
        .map(foreign, Target::VolumeDb, flat.clone());
    assert_eq!(name(mixed.check()), "map");
    // A cue of another engine's parameter is refused, nothing played.
    let theirs = Cue::new([s.clone()]).map(foreign, Target::VolumeDb, flat.clone());
    assert_eq!(
        e.play_cue(&theirs, PlayParams::default()),
        Err(PlayError::ForeignHandle)
    );
    // Out of range: clamped (a pitch of 1,000 is 64).
    assert!(cue(Target::Pitch, Curve::linear([(0.0, 1_000.0)])).is_ok());
    // Every parameter an engine can make.
    for i in 1..voicepool::limits::MAX_PARAMS {
        e.create_param(&format!("p{i}"), 0.0).expect("room");
    }
    assert_eq!(
        e.create_param("one more", 0.0),
        Err(PlayError::TooManyParams {
            max: voicepool::limits::MAX_PARAMS
        })
    );
}
