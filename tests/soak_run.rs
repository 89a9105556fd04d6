//! A short soak run (see `examples/soak`): two simulated minutes of churn
//! over a small pool, every block checked; and the same session rendered
//! twice gives the same output.

#[path = "../examples/soak/driver.rs"]
#[allow(dead_code)]
mod driver;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts this thread's allocations, reallocations and frees (the test
/// harness runs other tests on other threads at the same time).
struct Counting;

thread_local! {
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn bump() {
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

#[test]
fn short_soak_keeps_every_invariant() {
    let cfg = driver::Config {
        hours: 2.0 / 60.0,
        voices: 6,
        seed: 7,
        ..Default::default()
    };
    let report = driver::run(&cfg, allocations, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.summary());
    assert!(report.simulated_seconds() >= 120.0);
    assert!(
        report.steals > 100,
        "too few steals to mean much: {}",
        report.summary()
    );
    assert!(report.ended > 100 && report.started > 1_000);
    assert_eq!(report.render_allocations, 0);
}

#[test]
fn the_allocation_counter_sees_allocations() {
    let before = allocations();
    let v = std::hint::black_box(vec![1u8; 100]);
    drop(v);
    assert_eq!(allocations() - before, 2);
}

#[test]
fn a_session_renders_the_same_twice() {
    let cfg = driver::Config {
        hours: 10.0 / 3600.0,
        voices: 4,
        seed: 3,
        ..Default::default()
    };
    let a = driver::run(&cfg, allocations, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let b = driver::run(&cfg, allocations, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.output_hash, b.output_hash);
    assert_eq!(a.frames, b.frames);
}
