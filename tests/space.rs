//! Sound from places, rendered offline: distance gain by each model, the
//! constant-power pan of the direction, doppler, smooth motion, stealing
//! that knows where a sound is, and bad input refused.

use voicepool_testkit::common;

use common::*;
use voicepool::{
    DistanceModel, EngineSettings, Event, Listener, OfflineEngine, PlayError, PlayParams, Spatial,
    StealPolicy,
};

fn engine() -> OfflineEngine {
    OfflineEngine::new(EngineSettings::default()).unwrap()
}

/// The left and right level of the last frame of a few blocks of a DC
/// source played with `params` (the ramps settled).
fn settled(params: PlayParams, listener: Listener) -> (f32, f32) {
    let mut e = engine();
    e.set_listener(listener).unwrap();
    e.play(&dc(1.0, RATE, 0.5), params.looping(true)).unwrap();
    e.render(1_440);
    let out = e.render(480);
    (out[out.len() - 2], out[out.len() - 1])
}

fn db(x: f64) -> f64 {
    20.0 * x.log10()
}

/// Each distance model within 0.1 dB of its formula, inside `min_distance`,
/// between, and beyond `max_distance` (no quieter there).
#[test]
fn each_distance_model_follows_its_formula() {
    let (min, max, rolloff) = (2.0f64, 40.0f64, 1.3f64);
    let formula = |model: DistanceModel, d: f64| {
        let d = d.clamp(min, max);
        match model {
            DistanceModel::Inverse => min / (min + rolloff * (d - min)),
            DistanceModel::Linear => (1.0 - rolloff * (d - min) / (max - min)).max(0.0),
            DistanceModel::Exponential => (d / min).powf(-rolloff),
            DistanceModel::None => 1.0,
        }
    };
    let (reference, _) = settled(PlayParams::default(), Listener::default());
    for model in [
        DistanceModel::Inverse,
        DistanceModel::Linear,
        DistanceModel::Exponential,
        DistanceModel::None,
    ] {
        for d in [0.5, 2.0, 3.0, 7.5, 20.0, 39.0, 40.0, 90.0] {
            let spatial = Spatial {
                distance: model,
                min_distance: min as f32,
                max_distance: max as f32,
                rolloff: rolloff as f32,
                doppler: 1.0,
                ..Spatial::default()
            };
            // Straight ahead: centred, as the reference.
            let params = PlayParams::default()
                .position([0.0, 0.0, -(d as f32)])
                .spatial(spatial);
            let (l, r) = settled(params, Listener::default());
            assert_eq!(l, r, "{model:?} at {d} m: not centred");
            let want = formula(model, d);
            if want < 1e-4 {
                assert!(l.abs() < 1e-6, "{model:?} at {d} m: {l}");
                continue;
            }
            let got = f64::from(l) / f64::from(reference);
            assert!(
                (db(got) - db(want)).abs() < 0.1,
                "{model:?} at {d} m: {:.3} dB, formula {:.3} dB",
                db(got),
                db(want)
            );
        }
    }
}

/// The direction pans with the constant-power law `pan` uses (x of the
/// direction in the listener's frame): full left, full right, centred in
/// front, behind and above; and it follows the listener as it turns.
#[test]
fn direction_pans_with_constant_power_and_follows_the_listener() {
    let facing_x = Listener {
        forward: [1.0, 0.0, 0.0].into(),
        ..Listener::default()
    };
    // (listener, where the source is, expected pan as `PlayParams::pan`)
    let cases: [(Listener, [f32; 3], f32); 9] = [
        (Listener::default(), [-1.0, 0.0, 0.0], -1.0),
        (Listener::default(), [1.0, 0.0, 0.0], 1.0),
        (Listener::default(), [0.0, 0.0, -1.0], 0.0),
        (Listener::default(), [0.0, 0.0, 1.0], 0.0),
        (Listener::default(), [0.0, 1.0, 0.0], 0.0),
        (Listener::default(), [0.6, 0.0, -0.8], 0.6),
        (facing_x, [1.0, 0.0, 0.0], 0.0),
        (facing_x, [0.0, 0.0, -1.0], -1.0),
        (facing_x, [0.0, 0.0, 1.0], 1.0),
    ];
    for (listener, at, pan) in cases {
        let (l, r) = settled(PlayParams::default().position(at), listener);
        let (want_l, want_r) = settled(PlayParams::default().pan(pan), Listener::default());
        assert!(
            (l - want_l).abs() < 1e-5 && (r - want_r).abs() < 1e-5,
            "{at:?} from {:?}: ({l}, {r}), pan {pan} gives ({want_l}, {want_r})",
            listener.forward
        );
        // Constant power: the same total however it is panned.
        let power = l * l + r * r;
        assert!((power - 0.25).abs() < 1e-5, "{at:?}: power {power}");
    }
}

