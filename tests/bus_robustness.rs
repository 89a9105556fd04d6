//! Buses under abuse: a filter glided to the top of its range, sums that
//! overflow `f32` somewhere in the bus tree, a deep chain of buses set up
//! while the engine renders, and a game's effect that panics or
//! allocates. Each must cost at most the block it happened in; the engine
//! comes back by itself and every play still ends in one terminal event.

use voicepool_testkit::common;

use std::time::Duration;

use common::*;
use voicepool::{
    BusHandle, BusSettings, CustomEffect, Effect, EffectFault, EffectParam, EngineSettings, Event,
    OfflineEngine, PlayParams, Sound,
};

// The counter the engine watches a game's effects with: an effect that
// allocates is reported (below).
#[global_allocator]
static ALLOCATOR: voicepool::alloc_check::CountingAllocator =
    voicepool::alloc_check::CountingAllocator;

fn peak(x: &[f32]) -> f32 {
    x.iter().fold(0.0f32, |m, s| m.max(s.abs()))
}

#[test]
fn a_cutoff_glide_to_the_top_of_the_range_stays_stable_at_every_rate() {
    for rate in [48_000u32, 96_000, 192_000, 384_000] {
        for start in [4_345.568_4f32, 100.0, 10.0, 19_000.0] {
            let mut e = OfflineEngine::new(EngineSettings {
                sample_rate: rate,
                ..Default::default()
            })
            .unwrap();
            let bus = e
                .create_bus_with(BusSettings {
                    effects: vec![Effect::LowPass { cutoff_hz: start }],
                    ..Default::default()
                })
                .unwrap();
            e.play(
                &noise(rate as usize, rate, 0.5),
                PlayParams::default().looping(true).bus(bus),
            )
            .unwrap();
            e.set_effect_param(
                bus,
                0,
                EffectParam::CutoffHz(f32::MAX),
                Duration::from_secs(10),
            )
            .unwrap();
            let block = rate as usize / 100;
            // The glide and a second after it.
            let mut quiet_blocks = 0;
            for k in 0..1_100 {
                let out = e.render(block);
                let p = peak(out);
                // Noise of peak 0.5 through a low-pass (mono, centred:
                // 0.354 a side) never comes near full scale.
                assert!(p < 0.6, "{rate} Hz from {start} Hz: block {k} peaks at {p}");
                // (From 70 % of the glide on, the cutoff is above 2 kHz.)
                if k > 700 && rms(out) < 0.01 {
                    quiet_blocks += 1;
                }
            }
            assert_eq!(quiet_blocks, 0, "{rate} Hz from {start} Hz went silent");
        }
    }
}

/// Puts out `value` (finite: it keeps the trait's contract) in block
/// `at`, passes its input through otherwise.
struct Loud {
    value: f32,
    block: u32,
    at: u32,
}

impl CustomEffect for Loud {
    fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
        if self.block == self.at {
            left.fill(self.value);
            right.fill(self.value);
        }
        self.block += 1;
    }
}

/// The amplitude of the `hz` component of a block's left channel.
fn amplitude(block: &[f32], hz: f64) -> f64 {
    let left: Vec<f64> = block.chunks(2).map(|f| f64::from(f[0])).collect();
    let w = std::f64::consts::TAU * hz / f64::from(RATE);
    let (c, s) = left.iter().enumerate().fold((0.0, 0.0), |(c, s), (i, &x)| {
        (c + x * (w * i as f64).cos(), s + x * (w * i as f64).sin())
    });
    2.0 * (c * c + s * s).sqrt() / left.len() as f64
}

