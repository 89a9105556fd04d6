//! Soak run: a long game session simulated offline, as fast as it renders,
//! with a steady churn of plays, stops, parameter changes and steals over a
//! small pool. After every block it checks the pool's invariants (free list
//! plus live voices = pool size, no handle in two slots, id index and victim
//! keys consistent), that the output is finite, within -1..=1 and free of
//! denormals, and that the render path allocated and freed nothing; at the
//! end, that every played handle ended exactly once (Ended, Stolen or
//! Rejected).
//!
//! ```text
//! cargo run --release --example soak -- --hours 24
//! cargo run --release --example soak                  # 0.1 h, a few seconds
//! ```
//!
//! Options: `--hours H` (default 0.1), `--voices N` (default 8),
//! `--seed S` (default 1).

use voicepool_testkit::soak as driver;

#[global_allocator]
static ALLOCATOR: voicepool::alloc_check::CountingAllocator =
    voicepool::alloc_check::CountingAllocator;
use voicepool::alloc_check as counting_alloc;

use counting_alloc::allocations;

fn main() {
    let mut cfg = driver::Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> f64 {
            args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
                eprintln!("soak: {name} needs a number");
                std::process::exit(2)
            })
        };
        match arg.as_str() {
            "--hours" => cfg.hours = value("--hours"),
            "--voices" => cfg.voices = value("--voices") as usize,
            "--seed" => cfg.seed = value("--seed") as u64,
            other => {
                eprintln!("soak: unknown argument {other} (use --hours H, --voices N, --seed S)");
                std::process::exit(2)
            }
        }
    }
    println!(
        "soak: {} simulated hours, {} voices, seed {}",
        cfg.hours, cfg.voices, cfg.seed
    );
    match driver::run(&cfg, allocations, |r| println!("  ... {}", r.summary())) {
        Ok(report) => {
            println!("soak: ok: {}", report.summary());
            println!("soak: output hash {:016x}", report.output_hash);
        }
        Err(e) => {
            eprintln!("soak: FAILED: {e}");
            std::process::exit(1);
        }
    }
}
