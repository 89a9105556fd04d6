//! The mixing targets, through the
//! public API.
//!
//! - `w_44k1_to_48k/N`: workload W ([`Workload`]): N voices looping one-second
//!   44.1 kHz mono sounds, resampled to 48 kHz stereo with volume, pan and
//!   ramps, in 480-frame blocks. Target: 1.0 ns per voice-frame or better.
//! - `rate_matched_48k/N`: the same with 48 kHz sounds at pitch 1.0 (the
//!   exact-step fast path). Target: 0.3 ns per voice-frame or better.
//! - `w_portable/256`: workload W on the portable kernels (what a CPU
//!   without AVX2 runs).
//! - `w_routed/N`: workload W with every voice on one of four buses (not
//!   the master) and in one of four groups ([`Workload::routed`]). Goal:
//!   at most 10 % more per voice-frame than `w_44k1_to_48k/N`.
//! - `w_stereo/N`: workload W with stereo 44.1 kHz sounds
//!   ([`Workload::stereo`]). Goal: 0.45 ns per voice-frame or
//!   better at 256 voices.
//! - `w_distinct/N`: workload W with a different 1 to 2 s sound per voice
//!   ([`Workload::distinct`]), far more sample data than the caches hold.
//!   Goal: 0.45 ns per voice-frame or better at 256 and 1024.
//!
//! `w_44k1_to_48k`, `w_stereo` and `w_distinct` run at 8, 32, 256 and 1024
//! voices (goal: 8 voices at 0.30 ns or better for W).
//!
//! - `loops/...`: 256 voices looping one sound each, in 480-frame blocks:
//!   a long loop (4,800 frames) at pitch 1 (the reference) and 64, and
//!   loops of 1, 4, 16 and 64 frames at pitch 1 and 64. Goal:
//!   every short loop within 3x of the long loop's cost per voice-frame;
//!   the table prints each one's ratio.
//! - `virtual/N`: workload W at 32 voices with N more looping voices of a
//!   lower priority, all virtual. Goal: 10,000 virtual voices
//!   add under 5 us per 480-frame block (printed at the end).
//! - `w_positioned/256`, `w_positioned_still/256`: workload W with every
//!   voice positioned, moved every block or never; against
//!   `w_44k1_to_48k/256` (printed at the end). Goal: at most 1.15x W.
//! - `virtual_emitters/10000`: 64 positioned voices and 10,000 positioned
//!   looping virtual ones, the listener walking. Goal: at most 100 us per
//!   480-frame block.
//! - `set_position/10000`: the game side of moving 10,000 emitters (one
//!   frame's `set_position` calls).
//! - `dense_window/{off,50db}`: 64 looping voices, 8 of them loud and 56
//!   between 50 and 80 dB under them (a dense scene under a few loud
//!   sounds), without and with a 50 dB audible window
//!   (`EngineSettings::audible_window`). Goal: the window saves at least
//!   30 % of the render time.
//! - `bus_setup/chain_255`, `bus_setup/flat_255`: the block in which 255
//!   buses made on the game side are set up on the audio side, chained
//!   (each feeding the one before) or flat. Goal: under 50 us.
//! - `limiter/quiet`, `limiter/limited`: the output stage alone on one
//!   480-frame block, below the limiter's threshold throughout and above
//!   it throughout (throughput in frames).
//!
//! Throughput is counted in voice-frames, so criterion's `thrpt` of X Gelem/s
//! is 1/X ns per voice-frame; a table of medians in ns per voice-frame and
//! the engine's memory are printed at the end.
//!
//! `cargo bench --bench mix`

mod common;

use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use voicepool::bench_support::{output_stage, simd_kernels_available, slot_bytes, Workload, BLOCK};
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};

const VOICES: [usize; 3] = [32, 256, 1024];
/// Voice counts of the small-pool workloads (`w_44k1_to_48k`, `w_stereo`,
/// `w_distinct`): small pools too, where a fixed cost per block shows.
const VOICES15: [usize; 4] = [8, 32, 256, 1024];