/// Doppler: a one-shot of exactly one second at its own rate ends when
/// its pitch says, within 0.5 % of OpenAL's formula, for a moving source
/// and for a moving listener; at and past the speed of sound the output
/// stays finite and in range.
#[test]
fn doppler_follows_the_openal_formula() {
    let c = 343.3f64;
    // (source velocity along +Z, listener velocity along +Z, expected pitch)
    // The source is at z = -10 (ahead), the listener at the origin: the
    // unit vector from source to listener is +Z.
    let cases = [
        (0.0f32, 0.0f32, 1.0f64),
        (30.0, 0.0, c / (c - 30.0)),  // the source closes in
        (-30.0, 0.0, c / (c + 30.0)), // the source moves away
        (0.0, -30.0, (c + 30.0) / c), // the listener closes in
        (0.0, 30.0, (c - 30.0) / c),  // the listener moves away
    ];
    for (vs, vl, want) in cases {
        let mut e = engine();
        e.set_listener(Listener {
            velocity: [0.0, 0.0, vl].into(),
            ..Listener::default()
        })
        .unwrap();
        let h = e
            .play(
                &dc(1.0, RATE, 0.5),
                PlayParams::default()
                    .position([0.0, 0.0, -10.0])
                    .velocity([0.0, 0.0, vs])
                    .spatial(Spatial {
                        distance: DistanceModel::None,
                        ..Spatial::default()
                    }),
            )
            .unwrap();
        e.render(3 * RATE as usize);
        let events = e.drain_timed_events();
        let ended = end_of(&events, h).expect("it ends") as f64;
        let pitch = f64::from(RATE) / ended;
        assert!(
            (pitch / want - 1.0).abs() < 0.005,
            "source {vs} m/s, listener {vl} m/s: pitch {pitch:.4}, formula {want:.4}"
        );
    }
    for v in [343.3f32, 500.0, 1e6, -1e6] {
        let mut e = engine();
        e.play(
            &sine(440.0, 1.0, RATE, 0.9),
            PlayParams::default()
                .looping(true)
                .position([0.0, 0.0, -3.0])
                .velocity([0.0, 0.0, v]),
        )
        .unwrap();
        let out = render_seconds(&mut e, 0.5);
        assert!(
            out.iter().all(|s| s.is_finite() && s.abs() <= 1.0),
            "{v} m/s"
        );
        assert!(out.iter().any(|&s| s != 0.0), "{v} m/s: silent");
    }
}

/// A teleport of the source and a half turn of the listener are ramps over
/// a block, never a step: the largest change between two samples of a DC
/// source stays tiny.
#[test]
fn a_jump_or_a_turn_is_a_ramp_not_a_click() {
    let mut e = engine();
    let h = e
        .play(
            &dc(2.0, RATE, 0.5),
            PlayParams::default()
                .looping(true)
                .position([2.0, 0.0, 0.0]),
        )
        .unwrap();
    let mut out = e.render(960).to_vec();
    e.set_position(h, [-2.0, 0.0, 0.0], [0.0; 3]).unwrap(); // teleport
    out.extend_from_slice(e.render(960));
    e.set_listener(Listener {
        forward: [0.0, 0.0, 1.0].into(), // a half turn
        ..Listener::default()
    })
    .unwrap();
    out.extend_from_slice(e.render(960));
    e.set_listener(Listener {
        position: [0.0, 0.0, 30.0].into(), // the listener jumps away
        ..Listener::default()
    })
    .unwrap();
    out.extend_from_slice(e.render(960));
    for c in 0..2 {
        let ch = channel(&out[960..], c);
        let step = largest_step(&ch);
        assert!(step < 0.002, "channel {c}: a step of {step}");
    }
    // And it did move: right first (2 m: half gain, 0.25), then left, then
    // right again once the listener faced the other way.
    // (Each change is reached over the block that follows it: 960 frames.)
    let at = |frame: usize| (out[2 * frame], out[2 * frame + 1]);
    let (l, r) = at(950);
    assert!(l == 0.0 && r > 0.24, "{l} {r}");
    let (l, r) = at(1919);
    assert!(l > 0.24 && r < 1e-3, "{l} {r}");
    let (l, r) = at(2879);
    assert!(l < 1e-3 && r > 0.24, "{l} {r}");
}

