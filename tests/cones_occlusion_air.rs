//! Cones, occlusion and air: what each does to a positioned play's direct
//! sound against its formula (gain, and the low-pass response at the
//! frequencies heard), that a change glides, that stealing takes the
//! muffled voice before an equal clear one, and that bad values are
//! errors naming their field.

use voicepool::limits::OPEN_HZ;
use voicepool::{
    Cone, DistanceModel, EngineSettings, Event, Occlusion, OfflineEngine, PlayError, PlayParams,
    Spatial,
};
use voicepool_testkit::common::{channel, largest_step, noise, render_blocks, rms, sine};

const RATE: u32 = 48_000;

fn engine() -> OfflineEngine {
    OfflineEngine::new(EngineSettings::default()).unwrap()
}

/// The power response of the two-pole Butterworth low-pass at `fc` for a
/// sine at `f`, as the bilinear transform makes it at `RATE` (in dB).
fn lowpass_db(fc: f64, f: f64) -> f64 {
    if fc >= f64::from(OPEN_HZ) {
        return 0.0;
    }
    let w = |hz: f64| (std::f64::consts::PI * hz / f64::from(RATE)).tan();
    let x = w(f) / w(fc);
    -10.0 * (1.0 + x.powi(4)).log10()
}

/// The level (dB) of the left channel over the last half second of a
/// second's render of a looping sine at `hz` played with `params`, less
/// that of the same play with `reference`.
fn level_db(hz: f32, params: PlayParams, reference: PlayParams) -> f64 {
    let measure = |p: PlayParams| {
        let mut e = engine();
        e.play(&sine(hz, 1.0, RATE, 0.5), p.looping(true)).unwrap();
        let out = e.render(RATE as usize).to_vec();
        rms(&channel(&out[out.len() / 2..], 0))
    };
    20.0 * (measure(params) / measure(reference)).log10()
}

/// Straight ahead of the listener at 1 m (no distance loss, centred).
fn ahead() -> PlayParams {
    PlayParams::default().position([0.0, 0.0, -1.0])
}

#[test]
fn a_cone_follows_its_formula_at_eight_angles() {
    let cone = Cone {
        inner_deg: 60.0,
        outer_deg: 200.0,
        outer_gain: 0.2,
        outer_lowpass_hz: 1_000.0,
    };
    let (inner, outer) = (30.0f64, 100.0f64);
    for theta in [0.0f64, 20.0, 30.0, 45.0, 65.0, 90.0, 100.0, 160.0] {
        // The listener is at +Z from the emitter; the emitter faces
        // `theta` away from it.
        let r = theta.to_radians();
        let facing = [r.sin() as f32, 0.0, r.cos() as f32];
        let t = ((theta - inner) / (outer - inner)).clamp(0.0, 1.0);
        let gain = 1.0 + (0.2 - 1.0) * t;
        let fc = f64::from(OPEN_HZ) * (1_000.0 / f64::from(OPEN_HZ)).powf(t);
        for hz in [250.0f32, 2_000.0] {
            let p = ahead().orientation(facing).spatial(Spatial {
                cone: Some(cone),
                ..Spatial::default()
            });
            let got = level_db(hz, p, ahead());
            let want = 20.0 * gain.log10() + lowpass_db(fc, f64::from(hz));
            assert!(
                (got - want).abs() < 0.5,
                "{theta} degrees, {hz} Hz: {got:.2} dB, formula {want:.2}"
            );
        }
    }
}

#[test]
fn occlusion_sets_the_gain_and_a_low_pass() {
    for (gain, lowpass) in [(0.4f32, 1_200.0f32), (1.0, 300.0), (0.1, OPEN_HZ)] {
        for hz in [100.0f32, 1_200.0, 4_000.0] {
            let mut e = engine();
            let h = e
                .play(&sine(hz, 1.0, RATE, 0.5), ahead().looping(true))
                .unwrap();
            let clear = e.render(RATE as usize / 2).to_vec();
            e.set_occlusion(
                h,
                Occlusion {
                    gain,
                    lowpass_hz: lowpass,
                },
            )
            .unwrap();
            e.render(RATE as usize / 4).to_vec();
            let occluded = e.render(RATE as usize / 4).to_vec();
            let got = 20.0
                * (rms(&channel(&occluded, 0)) / rms(&channel(&clear[clear.len() / 2..], 0)))
                    .log10();
            let want =
                20.0 * f64::from(gain).log10() + lowpass_db(f64::from(lowpass), f64::from(hz));
            // The gain alone within 0.1 dB; through the filter within 0.5.
            let tolerance = if lowpass >= OPEN_HZ || hz <= 100.0 {
                0.1
            } else {
                0.5
            };
            assert!(
                (got - want).abs() < tolerance,
                "occlusion {gain}, {lowpass} Hz at {hz} Hz: {got:.2} dB, formula {want:.2}"
            );
        }
    }
}

