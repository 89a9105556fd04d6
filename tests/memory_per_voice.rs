//! What a voice costs in memory, measured on the heap, against what the
//! engine reports (`Engine::memory_bytes` + `Mixer::memory_bytes`) and what
//! the docs say: all made when the engine is, none of it growing with the
//! first positioned play. Its own test binary: a byte-counting global
//! allocator sees every allocation of the process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};

use voicepool::{Engine, EngineSettings, PlayParams, Sound};

struct Tracking;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; only
// an atomic byte count is kept beside.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Relaxed);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Relaxed);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Relaxed);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Relaxed);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

/// Heap bytes of an engine made with `settings`, what it reports, and
/// what its first positioned play added to the heap.
fn measure(settings: EngineSettings) -> (isize, isize, isize) {
    let sound = Sound::from_samples(1, 48_000, vec![0.1; 480]).unwrap();
    let before = LIVE.load(Relaxed);
    let (engine, mut mixer) = Engine::new(settings).unwrap();
    let heap = LIVE.load(Relaxed) - before;
    let reported = (engine.memory_bytes() + mixer.memory_bytes()) as isize;
    let at = LIVE.load(Relaxed);
    engine
        .play(&sound, PlayParams::default().position([1.0, 0.0, 0.0]))
        .unwrap();
    mixer.process(&mut [0.0; 2 * 64]);
    let first_play = LIVE.load(Relaxed) - at;
    (heap, reported, first_play)
}

#[test]
fn a_virtual_voice_costs_what_the_docs_and_memory_bytes_say() {
    let n = 65_536;
    let (base_heap, base_reported, _) = measure(EngineSettings::default());
    let (heap, reported, first_play) = measure(EngineSettings {
        virtual_voices: n,
        ..Default::default()
    });
    let per_heap = (heap - base_heap) as f64 / n as f64;
    let per_reported = (reported - base_reported) as f64 / n as f64;
    eprintln!(
        "a virtual voice: {per_heap:.0} bytes on the heap, {per_reported:.0} reported; \
         the engine: {heap} bytes on the heap, {reported} reported; \
         the first positioned play added {first_play} bytes"
    );
    // The report agrees with the heap, per voice and whole.
    assert!(
        (per_reported / per_heap - 1.0).abs() < 0.05,
        "{per_reported} vs {per_heap}"
    );
    assert!(
        (reported as f64 / heap as f64 - 1.0).abs() < 0.05,
        "{reported} reported, {heap} on the heap"
    );
    // The first positioned play allocates no table (a few bytes for the
    // sound kept alive on the game side at most).
    assert!(first_play < 1_024, "{first_play}");
    // What the docs say a virtual voice costs.
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/control/settings.rs"
    ))
    .unwrap();
    let said = docs
        .split("About ")
        .nth(1)
        .and_then(|s| s.split(" bytes each").next())
        .and_then(|s| s.parse::<f64>().ok())
        .expect("settings.rs says what a virtual voice costs");
    assert!(
        (said / per_heap - 1.0).abs() < 0.1,
        "the docs say {said}, the heap {per_heap:.0}"
    );
}
