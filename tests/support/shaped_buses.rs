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