#[test]
fn an_overflow_in_the_bus_tree_costs_at_most_the_block_it_happened_in() {
    // (what a game's effect puts out for one block, how many buses at
    // volume 4 lie between it and the root): `f32::MAX` is past what an
    // effect may put out (silenced at the effect, reported); 9e29 is not,
    // but two buses at 4 make a sum past what the tree lets through.
    let cases = [(f32::MAX, 0), (9e29, 1)];
    let roots: [fn() -> Effect; 2] = [
        || Effect::LowPass { cutoff_hz: 2_000.0 },
        || Effect::Reverb {
            room: 0.5,
            damping: 0.5,
            wet: 0.5,
        },
    ];
    for (value, between) in cases {
        for root_effect in roots {
            let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
            let root = e
                .create_bus_with(BusSettings {
                    effects: vec![root_effect()],
                    ..Default::default()
                })
                .unwrap();
            let mut above = root;
            for _ in 0..between {
                above = e
                    .create_bus_with(BusSettings {
                        output: Some(above),
                        volume: 4.0,
                        ..Default::default()
                    })
                    .unwrap();
            }
            let loud = e
                .create_bus_with(BusSettings {
                    output: Some(above),
                    volume: 4.0,
                    effects: vec![Effect::Custom(Box::new(Loud {
                        value,
                        block: 0,
                        at: 5,
                    }))],
                    ..Default::default()
                })
                .unwrap();
            // A quiet tone through the loud buses (up to 16 times louder
            // at the root), a tone on the root itself, one on the master.
            for (hz, bus) in [(300.0, loud), (500.0, root), (700.0, e.master_bus())] {
                e.play(
                    &sine(hz, 1.0, RATE, 0.01),
                    PlayParams::default().looping(true).bus(bus),
                )
                .unwrap();
            }
            let blocks: Vec<Vec<f32>> = (0..300).map(|_| e.render(480).to_vec()).collect();
            let what = format!("{value:e} through {between} buses");
            let loud_blocks = blocks.iter().filter(|b| peak(b) > 0.95).count();
            assert!(
                loud_blocks <= 1,
                "{what}: {loud_blocks} blocks at full scale"
            );
            // Once the piece is past, the root's own tone and the master's
            // sound in every block.
            for (k, b) in blocks.iter().enumerate().skip(8) {
                for hz in [500.0, 700.0] {
                    let a = amplitude(b, hz);
                    assert!(a > 0.002, "{what}: block {k}, {hz} Hz at {a}");
                }
            }
        }
    }
}

/// A game's effect whose `is_idle` panics.
struct BadIdle;

impl CustomEffect for BadIdle {
    fn process(&mut self, _: &mut [f32], _: &mut [f32]) {}
    fn is_idle(&self) -> bool {
        panic!("a bug in is_idle (on purpose)")
    }
}

#[test]
fn a_panic_in_is_idle_is_reported_too() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let bus = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Custom(Box::new(BadIdle))],
            ..Default::default()
        })
        .unwrap();
    for _ in 0..3 {
        render_unchecked(&mut e, 480);
    }
    let faults: Vec<Event> = e
        .drain_events()
        .filter(|ev| matches!(ev, Event::EffectFault { .. }))
        .collect();
    assert_eq!(
        faults,
        [Event::EffectFault {
            bus,
            effect: 0,
            fault: EffectFault::Panicked
        }]
    );
}

#[test]
fn a_chain_too_loud_for_f32_comes_back_once_its_volumes_are_sane() {
    let mut e = OfflineEngine::new(EngineSettings {
        buses: 80,
        ..Default::default()
    })
    .unwrap();
    let root = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::LowPass { cutoff_hz: 5_000.0 }],
            ..Default::default()
        })
        .unwrap();
    let mut chain: Vec<BusHandle> = vec![root];
    for _ in 0..70 {
        let b = e
            .create_bus_with(BusSettings {
                output: chain.last().copied(),
                volume: 4.0,
                ..Default::default()
            })
            .unwrap();
        chain.push(b);
    }
    e.play(
        &sine(300.0, 1.0, RATE, 0.2),
        PlayParams::default()
            .looping(true)
            .bus(*chain.last().unwrap()),
    )
    .unwrap();
    let plain = e
        .play(
            &sine(500.0, 1.0, RATE, 0.2),
            PlayParams::default().looping(true),
        )
        .unwrap();
    e.render(4_800);
    // 4^70 overflows: the chain's own sound is lost, the master's voice is
    // not.
    let during = e.render(4_800).to_vec();
    assert!(during.iter().all(|s| s.is_finite()));
    assert!(rms(&during) > 0.05, "the plain voice went silent");
    for &b in &chain[1..] {
        e.set_bus_volume(b, 1.0, Duration::ZERO).unwrap();
    }
    e.stop(plain).unwrap();
    e.render(4_800);
    let after = rms(e.render(4_800));
    assert!(after > 0.05, "the chain stayed silent: {after}");
}

