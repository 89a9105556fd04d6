//! Typed effect handles: a filter's handle sets its cutoff, a reverb's its
//! wet, room and damping, a game's effect's its own numbered parameters;
//! each does exactly what the same change by index does, a handle of the
//! wrong kind cannot be had, and bad values are refused with nothing sent.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use voicepool::{
    BusHandle, BusSettings, CustomEffect, Effect, EffectParam, EngineSettings, OfflineEngine,
    PlayError, PlayParams,
};
use voicepool_testkit::common::{noise, RATE};

fn engine() -> OfflineEngine {
    OfflineEngine::new(EngineSettings::default()).unwrap()
}

/// A game's effect whose gain is its parameter 7, and which reports every
/// parameter of its own it is given (id, value bits, frames) through
/// atomics (nothing allocates on the audio thread).
struct Gain {
    gain: f32,
    seen: Arc<(AtomicU32, AtomicU32, AtomicU32, AtomicU64)>,
}

impl CustomEffect for Gain {
    fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
        for x in left.iter_mut().chain(right.iter_mut()) {
            *x *= self.gain;
        }
    }
    fn set_custom_param(&mut self, id: u32, value: f32, frames: u32) {
        let (last_id, last_value, last_frames, count) = &*self.seen;
        last_id.store(id, Relaxed);
        last_value.store(value.to_bits(), Relaxed);
        last_frames.store(frames, Relaxed);
        count.fetch_add(1, Relaxed);
        if id == 7 {
            self.gain = value.clamp(0.0, 1.0);
        }
    }
}

/// Noise through one effect on a bus, changed after 100 ms by `change`
/// (given the engine and the bus), for 300 ms more.
fn render_changed(effect: Effect, change: impl Fn(&OfflineEngine, BusHandle)) -> Vec<f32> {
    let mut e = engine();
    let bus = e
        .create_bus_with(BusSettings {
            effects: vec![effect],
            ..Default::default()
        })
        .unwrap();
    let hiss = noise(RATE as usize, RATE, 0.3);
    e.play(&hiss, PlayParams::default().looping(true).bus(bus))
        .unwrap();
    let mut out = e.render(4_800).to_vec();
    change(&e, bus);
    out.extend_from_slice(e.render(14_400));
    out
}

