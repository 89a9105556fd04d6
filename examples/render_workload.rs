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