fn bench_workload(c: &mut Criterion, name: &str, rate: u32, voices: &[usize], portable: bool) {
    let mut g = c.benchmark_group(name);
    for &n in voices {
        let mut w = if name == "w_routed" {
            Workload::routed(n, rate)
        } else if name == "w_stereo" {
            Workload::stereo(n, rate)
        } else if name == "w_distinct" {
            Workload::distinct(n, rate)
        } else if name == "w_positioned" {
            Workload::positioned(n, rate)
        } else if name == "w_shaped" {
            Workload::shaped(n, rate)
        } else if name == "w_flat_tree" {
            Workload::flat_tree(n, rate)
        } else if name == "w_muffled" {
            Workload::muffled(n, rate)
        } else if name == "w_positioned_still" {
            Workload::positioned_still(n, rate)
        } else {
            Workload::new(n, rate)
        };
        if portable {
            w.engine.mixer_mut().force_portable_kernels();
        }
        g.throughput(Throughput::Elements((n * BLOCK) as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| w.block()));
    }
    g.finish();
}

fn workload_w(c: &mut Criterion) {
    bench_workload(c, "w_44k1_to_48k", 44_100, &VOICES15, false);
}

/// W with every voice positioned and moved every block (a `set_position`
/// per voice per block): what space costs against `w_44k1_to_48k`.
fn positioned(c: &mut Criterion) {
    bench_workload(c, "w_positioned", 44_100, &[256], false);
    bench_workload(c, "w_positioned_still", 44_100, &[256], false);
    // Every voice with a cone, air and an occlusion: its own low-pass.
    bench_workload(c, "w_muffled", 44_100, &[256], false);
    // 64 real voices and 10,000 virtual emitters, the listener walking.
    let mut g = c.benchmark_group("virtual_emitters");
    let mut w = Workload::virtual_emitters(64, 44_100, 10_000);
    g.bench_function(BenchmarkId::from_parameter(10_000), |b| {
        b.iter(|| w.block())
    });
    g.finish();
    set_positions(c);
}

/// The game side of a frame that moves 10,000 emitters: 10,000
/// `set_position` calls (64 of the plays sounding, the rest virtual).
fn set_positions(c: &mut Criterion) {
    const EMITTERS: usize = 10_000;
    let settings = EngineSettings {
        voices: 64,
        virtual_voices: EMITTERS,
        command_capacity: 2 * EMITTERS,
        event_capacity: 2 * EMITTERS,
        ..Default::default()
    };
    let mut engine = OfflineEngine::new(settings).expect("valid settings");
    let hum = Sound::from_samples(
        1,
        48_000,
        (0..4_800).map(|i| (i as f32 * 0.05).sin() * 0.3).collect(),
    )
    .expect("a sound");
    let spot = |k: usize, t: f32| {
        let (s, c) = (k as f32 * 0.7).sin_cos();
        let r = 5.0 + (k % 200) as f32;
        [r * c + t, 0.0, r * s]
    };
    let handles: Vec<_> = (0..EMITTERS)
        .map(|k| {
            let p = PlayParams::default()
                .looping(true)
                .virtualize(true)
                .position(spot(k, 0.0));
            engine.play(&hum, p).expect("queue")
        })
        .collect();
    // The audio side takes them 1,024 a block.
    for _ in 0..EMITTERS.div_ceil(1_024) {
        engine.render(BLOCK);
    }
    engine.drain_events().for_each(drop);
    let mut g = c.benchmark_group("set_position");
    g.throughput(Throughput::Elements(EMITTERS as u64));
    let spots: Vec<[f32; 3]> = (0..EMITTERS).map(|k| spot(k, 0.0)).collect();
    let mut t = 0.0f32;
    g.bench_function(BenchmarkId::from_parameter(EMITTERS), |b| {
        b.iter(|| {
            t += 0.01;
            for (&h, &[x, y, z]) in handles.iter().zip(&spots) {
                let _ = engine.set_position(h, [x + t, y, z], [1.0, 0.0, 0.0]);
            }
        })
    });
    g.finish();
    assert_eq!(engine.stats().virtual_voices, EMITTERS - 64);
}

fn stereo(c: &mut Criterion) {
    bench_workload(c, "w_stereo", 44_100, &VOICES15, false);
}

fn distinct(c: &mut Criterion) {
    bench_workload(c, "w_distinct", 44_100, &VOICES15, false);
}

fn rate_matched(c: &mut Criterion) {
    bench_workload(c, "rate_matched_48k", 48_000, &VOICES, false);
}

fn portable(c: &mut Criterion) {
    bench_workload(c, "w_portable", 44_100, &[256], true);
}

fn routed(c: &mut Criterion) {
    bench_workload(c, "w_routed", 44_100, &VOICES, false);
    bench_workload(c, "w_flat_tree", 44_100, &[256], false);
    bench_workload(c, "w_shaped", 44_100, &[256], false);
    effects(c);
}