#[test]
fn a_deep_bus_chain_set_up_while_rendering_mixes_deepest_first() {
    // 255 buses, each feeding the one before: set up in one block, then a
    // voice on the deepest reaches the output through every one of them
    // (each at 0.99: the level says every bus ran once, in order, in the
    // same block; a bus run before the one feeding it would lose a block).
    let mut e = OfflineEngine::new(EngineSettings {
        buses: 255,
        ..Default::default()
    })
    .unwrap();
    let mut last: Option<BusHandle> = None;
    for _ in 0..255 {
        last = Some(
            e.create_bus_with(BusSettings {
                output: last,
                volume: 0.99,
                ..Default::default()
            })
            .unwrap(),
        );
    }
    let click = Sound::from_samples(1, RATE, vec![0.5; 1]).unwrap();
    e.play(&click, PlayParams::default().pan(-1.0).bus(last.unwrap()))
        .unwrap();
    let out = e.render(480).to_vec();
    let want = 0.5 * 0.99f32.powi(255);
    assert!(
        (out[0] - want).abs() < 1e-4,
        "{} vs {want} (then {:?})",
        out[0],
        &out[2..6]
    );
    assert!(out[2..].iter().all(|&s| s == 0.0));
}

/// Renders `frames` with RealtimeSanitizer's checks off where the suite
/// runs under it (`scripts/rtsan.sh`): the effects below break the rules
/// on purpose. (The churn tests check the containment under RTSan, with
/// only the panic's own block unchecked.)
fn render_unchecked(e: &mut OfflineEngine, frames: usize) -> Vec<f32> {
    voicepool::bench_support::outside_rtsan(|| e.render(frames).to_vec())
}

/// Panics in `process` from block `at` on.
struct Panicky {
    block: u32,
    at: u32,
}

impl CustomEffect for Panicky {
    fn process(&mut self, _: &mut [f32], _: &mut [f32]) {
        self.block += 1;
        if self.block > self.at {
            panic!("a game's bug in its effect");
        }
    }
}

