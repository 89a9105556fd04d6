//! Workload W and its variants: the peer workload every mixing figure is
//! measured on.

use super::*;
use crate::math::Libm;

/// Workload W (the peer workload every mixing figure is measured on), through the public API: `voices` voices, each
/// looping one of eight one-second mono sounds at `rate` Hz, mixed to
/// 48 kHz stereo in [`BLOCK`]-frame blocks, with volumes and pans spread
/// out, a 10 ms fade-in at the start, and in every block a sixteenth of the
/// voices given a new volume (a 10 ms ramp), so ramps are always running.
pub struct Workload {
    /// The engine (its pool holds exactly `voices` voices, all playing).
    pub engine: OfflineEngine,
    handles: Vec<VoiceHandle>,
    next: usize,
    tick: u32,
    /// Every voice is positioned, and moved every block.
    moving: bool,
    /// Every voice is turned every block (muffled workload).
    turning: bool,
    /// Where each voice starts and how it moves (positioned workloads).
    spots: Vec<([f32; 3], [f32; 3])>,
    /// The listener walks a little every block.
    walking: bool,
}

/// Where voice `i` of a positioned workload starts (around the listener,
/// 2 to 40 m away), and its velocity (across the line of sight).
fn spot(i: usize) -> ([f32; 3], [f32; 3]) {
    let radius = 2.0 + (i * 37 % 39) as f32;
    let a = i as f32 * 0.7;
    let (s, c) = (a.lm_sin(), a.lm_cos());
    ([radius * c, 0.0, radius * s], [-10.0 * s, 0.0, 10.0 * c])
}

impl Workload {
    /// Starts the voices over the first second (so their positions differ),
    /// then renders 10 more blocks.
    pub fn new(voices: usize, rate: u32) -> Workload {
        Workload::build(voices, rate, false, 0, Sounds::Mono)
    }

    /// As [`Workload::new`], with every voice playing a different sound
    /// ([`distinct_sounds`]): sample data far larger than the caches, so
    /// the kernels wait on memory unless it is fetched ahead.
    pub fn distinct(voices: usize, rate: u32) -> Workload {
        Workload::build(voices, rate, false, 0, Sounds::Distinct)
    }

    /// As [`Workload::new`], with stereo sounds ([`stereo_sine_sounds`])
    /// instead of mono: what stereo sources cost.
    pub fn stereo(voices: usize, rate: u32) -> Workload {
        Workload::build(voices, rate, false, 0, Sounds::Stereo)
    }

    /// As [`Workload::new`], plus `virtual_voices` looping voices of a
    /// lower priority, all virtual (the pool is full of the workload's):
    /// what keeping time for virtual voices costs per block.
    pub fn with_virtual(voices: usize, rate: u32, virtual_voices: usize) -> Workload {
        Workload::build(voices, rate, false, virtual_voices, Sounds::Mono)
    }

    /// As [`Workload::new`], with every voice on one of four buses (not the
    /// master) and in one of four groups (whose limits are never reached):
    /// what routing costs.
    pub fn routed(voices: usize, rate: u32) -> Workload {
        Workload::build(voices, rate, true, 0, Sounds::Mono)
    }

    /// As [`Workload::new`], on a tree of 16 buses that shape sound: a
    /// reverb bus every eighth voice sends to, four buses with a filter
    /// (two low-pass, two high-pass, under a "world" bus), two buses ducked
    /// by a third, the rest plain, the voices spread over them: what bus
    /// effects cost against flat buses ([`Workload::routed`]).
    pub fn shaped(voices: usize, rate: u32) -> Workload {
        Workload::tree(voices, rate, true)
    }

    /// [`Workload::shaped`]'s 16 buses and routing with no effects, no
    /// ducks and no sends: what the tree costs by itself.
    pub fn flat_tree(voices: usize, rate: u32) -> Workload {
        Workload::tree(voices, rate, false)
    }

