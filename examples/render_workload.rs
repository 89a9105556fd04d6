//! Renders workload W (see `benches/mix.rs`) for a number of blocks, for
//! counting instructions under a profiler:
//!
//! ```text
//! cargo build --release --example render_workload
//! valgrind --tool=callgrind target/release/examples/render_workload 256 44100 100
//! ```
//!
//! Arguments: voices (default 256), source rate in Hz (default 44100),
//! blocks (default 100), `portable` to use the portable kernels,
//! `routed` to put every voice on a bus and in a group, `stereo` for
//! stereo sounds ([`Workload::stereo`]), and `distinct` for a different
//! sound per voice ([`Workload::distinct`]).
//!
//! It prints the time the blocks took per voice-frame (wall clock, the
//! set-up left out): run it a few times, alternating with the binary it is
//! compared to, and compare the medians (`scripts/alternate.py` does that);
//! the figure moves with whatever else the machine runs.

use voicepool::bench_support::{Workload, BLOCK};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("ratio") {
        return ratio(&args[1..]);
    }
    let arg = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (voices, rate, blocks) = (arg(0, 256) as usize, arg(1, 44_100) as u32, arg(2, 100));
    let mut w = if args.iter().any(|a| a == "routed") {
        Workload::routed(voices, rate)
    } else if args.iter().any(|a| a == "stereo") {
        Workload::stereo(voices, rate)
    } else if args.iter().any(|a| a == "distinct") {
        Workload::distinct(voices, rate)
    } else {
        Workload::new(voices, rate)
    };
    if args.iter().any(|a| a == "portable") {
        w.engine.mixer_mut().force_portable_kernels();
    }
    let mut sum = 0.0f64;
    let start = std::time::Instant::now();
    for _ in 0..blocks {
        sum += f64::from(w.block());
    }
    let ns = start.elapsed().as_nanos() as f64;
    let voice_frames = voices as u64 * blocks * BLOCK as u64;
    println!(
        "{voices} voices, {rate} Hz sources, {blocks} blocks of {BLOCK} frames ({voice_frames} voice-frames); checksum {sum}; {:.3} ns per voice-frame",
        ns / voice_frames.max(1) as f64
    );
}

/// `ratio VOICES SLICES`: W with `VOICES` voices against W at 256 voices
/// in alternating slices of equal voice-frames (about a millisecond each),
/// so that the machine's slow and quick spells fall on both alike; prints
/// the quartiles of the per-slice ratios (small / 256).
fn ratio(args: &[String]) {
    let arg = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (voices, slices) = (arg(0, 8), arg(1, 2000));
    let mut big = Workload::new(256, 44_100);
    let mut small = Workload::new(voices, 44_100);
    let big_blocks = 4;
    let small_blocks = (big_blocks * 256 / voices).max(1);
    let mut sum = 0.0f64;
    let mut time = |w: &mut Workload, blocks: usize| {
        let start = std::time::Instant::now();
        for _ in 0..blocks {
            sum += f64::from(w.block());
        }
        start.elapsed().as_nanos() as f64 / (blocks * BLOCK) as f64
    };
    let mut ratios: Vec<f64> = (0..slices)
        .map(|_| {
            let b = time(&mut big, big_blocks) / 256.0;
            let s = time(&mut small, small_blocks) / voices as f64;
            s / b
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f) as usize];
    println!(
        "{voices} voices against 256, {slices} slices: ratio quartiles {:.3} {:.3} {:.3} (checksum {sum})",
        q(0.25),
        q(0.5),
        q(0.75)
    );
}
