//! The pool targets.
//!
//! - `play_full_pool/1024`: the audio side of one `play` into a full pool of
//!   1024 voices, victim choice (quietest), steal and fade-out tail included.
//!   The pool is kept realistic: 64 plays per rendered 10 ms block (the
//!   render is not timed), so voices age and tails finish. Target: < 2 us.
//! - `refresh_levels/1024`: the voice manager re-estimating the audibility
//!   of all 1024 voices once (the mixer spreads this over 2048 frames of
//!   blocks): per voice, what predictive ranking costs per 2048 frames.
//! - `loudness_analysis/stereo_48k_1s`: the load-time analysis ranking
//!   reads (K-weighting, 5 ms windows, running sums) of one second of
//!   stereo 48 kHz audio.
//! - `acquire_release/{free_list,engine_pool,box}`: the classic free-list
//!   experiment. 10,240 random operations, 90% acquire and 10% release (of a
//!   random live voice), then release of all, on voices (64 bytes each):
//!   `free_list` is the pool's intrusive free list (the Object Pool pattern),
//!   `box` a `Box<Voice>` per voice (an aligned allocation: a voice is one
//!   cache line, aligned to it), `box_unaligned` a `Box` of the same 64
//!   bytes with ordinary alignment, `engine_pool` the free list plus what
//!   the mixer keeps per slot (id index, victim-choice key). Voices are built
//!   before the timed part and released ones are put back for later
//!   acquires, so no voice is built or dropped on the clock. `moves_only`
//!   keeps no storage at all (the voice itself is the handle): what every
//!   variant pays for the experiment's own moves and bookkeeping; the
//!   summary also prints each variant net of it. Target: the pool at least
//!   5x faster than `box`.
//!
//! - `play_full_pool_positioned/1024`: as `play_full_pool`, every voice
//!   and newcomer positioned (1 to 60 m away, a third of them moving at up
//!   to 40 m/s): the steal decision when stealing looks at where each voice
//!   will be. Target: < 1.2 us.
//! - `play_full_pool_one_shots/1024`: as `play_full_pool`, with one-second
//!   one-shots instead of loops: every steal finds voices running out
//!   within 300 ms and ranks the soonest again, fresh, beside its victim.
//! - `play_full_pool_virtualizing/1024`: as `play_full_pool`, every play
//!   asking to virtualize: a victim goes virtual (while the 64 virtual
//!   voices have room), and a steal whose victim would go virtual looks
//!   again, past the minimum age, for a far quieter young voice to take.
//!
//! `cargo bench --bench pool`

mod common;

use std::mem::MaybeUninit;
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, BenchmarkId, Criterion, Throughput};
use voicepool::bench_support::{
    engine_and_mixer, measure_bands, measure_loudness, measure_spectrum, mixer_play,
    refresh_all_levels, sine_sounds, BenchFreeList, BenchPool, BenchVoice, PreparedPlay, BLOCK,
};
use voicepool::{EngineSettings, PlayParams};

const FULL_POOL: usize = 1024;
const PLAYS_PER_BLOCK: usize = 64;
const OPS: usize = 10_240;

fn play_full_pool(c: &mut Criterion) {
    full_pool(c, "play_full_pool", (false, true, false));
    full_pool(c, "play_full_pool_positioned", (true, true, false));
    full_pool(c, "play_full_pool_one_shots", (false, false, false));
    full_pool(c, "play_full_pool_virtualizing", (false, true, true));
}

/// Where the `k`th positioned play is (1 to 60 m around the listener) and
/// how it moves (a third still, a third closing in, a third leaving, at up
/// to 40 m/s).
fn spot(k: usize) -> ([f32; 3], [f32; 3]) {
    let d = 1.0 + (k * 29 % 60) as f32;
    let (s, c) = (k as f32 * 0.37).sin_cos();
    let speed = (k * 13 % 41) as f32 * [0.0, -1.0, 1.0][k % 3];
    ([d * c, 0.0, d * s], [speed * c, 0.0, speed * s])
}