    fn tree(voices: usize, rate: u32, shaped: bool) -> Workload {
        let mut w = Workload::build(voices, rate, false, 0, Sounds::Mono);
        let e = &w.engine;
        let effects = |e: Vec<crate::Effect>| if shaped { e } else { vec![] };
        let hall = e
            .create_bus_with(crate::BusSettings {
                effects: effects(vec![crate::Effect::Reverb {
                    room: 0.6,
                    damping: 0.4,
                    wet: 1.0,
                }]),
                ..Default::default()
            })
            .expect("a bus");
        let world = e
            .create_bus_with(crate::BusSettings {
                effects: effects(vec![crate::Effect::LowPass { cutoff_hz: 9_000.0 }]),
                ..Default::default()
            })
            .expect("a bus");
        let speech = e.create_bus().expect("a bus");
        let mut buses = Vec::new();
        for k in 0..13 {
            let effects = effects(match k {
                0 => vec![crate::Effect::LowPass { cutoff_hz: 4_000.0 }],
                1 => vec![crate::Effect::HighPass { cutoff_hz: 120.0 }],
                2 => vec![crate::Effect::HighPass { cutoff_hz: 300.0 }],
                _ => vec![],
            });
            let duck = (shaped && (3..5).contains(&k)).then_some(crate::Duck {
                by: speech,
                amount_db: -9.0,
                attack: std::time::Duration::from_millis(40),
                release: std::time::Duration::from_millis(300),
            });
            let output = (k < 6).then_some(world);
            buses.push(
                e.create_bus_with(crate::BusSettings {
                    effects,
                    duck,
                    output,
                    ..Default::default()
                })
                .expect("a bus"),
            );
        }
        buses.push(speech);
        // Every voice again, now on the tree (the first ones end at once).
        let sounds = sine_sounds(rate);
        let old = std::mem::take(&mut w.handles);
        for h in old {
            let _ = w.engine.stop(h);
        }
        for i in 0..voices {
            let p = PlayParams::default()
                .volume(0.2 + 0.8 * ((i * 37 % 101) as f32 / 100.0))
                .pan(((i * 53 % 201) as f32 / 100.0) - 1.0)
                .looping(true)
                .bus(buses[i % buses.len()]);
            let p = if shaped && i % 8 == 0 {
                p.send(hall, 0.3)
            } else {
                p
            };
            w.handles
                .push(w.engine.play(&sounds[i % sounds.len()], p).expect("queue"));
            if i % 100 == 99 {
                w.engine.render(BLOCK);
            }
        }
        for _ in 0..20 {
            w.engine.render(BLOCK);
        }
        w.engine.drain_events().for_each(drop);
        w
    }

    /// As [`Workload::new`], with every voice positioned (around the
    /// listener, 2 to 40 m away) and given a new position and velocity
    /// every block: what space costs.
    pub fn positioned(voices: usize, rate: u32) -> Workload {
        let mut w = Workload::build(voices, rate, false, 0, Sounds::Positioned);
        w.moving = true;
        w
    }

    /// `voices` positioned voices and `virtual_voices` more positioned
    /// looping voices of a lower priority, all virtual, spread over 400 m,
    /// and the listener walking through them (a new position every
    /// block): what thousands of emitters cost.
    pub fn virtual_emitters(voices: usize, rate: u32, virtual_voices: usize) -> Workload {
        let mut w = Workload::build(voices, rate, false, virtual_voices, Sounds::Positioned);
        w.walking = true;
        w
    }

    /// As [`Workload::positioned`], every voice also with a cone (turned
    /// every block), air absorption and an occlusion: every voice runs its
    /// own low-pass.
    pub fn muffled(voices: usize, rate: u32) -> Workload {
        let mut w = Workload::build(voices, rate, false, 0, Sounds::Muffled);
        w.moving = true;
        w.turning = true;
        for (i, &h) in w.handles.iter().enumerate() {
            let occlusion = crate::Occlusion {
                gain: 0.5 + 0.5 * ((i % 5) as f32 / 4.0),
                lowpass_hz: 1_000.0 + 400.0 * (i % 11) as f32,
            };
            w.engine.set_occlusion(h, occlusion).expect("valid");
        }
        w.engine.render(BLOCK);
        w
    }

    /// As [`Workload::positioned`], the voices never moved after they
    /// start: what a positioned voice costs the audio side by itself.
    pub fn positioned_still(voices: usize, rate: u32) -> Workload {
        Workload::build(voices, rate, false, 0, Sounds::Positioned)
    }

