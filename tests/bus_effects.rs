//! Buses that shape sound, measured on the output: filters (response and
//! glides), the reverb's tail, ducking, nested buses, sends, stealing that
//! hears ducking, bad input refused, and determinism.

use voicepool_testkit::common;
use voicepool_testkit::support;

use std::time::Duration;

use common::*;
use voicepool::{
    BusHandle, BusSettings, Duck, Effect, EffectParam, EngineSettings, Event, OfflineEngine,
    PlayError, PlayParams,
};

fn engine() -> OfflineEngine {
    OfflineEngine::new(EngineSettings::default()).unwrap()
}

fn db(x: f64) -> f64 {
    20.0 * x.log10()
}

/// The left channel's RMS over the last quarter second of half a second
/// of a looping `freq` sine on a bus made with `effects` (or a plain bus).
fn level_through(freq: f32, effects: Vec<Effect>) -> f64 {
    let mut e = engine();
    let bus = e
        .create_bus_with(BusSettings {
            effects,
            ..Default::default()
        })
        .unwrap();
    e.play(
        &sine(freq, 1.0, RATE, 0.25),
        PlayParams::default().looping(true).bus(bus),
    )
    .unwrap();
    e.render(12_000);
    rms(&channel(e.render(12_000), 0))
}

#[test]
fn filters_pass_and_cut_where_they_should() {
    // (effect, frequency, lowest and highest change in dB)
    type Make = fn() -> Effect;
    let low: Make = || Effect::LowPass { cutoff_hz: 1_000.0 };
    let high: Make = || Effect::HighPass { cutoff_hz: 1_000.0 };
    let cases: [(Make, f32, f64, f64); 6] = [
        (low, 100.0, -0.5, 0.5),
        (low, 4_000.0, -200.0, -20.0),
        (low, 16_000.0, -200.0, -40.0),
        (high, 10_000.0, -0.5, 0.5),
        (high, 250.0, -200.0, -20.0),
        (high, 62.5, -200.0, -40.0),
    ];
    for (effect, freq, lo, hi) in cases {
        let dry = level_through(freq, vec![]);
        let wet = level_through(freq, vec![effect()]);
        let change = db(wet / dry);
        assert!(
            (lo..=hi).contains(&change),
            "{:?} at {freq} Hz: {change:.2} dB",
            effect()
        );
    }
}

#[test]
fn a_cutoff_glide_lowers_the_level_progressively_without_a_click() {
    let mut e = engine();
    let world = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::LowPass {
                cutoff_hz: 20_000.0,
            }],
            ..Default::default()
        })
        .unwrap();
    let tone = sine(2_000.0, 1.0, RATE, 0.5);
    e.play(&tone, PlayParams::default().looping(true).bus(world))
        .unwrap();
    let before = channel(e.render(4_800), 0);
    e.set_effect_param(
        world,
        0,
        EffectParam::CutoffHz(300.0),
        Duration::from_millis(300),
    )
    .unwrap();
    let glide = channel(e.render(19_200), 0); // 400 ms
    let windows: Vec<f64> = glide.chunks(2_400).map(rms).collect();
    for w in windows.windows(2) {
        assert!(w[1] <= w[0] * 1.01, "not progressive: {windows:?}");
    }
    let end = *windows.last().unwrap();
    assert!(db(end / rms(&before)) < -25.0, "{windows:?}");
    // No step larger than the tone's own.
    assert!(largest_step(&glide) <= largest_step(&before) * 1.001);
}

#[test]
fn a_glide_runs_while_its_bus_is_silent() {
    // The pause menu muffles the world while nothing plays on it: a sound
    // that starts after the glide's end is muffled from its first block.
    let mut e = engine();
    let world = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::LowPass {
                cutoff_hz: f32::MAX,
            }],
            ..Default::default()
        })
        .unwrap();
    e.render(480);
    e.set_effect_param(
        world,
        0,
        EffectParam::CutoffHz(300.0),
        Duration::from_millis(100),
    )
    .unwrap();
    e.render(9_600); // 200 ms of silence on the bus
    e.play(
        &sine(4_000.0, 1.0, RATE, 0.25),
        PlayParams::default().looping(true).bus(world),
    )
    .unwrap();
    let first = rms(&channel(e.render(960), 0));
    let open = level_through(4_000.0, vec![]);
    assert!(db(first / open) < -30.0, "{:.1} dB", db(first / open));
}