/// Each built-in effect alone on a bus carrying a 480-frame stereo block
/// (one voice on it): its cost is the difference from `effect/none`.
fn effects(c: &mut Criterion) {
    use voicepool::{BusSettings, Effect};
    let mut g = c.benchmark_group("effect");
    let cases: [(&str, Option<Effect>); 5] = [
        ("none", None),
        ("low_pass", Some(Effect::LowPass { cutoff_hz: 1_000.0 })),
        (
            "low_pass_open",
            Some(Effect::LowPass {
                cutoff_hz: 48_000.0,
            }),
        ),
        (
            "reverb",
            Some(Effect::Reverb {
                room: 0.6,
                damping: 0.4,
                wet: 0.5,
            }),
        ),
        (
            "reverb_idle",
            Some(Effect::Reverb {
                room: 0.6,
                damping: 0.4,
                wet: 1.0,
            }),
        ),
    ];
    for (name, effect) in cases {
        let mut e = OfflineEngine::new(EngineSettings::default()).expect("an engine");
        let bus = e
            .create_bus_with(BusSettings {
                effects: effect.into_iter().collect(),
                ..Default::default()
            })
            .expect("a bus");
        let tone: Vec<f32> = (0..96_000).map(|i| (i as f32 * 0.03).sin() * 0.3).collect();
        let hum = Sound::from_samples(2, 48_000, tone).expect("a sound");
        // The idle reverb gets no input (a voice elsewhere), and has no tail.
        let p = PlayParams::default().looping(true);
        let p = if name == "reverb_idle" { p } else { p.bus(bus) };
        e.play(&hum, p).expect("a play");
        e.render(BLOCK);
        g.throughput(Throughput::Elements(BLOCK as u64));
        g.bench_function(name, |b| b.iter(|| e.render(BLOCK)[0]));
    }
    g.finish();
}

/// The audio side's block in which 255 buses made on the game side are
/// set up: a chain (each feeding the one made before it) or flat (each
/// feeding the master). Goal: under 50 us either way.
fn bus_setup(c: &mut Criterion) {
    use criterion::BatchSize;
    use voicepool::{BusHandle, BusSettings, Effect};
    let mut g = c.benchmark_group("bus_setup");
    for chained in [true, false] {
        let made = || {
            let e = OfflineEngine::new(EngineSettings {
                buses: 255,
                command_capacity: 1_024,
                ..Default::default()
            })
            .expect("an engine");
            let mut last: Option<BusHandle> = None;
            for _ in 0..255 {
                let b = e
                    .create_bus_with(BusSettings {
                        output: if chained { last } else { None },
                        effects: vec![Effect::LowPass {
                            cutoff_hz: 20_000.0,
                        }],
                        ..Default::default()
                    })
                    .expect("a bus");
                last = Some(b);
            }
            e
        };
        let name = if chained { "chain_255" } else { "flat_255" };
        g.bench_function(name, |b| {
            b.iter_batched_ref(made, |e| e.render(BLOCK)[0], BatchSize::LargeInput)
        });
    }
    g.finish();
}

/// Loop lengths (frames) and pitches of the `loops` group; the first is the
/// reference the others are compared with.
const LOOPS: [(usize, f32); 10] = [
    (4_800, 1.0),
    (4_800, 64.0),
    (1, 1.0),
    (4, 1.0),
    (16, 1.0),
    (64, 1.0),
    (1, 64.0),
    (4, 64.0),
    (16, 64.0),
    (64, 64.0),
];
const LOOP_VOICES: usize = 256;

fn loop_id(frames: usize, pitch: f32) -> String {
    format!("loops/{frames}f_pitch{pitch}")
}

/// `LOOP_VOICES` voices looping a `frames`-frame 48 kHz mono sound at
/// `pitch`, with spread volumes and pans, started and rendered for a while.
fn looping_engine(frames: usize, pitch: f32) -> OfflineEngine {
    let samples = (0..frames)
        .map(|i| 0.5 * (i as f32 * 0.37).sin() + 0.1)
        .collect();
    let sound = Sound::from_samples(1, 48_000, samples).expect("valid");
    let mut e = OfflineEngine::new(EngineSettings {
        voices: LOOP_VOICES,
        command_capacity: LOOP_VOICES,
        event_capacity: 2 * LOOP_VOICES,
        ..Default::default()
    })
    .expect("valid settings");
    for i in 0..LOOP_VOICES {
        let p = PlayParams::default()
            .volume(0.2 + (i % 5) as f32 * 0.1)
            .pan((i % 9) as f32 / 4.0 - 1.0)
            .pitch(pitch)
            .looping(true);
        e.play(&sound, p).expect("queue");
        if i % 64 == 63 {
            e.render(BLOCK);
        }
    }
    for _ in 0..10 {
        e.render(BLOCK);
    }
    e.drain_events().for_each(drop);
    e
}

