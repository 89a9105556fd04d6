//! Buses that shape sound, for the churn tests that prove the audio thread
//! keeps its rules with effects, ducks, nesting and sends.

use std::time::Duration;

/// A reverb bus, a filtered world bus ducked by `ducker`, and a bus
/// feeding the world: every kind of bus effect, built on the game side.
pub fn shaped_buses(
    e: &voicepool::Controller,
    ducker: voicepool::BusHandle,
) -> [voicepool::BusHandle; 3] {
    use voicepool::{BusSettings, Duck, Effect};
    let hall = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Reverb {
                room: 0.6,
                damping: 0.4,
                wet: 1.0,
            }],
            ..Default::default()
        })
        .unwrap();
    let world = e
        .create_bus_with(BusSettings {
            effects: vec![
                Effect::LowPass { cutoff_hz: 8_000.0 },
                Effect::HighPass { cutoff_hz: 60.0 },
            ],
            duck: Some(Duck {
                by: ducker,
                amount_db: -9.0,
                attack: Duration::from_millis(30),
                release: Duration::from_millis(200),
            }),
            ..Default::default()
        })
        .unwrap();
    let vehicles = e
        .create_bus_with(BusSettings {
            output: Some(world),
            ..Default::default()
        })
        .unwrap();
    [hall, world, vehicles]
}

/// A bus made while the audio runs: a low-passed reverb (tried again
/// while the command queue is full).
pub fn late_bus(e: &voicepool::Controller) -> Option<voicepool::BusHandle> {
    use voicepool::{BusSettings, Effect};
    e.create_bus_with(BusSettings {
        effects: vec![
            Effect::LowPass { cutoff_hz: 5_000.0 },
            Effect::Reverb {
                room: 0.3,
                damping: 0.2,
                wet: 0.5,
            },
        ],
        ..Default::default()
    })
    .ok()
}

/// A chain of `n` buses made while the audio runs, each feeding the one
/// made before it, the deepest gliding its low-pass to the top of its
/// range, and one more feeding that with `Panicky` on it (made last, so
/// that a retry after a full queue makes only one): the deepest, or
/// `None` where the command queue was full.
pub fn late_chain(
    e: &voicepool::Controller,
    n: usize,
    armed: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Option<voicepool::BusHandle> {
    use voicepool::{BusSettings, Effect, EffectParam};
    let mut last = None;
    for _ in 0..n {
        last = Some(
            e.create_bus_with(BusSettings {
                output: last,
                effects: vec![Effect::LowPass { cutoff_hz: 3_000.0 }],
                volume: 0.9,
                ..Default::default()
            })
            .ok()?,
        );
    }
    e.set_effect_param(
        last?,
        0,
        EffectParam::CutoffHz(f32::MAX),
        Duration::from_millis(50),
    )
    .ok()?;
    e.create_bus_with(BusSettings {
        output: last,
        effects: vec![Effect::Custom(Box::new(Panicky(armed.clone())))],
        ..Default::default()
    })
    .ok()
}

/// A game's effect with a bug: once `armed`, its next `process` panics
/// (and it is switched off by the engine).
pub struct Panicky(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl voicepool::CustomEffect for Panicky {
    fn process(&mut self, _: &mut [f32], _: &mut [f32]) {
        if self.0.load(std::sync::atomic::Ordering::Relaxed) {
            panic!("a bug in a game's effect (on purpose)");
        }
    }
    // Takes parameters of its own (and does nothing with them): a game's
    // effect's parameter channel runs under the real-time checks.
    fn set_custom_param(&mut self, id: u32, value: f32, frames: u32) {
        std::hint::black_box((id, value, frames));
    }
}