/// A full pool of 1024 voices taking plays: positioned or not, looping or
/// one-shots, asking to virtualize (each victim goes virtual) or not.
fn full_pool(c: &mut Criterion, name: &str, (positioned, looping, virtualize): (bool, bool, bool)) {
    let settings = EngineSettings {
        voices: FULL_POOL,
        command_capacity: 4 * FULL_POOL,
        event_capacity: 16 * FULL_POOL,
        ..Default::default()
    };
    let (mut engine, mut mixer) = engine_and_mixer(settings);
    let sounds = sine_sounds(44_100);
    let mut out = vec![0.0f32; 2 * BLOCK];
    if positioned {
        // The table of positions reaches the mixer with a first
        // positioned play.
        let (at, _) = spot(0);
        engine
            .play(&sounds[0], PlayParams::default().position(at))
            .expect("a play");
        mixer.process(&mut out);
    }
    let mut id = 1u64 << 40;
    let controller = engine.controller();
    let next_play = |id: &mut u64| {
        *id += 1;
        let k = *id as usize;
        let params = PlayParams::default()
            .volume(0.1 + 0.9 * ((k * 37 % 101) as f32 / 100.0))
            .pan(((k * 53 % 201) as f32 / 100.0) - 1.0)
            .looping(looping)
            .virtualize(virtualize);
        let sound = &sounds[k % sounds.len()];
        if positioned {
            let (at, v) = spot(k);
            let params = params.position(at).velocity(v);
            PreparedPlay::positioned(&controller, *id, sound, params).expect("a cell")
        } else {
            PreparedPlay::new(*id, sound, params)
        }
    };
    for _ in 0..FULL_POOL {
        let play = next_play(&mut id);
        mixer_play(&mut mixer, play);
    }
    for _ in 0..10 {
        mixer.process(&mut out);
    }
    engine.drain_events().for_each(drop);
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(1));
    g.bench_function(BenchmarkId::from_parameter(FULL_POOL), |b| {
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            let mut left = iters as usize;
            while left > 0 {
                let n = left.min(PLAYS_PER_BLOCK);
                let batch: Vec<PreparedPlay> = (0..n).map(|_| next_play(&mut id)).collect();
                let t = Instant::now();
                for play in batch {
                    mixer_play(&mut mixer, play);
                }
                timed += t.elapsed();
                left -= n;
                mixer.process(&mut out);
                engine.drain_events().for_each(drop);
            }
            timed
        })
    });
    g.finish();
    assert!(mixer.check_invariants().is_ok());
    assert_eq!(engine.stats().lost_events, 0);
}

/// The voice manager's audibility refresh: every voice of a full pool of
/// 1024 (looping sounds at pitches 0.5 to 2, some ramping) re-estimated
/// once. The mixer spreads this over 2048 frames of blocks; per voice it
/// is what each voice costs per 2048 output frames.
fn refresh_levels(c: &mut Criterion) {
    refresh_levels_hearing(c, "refresh_levels", true);
    refresh_levels_hearing(c, "refresh_levels_unmasked", false);
}

fn refresh_levels_hearing(c: &mut Criterion, name: &str, masking: bool) {
    let settings = EngineSettings {
        voices: FULL_POOL,
        command_capacity: 4 * FULL_POOL,
        event_capacity: 4 * FULL_POOL,
        masking,
        ..Default::default()
    };
    let (mut engine, mut mixer) = engine_and_mixer(settings);
    let sounds = sine_sounds(44_100);
    for k in 0..FULL_POOL {
        let params = PlayParams::default()
            .volume(0.1 + 0.9 * ((k * 37 % 101) as f32 / 100.0))
            .pitch(0.5 + 1.5 * ((k * 53 % 101) as f32 / 100.0))
            .looping(true)
            .fade_in(if k % 4 == 0 { 0.5 } else { 0.0 });
        let play = PreparedPlay::new((1 << 40) + k as u64, &sounds[k % sounds.len()], params);
        mixer_play(&mut mixer, play);
    }
    let mut out = vec![0.0f32; 2 * BLOCK];
    mixer.process(&mut out);
    engine.drain_events().for_each(drop);
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(FULL_POOL as u64));
    g.bench_function(BenchmarkId::from_parameter(FULL_POOL), |b| {
        b.iter(|| refresh_all_levels(black_box(&mut mixer)))
    });
    g.finish();
}