#[test]
fn occlusion_glides_and_clears() {
    let mut e = engine();
    let h = e
        .play(&sine(200.0, 1.0, RATE, 0.5), ahead().looping(true))
        .unwrap();
    let before = e.render(4_800).to_vec();
    // A sine at 200 Hz and 0.35 per side moves at most 0.0092 a frame.
    let sine_step = largest_step(&channel(&before[2_000..], 0));
    e.set_occlusion(
        h,
        Occlusion {
            gain: 0.05,
            lowpass_hz: 150.0,
        },
    )
    .unwrap();
    let into = e.render(4_800).to_vec();
    e.set_occlusion(h, Occlusion::NONE).unwrap();
    let out = e.render(4_800).to_vec();
    let after = e.render(4_800).to_vec();
    for (name, block) in [("into", &into), ("out of", &out)] {
        let step = largest_step(&channel(block, 0));
        assert!(
            step <= sine_step * 1.2,
            "{name} occlusion: a step of {step} (the sine's own {sine_step})"
        );
    }
    // Cleared: exactly as loud as before.
    let ratio = rms(&channel(&after, 0)) / rms(&channel(&before[2_400..], 0));
    assert!((ratio - 1.0).abs() < 1e-3, "{ratio}");
}

#[test]
fn air_takes_the_highs_as_iso_9613_1_says_at_four_distances() {
    // Distance loss off (model None): only the air's.
    let plain = Spatial {
        distance: DistanceModel::None,
        ..Spatial::default()
    };
    let airy = Spatial {
        air_absorption: 1.0,
        ..plain
    };
    // ISO 9613-1 at 20 °C, 50 % RH, dB/m.
    let iso = |hz: f64| {
        let h = 50.0 * 10f64.powf(-6.8346 * (273.16f64 / 293.15).powf(1.261) + 4.6151);
        let fr_o = 24.0 + 4.04e4 * h * (0.02 + h) / (0.391 + h);
        let fr_n = 9.0 + 280.0 * h;
        let f2 = hz * hz;
        8.686
            * f2
            * (1.84e-11
                + 0.01275 * (-2239.1f64 / 293.15).exp() / (fr_o + f2 / fr_o)
                + 0.1068 * (-3352.0f64 / 293.15).exp() / (fr_n + f2 / fr_n))
    };
    let mut checked = 0;
    // How close the fitted low-pass stays to the air (its docs).
    for (metres, within) in [(25.0f32, 2.2), (100.0, 2.2), (400.0, 2.2), (1_500.0, 3.4)] {
        for hz in [500.0f32, 2_000.0, 5_000.0, 10_000.0] {
            let at = PlayParams::default().position([0.0, 0.0, -metres]);
            let got = -level_db(hz, at.spatial(airy), at.spatial(plain));
            let want = iso(f64::from(hz)) * f64::from(metres);
            // Where the air takes up to 12 dB the fitted low-pass follows
            // it; past that it falls 12 dB an octave where the air's loss
            // grows faster.
            if want <= 12.0 {
                assert!(
                    (got - want).abs() < within,
                    "{metres} m, {hz} Hz: {got:.2} dB, ISO {want:.2}"
                );
                checked += 1;
            } else {
                assert!(
                    got > 9.0,
                    "{metres} m, {hz} Hz: only {got:.2} dB, ISO {want:.2}"
                );
            }
        }
    }
    assert!(checked >= 8, "{checked}");
}