/// Renders a 50 ms burst of noise into a bus with a reverb (`room`, `wet`)
/// and returns the burst's RMS and the output after it, 50 ms windows.
fn after_a_burst(room: f32, wet: f32, seconds: f32) -> (f64, Vec<f64>) {
    let mut e = engine();
    let hall = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Reverb {
                room,
                damping: 0.3,
                wet,
            }],
            ..Default::default()
        })
        .unwrap();
    e.play(
        &noise((0.05 * RATE as f32) as usize, RATE, 0.5),
        PlayParams::default().bus(hall),
    )
    .unwrap();
    let burst = rms(&channel(e.render(2_400), 0));
    let after = (0..(seconds * 20.0) as usize)
        .map(|_| rms(&channel(e.render(2_400), 0)))
        .collect();
    (burst, after)
}

#[test]
fn a_reverb_tail_outlives_the_burst_decays_and_ends_in_silence() {
    let (burst, tail) = after_a_burst(0.5, 1.0, 12.0);
    // Above -40 dB for 300 ms after the burst.
    for (k, &w) in tail.iter().take(6).enumerate() {
        assert!(db(w / burst) > -40.0, "window {k}: {:.1} dB", db(w / burst));
    }
    // Decaying.
    assert!(tail[12] < tail[2] && tail[30] < tail[12], "{tail:?}");
    // And ending: exact silence long after.
    assert_eq!(*tail.last().unwrap(), 0.0);
}

#[test]
fn a_larger_room_rings_longer_and_no_wet_rings_not_at_all() {
    let time_to_fall = |room: f32| {
        let (burst, tail) = after_a_burst(room, 1.0, 6.0);
        tail.iter()
            .position(|&w| db(w / burst) < -60.0)
            .unwrap_or(tail.len())
    };
    let (small, large) = (time_to_fall(0.1), time_to_fall(0.9));
    assert!(large > 2 * small, "small {small}, large {large} windows");
    let (_, dry) = after_a_burst(0.9, 0.0, 0.5);
    assert!(dry.iter().all(|&w| w == 0.0), "{dry:?}");
}

/// Music (a DC level of 0.2 on its bus, ducked by `speech` by 12 dB, attack
/// 50 ms, release 400 ms) and a 1 kHz line on the speech bus from 0.5 s to
/// 1.5 s. Returns the music's level per 10 ms block (the block's mean: the
/// line's whole periods average out) and the line's RMS per block.
fn ducking(duck: bool) -> (Vec<f64>, Vec<f64>) {
    let mut e = engine();
    let speech = e.create_bus().unwrap();
    let music = e
        .create_bus_with(BusSettings {
            duck: duck.then_some(Duck {
                by: speech,
                amount_db: -12.0,
                attack: Duration::from_millis(50),
                release: Duration::from_millis(400),
            }),
            ..Default::default()
        })
        .unwrap();
    e.play(
        &dc(1.0, RATE, 0.2),
        PlayParams::default().looping(true).bus(music).pan(-1.0),
    )
    .unwrap();
    let (mut levels, mut line) = (Vec::new(), Vec::new());
    for block in 0..250 {
        if block == 50 {
            e.play(
                &sine(1_000.0, 1.0, RATE, 0.5),
                PlayParams::default().bus(speech).pan(1.0),
            )
            .unwrap();
        }
        let out = e.render(480);
        levels.push(channel(out, 0).iter().map(|&s| f64::from(s)).sum::<f64>() / 480.0);
        line.push(rms(&channel(out, 1)));
    }
    (levels, line)
}

#[test]
fn a_ducked_bus_falls_while_its_ducker_sounds_and_comes_back_after() {
    let (levels, line) = ducking(true);
    let full = levels[40];
    let down = full * 10f64.powf(-12.0 / 20.0);
    // Within attack + a block of the line's start (block 50): down.
    assert!(
        db(levels[50 + 5 + 1] / down).abs() < 0.5,
        "{:?}",
        &levels[48..60]
    );
    // Held down while the line sounds.
    assert!(db(levels[140] / down).abs() < 0.5);
    // The line ends at block 150; within release + a block it is back.
    assert!(
        db(levels[150 + 40 + 1] / full).abs() < 0.5,
        "{:?}",
        &levels[148..195]
    );
    // The ducker itself is untouched.
    let (_, alone) = ducking(false);
    assert_eq!(line, alone);
}

