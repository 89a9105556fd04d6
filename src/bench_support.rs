//! Support for voicepool's own benchmarks, soak run and profiling. **Not part
//! of the public API**: hidden from the docs, may change or vanish in any
//! release. It exists so that `benches/` can measure internal pieces (pool
//! acquire/release, victim choice) without those pieces being made public.

use std::f32::consts::TAU;
use std::sync::Arc;

use crate::control::params::PlayParams;
use crate::control::settings::EngineSettings;
use crate::control::Engine;
use crate::mixer::Mixer;
use crate::output::offline::OfflineEngine;
use crate::protocol::VoiceHandle;
use crate::protocol::{EngineId, NO_GROUP};
use crate::render::voice::Voice;
use crate::simd::Isa;
use crate::sound::{Sound, SoundData};
use crate::voices::free_list::{FreeList, Slot};
use crate::voices::{Identity, Newcomer, VoicePool};

/// Output frames per block in the benchmark workloads (10 ms at 48 kHz).
pub const BLOCK: usize = 480;

/// Eight one-second mono sine sounds at `rate` (110 Hz to 880 Hz, amplitude 0.5).
pub fn sine_sounds(rate: u32) -> Vec<Sound> {
    (0..8)
        .map(|k| {
            let f = 110.0 * (k + 1) as f32;
            let s: Vec<f32> = (0..rate)
                .map(|i| 0.5 * (TAU * f * i as f32 / rate as f32).sin())
                .collect();
            Sound::from_samples(1, rate, s).expect("valid sine")
        })
        .collect()
}

/// Eight one-second stereo sine sounds at `rate` (left 110 Hz to 880 Hz,
/// right a fifth above, amplitude 0.5), interleaved.
pub fn stereo_sine_sounds(rate: u32) -> Vec<Sound> {
    (0..8)
        .map(|k| {
            let f = 110.0 * (k + 1) as f32;
            let s: Vec<f32> = (0..rate)
                .flat_map(|i| {
                    let t = TAU * i as f32 / rate as f32;
                    [0.5 * (f * t).sin(), 0.5 * (1.5 * f * t).sin()]
                })
                .collect();
            Sound::from_samples(2, rate, s).expect("valid sine")
        })
        .collect()
}

/// `count` different mono sounds at `rate`, sound `k` lasting 1 to 2
/// seconds (`1 + (k % 16) / 16` s) and holding its own mix of two sines
/// (amplitude 0.5): with hundreds of them the sample data (about 260 kB
/// each at 44.1 kHz) is far larger than any cache.
pub fn distinct_sounds(count: usize, rate: u32) -> Vec<Sound> {
    (0..count)
        .map(|k| {
            let frames = rate as usize + rate as usize * (k % 16) / 16;
            let f = 100.0 + 7.0 * k as f32;
            let g = 1.5 * f + 3.0;
            let s: Vec<f32> = (0..frames)
                .map(|i| {
                    let t = TAU * i as f32 / rate as f32;
                    0.3 * (f * t).sin() + 0.2 * (g * t).sin()
                })
                .collect();
            Sound::from_samples(1, rate, s).expect("valid sound")
        })
        .collect()
}

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
    /// Where each voice starts and how it moves (positioned workloads).
    spots: Vec<([f32; 3], [f32; 3])>,
    /// The listener walks a little every block.
    walking: bool,
}

/// Where voice `i` of a positioned workload starts (around the listener,
/// 2 to 40 m away), and its velocity (across the line of sight).
fn spot(i: usize) -> ([f32; 3], [f32; 3]) {
    let radius = 2.0 + (i * 37 % 39) as f32;
    let (s, c) = (i as f32 * 0.7).sin_cos();
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
            Sounds::Mono | Sounds::Positioned => sine_sounds(rate),
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
}

/// A voice as the pool stores it (one 64-byte cache line), for the
/// pool-versus-heap experiment.
pub struct BenchVoice(Voice);