/// Two equal loops of noise fill a pool of two, 20 m ahead with no
/// distance loss; the `first` (or second) is played with `muffled` and
/// then occluded by `occlusion`; a third play comes: whether the muffled
/// one is stolen.
fn muffled_is_stolen(muffled: PlayParams, occlusion: Option<Occlusion>, first: bool) -> bool {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 2,
        ..Default::default()
    })
    .unwrap();
    let n = noise(RATE as usize, RATE, 0.3);
    let mut handles = Vec::new();
    for k in 0..2 {
        let p = if (k == 0) == first { muffled } else { plain() };
        handles.push(e.play(&n, p).unwrap());
    }
    let target = handles[usize::from(!first)];
    if let Some(o) = occlusion {
        e.set_occlusion(target, o).unwrap();
    }
    let mut events = Vec::new();
    render_blocks(&mut e, 20, &mut events);
    e.play(&n, PlayParams::default()).unwrap();
    render_blocks(&mut e, 2, &mut events);
    let victims: Vec<_> = events
        .iter()
        .filter_map(|t| match t.event {
            Event::Stolen { victim, .. } => Some(victim),
            _ => None,
        })
        .collect();
    assert_eq!(victims.len(), 1, "{events:?}");
    victims[0] == target
}

const FLAT: Spatial = Spatial {
    distance: DistanceModel::None,
    min_distance: 1.0,
    max_distance: 100.0,
    rolloff: 1.0,
    doppler: 1.0,
    cone: None,
    air_absorption: 0.0,
};

fn plain() -> PlayParams {
    PlayParams::default()
        .looping(true)
        .position([0.0, 0.0, -20.0])
        .spatial(FLAT)
}

#[test]
fn stealing_takes_the_muffled_voice_first() {
    // Each muffles by a low-pass alone (no gain): only the sound's bands
    // tell the two voices apart.
    let cone = Cone {
        inner_deg: 30.0,
        outer_deg: 90.0,
        outer_gain: 1.0,
        outer_lowpass_hz: 400.0,
    };
    let cases = [
        (
            "occluded",
            plain(),
            Some(Occlusion {
                gain: 1.0,
                lowpass_hz: 500.0,
            }),
        ),
        (
            "off-axis",
            plain()
                .orientation([0.0, 0.0, -1.0]) // facing away
                .spatial(Spatial {
                    cone: Some(cone),
                    ..FLAT
                }),
            None,
        ),
        (
            "far through air",
            plain().spatial(Spatial {
                air_absorption: 60.0,
                ..FLAT
            }),
            None,
        ),
    ];
    for (name, muffled, occlusion) in cases {
        for first in [true, false] {
            assert!(
                muffled_is_stolen(muffled, occlusion, first),
                "{name} (played {}): the clear voice was stolen",
                if first { "first" } else { "second" }
            );
        }
    }
}