#[test]
fn nested_buses_apply_their_parents_volume_and_effects() {
    let level = |freq: f32| {
        let mut e = engine();
        let world = e
            .create_bus_with(BusSettings {
                effects: vec![Effect::LowPass { cutoff_hz: 1_000.0 }],
                volume: 0.5,
                ..Default::default()
            })
            .unwrap();
        let vehicles = e
            .create_bus_with(BusSettings {
                output: Some(world),
                ..Default::default()
            })
            .unwrap();
        e.play(
            &sine(freq, 1.0, RATE, 0.25),
            PlayParams::default().looping(true).bus(vehicles),
        )
        .unwrap();
        e.render(12_000);
        rms(&channel(e.render(12_000), 0))
    };
    let low = db(level(100.0) / level_through(100.0, vec![]));
    assert!((low + 6.02).abs() < 0.5, "{low:.2} dB");
    let high = db(level(4_000.0) / level_through(4_000.0, vec![]));
    assert!(high < -26.0, "{high:.2} dB");
}

#[test]
fn a_send_feeds_a_reverb_that_rings_after_the_dry_sound() {
    let mut e = engine();
    let hall = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Reverb {
                room: 0.7,
                damping: 0.3,
                wet: 1.0,
            }],
            ..Default::default()
        })
        .unwrap();
    let shot = noise((0.05 * RATE as f32) as usize, RATE, 0.5);
    let h = e
        .play(&shot, PlayParams::default().send(hall, 0.5))
        .unwrap();
    e.render(4_800);
    assert!(!e.is_playing(h));
    let tail = rms(e.render(4_800));
    assert!(tail > 1e-3, "{tail}");
    // Without the send, nothing after the shot.
    let mut dry = engine();
    dry.play(&shot, PlayParams::default()).unwrap();
    dry.render(4_800);
    assert!(dry.render(4_800).iter().all(|&s| s == 0.0));
}

#[test]
fn a_ducked_voice_is_stolen_before_an_equal_one_on_a_plain_bus() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 3,
        ..Default::default()
    })
    .unwrap();
    let speech = e.create_bus().unwrap();
    let plain = e.create_bus().unwrap();
    let music = e
        .create_bus_with(BusSettings {
            duck: Some(Duck {
                by: speech,
                amount_db: -20.0,
                attack: Duration::from_millis(20),
                release: Duration::from_millis(500),
            }),
            ..Default::default()
        })
        .unwrap();
    let hum = sine(300.0, 1.0, RATE, 0.4);
    let line = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .bus(speech)
                .protected(true),
        )
        .unwrap();
    // The equal one first: on a tie, the older would go.
    let equal = e
        .play(&hum, PlayParams::default().looping(true).bus(plain))
        .unwrap();
    let ducked = e
        .play(&hum, PlayParams::default().looping(true).bus(music))
        .unwrap();
    e.render(48_000);
    let by = e.play(&hum, PlayParams::default()).unwrap();
    e.render(480);
    let steals = steals_and_rejections(e.drain_events());
    assert_eq!(steals, [Event::Stolen { victim: ducked, by }]);
    assert!(e.is_playing(equal) && e.is_playing(line));
}

#[test]
fn a_high_voice_behind_a_low_pass_is_stolen_before_an_equal_one_on_a_plain_bus() {
    let steal_between = |effect: Effect, freq: f32| {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 2,
            ..Default::default()
        })
        .unwrap();
        let plain = e.create_bus().unwrap();
        let muffled = e
            .create_bus_with(BusSettings {
                effects: vec![effect],
                ..Default::default()
            })
            .unwrap();
        let tone = sine(freq, 1.0, RATE, 0.4);
        // The plain one first: on a tie, the older would go.
        let equal = e
            .play(&tone, PlayParams::default().looping(true).bus(plain))
            .unwrap();
        let filtered = e
            .play(&tone, PlayParams::default().looping(true).bus(muffled))
            .unwrap();
        e.render(4_800);
        let by = e.play(&tone, PlayParams::default()).unwrap();
        e.render(480);
        let steals = steals_and_rejections(e.drain_events());
        assert!(e.is_playing(equal));
        (steals, filtered, by)
    };
    // 8 kHz behind a 500 Hz low-pass: the filtered one goes.
    let (steals, filtered, by) = steal_between(Effect::LowPass { cutoff_hz: 500.0 }, 8_000.0);
    assert_eq!(
        steals,
        [Event::Stolen {
            victim: filtered,
            by
        }]
    );
}