impl BenchVoice {
    /// A voice playing `sound` with default parameters at 48 kHz.
    pub fn new(sound: &Sound) -> BenchVoice {
        let params = PlayParams::default()
            .validate(EngineId::next())
            .expect("defaults are valid");
        BenchVoice(Voice::new(
            Arc::clone(&sound.data),
            &params,
            48_000,
            0,
            0,
            None,
        ))
    }
}

/// The pool's free list alone (the Object Pool pattern: fixed slots, an
/// intrusive free list), holding voices: the classic experiment's pool.
pub struct BenchFreeList(FreeList<Voice>);

impl BenchFreeList {
    /// `slots` free slots.
    pub fn new(slots: usize) -> BenchFreeList {
        BenchFreeList(FreeList::new(slots))
    }

    /// Takes a free slot for `voice` (O(1)); gives the voice back if full.
    pub fn acquire(&mut self, voice: BenchVoice) -> Result<usize, BenchVoice> {
        self.0.acquire(voice.0).map_err(BenchVoice)
    }

    /// Frees slot `slot` (O(1)), returning its voice.
    pub fn release(&mut self, slot: usize) -> Option<BenchVoice> {
        self.0.release(slot).map(BenchVoice)
    }

    /// Checks that the free list and the live slots partition the pool.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.0.check()
    }
}

/// The engine's voice pool: the free list plus what the voice manager
/// keeps per slot (identity, level, id index, victim-choice keys), as
/// `play` and voice ends use it.
pub struct BenchPool {
    pool: VoicePool<Voice>,
    next_id: u64,
}

impl BenchPool {
    /// A pool of `voices` free slots.
    pub fn new(voices: usize) -> BenchPool {
        BenchPool {
            pool: VoicePool::new(voices, 0),
            next_id: 0,
        }
    }

    /// Takes a free slot for `voice` (O(1)) under a new id, as `play`
    /// does; gives the voice back if full.
    pub fn acquire(&mut self, voice: BenchVoice) -> Result<usize, BenchVoice> {
        self.next_id += 1;
        let who = Identity {
            id: self.next_id,
            priority: 128,
            protected: false,
            group: NO_GROUP,
            virtualize: false,
            emitter: crate::voices::NO_EMITTER,
            send: crate::protocol::SendTo::NONE,
        };
        let new = Newcomer {
            who,
            voice: voice.0,
            level: 1.0,
            ends: crate::voices::Rank::NEVER,
            held: 0,
            order: self.next_id,
            now: 0,
            fresh: Some(0),
        };
        self.pool.acquire(new).map_err(|new| BenchVoice(new.voice))
    }

    /// Frees slot `slot` (O(1)), returning its voice.
    pub fn release(&mut self, slot: usize) -> Option<BenchVoice> {
        self.pool.release(slot).map(|(_, v)| BenchVoice(v))
    }

    /// Checks the pool's invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.pool.check_invariants()
    }
}

/// A play command as the audio side receives it, made ahead of time.
pub struct PreparedPlay {
    id: u64,
    sound: Arc<SoundData>,
    params: PlayParams,
    /// A positioned play's cell in the table of positions.
    cell: u32,
}

impl PreparedPlay {
    /// A play of `sound` with `params` under handle id `id` (pick ids the
    /// engine does not issue, e.g. from 1 << 40 up).
    pub fn new(id: u64, sound: &Sound, params: PlayParams) -> PreparedPlay {
        PreparedPlay {
            id,
            sound: Arc::clone(&sound.data),
            params,
            cell: crate::protocol::NO_EMITTER,
        }
    }

    /// As [`PreparedPlay::new`], for positioned `params`: its cell in
    /// `engine`'s table of positions is claimed now, as `play` would
    /// (the table is sent to the mixer with the first such play: render a
    /// block before the first [`mixer_play`] of one).
    pub fn positioned(
        engine: &crate::Controller,
        id: u64,
        sound: &Sound,
        params: PlayParams,
    ) -> Result<PreparedPlay, crate::PlayError> {
        let cell = engine.claim_for_bench(id, &params)?;
        Ok(PreparedPlay {
            cell,
            ..PreparedPlay::new(id, sound, params)
        })
    }
}