#[test]
fn a_panicking_effect_is_contained_and_reported() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let broken = e
        .create_bus_with(BusSettings {
            effects: vec![
                Effect::LowPass { cutoff_hz: 8_000.0 },
                Effect::Custom(Box::new(Panicky { block: 0, at: 3 })),
            ],
            ..Default::default()
        })
        .unwrap();
    let tone = sine(400.0, 0.5, RATE, 0.3);
    let on_broken = e
        .play(&tone, PlayParams::default().looping(true).bus(broken))
        .unwrap();
    let plain = e.play(&tone, PlayParams::default().looping(true)).unwrap();
    let short = e
        .play(
            &Sound::from_samples(1, RATE, vec![0.1; 9_600]).unwrap(),
            PlayParams::default(),
        )
        .unwrap();
    let mut levels = Vec::new();
    for _ in 0..50 {
        levels.push(rms(&render_unchecked(&mut e, 480)));
    }
    // The master's voices keep sounding.
    assert!(levels.iter().all(|&l| l > 0.1), "{levels:?}");
    let events: Vec<Event> = e.drain_events().collect();
    let faults: Vec<_> = events
        .iter()
        .filter_map(|ev| match ev {
            Event::EffectFault { bus, effect, fault } => Some((*bus, *effect, *fault)),
            _ => None,
        })
        .collect();
    assert_eq!(faults, [(broken, 1, EffectFault::Panicked)]);
    assert_eq!(e.stats().effect_faults, 1);
    assert!(events.contains(&Event::Ended { voice: short }));
    // Its bus is silent from then on; plays on it still end as usual.
    e.stop(plain).unwrap();
    render_unchecked(&mut e, 4_800);
    assert!(peak(&render_unchecked(&mut e, 480)) == 0.0);
    e.stop_all().unwrap();
    render_unchecked(&mut e, 4_800);
    let ends: Vec<_> = e
        .drain_events()
        .filter(|ev| matches!(ev, Event::Ended { .. }))
        .collect();
    assert_eq!(
        ends,
        [
            Event::Ended { voice: plain },
            Event::Ended { voice: on_broken }
        ]
        .into_iter()
        .filter(|x| ends.contains(x))
        .collect::<Vec<_>>()
    );
    assert_eq!(ends.len(), 2, "{ends:?}");
    // New plays start, sound and end.
    let again = e.play(&tone, PlayParams::default()).unwrap();
    assert!(rms(&render_unchecked(&mut e, 4_800)) > 0.1);
    render_unchecked(&mut e, 24_000);
    assert!(e
        .drain_events()
        .any(|ev| ev == Event::Ended { voice: again }));
}

/// Allocates a little on every block: breaks the real-time rules.
struct Greedy(Vec<Vec<u8>>);

impl CustomEffect for Greedy {
    fn process(&mut self, _: &mut [f32], _: &mut [f32]) {
        self.0.push(vec![0; 16]);
        if self.0.len() > 4 {
            self.0.clear();
        }
    }
}

#[test]
fn an_allocating_effect_is_reported_once_naming_its_bus_when_checked() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let bus = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Custom(Box::new(Greedy(Vec::with_capacity(8))))],
            ..Default::default()
        })
        .unwrap();
    e.play(
        &sine(400.0, 0.5, RATE, 0.3),
        PlayParams::default().looping(true).bus(bus),
    )
    .unwrap();
    for _ in 0..10 {
        render_unchecked(&mut e, 480);
    }
    let faults: Vec<_> = e
        .drain_events()
        .filter(|ev| matches!(ev, Event::EffectFault { .. }))
        .collect();
    assert!(voicepool::alloc_check::active());
    {
        assert_eq!(
            faults,
            [Event::EffectFault {
                bus,
                effect: 0,
                fault: EffectFault::Allocated
            }]
        );
        // Reported, not removed: it still runs.
        assert!(rms(&render_unchecked(&mut e, 480)) > 0.1);
    }
}

/// Puts NaN into the left channel only, every block.
struct LeftNan;

impl CustomEffect for LeftNan {
    fn process(&mut self, left: &mut [f32], _: &mut [f32]) {
        left[0] = f32::NAN;
    }
}

#[test]
fn nan_in_one_channel_only_is_caught_and_reported() {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let bus = e
        .create_bus_with(BusSettings {
            effects: vec![
                Effect::Custom(Box::new(LeftNan)),
                Effect::LowPass { cutoff_hz: 2_000.0 },
            ],
            ..Default::default()
        })
        .unwrap();
    e.play(
        &sine(200.0, 1.0, RATE, 0.3),
        PlayParams::default().looping(true).bus(bus),
    )
    .unwrap();
    let mut out = Vec::new();
    for _ in 0..10 {
        out.extend_from_slice(e.render(480));
    }
    assert!(out.iter().all(|s| s.is_finite()));
    let faults: Vec<Event> = e
        .drain_events()
        .filter(|ev| matches!(ev, Event::EffectFault { .. }))
        .collect();
    assert_eq!(
        faults,
        [Event::EffectFault {
            bus,
            effect: 0,
            fault: EffectFault::NotFinite
        }]
    );
}
