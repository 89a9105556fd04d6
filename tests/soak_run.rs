//! A short soak run (see `examples/soak`): two simulated minutes of churn
//! over a small pool, every block checked; and the same session rendered
//! twice gives the same output.

use voicepool_testkit::soak as driver;

#[global_allocator]
static ALLOCATOR: voicepool::alloc_check::CountingAllocator =
    voicepool::alloc_check::CountingAllocator;
use voicepool::alloc_check as counting_alloc;

use counting_alloc::allocations;

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