    fn build(
        voices: usize,
        rate: u32,
        routed: bool,
        virtual_voices: usize,
        kind: Sounds,
    ) -> Workload {
        let settings = EngineSettings {
            voices,
            command_capacity: 4 * voices.max(256),
            event_capacity: 4 * voices.max(256),
            virtual_voices,
            ..Default::default()
        };
        let mut engine = OfflineEngine::new(settings).expect("valid settings");
        let routes: Vec<_> = (0..4)
            .filter(|_| routed)
            .map(|_| {
                let bus = engine.create_bus().expect("a bus");
                let group = engine
                    .create_group(crate::GroupSettings {
                        max_voices: voices,
                        ..Default::default()
                    })
                    .expect("a group");
                (bus, group)
            })
            .collect();
        let sounds = match kind {
            Sounds::Mono | Sounds::Positioned | Sounds::Muffled => sine_sounds(rate),
            Sounds::Stereo => stereo_sine_sounds(rate),
            Sounds::Distinct => distinct_sounds(voices, rate),
        };
        let mut handles = Vec::with_capacity(voices);
        let per_block = voices.div_ceil(100);
        while handles.len() < voices {
            for _ in 0..per_block.min(voices - handles.len()) {
                let i = handles.len();
                let p = PlayParams::default()
                    .volume(0.2 + 0.8 * ((i * 37 % 101) as f32 / 100.0))
                    .pan(((i * 53 % 201) as f32 / 100.0) - 1.0)
                    .looping(true)
                    .fade_in(0.01);
                let p = match routes.get(i % 4) {
                    Some(&(bus, group)) => p.bus(bus).group(group),
                    None => p,
                };
                let p = match kind {
                    Sounds::Positioned => {
                        let (at, v) = spot(i);
                        p.position(at).velocity(v)
                    }
                    Sounds::Muffled => {
                        let (at, v) = spot(i);
                        let cone = crate::Cone {
                            inner_deg: 90.0,
                            outer_deg: 240.0,
                            outer_gain: 0.5,
                            outer_lowpass_hz: 2_000.0,
                        };
                        p.position(at).velocity(v).spatial(crate::Spatial {
                            cone: Some(cone),
                            air_absorption: 1.0,
                            ..Default::default()
                        })
                    }
                    _ => p,
                };
                handles.push(engine.play(&sounds[i % sounds.len()], p).expect("queue"));
            }
            engine.render(BLOCK);
        }
        let mut parked = 0;
        while parked < virtual_voices {
            for _ in 0..256.min(virtual_voices - parked) {
                let p = PlayParams::default()
                    .volume(0.1 + 0.9 * ((parked * 13 % 97) as f32 / 96.0))
                    .looping(true)
                    .virtualize(true)
                    .priority(0);
                let p = match kind {
                    Sounds::Positioned => {
                        let (at, _) = spot(parked);
                        p.position([at[0] * 5.0, 0.0, at[2] * 5.0])
                    }
                    _ => p,
                };
                engine
                    .play(&sounds[parked % sounds.len()], p)
                    .expect("queue");
                parked += 1;
            }
            engine.render(BLOCK);
            engine.drain_events().for_each(drop);
        }
        for _ in 0..10 {
            engine.render(BLOCK);
        }
        engine.drain_events().for_each(drop);
        assert_eq!(engine.stats().virtual_voices, virtual_voices);
        Workload {
            engine,
            handles,
            next: 0,
            tick: 0,
            moving: false,
            turning: false,
            spots: (0..voices).map(spot).collect(),
            walking: false,
        }
    }

    /// One block: a sixteenth of the voices get a new volume, then
    /// [`BLOCK`] frames are rendered. Returns the first output sample.
    pub fn block(&mut self) -> f32 {
        let n = self.handles.len();
        self.tick = self.tick.wrapping_add(1);
        for _ in 0..n.div_ceil(16) {
            let h = self.handles[self.next];
            let v = 0.2 + 0.8 * (((self.next as u32 * 31 + self.tick * 7) % 97) as f32 / 96.0);
            let _ = self.engine.set_volume(h, v);
            self.next = (self.next + 1) % n;
        }
        if self.moving {
            // Each voice moves on at its velocity for 100 blocks (a
            // second), then starts over.
            let t = (self.tick % 100) as f32 * 0.01;
            for (&h, &(at, v)) in self.handles.iter().zip(&self.spots) {
                let at = [at[0] + v[0] * t, at[1], at[2] + v[2] * t];
                let _ = self.engine.set_position(h, at, v);
            }
        }
        if self.turning {
            let a = self.tick as f32 * 0.05;
            for &h in &self.handles {
                let _ = self
                    .engine
                    .set_orientation(h, [a.lm_cos(), 0.0, a.lm_sin()]);
            }
        }
        if self.walking {
            let x = (self.tick % 10_000) as f32 * 0.02 - 100.0;
            let _ = self.engine.set_listener(crate::Listener {
                position: [x, 0.0, 0.0].into(),
                velocity: [2.0, 0.0, 0.0].into(),
                ..Default::default()
            });
        }
        self.engine.render(BLOCK)[0]
    }
}

/// Which sounds a [`Workload`] plays.
#[derive(Clone, Copy)]
enum Sounds {
    /// Eight mono sines ([`sine_sounds`]).
    Mono,
    /// Eight stereo sines ([`stereo_sine_sounds`]).
    Stereo,
    /// A different sound per voice ([`distinct_sounds`]).
    Distinct,
    /// Eight mono sines, every voice positioned.
    Positioned,
    /// As `Positioned`, with a cone and air absorption.
    Muffled,
}