/// The load-time analysis stealing ranks by, per second of stereo 48 kHz
/// audio.
fn loudness_analysis(c: &mut Criterion) {
    let samples: Vec<f32> = (0..2 * 48_000)
        .map(|i| ((i as f32) * 0.031).sin() * 0.5)
        .collect();
    let mut g = c.benchmark_group("loudness_analysis");
    g.throughput(Throughput::Elements(48_000));
    g.bench_function("stereo_48k_1s", |b| {
        b.iter(|| measure_loudness(black_box(&samples), 2, 48_000))
    });
    // The band spread a bus's filters are heard through (at most 2 s).
    g.bench_function("bands_stereo_48k_1s", |b| {
        b.iter(|| measure_bands(black_box(&samples), 2, 48_000))
    });
    // The critical bands per window that masking reads (the whole sound).
    g.bench_function("spectrum_stereo_48k_1s", |b| {
        b.iter(|| measure_spectrum(black_box(&samples), 2, 48_000))
    });
    g.finish();
}

/// Somewhere to keep live voices.
trait Pool {
    type Handle;
    fn acquire(&mut self, v: BenchVoice) -> Result<Self::Handle, BenchVoice>;
    fn release(&mut self, h: Self::Handle) -> Option<BenchVoice>;
    /// The pool's invariants hold (checked after each run, untimed).
    fn check(&self) -> bool {
        true
    }
}

impl Pool for BenchFreeList {
    type Handle = usize;
    fn acquire(&mut self, v: BenchVoice) -> Result<usize, BenchVoice> {
        BenchFreeList::acquire(self, v)
    }
    fn release(&mut self, slot: usize) -> Option<BenchVoice> {
        BenchFreeList::release(self, slot)
    }
    fn check(&self) -> bool {
        self.check_invariants().is_ok()
    }
}

impl Pool for BenchPool {
    type Handle = usize;
    fn acquire(&mut self, v: BenchVoice) -> Result<usize, BenchVoice> {
        BenchPool::acquire(self, v)
    }
    fn release(&mut self, slot: usize) -> Option<BenchVoice> {
        BenchPool::release(self, slot)
    }
    fn check(&self) -> bool {
        self.check_invariants().is_ok()
    }
}

#[derive(Clone, Copy)]
enum Op {
    Acquire,
    /// Release the live voice at this index (modulo the live count).
    Release(usize),
}

/// 90% acquire, 10% release, from a fixed seed (xorshift).
fn ops() -> Vec<Op> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..OPS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(10) {
                Op::Release((x >> 16) as usize)
            } else {
                Op::Acquire
            }
        })
        .collect()
}

/// No storage management at all: the voice itself is the handle, moved into
/// the list of live handles and back. What any scheme pays at least (the
/// experiment's own moves and bookkeeping); subtracted to give net figures.
struct MovesOnly;

impl Pool for MovesOnly {
    type Handle = BenchVoice;
    fn acquire(&mut self, v: BenchVoice) -> Result<Self::Handle, BenchVoice> {
        Ok(v)
    }
    fn release(&mut self, h: Self::Handle) -> Option<BenchVoice> {
        Some(h)
    }
}

/// A `Box` per voice: the heap as the pool.
struct Heap;

/// A `Box` per voice, the voice's 64 bytes stored in a plain (8-byte
/// aligned) allocation: what boxing costs without `Voice`'s cache-line
/// alignment, which makes `Box<Voice>` an aligned allocation.
struct HeapUnaligned;

type Bytes = [MaybeUninit<u64>; 8];

impl Pool for Heap {
    type Handle = Box<BenchVoice>;
    fn acquire(&mut self, v: BenchVoice) -> Result<Self::Handle, BenchVoice> {
        Ok(Box::new(v))
    }
    fn release(&mut self, h: Self::Handle) -> Option<BenchVoice> {
        Some(*h)
    }
}