#[test]
fn a_voice_heard_through_its_send_is_kept_over_one_quieter_there() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 2,
        ..Default::default()
    })
    .unwrap();
    let hall = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Reverb {
                room: 0.5,
                damping: 0.5,
                wet: 1.0,
            }],
            ..Default::default()
        })
        .unwrap();
    // Nearly silent on its own bus, but sent whole to the hall.
    let distant = e
        .create_bus_with(BusSettings {
            volume: 0.05,
            ..Default::default()
        })
        .unwrap();
    let hum = sine(300.0, 1.0, RATE, 0.4);
    let plain = e
        .play(&hum, PlayParams::default().looping(true).volume(0.3))
        .unwrap();
    let in_the_hall = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .bus(distant)
                .send(hall, 1.0),
        )
        .unwrap();
    e.render(24_000);
    let by = e.play(&hum, PlayParams::default()).unwrap();
    e.render(480);
    let steals = steals_and_rejections(e.drain_events());
    assert_eq!(steals, [Event::Stolen { victim: plain, by }]);
    assert!(e.is_playing(in_the_hall));
}

#[test]
fn bad_bus_settings_and_effect_parameters_are_errors_with_nothing_made() {
    let e = engine();
    let other = engine();
    let foreign = other.create_bus().unwrap();
    let lp = |hz: f32| Effect::LowPass { cutoff_hz: hz };
    let bad: Vec<BusSettings> = vec![
        BusSettings {
            output: Some(foreign),
            ..Default::default()
        },
        BusSettings {
            effects: vec![lp(f32::NAN)],
            ..Default::default()
        },
        BusSettings {
            effects: vec![Effect::Reverb {
                room: f32::INFINITY,
                damping: 0.0,
                wet: 1.0,
            }],
            ..Default::default()
        },
        BusSettings {
            effects: (0..9).map(|_| lp(1_000.0)).collect(),
            ..Default::default()
        },
        BusSettings {
            duck: Some(Duck {
                by: e.master_bus(),
                amount_db: -6.0,
                attack: Duration::ZERO,
                release: Duration::ZERO,
            }),
            ..Default::default()
        },
        BusSettings {
            duck: Some(Duck {
                by: foreign,
                amount_db: -6.0,
                attack: Duration::ZERO,
                release: Duration::ZERO,
            }),
            ..Default::default()
        },
        BusSettings {
            volume: f32::NAN,
            ..Default::default()
        },
    ];
    for settings in bad {
        let what = format!("{settings:?}");
        assert!(e.create_bus_with(settings).is_err(), "{what}");
    }
    // Nothing was made: the first bus made now is bus 1.
    let first = e.create_bus().unwrap();
    assert_eq!(first.index(), 1);
    // A bus ducked by a bus it feeds (its own sound would duck it).
    let child = e
        .create_bus_with(BusSettings {
            output: Some(first),
            ..Default::default()
        })
        .unwrap();
    for (output, by) in [(first, first), (child, first), (child, child)] {
        let ducked_by_its_parent = BusSettings {
            output: Some(output),
            duck: Some(Duck {
                by,
                amount_db: -6.0,
                attack: Duration::ZERO,
                release: Duration::ZERO,
            }),
            ..Default::default()
        };
        assert!(e.create_bus_with(ducked_by_its_parent).is_err());
    }
    let world = e
        .create_bus_with(BusSettings {
            effects: vec![
                lp(1e9),
                Effect::Reverb {
                    room: 7.0,
                    damping: -1.0,
                    wet: 2.0,
                },
            ],
            ..Default::default()
        })
        .unwrap(); // out of range: clamped
    assert_eq!(world.index(), 3);
    let glide = Duration::from_millis(10);
    let cases: [(BusHandle, usize, EffectParam); 6] = [
        (world, 2, EffectParam::CutoffHz(500.0)), // past the end
        (world, 0, EffectParam::Wet(0.5)),        // not a filter's
        (world, 1, EffectParam::CutoffHz(500.0)), // not a reverb's
        (world, 0, EffectParam::CutoffHz(f32::NAN)),
        (e.master_bus(), 0, EffectParam::CutoffHz(500.0)),
        (foreign, 0, EffectParam::CutoffHz(500.0)),
    ];
    for (bus, index, param) in cases {
        assert!(
            e.set_effect_param(bus, index, param, glide).is_err(),
            "{index} {param:?}"
        );
    }
    assert!(matches!(
        e.set_effect_param(world, 0, EffectParam::CutoffHz(f32::INFINITY), glide),
        Err(PlayError::InvalidParameter { .. })
    ));
    e.set_effect_param(world, 0, EffectParam::CutoffHz(-5.0), glide)
        .unwrap(); // clamped to 10 Hz
    e.set_effect_param(world, 1, EffectParam::Room(3.0), glide)
        .unwrap(); // clamped to 1
    assert!(e
        .play(
            &dc(0.1, RATE, 0.5),
            PlayParams::default().send(foreign, 0.5)
        )
        .is_err());
    assert!(e
        .play(
            &dc(0.1, RATE, 0.5),
            PlayParams::default().send(world, f32::NAN)
        )
        .is_err());
}

