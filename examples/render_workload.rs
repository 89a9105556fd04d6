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
//! stereo sounds ([`Workload::stereo`]), `distinct` for a different
//! sound per voice ([`Workload::distinct`]), `positioned` for every voice
//! positioned and moved every block ([`Workload::positioned`]) and
//! `muffled` for every voice also with a cone, air and an occlusion
//! ([`Workload::muffled`]).
//!
//! It prints the time the blocks took per voice-frame (wall clock, the
//! set-up left out): run it a few times, alternating with the binary it is
//! compared to, and compare the medians (`scripts/alternate.py` does that);
//! the figure moves with whatever else the machine runs.
//!
//! `ratio VOICES SLICES [stereo|distinct]` times a workload against W at
//! 256 voices in the same process instead, in alternating slices (four
//! blocks of W, about a fifth of a millisecond here, and as many
//! voice-frames of the other), and prints the quartiles of the per-slice ratios
//! (ns per voice-frame, the workload's over W's): the small-pool goals are
//! such ratios, and slices that close together see the same machine, where
//! separate runs on a shared one differ by a third.
//!
//! ```text
//! target/release/examples/render_workload ratio 8 2000
//! target/release/examples/render_workload ratio 1024 500 distinct
//! ```

use voicepool::bench_support::{Workload, BLOCK};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("ratio") {
        return ratio(&args[1..]);
    }
    let arg = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (voices, rate, blocks) = (arg(0, 256) as usize, arg(1, 44_100) as u32, arg(2, 100));
    let mut w = workload(&args, voices, rate);
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

/// The workload the arguments name (W unless `routed`, `stereo` or
/// `distinct`).
fn workload(args: &[String], voices: usize, rate: u32) -> Workload {
    let has = |name: &str| args.iter().any(|a| a == name);
    if has("routed") {
        Workload::routed(voices, rate)
    } else if has("stereo") {
        Workload::stereo(voices, rate)
    } else if has("distinct") {
        Workload::distinct(voices, rate)
    } else if has("positioned") {
        Workload::positioned(voices, rate)
    } else if has("muffled") {
        Workload::muffled(voices, rate)
    } else {
        Workload::new(voices, rate)
    }
}

/// `ratio VOICES SLICES [stereo|distinct]`: see the module docs.
fn ratio(args: &[String]) {
    let arg = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (voices, slices) = (arg(0, 8).max(1), arg(1, 2000).max(1));
    let mut w = Workload::new(256, 44_100);
    let mut other = workload(args, voices, 44_100);
    // Four blocks of W, and equal voice-frames of the other where VOICES
    // divides 1024.
    let w_blocks = 4;
    let other_blocks = (w_blocks * 256 / voices).max(1);
    let mut sum = 0.0f64;
    let mut time = |w: &mut Workload, blocks: usize, voices: usize| {
        let start = std::time::Instant::now();
        for _ in 0..blocks {
            sum += f64::from(w.block());
        }
        start.elapsed().as_nanos() as f64 / (blocks * BLOCK * voices) as f64
    };
    let mut ratios: Vec<f64> = (0..slices)
        .map(|_| {
            let base = time(&mut w, w_blocks, 256);
            time(&mut other, other_blocks, voices) / base
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f) as usize];
    let kind = args.get(2).map_or("", String::as_str);
    println!(
        "{voices} voices {kind} against W at 256, {slices} slices: ratio quartiles {:.3} {:.3} {:.3} (checksum {sum})",
        q(0.25),
        q(0.5),
        q(0.75)
    );
}