impl Pool for HeapUnaligned {
    type Handle = Box<Bytes>;
    fn acquire(&mut self, v: BenchVoice) -> Result<Self::Handle, BenchVoice> {
        // SAFETY: same size (checked by `transmute`); `MaybeUninit` may hold
        // any bytes, and they are moved back unchanged in `release`.
        Ok(Box::new(unsafe {
            std::mem::transmute::<BenchVoice, Bytes>(v)
        }))
    }
    fn release(&mut self, h: Self::Handle) -> Option<BenchVoice> {
        // SAFETY: the bytes of a `BenchVoice` moved out in `acquire`; the
        // value is moved back whole (by-value transmute, so alignment holds).
        Some(unsafe { std::mem::transmute::<Bytes, BenchVoice>(*h) })
    }
}

/// One run of the experiment. Voices to play are taken from `fresh` and
/// released ones go back onto it, so no voice is built or dropped while
/// the clock runs; handles go into `live` (allocated beforehand).
fn run<P: Pool>(
    pool: &mut P,
    ops: &[Op],
    fresh: &mut Vec<BenchVoice>,
    live: &mut Vec<P::Handle>,
) -> Duration {
    let t = Instant::now();
    for &op in ops {
        match op {
            Op::Acquire => {
                if let Some(v) = fresh.pop() {
                    match pool.acquire(v) {
                        Ok(h) => live.push(h),
                        Err(v) => fresh.push(v),
                    }
                }
            }
            Op::Release(r) if !live.is_empty() => {
                let h = live.swap_remove(r % live.len());
                fresh.extend(pool.release(h));
            }
            Op::Release(_) => {}
        }
    }
    for h in live.drain(..) {
        fresh.extend(pool.release(h));
    }
    let timed = t.elapsed();
    black_box(&fresh);
    timed
}

fn acquire_release(c: &mut Criterion) {
    let ops = ops();
    let acquires = ops.iter().filter(|o| matches!(o, Op::Acquire)).count();
    let sounds = sine_sounds(48_000);
    let mut fresh: Vec<BenchVoice> = (0..acquires as u64)
        .map(|i| BenchVoice::new(&sounds[i as usize % sounds.len()]))
        .collect();
    let mut g = c.benchmark_group("acquire_release");
    g.throughput(Throughput::Elements(OPS as u64));
    /// Each run starts from a new pool (made, and its memory touched,
    /// before the clock starts), as the experiment is defined; the heap
    /// variants run on the process heap as it is.
    fn bench<P: Pool>(
        g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        name: &str,
        new_pool: impl Fn() -> P,
        ops: &[Op],
        fresh: &mut Vec<BenchVoice>,
    ) {
        let mut live = Vec::with_capacity(OPS);
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let mut pool = new_pool();
                        let t = run(&mut pool, ops, fresh, &mut live);
                        assert!(pool.check());
                        t
                    })
                    .sum()
            })
        });
    }
    bench(
        &mut g,
        "free_list",
        || BenchFreeList::new(OPS),
        &ops,
        &mut fresh,
    );
    bench(
        &mut g,
        "engine_pool",
        || BenchPool::new(OPS),
        &ops,
        &mut fresh,
    );
    bench(&mut g, "box", || Heap, &ops, &mut fresh);
    bench(&mut g, "box_unaligned", || HeapUnaligned, &ops, &mut fresh);
    bench(&mut g, "moves_only", || MovesOnly, &ops, &mut fresh);
    assert_eq!(fresh.len(), acquires);
    g.finish();
}

