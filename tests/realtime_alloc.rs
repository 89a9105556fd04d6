//! The render path allocates and frees nothing: a counting global allocator
//! watches `Mixer::process` while thousands of plays, stops, parameter
//! changes and steals churn through a small pool.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use voicepool::{Engine, EngineSettings, PlayError, PlayParams, Sound, StealPolicy};

struct Counting;

thread_local! {
    // Per thread, so tests running side by side don't see each other.
    static WATCHING: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    static FREES: Cell<usize> = const { Cell::new(0) };
}

fn count(counter: &'static std::thread::LocalKey<Cell<usize>>) {
    if WATCHING.try_with(Cell::get).unwrap_or(false) {
        let _ = counter.try_with(|c| c.set(c.get() + 1));
    }
}

fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

fn frees() -> usize {
    FREES.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(&ALLOCS);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(&ALLOCS);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(&ALLOCS);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(&FREES);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn watched<R>(f: impl FnOnce() -> R) -> R {
    WATCHING.with(|w| w.set(true));
    let r = f();
    WATCHING.with(|w| w.set(false));
    r
}

fn tone(freq: f32, frames: usize, rate: u32, channels: u16) -> Sound {
    let s = (0..frames * channels as usize)
        .map(|i| (i as f32 * freq / rate as f32).sin() * 0.5)
        .collect();
    Sound::from_samples(channels, rate, s).unwrap()
}

#[test]
fn the_counter_sees_an_allocation_when_there_is_one() {
    // Proves the harness can fail: an allocation inside `watched` is counted.
    let before = allocs();
    let v = watched(|| vec![1u8; 64]);
    assert_eq!(v.len(), 64);
    assert!(allocs() > before);
}

#[test]
fn mixing_under_heavy_churn_allocates_and_frees_nothing() {
    let settings = EngineSettings {
        voices: 8,
        command_capacity: 64,
        event_capacity: 32, // small, so the audio side's event queue overflows
        steal_policy: StealPolicy::Quietest,
        ..Default::default()
    };
    let (mut engine, mut mixer) = Engine::new(settings).unwrap();
    let mut sounds = vec![
        tone(440.0, 4_410, 44_100, 1),
        tone(300.0, 24_000, 48_000, 2),
        tone(900.0, 800, 22_050, 1),
    ];
    let mut handles = Vec::new();
    let mut buf = vec![0.0f32; 2 * 1024];
    let (mut played, mut queue_full) = (0u64, 0u64);
    let (before_a, before_f) = (allocs(), frees());

    for i in 0..4_000usize {
        // A fresh sound now and then, whose only game-side reference is
        // dropped while it plays: the audio side must not free it.
        if i % 97 == 0 {
            let short_lived = tone(200.0 + i as f32, 3_000, 32_000, 1);
            engine.play(&short_lived, PlayParams::default()).unwrap();
            sounds.push(short_lived);
            if sounds.len() > 6 {
                sounds.remove(3);
            }
        }
        let bursts = if i % 50 == 0 { 80 } else { 1 + i % 4 };
        for j in 0..bursts {
            let s = &sounds[(i + j) % sounds.len()];
            let p = PlayParams::default()
                .volume((j % 5) as f32 * 0.3)
                .pan(((i + j) % 9) as f32 / 4.0 - 1.0)
                .pitch(0.25 + ((i * 7 + j) % 16) as f32 * 0.25)
                .priority(((i + j) % 4) as u8 * 64)
                .protected(j == 0 && i % 500 == 0)
                .looping((i + j) % 17 == 0);
            match engine.play(s, p) {
                Ok(h) => {
                    played += 1;
                    handles.push(h);
                }
                Err(PlayError::QueueFull) => queue_full += 1,
                Err(e) => panic!("{e}"),
            }
        }
        if let Some(&h) = handles.get(i * 3 % handles.len().max(1)) {
            let _ = engine.set_volume(h, 0.7);
            let _ = engine.set_pan(h, -0.3);
            let _ = engine.set_pitch(h, 1.5);
            if i % 3 == 0 {
                let _ = engine.stop(h);
            }
        }
        if i % 400 == 399 {
            let _ = engine.stop_all();
        }
        if handles.len() > 256 {
            handles.drain(..128);
        }
        // Odd block sizes, including 0 and 1 frame.
        let frames = [0, 1, 7, 64, 480, 1024, 333][i % 7];
        watched(|| mixer.process(&mut buf[..frames * 2]));
        if i % 25 == 0 {
            engine.drain_events().for_each(drop);
        }
    }
    let (allocs, frees) = (allocs() - before_a, frees() - before_f);
    let stats = engine.stats();
    assert_eq!(
        (allocs, frees),
        (0, 0),
        "render path allocated or freed; {stats:?}"
    );
    // The churn really happened.
    assert!(played > 10_000, "{played}");
    assert!(stats.steals > 2_000, "{stats:?}");
    assert!(stats.ended > 100, "{stats:?}");
    assert!(stats.rejections > 0, "{stats:?}");
    // Plays and the set_* calls that found the queue full are all counted.
    assert!(
        queue_full > 0 && stats.dropped_commands >= queue_full,
        "{stats:?}"
    );
    assert!(
        stats.lost_events > 0,
        "event queue never overflowed: {stats:?}"
    );
    assert!(buf.iter().all(|s| s.is_finite()));
    mixer.check_invariants().unwrap();
}