/// A game's effect that breaks its contract for a while: NaN for its first
/// `bad` calls, then it passes the sound through.
struct Faulty {
    bad: u32,
}

impl voicepool::CustomEffect for Faulty {
    fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
        if self.bad > 0 {
            self.bad -= 1;
            left.fill(f32::NAN);
            right[0] = f32::INFINITY;
        }
    }
}

#[test]
fn a_custom_effect_that_outputs_nan_poisons_nothing_after_it() {
    let mut e = engine();
    let bus = e
        .create_bus_with(BusSettings {
            effects: vec![
                Effect::Custom(Box::new(Faulty { bad: 3 })),
                Effect::LowPass { cutoff_hz: 2_000.0 },
                Effect::Reverb {
                    room: 0.5,
                    damping: 0.5,
                    wet: 0.3,
                },
            ],
            ..Default::default()
        })
        .unwrap();
    e.play(
        &sine(200.0, 1.0, RATE, 0.3),
        PlayParams::default().looping(true).bus(bus),
    )
    .unwrap();
    let during = e.render(1_440).to_vec();
    assert!(during.iter().all(|s| s.is_finite()));
    e.render(4_800);
    // The filter and the reverb after it work again: the tone comes out.
    let after = rms(&channel(e.render(4_800), 0));
    assert!(after > 0.05, "{after}");
}

/// A scene with every kind of effect, a duck and a send, gliding.
fn shaped_scene() -> Vec<f32> {
    let mut e = engine();
    let speech = e.create_bus().unwrap();
    // A reverb bus, a filtered world bus ducked by `speech`, a bus
    // feeding the world: the buses the churn tests use.
    let [hall, world, vehicles] = support::shaped_buses::shaped_buses(&e, speech);
    let mut out = Vec::new();
    for block in 0..200 {
        if block % 20 == 0 {
            e.play(
                &noise((0.1 * RATE as f32) as usize, RATE, 0.3),
                PlayParams::default().bus(world).send(hall, 0.4),
            )
            .unwrap();
            e.play(
                &noise((0.05 * RATE as f32) as usize, RATE, 0.2),
                PlayParams::default().bus(vehicles),
            )
            .unwrap();
        }
        if block == 60 {
            e.play(
                &sine(500.0, 0.5, RATE, 0.3),
                PlayParams::default().bus(speech),
            )
            .unwrap();
            e.set_effect_param(
                world,
                1,
                EffectParam::CutoffHz(800.0),
                Duration::from_millis(200),
            )
            .unwrap();
        }
        out.extend_from_slice(e.render(480));
    }
    out
}

#[test]
fn a_shaped_mix_renders_the_same_twice() {
    let a = shaped_scene();
    assert!(a.iter().any(|&s| s != 0.0));
    assert!(a.iter().all(|s| s.is_finite() && s.abs() <= 1.0));
    assert_eq!(a, shaped_scene());
}