/// The game side of starting a sound: `play` against `play_cue` of a cue
/// of six variations (shuffled, pitch and level ranges), and of a cue of
/// three layers (the cost of the command queue's three entries and the
/// layered play's bookkeeping). The queue is drained, untimed, every 256
/// plays.
fn game_side(c: &mut Criterion) {
    use voicepool::{Cue, Pick};
    let settings = EngineSettings {
        voices: 256,
        command_capacity: 4_096,
        event_capacity: 16_384,
        ..Default::default()
    };
    let (mut engine, mut mixer) = engine_and_mixer(settings);
    let sounds = sine_sounds(44_100);
    let one = Cue::new(sounds.iter().take(6).cloned())
        .pick(Pick::Shuffle)
        .pitch_range(0.95..=1.05)
        .volume_range_db(-3.0..=0.0);
    let three = one
        .clone()
        .layer(Cue::new([sounds[1].clone()]))
        .layer(Cue::new([sounds[2].clone()]).delay(Duration::from_millis(20)));
    let mut out = vec![0.0f32; 2 * BLOCK];
    let mut g = c.benchmark_group("game_side");
    g.throughput(Throughput::Elements(1));
    let cases: [(&str, Option<&Cue>); 3] = [
        ("play", None),
        ("play_cue", Some(&one)),
        ("play_cue_3_layers", Some(&three)),
    ];
    for (name, cue) in cases {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                let mut left = iters;
                let mut k = 0usize;
                while left > 0 {
                    let n = left.min(256);
                    let t = Instant::now();
                    for _ in 0..n {
                        k += 1;
                        let params = PlayParams::default().volume(0.5);
                        let h = match cue {
                            Some(cue) => engine.play_cue(cue, params),
                            None => engine.play(&sounds[k % 6], params),
                        };
                        black_box(h.expect("room in the queue"));
                    }
                    timed += t.elapsed();
                    left -= n;
                    mixer.process(&mut out);
                    engine.stop_all().expect("stop");
                    mixer.process(&mut out);
                    engine.drain_events().for_each(drop);
                }
                timed
            })
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    play_full_pool,
    game_side,
    refresh_levels,
    loudness_analysis,
    acquire_release
);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if !common::benchmarking() {
        return; // `cargo test` runs each bench once: no figures to report
    }
    common::print_medians(
        "Pool",
        &[
            (format!("play_full_pool/{FULL_POOL}"), 1.0, "play"),
            ("game_side/play".into(), 1.0, "play"),
            ("game_side/play_cue".into(), 1.0, "play"),
            ("game_side/play_cue_3_layers".into(), 1.0, "play"),
            (
                format!("refresh_levels/{FULL_POOL}"),
                FULL_POOL as f64,
                "voice",
            ),
            (
                format!("refresh_levels_unmasked/{FULL_POOL}"),
                FULL_POOL as f64,
                "voice",
            ),
            (
                "loudness_analysis/stereo_48k_1s".into(),
                1.0,
                "second of audio",
            ),
            ("acquire_release/free_list".into(), OPS as f64, "op"),
            ("acquire_release/engine_pool".into(), OPS as f64, "op"),
            ("acquire_release/box".into(), OPS as f64, "op"),
            ("acquire_release/box_unaligned".into(), OPS as f64, "op"),
            ("acquire_release/moves_only".into(), OPS as f64, "op"),
        ],
    );
    let ns = |w: &str| common::median_ns(&format!("acquire_release/{w}"));
    for heap in ["box", "box_unaligned"] {
        for pool in ["free_list", "engine_pool"] {
            if let (Some(h), Some(p)) = (ns(heap), ns(pool)) {
                println!("  {pool} is {:.1}x faster than {heap}", h / p);
            }
        }
    }
    if let Some(base) = ns("moves_only") {
        println!("  net of moves_only (the experiment's own moves and bookkeeping):");
        for w in ["free_list", "engine_pool", "box", "box_unaligned"] {
            if let Some(t) = ns(w) {
                println!("    {w:<14} {:>7.2} ns/op", (t - base) / OPS as f64);
            }
        }
        if let (Some(f), Some(b), Some(u)) = (ns("free_list"), ns("box"), ns("box_unaligned")) {
            println!(
                "    free_list is {:.1}x faster than box, {:.1}x than box_unaligned (net)",
                (b - base) / (f - base),
                (u - base) / (f - base)
            );
        }
    }
}