/// Of two equal voices, stealing takes the far one.
#[test]
fn stealing_takes_the_far_voice_of_two_equal_ones() {
    for (near, far) in [
        ([0.0, 0.0, -2.0], [0.0, 0.0, -30.0]),
        ([25.0, 0.0, 0.0], [-1.5, 0.0, 0.0]),
    ] {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 2,
            steal_policy: StealPolicy::Quietest,
            ..Default::default()
        })
        .unwrap();
        let hum = sine(220.0, 1.0, RATE, 0.5);
        let a = e
            .play(&hum, PlayParams::default().looping(true).position(near))
            .unwrap();
        let b = e
            .play(&hum, PlayParams::default().looping(true).position(far))
            .unwrap();
        e.render(4_800);
        let c = e.play(&hum, PlayParams::default()).unwrap();
        e.render(480);
        let steals = steals_and_rejections(e.drain_events());
        // The first case: `a` is near, `b` far; the second the other way.
        let (kept, taken) = if near[2] != 0.0 { (a, b) } else { (b, a) };
        assert_eq!(
            steals,
            [Event::Stolen {
                victim: taken,
                by: c
            }],
            "{near:?} / {far:?}"
        );
        assert!(e.is_playing(kept));
    }
}

/// Nonsense is refused at the call, naming what is wrong; nothing is sent.
#[test]
fn bad_positions_listeners_and_distances_are_errors() {
    let mut e = engine();
    let hum = dc(0.5, RATE, 0.5);
    let h = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .position([1.0, 0.0, 0.0]),
        )
        .unwrap();
    let spatial = |f: fn(&mut Spatial)| {
        let mut s = Spatial::default();
        f(&mut s);
        PlayParams::default().position([1.0, 0.0, 0.0]).spatial(s)
    };
    let bad_plays = [
        PlayParams::default().position([f32::NAN, 0.0, 0.0]),
        PlayParams::default().position([0.0, f32::INFINITY, 0.0]),
        PlayParams::default()
            .position([0.0; 3])
            .velocity([0.0, 0.0, f32::NEG_INFINITY]),
        spatial(|s| s.min_distance = 0.0),
        spatial(|s| s.min_distance = -1.0),
        spatial(|s| s.max_distance = 0.5), // below min_distance 1
        spatial(|s| s.rolloff = f32::NAN),
        spatial(|s| s.doppler = f32::INFINITY),
    ];
    for params in bad_plays {
        let err = e.play(&hum, params).unwrap_err();
        assert!(
            matches!(
                err,
                PlayError::InvalidParameter { .. } | PlayError::Invalid { .. }
            ),
            "{params:?}: {err:?}"
        );
    }
    let bad_listeners = [
        Listener {
            forward: [0.0; 3].into(),
            ..Listener::default()
        },
        Listener {
            up: [0.0; 3].into(),
            ..Listener::default()
        },
        Listener {
            up: [0.0, 0.0, 3.0].into(), // along forward
            ..Listener::default()
        },
        Listener {
            position: [f32::NAN, 0.0, 0.0].into(),
            ..Listener::default()
        },
        Listener {
            velocity: [0.0, 0.0, f32::INFINITY].into(),
            ..Listener::default()
        },
    ];
    for l in bad_listeners {
        assert!(e.set_listener(l).is_err(), "{l:?}");
    }
    assert!(e.set_position(h, [f32::NAN, 0.0, 0.0], [0.0; 3]).is_err());
    assert!(e.set_position(h, [0.0; 3], [0.0, f32::NAN, 0.0]).is_err());
    // Out of range, clamped: a negative rolloff is none, a huge doppler 10.
    assert!(e.play(&hum, spatial(|s| s.rolloff = -3.0)).is_ok());
    assert!(e.play(&hum, spatial(|s| s.doppler = 1e9)).is_ok());
    // Nothing bad reached the audio side.
    e.render(480);
    assert_eq!(e.stats().started, 3);
    e.check_invariants().unwrap();
    let bad_speed = EngineSettings {
        speed_of_sound: 0.0,
        ..Default::default()
    };
    assert!(OfflineEngine::new(bad_speed).is_err());
}