#[test]
fn bad_orientations_cones_occlusions_and_air_are_errors_naming_the_field() {
    let mut e = engine();
    let s = sine(440.0, 0.5, RATE, 0.5);
    let at = || PlayParams::default().position([1.0, 0.0, 0.0]);
    let cone = Cone {
        inner_deg: 60.0,
        outer_deg: 180.0,
        outer_gain: 0.3,
        outer_lowpass_hz: 2_000.0,
    };
    let bad: Vec<(PlayParams, &str)> = vec![
        (at().orientation([f32::NAN, 0.0, 0.0]), "orientation"),
        (at().orientation([0.0; 3]), "orientation"),
        (
            at().spatial(Spatial {
                cone: Some(Cone {
                    outer_deg: 361.0,
                    ..cone
                }),
                ..Spatial::default()
            }),
            "cone.outer_deg",
        ),
        (
            at().spatial(Spatial {
                cone: Some(Cone {
                    inner_deg: 190.0,
                    ..cone
                }),
                ..Spatial::default()
            }),
            "cone.inner_deg",
        ),
        (
            at().spatial(Spatial {
                cone: Some(Cone {
                    outer_gain: -1.0,
                    ..cone
                }),
                ..Spatial::default()
            }),
            "cone.outer_gain",
        ),
        (
            at().spatial(Spatial {
                cone: Some(Cone {
                    outer_lowpass_hz: f32::INFINITY,
                    ..cone
                }),
                ..Spatial::default()
            }),
            "cone.outer_lowpass_hz",
        ),
        (
            at().spatial(Spatial {
                air_absorption: -0.5,
                ..Spatial::default()
            }),
            "air_absorption",
        ),
        (
            at().spatial(Spatial {
                air_absorption: f32::NAN,
                ..Spatial::default()
            }),
            "air_absorption",
        ),
    ];
    for (p, field) in bad {
        let err = e.play(&s, p).expect_err(field);
        assert!(err.to_string().contains(field), "{field}: {err}");
    }
    // Nothing was made: no event, nothing sounds.
    let mut events = Vec::new();
    render_blocks(&mut e, 4, &mut events);
    assert!(events.is_empty(), "{events:?}");
    let h = e.play(&s, at()).unwrap();
    for (o, field) in [
        (
            Occlusion {
                gain: f32::NAN,
                lowpass_hz: 100.0,
            },
            "occlusion.gain",
        ),
        (
            Occlusion {
                gain: -0.1,
                lowpass_hz: 100.0,
            },
            "occlusion.gain",
        ),
        (
            Occlusion {
                gain: 0.5,
                lowpass_hz: -3.0,
            },
            "occlusion.lowpass_hz",
        ),
    ] {
        let err = e.set_occlusion(h, o).expect_err(field);
        assert!(err.to_string().contains(field), "{field}: {err}");
    }
    assert!(matches!(
        e.set_orientation(h, [0.0, f32::INFINITY, 0.0]),
        Err(PlayError::InvalidParameter { .. })
    ));
    // Out of range: clamped, played (a gain of 3 is 1; a cutoff of 1 MHz
    // is none; air 1,000 is 100).
    let clamped = at().spatial(Spatial {
        cone: Some(Cone {
            outer_gain: 3.0,
            outer_lowpass_hz: 1e6,
            ..cone
        }),
        air_absorption: 1_000.0,
        ..Spatial::default()
    });
    assert!(e.play(&s, clamped).is_ok());
    e.set_occlusion(
        h,
        Occlusion {
            gain: 7.0,
            lowpass_hz: 1e9,
        },
    )
    .unwrap();
    // A play that is not positioned, and a stale handle: nothing, no error.
    let flat = e.play(&s, PlayParams::default()).unwrap();
    e.set_occlusion(
        flat,
        Occlusion {
            gain: 0.1,
            lowpass_hz: 100.0,
        },
    )
    .unwrap();
    e.set_orientation(flat, [1.0, 0.0, 0.0]).unwrap();
    let out = e.render(RATE as usize).to_vec();
    assert!(out.iter().all(|x| x.is_finite()));
    e.set_occlusion(h, Occlusion::NONE).unwrap(); // ended: does nothing
}

#[test]
fn a_low_pass_turning_on_or_off_makes_no_click() {
    // A low tone, loud; the change lands at several points of its cycle
    // (a block's start is where the filter turns on).
    let cone = Cone {
        inner_deg: 10.0,
        outer_deg: 20.0,
        outer_gain: 1.0,
        outer_lowpass_hz: 2_000.0,
    };
    let coned = ahead()
        .orientation([0.0, 0.0, 1.0]) // facing the listener
        .spatial(Spatial {
            cone: Some(cone),
            ..Spatial::default()
        });
    type Change = fn(&OfflineEngine, voicepool::VoiceHandle, bool);
    let cases: [(&str, PlayParams, Change); 2] = [
        ("an occlusion", ahead(), |e, h, on| {
            let o = if on {
                Occlusion {
                    gain: 1.0,
                    lowpass_hz: 5_000.0,
                }
            } else {
                Occlusion::NONE
            };
            e.set_occlusion(h, o).unwrap();
        }),
        ("a cone turning away", coned, |e, h, on| {
            let z = if on { -1.0 } else { 1.0 };
            e.set_orientation(h, [0.0, 0.0, z]).unwrap();
        }),
    ];
    for (name, params, change) in cases {
        for offset in [0usize, 60, 120, 180, 300] {
            let mut e = engine();
            let tone = sine(100.0, 1.0, RATE, 0.9);
            let h = e.play(&tone, params.looping(true)).unwrap();
            let before = e.render(4_800 + offset).to_vec();
            let own = largest_step(&channel(&before[4_000..], 0));
            change(&e, h, true);
            let on = e.render(960).to_vec();
            change(&e, h, false);
            let off = e.render(960).to_vec();
            for (what, last, block) in [("on", &before, &on), ("off", &on, &off)] {
                // (From the block before: a step at the seam counts.)
                let mut joined = channel(&last[last.len() - 4..], 0);
                joined.extend(channel(block, 0));
                let step = largest_step(&joined);
                assert!(
                    step <= own * 1.3,
                    "{name}, {what}, {offset} frames in: a step of {step} (the tone's own {own})"
                );
            }
        }
    }
}
