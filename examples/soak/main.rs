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

mod driver;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts this thread's allocations, reallocations and frees.
struct Counting;

thread_local! {
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: during thread teardown the counter may be gone.
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        bump();
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> u64 {
    COUNT.with(Cell::get)
}

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