/// Two renders of the same moving scene are bit-identical, and every play
/// ends in exactly one terminal event.
#[test]
fn a_moving_scene_renders_the_same_twice() {
    let scene = || {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 6,
            virtual_voices: 16,
            ..Default::default()
        })
        .unwrap();
        let hum = sine(180.0, 1.0, RATE, 0.4);
        let mut plays = Vec::new();
        for k in 0..12 {
            let x = k as f32 * 3.0 - 18.0;
            plays.push(
                e.play(
                    &hum,
                    PlayParams::default()
                        .looping(true)
                        .virtualize(k % 2 == 0)
                        .position([x, 0.0, -5.0])
                        .velocity([0.0, 0.0, 2.0]),
                )
                .unwrap(),
            );
        }
        let mut out = Vec::new();
        let mut events = Vec::new();
        for block in 0..200 {
            let t = block as f32 * 0.01;
            e.set_listener(Listener {
                position: [t * 10.0 - 10.0, 0.0, 0.0].into(),
                forward: [t.sin(), 0.0, -t.cos()].into(),
                velocity: [10.0, 0.0, 0.0].into(),
                ..Listener::default()
            })
            .unwrap();
            for (k, &h) in plays.iter().enumerate() {
                let x = k as f32 * 3.0 - 18.0;
                let _ = e.set_position(h, [x, 0.0, -5.0 + 2.0 * t], [0.0, 0.0, 2.0]);
            }
            out.extend_from_slice(e.render(480));
            events.extend(e.drain_events());
        }
        e.stop_all().unwrap();
        for _ in 0..10 {
            e.render(480);
            events.extend(e.drain_events());
        }
        e.check_invariants().unwrap();
        (out, events, plays)
    };
    let (a, events, plays) = scene();
    let (b, _, _) = scene();
    assert!(a == b, "two renders differ");
    assert!(a.iter().all(|s| s.is_finite() && s.abs() <= 1.0));
    for h in plays {
        let terminal = events
            .iter()
            .filter(|e| e.is_terminal() && e.voice() == Some(h))
            .count();
        assert_eq!(terminal, 1, "{h:?}");
    }
}

/// Stealing ranks a positioned voice by where it will be: a voice 15 m
/// away closing at 40 m/s is kept over a static one 10 m away (a ranking
/// by the distance now, as FMOD's and Wwise's, would take the closing
/// one).
/// Two looping voices fill a pool of two: one static, one rushing in
/// (held where it is, so only its velocity tells them apart); a newcomer
/// must steal the static one.
fn rushing_in_is_kept(spatial: Spatial, still: [f32; 3], rushing_at: [f32; 3], velocity: [f32; 3]) {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 2,
        ..Default::default()
    })
    .unwrap();
    let hum = sine(220.0, 1.0, RATE, 0.5);
    let looped = PlayParams::default().looping(true).spatial(spatial);
    let near = e.play(&hum, looped.position(still)).unwrap();
    let rushing = e
        .play(&hum, looped.position(rushing_at).velocity(velocity))
        .unwrap();
    e.render(2_400);
    e.set_position(rushing, rushing_at, velocity).unwrap();
    e.render(2_400);
    let by = e.play(&hum, PlayParams::default()).unwrap();
    e.render(480);
    let steals = steals_and_rejections(e.drain_events());
    assert_eq!(steals, [Event::Stolen { victim: near, by }], "{spatial:?}");
    assert!(e.is_playing(rushing));
}

#[test]
fn a_voice_rushing_closer_is_kept_over_a_static_one_nearer_now() {
    // 15 m away closing at 40 m/s, against a static voice at 10 m.
    rushing_in_is_kept(
        Spatial::default(),
        [0.0, 0.0, -10.0],
        [0.0, 0.0, -15.0],
        [0.0, 0.0, 40.0],
    );
}

#[test]
fn a_voice_silent_now_but_rushing_in_is_kept() {
    // Linear to silence at 50 m: the rushing voice, 60 m away at 100 m/s,
    // is silent now and loud within half a second; the static one at 45 m
    // is faint for good.
    let linear = Spatial {
        distance: DistanceModel::Linear,
        max_distance: 50.0,
        ..Spatial::default()
    };
    rushing_in_is_kept(
        linear,
        [0.0, 0.0, -45.0],
        [0.0, 0.0, -60.0],
        [0.0, 0.0, 100.0],
    );
}

