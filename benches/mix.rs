//! Issue 4's mixing targets, through the public API.
//!
//! - `w_44k1_to_48k/N`: workload W ([`Workload`]): N voices looping one-second
//!   44.1 kHz mono sounds, resampled to 48 kHz stereo with volume, pan and
//!   ramps, in 480-frame blocks. Target: 1.0 ns per voice-frame or better.
//! - `rate_matched_48k/N`: the same with 48 kHz sounds at pitch 1.0 (the
//!   exact-step fast path). Target: 0.3 ns per voice-frame or better.
//! - `w_portable/256`: workload W on the portable kernels (what a CPU
//!   without AVX2 runs).
//!
//! Throughput is counted in voice-frames, so criterion's `thrpt` of X Gelem/s
//! is 1/X ns per voice-frame; a table of medians in ns per voice-frame and
//! the engine's memory are printed at the end.
//!
//! `cargo bench --bench mix`

mod common;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use voicepool::bench_support::{simd_kernels_available, slot_bytes, Workload, BLOCK};

const VOICES: [usize; 3] = [32, 256, 1024];

fn bench_workload(c: &mut Criterion, name: &str, rate: u32, voices: &[usize], portable: bool) {
    let mut g = c.benchmark_group(name);
    for &n in voices {
        let mut w = Workload::new(n, rate);
        if portable {
            w.engine.mixer_mut().force_portable_kernels();
        }
        g.throughput(Throughput::Elements((n * BLOCK) as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| w.block()));
    }
    g.finish();
}

fn workload_w(c: &mut Criterion) {
    bench_workload(c, "w_44k1_to_48k", 44_100, &VOICES, false);
}

fn rate_matched(c: &mut Criterion) {
    bench_workload(c, "rate_matched_48k", 48_000, &VOICES, false);
}

fn portable(c: &mut Criterion) {
    bench_workload(c, "w_portable", 44_100, &[256], true);
}

criterion_group!(benches, workload_w, rate_matched, portable);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if !common::benchmarking() {
        return; // `cargo test` runs each bench once: no figures to report
    }
    let mut rows = Vec::new();
    for group in ["w_44k1_to_48k", "rate_matched_48k"] {
        for n in VOICES {
            rows.push((format!("{group}/{n}"), (n * BLOCK) as f64, "voice-frame"));
        }
    }
    rows.push(("w_portable/256".into(), (256 * BLOCK) as f64, "voice-frame"));
    common::print_medians("Mixing", &rows);
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