fn loops(c: &mut Criterion) {
    let mut g = c.benchmark_group("loops");
    g.measurement_time(Duration::from_secs(3)).sample_size(30);
    g.throughput(Throughput::Elements((LOOP_VOICES * BLOCK) as u64));
    for (frames, pitch) in LOOPS {
        let mut e = looping_engine(frames, pitch);
        let id = loop_id(frames, pitch);
        g.bench_function(id.trim_start_matches("loops/"), |b| {
            b.iter(|| e.render(BLOCK)[0])
        });
    }
    g.finish();
}

/// Virtual voices kept alongside the 32-voice workload in `virtual`.
const VIRTUAL: [usize; 2] = [0, 10_000];

/// What keeping time for virtual voices costs: the 32-voice workload with
/// none and with 10,000 lower-priority looping voices, all virtual.
fn virtual_voices(c: &mut Criterion) {
    let mut g = c.benchmark_group("virtual");
    g.measurement_time(Duration::from_secs(3)).sample_size(50);
    for n in VIRTUAL {
        let mut w = Workload::with_virtual(32, 44_100, n);
        g.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| w.block()));
    }
    g.finish();
}

/// The output stage (master gain, soft limiter, interleaving) on one
/// 480-frame block: `quiet`, a mix below the threshold throughout (the
/// knee skipped everywhere), and `limited`, one above it throughout (the
/// knee computed for every frame). Each iteration copies the block into
/// the bus first (the stage leaves the bus silent), which is in the figure.
fn limiter(c: &mut Criterion) {
    let mut g = c.benchmark_group("limiter");
    g.measurement_time(Duration::from_secs(3)).sample_size(50);
    g.throughput(Throughput::Elements(BLOCK as u64));
    for (name, amplitude) in [("quiet", 0.8f32), ("limited", 3.0)] {
        let wave = |f: f32| -> Vec<f32> {
            (0..BLOCK)
                // |sin| kept above 0.35: quiet stays under 0.9, limited over it.
                .map(|i| amplitude * (0.35 + 0.65 * (i as f32 * f).sin().abs()))
                .collect()
        };
        let (src_l, src_r) = (wave(0.031), wave(0.047));
        let (mut l, mut r) = (src_l.clone(), src_r.clone());
        let mut out = vec![0.0f32; 2 * BLOCK];
        g.bench_function(name, |b| {
            b.iter(|| {
                l.copy_from_slice(&src_l);
                r.copy_from_slice(&src_r);
                output_stage(&mut l, &mut r, 1.0, &mut out);
                out[0]
            })
        });
    }
    g.finish();
}