/// Thousands of emitters: 5,000 looping positioned plays that asked to
/// virtualize, 16 real voices, a listener walking through them. At each
/// checkpoint most of the real voices are among the 16 the listener hears
/// best (by their true distance gain); every play keeps playing, and each
/// ends in one terminal event at the end.
#[test]
fn thousands_of_emitters_follow_a_walking_listener() {
    const REAL: usize = 16;
    let mut e = OfflineEngine::new(EngineSettings {
        voices: REAL,
        virtual_voices: 5_000,
        command_capacity: 8_192,
        event_capacity: 16_384,
        ..Default::default()
    })
    .unwrap();
    let hum = sine(200.0, 0.5, RATE, 0.3);
    let mut seed = 7u64;
    let mut rnd = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as f32 / (1u64 << 31) as f32
    };
    let mut emitters = Vec::new();
    for _ in 0..5_000 {
        let at = [rnd() * 400.0 - 200.0, 0.0, rnd() * 400.0 - 200.0];
        let h = e
            .play(
                &hum,
                PlayParams::default()
                    .looping(true)
                    .virtualize(true)
                    .position(at),
            )
            .unwrap();
        emitters.push((h, at));
    }
    let spatial = Spatial::default();
    let gain = |d: f32| {
        let d = d.clamp(spatial.min_distance, spatial.max_distance);
        spatial.min_distance / (spatial.min_distance + spatial.rolloff * (d - spatial.min_distance))
    };
    let mut events = Vec::new();
    let mut overlaps = Vec::new();
    let mut shares = Vec::new();
    // 40 s at 2.5 m/s along x, through the middle.
    for block in 0..4_000 {
        let x = -50.0 + block as f32 * 0.025;
        e.set_listener(Listener {
            position: [x, 0.0, 0.0].into(),
            velocity: [2.5, 0.0, 0.0].into(),
            ..Listener::default()
        })
        .unwrap();
        e.render(480);
        events.extend(e.drain_events());
        if block % 500 == 499 {
            let mut best: Vec<(f32, voicepool::VoiceHandle)> = emitters
                .iter()
                .map(|&(h, p)| (gain(((p[0] - x).powi(2) + p[2].powi(2)).sqrt()), h))
                .collect();
            best.sort_by(|a, b| b.0.total_cmp(&a.0));
            let top: Vec<_> = best[..REAL].iter().map(|b| b.1).collect();
            let real: Vec<_> = e.slots().iter().filter_map(|s| s.voice).collect();
            // The share of the power the 16 best would bring that the real
            // voices bring (hysteresis keeps a voice within 3 dB of a
            // better one, so the sets need not be equal).
            let power = |hs: &[voicepool::VoiceHandle]| -> f32 {
                best.iter()
                    .filter(|b| hs.contains(&b.1))
                    .map(|b| b.0 * b.0)
                    .sum()
            };
            shares.push(power(&real) / power(&top));
            overlaps.push(real.iter().filter(|h| top.contains(h)).count());
            assert!(emitters.iter().all(|&(h, _)| e.is_playing(h)));
        }
    }
    let worst = shares.iter().copied().fold(1.0f32, f32::min);
    assert!(
        worst >= 0.9 && overlaps.iter().all(|&n| n >= REAL * 2 / 3),
        "share of the best power the real voices bring: {shares:?}; \
         real voices among the {REAL} most audible: {overlaps:?}"
    );
    e.stop_all().unwrap();
    for _ in 0..20 {
        e.render(480);
        events.extend(e.drain_events());
    }
    e.check_invariants().unwrap();
    for &(h, _) in &emitters {
        let n = events
            .iter()
            .filter(|ev| ev.is_terminal() && ev.voice() == Some(h))
            .count();
        assert_eq!(n, 1, "{h:?}");
    }
}