#[test]
fn a_handle_changes_what_the_same_change_by_index_does() {
    let glide = Duration::from_millis(120);
    type Change = Box<dyn Fn(&OfflineEngine, BusHandle)>;
    type Case = (&'static str, fn() -> Effect, Change, Change);
    let cases: Vec<Case> = vec![
        (
            "low-pass cutoff",
            || Effect::LowPass {
                cutoff_hz: 20_000.0,
            },
            Box::new(move |e, b| e.filter(b, 0).unwrap().set_cutoff(400.0, glide).unwrap()),
            Box::new(move |e, b| {
                e.set_effect_param(b, 0, EffectParam::CutoffHz(400.0), glide)
                    .unwrap()
            }),
        ),
        (
            "high-pass cutoff",
            || Effect::HighPass { cutoff_hz: 20.0 },
            Box::new(move |e, b| e.filter(b, 0).unwrap().set_cutoff(3_000.0, glide).unwrap()),
            Box::new(move |e, b| {
                e.set_effect_param(b, 0, EffectParam::CutoffHz(3_000.0), glide)
                    .unwrap()
            }),
        ),
        (
            "reverb wet, room, damping",
            || Effect::Reverb {
                room: 0.5,
                damping: 0.5,
                wet: 1.0,
            },
            Box::new(move |e, b| {
                let r = e.reverb(b, 0).unwrap();
                r.set_wet(0.2, glide).unwrap();
                r.set_room(0.9, glide).unwrap();
                r.set_damping(0.1, Duration::ZERO).unwrap();
            }),
            Box::new(move |e, b| {
                e.set_effect_param(b, 0, EffectParam::Wet(0.2), glide)
                    .unwrap();
                e.set_effect_param(b, 0, EffectParam::Room(0.9), glide)
                    .unwrap();
                e.set_effect_param(b, 0, EffectParam::Damping(0.1), Duration::ZERO)
                    .unwrap();
            }),
        ),
    ];
    for (name, effect, by_handle, by_index) in cases {
        let unchanged = render_changed(effect(), |_, _| {});
        let a = render_changed(effect(), by_handle);
        let b = render_changed(effect(), by_index);
        assert_eq!(a, b, "{name}: the handle and the index disagree");
        assert_ne!(a, unchanged, "{name}: the change changed nothing");
    }
}

#[test]
fn a_handle_of_the_wrong_kind_or_place_cannot_be_had() {
    let e = engine();
    let other = engine();
    let seen = Arc::new(Default::default());
    let bus = e
        .create_bus_with(BusSettings {
            effects: vec![
                Effect::LowPass { cutoff_hz: 1_000.0 },
                Effect::Reverb {
                    room: 0.5,
                    damping: 0.5,
                    wet: 0.5,
                },
                Effect::Custom(Box::new(Gain { gain: 1.0, seen })),
            ],
            ..Default::default()
        })
        .unwrap();
    let foreign = other.create_bus().unwrap();
    let invalid = |r: Result<(), PlayError>| matches!(r, Err(PlayError::Invalid { .. }));
    let cases: Vec<(&str, Result<(), PlayError>, bool)> = vec![
        ("filter at 0", e.filter(bus, 0).map(drop), true),
        ("reverb at 1", e.reverb(bus, 1).map(drop), true),
        ("custom at 2", e.custom_effect(bus, 2).map(drop), true),
        ("reverb at 0", e.reverb(bus, 0).map(drop), false),
        ("custom at 0", e.custom_effect(bus, 0).map(drop), false),
        ("filter at 1", e.filter(bus, 1).map(drop), false),
        ("filter at 2", e.filter(bus, 2).map(drop), false),
        ("past the effects", e.filter(bus, 3).map(drop), false),
        ("the master", e.filter(e.master_bus(), 0).map(drop), false),
    ];
    for (name, result, ok) in cases {
        if ok {
            assert!(result.is_ok(), "{name}: {result:?}");
        } else {
            assert!(invalid(result), "{name}: {result:?}");
        }
    }
    assert_eq!(
        e.filter(foreign, 0).map(drop),
        Err(PlayError::ForeignHandle)
    );
    let h = e.filter(bus, 0).unwrap();
    assert_eq!((h.bus(), h.index()), (bus, 0));
}

#[test]
fn a_game_effect_gets_its_own_parameters_and_bad_ones_are_refused() {
    let mut e = engine();
    let seen: Arc<(AtomicU32, AtomicU32, AtomicU32, AtomicU64)> = Arc::new(Default::default());
    let bus = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Custom(Box::new(Gain {
                gain: 1.0,
                seen: seen.clone(),
            }))],
            ..Default::default()
        })
        .unwrap();
    let hum = noise(RATE as usize, RATE, 0.3);
    e.play(&hum, PlayParams::default().looping(true).bus(bus))
        .unwrap();
    assert!(e.render(480).iter().any(|&s| s != 0.0));
    let gain = e.custom_effect(bus, 0).unwrap();
    // Bad values: refused, nothing sent.
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert!(matches!(
            gain.set_custom_param(7, bad, Duration::ZERO),
            Err(PlayError::InvalidParameter { .. })
        ));
    }
    e.render(480);
    assert_eq!(
        seen.3.load(Relaxed),
        0,
        "a refused value reached the effect"
    );
    // Its own parameter, with the glide in output frames.
    gain.set_custom_param(7, 0.0, Duration::from_millis(10))
        .unwrap();
    let silent = e.render(480).to_vec();
    assert_eq!(seen.3.load(Relaxed), 1);
    assert_eq!(seen.0.load(Relaxed), 7);
    assert_eq!(f32::from_bits(seen.1.load(Relaxed)), 0.0);
    assert_eq!(seen.2.load(Relaxed), 480); // 10 ms at 48 kHz
    assert!(silent.iter().all(|&s| s == 0.0));
    // A built-in parameter reaches it too (through set_param, which this
    // effect ignores): not counted as its own.
    gain.set_effect_param(EffectParam::Wet(0.5), Duration::ZERO)
        .unwrap();
    e.render(480);
    assert_eq!(seen.3.load(Relaxed), 1);
    // Another id reaches it as that id.
    gain.set_custom_param(3, 0.25, Duration::ZERO).unwrap();
    e.render(480);
    assert_eq!((seen.0.load(Relaxed), seen.3.load(Relaxed)), (3, 2));
}
