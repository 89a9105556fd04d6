//! Memory for a long streamed file stays bounded: a 10-minute stereo OGG
//! Vorbis streamed (played, a seek far into it, played on) costs a few
//! hundred kilobytes (its slot's ring and staging, allocated with the
//! engine, plus the decoder's state), where decoding it whole takes over
//! 200 MB. Measured with a global allocator that tracks live heap bytes;
//! the figures are printed (`cargo test --test stream_memory -- --nocapture`).

use voicepool_testkit::support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use support::Scratch;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};

struct Tracking;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(now, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let now = LIVE.fetch_add(new_size, Relaxed) + new_size;
        PEAK.fetch_max(now, Relaxed);
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

#[test]
fn a_ten_minute_stream_holds_a_few_hundred_kilobytes() {
    let dir = Scratch::new("stream-memory");
    let file = dir.path("ten_minutes.ogg");
    support::sox(&[
        "-n",
        "-r",
        "44100",
        "-c",
        "2",
        file.to_str().unwrap(),
        "synth",
        "600",
        "sine",
        "440",
        "sine",
        "660",
        "gain",
        "-6",
    ]);
    let settings = EngineSettings {
        streams: 1,
        ..Default::default()
    };
    let ring = settings.stream_buffer_frames * 2 * 4;
    let before_engine = LIVE.load(Relaxed);
    let mut engine = OfflineEngine::new(settings).unwrap();
    let engine_bytes = LIVE.load(Relaxed) - before_engine;
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let music = Sound::stream_file(&file).unwrap();
    let opening = PEAK.load(Relaxed) - base;
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let minutes = music.duration_seconds() / 60.0;
    assert!((minutes - 10.0).abs() < 0.01, "{minutes}");
    let h = engine.play(&music, PlayParams::default()).unwrap();
    for _ in 0..250 {
        engine.render(1_920); // 10 s
    }
    engine.seek(h, Duration::from_secs(9 * 60)).unwrap();
    for _ in 0..125 {
        engine.render(1_920);
    }
    assert!(engine.is_playing(h));
    assert_eq!(engine.stats().stream_underruns, 0);
    engine.drain_events().for_each(drop);
    let streaming = PEAK.load(Relaxed) - base;
    let whole = music.frames() * 2 * 4;
    eprintln!(
        "10-minute stereo OGG: opening it took {} KB for a moment; streaming it peaked at \
         {} KB of heap beyond the engine (the decoder's state and buffers), plus its slot's {} KB ring and staging \
         allocated with the engine ({} KB for an engine with 1 stream); decoded whole \
         it would be {} MB",
        opening / 1024,
        streaming / 1024,
        (ring + 2 * (4_096 + 16) * 4) / 1024,
        engine_bytes / 1024,
        whole / (1 << 20)
    );
    assert!(whole > 200 << 20);
    assert!(streaming + ring < 1 << 20, "{streaming} bytes");
}