/// Runs the audio side of a play (voice construction, slot or victim
/// choice, steal with fade-out tail, events), as `Mixer::process` does for
/// each play command it drains.
pub fn mixer_play(mixer: &mut Mixer, play: PreparedPlay) {
    let mut params = (play.params)
        .validate(mixer.engine_id())
        .expect("valid params");
    if let Some(at) = params.emitter.as_mut() {
        at.cell = play.cell;
    }
    mixer.play(play.id, play.sound, &params, None);
}

/// An engine and its mixer, for driving the mixer directly.
pub fn engine_and_mixer(settings: EngineSettings) -> (Engine, Mixer) {
    Engine::new(settings).expect("valid settings")
}

/// Re-estimates the audibility of every live voice of `mixer` once (the
/// voice manager's refresh, normally spread over blocks).
pub fn refresh_all_levels(mixer: &mut Mixer) {
    mixer.refresh_all_levels();
}

/// The load-time loudness analysis alone (K-weighting, 5 ms windows,
/// running sums) of interleaved `samples`; returns its total energy so
/// the work cannot be optimized away.
pub fn measure_loudness(samples: &[f32], channels: usize, rate: u32) -> f64 {
    let l = crate::sound::loudness::Loudness::measure(samples, channels, rate);
    l.energy_to(f64::MAX / 4.0, false)
}

/// The load-time band analysis alone (how a sound's energy spreads over
/// four bands) of interleaved `samples`; returns the top band's share.
pub fn measure_bands(samples: &[f32], channels: usize, rate: u32) -> f32 {
    crate::sound::bands::Bands::measure(samples, channels, rate).0[3]
}

/// The output stage alone ([`crate::render::limiter`]): `l` and `r` through
/// `gain` and the soft limiter, interleaved into `out` (and the two left
/// silent, as the mixer's bus is after it), with the kernels this machine
/// uses.
pub fn output_stage(l: &mut [f32], r: &mut [f32], gain: f32, out: &mut [f32]) {
    crate::render::limiter::interleave_limited(l, r, gain, out, Isa::detect());
}

/// True when the mixer kernels use AVX2 on this machine.
pub fn simd_kernels_available() -> bool {
    Isa::detect() != Isa::Scalar
}

/// `size_of` a pool slot, in bytes.
pub fn slot_bytes() -> usize {
    std::mem::size_of::<Slot<Voice>>()
}

/// splitmix64: a small, fixed pseudo-random generator for voicepool's own
/// tests, soak run and benches, so a seed means the same run on every
/// machine.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is immaterial here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.bits() % n
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// Uniform in `0.0..1.0`, 24 bits.
    pub fn unit(&mut self) -> f32 {
        (self.bits() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Runs `f` with RealtimeSanitizer's checks bypassed on this thread (with
/// the `rtsan` feature, linked with the runtime as `scripts/rtsan.sh`
/// does; otherwise it simply runs `f`): for a test's block in which a
/// game's effect panics on purpose, since a panic itself (its payload,
/// its message) is not real-time safe. Every other block stays checked.
pub fn outside_rtsan<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "rtsan")]
    let _off = {
        // LLVM 19's names (`rtsan-standalone` calls LLVM 20's).
        extern "C" {
            fn __rtsan_off();
            fn __rtsan_on();
        }
        struct On;
        impl Drop for On {
            fn drop(&mut self) {
                // SAFETY: pairs the `__rtsan_off` below, on the same thread.
                unsafe { __rtsan_on() }
            }
        }
        // SAFETY: a counter in RTSan's per-thread state; `On` undoes it.
        unsafe { __rtsan_off() };
        On
    };
    f()
}
