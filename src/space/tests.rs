//! The space arithmetic against its formulas.

use super::*;

fn spatial(model: DistanceModel) -> ValidSpatial {
    Spatial {
        distance: model,
        min_distance: 2.0,
        max_distance: 50.0,
        rolloff: 1.5,
        doppler: 1.0,
        ..Spatial::default()
    }
    .validate()
    .unwrap()
}

#[test]
fn distance_models_follow_their_formulas() {
    let (min, max, r) = (2.0f64, 50.0f64, 1.5f64);
    for d in [0.0f32, 1.0, 2.0, 3.0, 10.0, 49.0, 50.0, 80.0, 1e30] {
        let dc = f64::from(d).clamp(min, max);
        let cases = [
            (DistanceModel::Inverse, min / (min + r * (dc - min))),
            (
                DistanceModel::Linear,
                (1.0 - r * (dc - min) / (max - min)).max(0.0),
            ),
            (DistanceModel::Exponential, (dc / min).powf(-r)),
            (DistanceModel::None, 1.0),
        ];
        for (model, want) in cases {
            let got = f64::from(spatial(model).gain(d));
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1e-6),
                "{model:?} at {d}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn the_listener_frame_is_right_handed_and_checked() {
    let l = Listener::default().validate().unwrap();
    assert_eq!(l.right, [1.0, 0.0, 0.0]);
    let bad = [
        Listener {
            forward: [0.0; 3].into(),
            ..Listener::default()
        },
        Listener {
            up: [0.0, 0.0, -2.0].into(),
            ..Listener::default()
        },
        Listener {
            position: [f32::NAN, 0.0, 0.0].into(),
            ..Listener::default()
        },
        Listener {
            velocity: [0.0, f32::INFINITY, 0.0].into(),
            ..Listener::default()
        },
    ];
    for b in bad {
        assert!(b.validate().is_err(), "{b:?}");
    }
}

#[test]
fn a_listener_chasing_a_source_both_past_the_speed_of_sound_hears_no_shift() {
    // The source chases the listener, both at 500 m/s along +Z.
    let l = ValidListener {
        velocity: [0.0, 0.0, 500.0],
        ..ValidListener::default()
    };
    let e = ValidEmitter {
        position: [0.0, 0.0, -10.0],
        velocity: [0.0, 0.0, 500.0],
        spatial: spatial(DistanceModel::Inverse),
        cell: NO_EMITTER,
        ..Emitter::NONE.at
    };
    assert_eq!(
        hear(&l, &e, DEFAULT_SPEED_OF_SOUND, AirTable::for_rate(48_000)).doppler,
        1.0
    );
}

#[test]
fn doppler_stays_finite_at_and_past_the_speed_of_sound() {
    let l = ValidListener::default();
    for v in [0.0f32, 100.0, 343.3, 400.0, 1e9, -1e9] {
        let e = ValidEmitter {
            position: [0.0, 0.0, -10.0],
            velocity: [0.0, 0.0, v], // toward the listener for v > 0
            spatial: spatial(DistanceModel::Inverse),
            cell: NO_EMITTER,
            ..Emitter::NONE.at
        };
        let h = hear(&l, &e, DEFAULT_SPEED_OF_SOUND, AirTable::for_rate(48_000));
        assert!(h.doppler.is_finite() && h.doppler > 0.0, "{v}: {h:?}");
        assert!(h.doppler <= MAX_DOPPLER_SHIFT && h.doppler >= 1.0 / MAX_DOPPLER_SHIFT);
    }
}