/// A pool full of positioned voices: a positioned newcomer that steals a
/// slot is still heard from where it is (the emitter table had no entry
/// left for it while its victim still held one, and it played at full
/// volume, unpositioned).
#[test]
fn a_newcomer_into_a_full_pool_of_positioned_voices_is_positioned() {
    for virtual_voices in [0, 3] {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 2,
            virtual_voices,
            ..Default::default()
        })
        .unwrap();
        let hum = dc(1.0, RATE, 0.5);
        let far = PlayParams::default()
            .looping(true)
            .virtualize(virtual_voices > 0)
            .position([0.0, 0.0, -50.0]);
        let mut plays = Vec::new();
        for _ in 0..(2 + virtual_voices + 1) {
            plays.push(e.play(&hum, far).unwrap());
            e.render(2_400);
        }
        // Every voice 50 m away: 0.5 x 1/50 x 0.7071 a channel each.
        let per_voice = 0.5 / 50.0 * std::f32::consts::FRAC_1_SQRT_2;
        let out = e.render(480);
        let l = out[out.len() - 2];
        assert!(
            (l - 2.0 * per_voice).abs() < 1e-4,
            "virtual {virtual_voices}: left {l}, two voices 50 m away give {}",
            2.0 * per_voice
        );
        // And the newest moves when told to.
        let newest = *plays.last().unwrap();
        e.set_position(newest, [0.0, 0.0, -1.0], [0.0; 3]).unwrap();
        e.render(960);
        let out = e.render(480);
        assert!(
            out[out.len() - 2] > 0.3,
            "virtual {virtual_voices}: it did not move"
        );
        e.check_invariants().unwrap();
    }
}

/// On a positioned voice, `set_volume`, `fade_volume` and `set_pitch` set
/// the play's own value, which distance then scales; `set_pan` is ignored.
#[test]
fn setters_on_a_positioned_voice_keep_distance_on_top() {
    // 2 m straight ahead: distance gain 1/2, centred.
    let at = PlayParams::default()
        .looping(true)
        .position([0.0, 0.0, -2.0]);
    let centre = 0.5 * 0.5 * std::f32::consts::FRAC_1_SQRT_2;
    type Set = fn(&OfflineEngine, voicepool::VoiceHandle);
    let cases: [(&str, Set, f32, f32); 4] = [
        (
            "set_volume 0.5",
            |e, h| e.set_volume(h, 0.5).unwrap(),
            0.5 * centre,
            0.5 * centre,
        ),
        (
            "fade_volume 0.25",
            |e, h| {
                e.fade_volume(h, 0.25, std::time::Duration::from_millis(5))
                    .unwrap()
            },
            0.25 * centre,
            0.25 * centre,
        ),
        (
            "set_pan 1 (ignored)",
            |e, h| e.set_pan(h, 1.0).unwrap(),
            centre,
            centre,
        ),
        (
            "set_pitch 2 (level unchanged)",
            |e, h| e.set_pitch(h, 2.0).unwrap(),
            centre,
            centre,
        ),
    ];
    for (what, set, want_l, want_r) in cases {
        let mut e = engine();
        let h = e.play(&dc(1.0, RATE, 0.5), at).unwrap();
        e.render(960);
        set(&e, h);
        e.render(1_440);
        let out = e.render(480);
        let (l, r) = (out[out.len() - 2], out[out.len() - 1]);
        assert!(
            (l - want_l).abs() < 1e-5 && (r - want_r).abs() < 1e-5,
            "{what}: ({l}, {r}), want ({want_l}, {want_r})"
        );
    }
    // set_pitch scales the doppler pitch: a one-second one-shot at pitch 2
    // ends after half a second.
    let mut e = engine();
    let h = e
        .play(
            &dc(1.0, RATE, 0.5),
            PlayParams::default().position([0.0, 0.0, -2.0]),
        )
        .unwrap();
    e.set_pitch(h, 2.0).unwrap();
    e.render(RATE as usize);
    let ended = end_of(&e.drain_timed_events(), h).expect("it ended");
    assert!((ended as i64 - 24_000).abs() <= 2, "ended at {ended}");
}

/// Doppler follows motion after the start too: a one-shot that starts at
/// rest and then closes in at 30 m/s plays its second half faster.
#[test]
fn doppler_follows_a_velocity_set_after_the_start() {
    let c = 343.3f64;
    let mut e = engine();
    let params = PlayParams::default()
        .position([0.0, 0.0, -10.0])
        .spatial(Spatial {
            distance: DistanceModel::None,
            ..Spatial::default()
        });
    let h = e.play(&dc(1.0, RATE, 0.5), params).unwrap();
    e.render(24_000); // half of it at rest
    e.set_position(h, [0.0, 0.0, -10.0], [0.0, 0.0, 30.0])
        .unwrap();
    e.render(RATE as usize);
    let ended = end_of(&e.drain_timed_events(), h).expect("it ends") as f64;
    let want = 24_000.0 + 24_000.0 / (c / (c - 30.0));
    assert!(
        (ended / want - 1.0).abs() < 0.005,
        "ended at {ended}, the formula says {want:.0}"
    );
}