/// A dense scene under a few loud sounds, without and with the audible
/// window: what the window saves.
fn dense_window(c: &mut Criterion) {
    let sounds = voicepool::bench_support::sine_sounds(44_100);
    let mut g = c.benchmark_group("dense_window");
    for (name, window) in [("off", None), ("50db", Some(50.0))] {
        let mut engine = OfflineEngine::new(EngineSettings {
            voices: 64,
            virtual_voices: 64,
            audible_window: window,
            ..Default::default()
        })
        .expect("valid settings");
        for i in 0..64usize {
            let under = if i % 8 == 0 {
                0.0
            } else {
                50.0 + (i * 37 % 31) as f32
            };
            let p = PlayParams::default()
                .volume(10f32.powf(-under / 20.0))
                .pan(((i * 53 % 201) as f32 / 100.0) - 1.0)
                .looping(true)
                .virtualize(i % 2 == 1);
            engine.play(&sounds[i % sounds.len()], p).expect("queue");
        }
        for _ in 0..50 {
            engine.render(BLOCK);
            engine.drain_events().for_each(drop);
        }
        g.throughput(Throughput::Elements(BLOCK as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let first = engine.render(BLOCK)[0];
                engine.drain_events().for_each(drop);
                first
            })
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    workload_w,
    dense_window,
    positioned,
    routed,
    stereo,
    distinct,
    rate_matched,
    portable,
    loops,
    virtual_voices,
    limiter,
    bus_setup
);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if !common::benchmarking() {
        return; // `cargo test` runs each bench once: no figures to report
    }
    let mut rows = Vec::new();
    for group in [
        "w_44k1_to_48k",
        "w_routed",
        "w_stereo",
        "w_distinct",
        "rate_matched_48k",
    ] {
        let counts: &[usize] = match group {
            "w_44k1_to_48k" | "w_stereo" | "w_distinct" => &VOICES15,
            _ => &VOICES,
        };
        for &n in counts {
            rows.push((format!("{group}/{n}"), (n * BLOCK) as f64, "voice-frame"));
        }
    }
    rows.push(("w_portable/256".into(), (256 * BLOCK) as f64, "voice-frame"));
    common::print_medians("Mixing", &rows);
    let stage: Vec<_> = ["limiter/quiet", "limiter/limited"]
        .map(|id| (id.to_string(), BLOCK as f64, "frame"))
        .into();
    common::print_medians(
        "Output stage (one 480-frame block, with copying it in)",
        &stage,
    );
    if let (Some(none), Some(many)) = (
        common::median_ns(&format!("virtual/{}", VIRTUAL[0])),
        common::median_ns(&format!("virtual/{}", VIRTUAL[1])),
    ) {
        println!(
            "\nVirtual voices: {} of them add {:.2} us per {BLOCK}-frame block to the 32-voice workload ({:.1} -> {:.1} us)",
            VIRTUAL[1],
            (many - none) / 1_000.0,
            none / 1_000.0,
            many / 1_000.0
        );
    }
    if let (Some(w), Some(flat), Some(shaped)) = (
        common::median_ns("w_44k1_to_48k/256"),
        common::median_ns("w_flat_tree/256"),
        common::median_ns("w_shaped/256"),
    ) {
        println!(
            "\nBus effects, 256 voices: W {:.1} us, 16 buses without effects {:.1} us ({:.2}x), the same with 4 filters, a reverb fed by sends and 2 ducks {:.1} us ({:.2}x W, {:.2}x without effects)",
            w / 1e3,
            flat / 1e3,
            flat / w,
            shaped / 1e3,
            shaped / w,
            shaped / flat
        );
    }
    if let (Some(w), Some(moving), Some(still)) = (
        common::median_ns("w_44k1_to_48k/256"),
        common::median_ns("w_positioned/256"),
        common::median_ns("w_positioned_still/256"),
    ) {
        println!(
            "\nSpace, 256 voices: W {:.1} us, positioned and still {:.1} us ({:.2}x), every voice moved every block {:.1} us ({:.2}x)",
            w / 1e3,
            still / 1e3,
            still / w,
            moving / 1e3,
            moving / w
        );
    }
    let per = (LOOP_VOICES * BLOCK) as f64;
    println!(
        "\nLoops, {LOOP_VOICES} voices (criterion medians; ratios to the 4,800-frame loop at pitch 1 and at the same pitch)"
    );
    let long = |pitch: f32| common::median_ns(&loop_id(4_800, pitch));
    for (frames, pitch) in LOOPS {
        let id = loop_id(frames, pitch);
        match (common::median_ns(&id), long(1.0), long(pitch)) {
            (Some(ns), Some(r1), Some(rp)) => println!(
                "  {id:<28} {:>10.3} ns/voice-frame {:>6.2}x {:>6.2}x",
                ns / per,
                ns / r1,
                ns / rp
            ),
            _ => println!("  {id:<28} (not run)"),
        }
    }
    println!(
        "  kernels: {}",
        if simd_kernels_available() {
            "AVX2 (runtime-detected)"
        } else {
            "portable"
        }
    );
    println!("\nMemory (fixed after start; sample data not counted)");
    println!("  pool slot: {} bytes", slot_bytes());
    for n in VOICES {
        let mut w = Workload::new(n, 44_100);
        let total = w.engine.memory_bytes();
        let game = voicepool::Engine::memory_bytes(&w.engine);
        let audio = w.engine.mixer_mut().memory_bytes();
        println!(
            "  {n:>5} voices: {total:>9} bytes in all: mixer {audio:>9}, game side and queues {game:>9}, render buffer {:>6}",
            total - audio - game
        );
    }
}
