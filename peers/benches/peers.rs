//! voicepool, kira, oddio and rodio on the same workload, side by side: workload W
//! (voicepool's `w_44k1_to_48k`; see `src/lib.rs`) at 8, 32, 256 and 1024
//! voices, each library through its public API. One iteration is one
//! 480-frame block (10 ms at 48 kHz): a sixteenth of the voices given a new
//! volume, then the block rendered. Criterion's `thrpt` counts
//! voice-frames (X Gelem/s is 1/X ns per voice-frame); a table of medians
//! follows the run.
//!
//! `cargo bench --manifest-path peers/Cargo.toml`
//! (shorter: append `-- --measurement-time 3 --warm-up-time 1`)

use std::path::PathBuf;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use voicepool_peers::kira_peer::Kira;
use voicepool_peers::oddio_peer::Oddio;
use voicepool_peers::rodio_peer::Rodio;
use voicepool_peers::voicepool_peer::Voicepool;
use voicepool_peers::{Peer, Workload, BLOCK};

const VOICES: [usize; 4] = [8, 32, 256, 1024];
const LIBRARIES: [&str; 4] = ["voicepool", "kira", "oddio", "rodio"];

fn bench<P: Peer>(c: &mut Criterion, library: &str, make: fn(usize) -> P) {
    let mut g = c.benchmark_group(library);
    for n in VOICES {
        let mut w = Workload::new(make(n), n);
        // Not timed doing nothing: the block must sound.
        let peak = w.peak();
        assert!(
            peak > 0.01,
            "{library} at {n} voices is silent (peak {peak})"
        );
        g.throughput(Throughput::Elements((n * BLOCK) as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| w.block()));
    }
    g.finish();
}

fn peers(c: &mut Criterion) {
    bench(c, "voicepool", Voicepool::new);
    bench(c, "kira", Kira::new);
    bench(c, "oddio", Oddio::new);
    bench(c, "rodio", Rodio::new);
}

criterion_group!(benches, peers);

/// Criterion's median for `id`, in ns, read back from its estimates.
fn median_ns(id: &str) -> Option<f64> {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| "target".into(), PathBuf::from);
    let path = target.join("criterion").join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let median = &text[text.find("\"median\"")?..];
    let rest = &median[median.find("\"point_estimate\":")? + 17..];
    rest[..rest.find([',', '}'])?].trim().parse().ok()
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test") {
        return; // `cargo test` runs each bench once: no figures
    }
    println!("\nWorkload W, criterion medians: us per {BLOCK}-frame block (ns per voice-frame)");
    print!("{:>7}", "voices");
    LIBRARIES.iter().for_each(|lib| print!(" {lib:>20}"));
    println!();
    for n in VOICES {
        let cell = |lib: &str| match median_ns(&format!("{lib}/{n}")) {
            Some(ns) => format!("{:.2} ({:.3})", ns / 1e3, ns / (n * BLOCK) as f64),
            None => "not run".into(),
        };
        print!("{n:>7}");
        LIBRARIES
            .iter()
            .for_each(|lib| print!(" {:>20}", cell(lib)));
        println!();
    }
}
