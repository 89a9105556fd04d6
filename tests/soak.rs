//! Long life, simulated: a game loop at 60 fps drives an offline engine in
//! 256-frame blocks (as a device callback would) for a few minutes of audio,
//! playing, stopping and re-voicing sounds at game-like rates, loading new
//! sounds and dropping old ones. Throughout: output finite and bounded, pool
//! invariants, exactly one terminal event per play, stats that agree, and a
//! heap that does not grow once warmed up (a counting allocator watches it).
//!
//! 3 simulated minutes by default (a few seconds in debug); set
//! `VOICEPOOL_SOAK_MINUTES` for longer.

use voicepool_testkit::support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use support::voice_of;
use voicepool::{
    EngineSettings, Event, OfflineEngine, PlayError, PlayParams, Sound, StealPolicy, VoiceHandle,
};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwards the caller's layout to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A new sound of a random kind: a short one-shot, a longer one, or a loop.
fn make_sound(rng: &mut Rng, generation: u64) -> Sound {
    let frames = [120, 2_400, 24_000, 96_000][rng.below(4) as usize];
    let rate = [22_050, 44_100, 48_000][rng.below(3) as usize];
    let channels = 1 + rng.below(2) as u16;
    let f = 0.01 + rng.unit() * 0.2;
    let samples: Vec<f32> = (0..frames * channels as usize)
        .map(|i| (i as f32 * f).sin() * (1.0 - i as f32 / (frames * 2) as f32))
        .collect();
    Sound::from_samples(channels, rate, samples)
        .unwrap()
        .with_name(&format!("gen{generation}"))
}

#[test]
fn minutes_of_game_like_use_keep_every_promise_and_no_memory_grows() {
    let minutes: u64 = std::env::var("VOICEPOOL_SOAK_MINUTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let rate = 48_000u64;
    let block = 256usize;
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 24,
        steal_policy: StealPolicy::Quietest,
        command_capacity: 64,
        event_capacity: 1024,
        min_voice_age: Duration::from_millis(20),
        ..Default::default()
    })
    .unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut sounds: Vec<Sound> = (0..6).map(|g| make_sound(&mut rng, g)).collect();
    let mut generation = 6;

    let mut playing: HashSet<VoiceHandle> = HashSet::with_capacity(4_096);
    let mut recent: Vec<VoiceHandle> = Vec::with_capacity(64);
    let (mut accepted, mut terminal, mut queue_full) = (0u64, 0u64, 0u64);
    let mut rendered = 0u64;
    let mut baseline: Option<usize> = None;
    let mut peak_after_warmup = 0usize;
    let total_frames = minutes * 60 * rate;
    let mut next_frame_at = 0u64; // game frames at 60 fps, in output frames
    let mut next_second = rate;
    while rendered < total_frames {
        // The game's frame: a few plays, stops and tweaks.
        if rendered >= next_frame_at {
            next_frame_at += rate / 60;
            for _ in 0..rng.below(4) {
                let s = &sounds[rng.below(sounds.len() as u64) as usize];
                let looping = rng.below(40) == 0;
                let params = PlayParams::default()
                    .volume(rng.unit())
                    .pan(rng.unit() * 2.0 - 1.0)
                    .pitch(0.5 + rng.unit() * 1.5)
                    .priority(rng.below(4) as u8 * 64)
                    .looping(looping);
                match engine.play(s, params) {
                    Ok(h) => {
                        accepted += 1;
                        playing.insert(h);
                        if recent.len() == 64 {
                            recent.remove(0);
                        }
                        recent.push(h);
                    }
                    Err(PlayError::QueueFull) => queue_full += 1,
                    Err(e) => panic!("{e}"),
                }
            }
            if !recent.is_empty() && rng.below(8) == 0 {
                let h = recent[rng.below(recent.len() as u64) as usize];
                match engine.stop(h) {
                    Ok(()) => {}
                    Err(PlayError::QueueFull) => queue_full += 1,
                    Err(e) => panic!("{e}"),
                }
            }
            if !recent.is_empty() && rng.below(6) == 0 {
                let h = recent[rng.below(recent.len() as u64) as usize];
                match engine.set_volume(h, rng.unit()) {
                    Ok(()) => {}
                    Err(PlayError::QueueFull) => queue_full += 1,
                    Err(e) => panic!("{e}"),
                }
            }
            for ev in engine.drain_events() {
                if ev.is_terminal() {
                    assert!(
                        playing.remove(&voice_of(&ev).unwrap()),
                        "second terminal event {ev:?}"
                    );
                    terminal += 1;
                } else {
                    assert!(matches!(ev, Event::Started { .. }));
                    assert!(
                        playing.contains(&voice_of(&ev).unwrap()),
                        "{ev:?} after its end"
                    );
                }
            }
        }
        let out = engine.render(block);
        assert!(out.iter().all(|s| s.is_finite() && s.abs() <= 1.0));
        rendered += block as u64;

        if rendered >= next_second {
            next_second += rate;
            engine.check_invariants().unwrap();
            let st = engine.stats();
            assert_eq!(st.lost_events, 0, "{st:?}");
            assert_eq!(st.dropped_commands, queue_full);
            assert_eq!(st.frames_rendered, rendered);
            assert!(st.active_voices <= 24);
            // Every ten seconds: a new sound replaces an old one, which the
            // game drops (voices may still be playing it).
            if (rendered / rate).is_multiple_of(10) {
                let i = rng.below(sounds.len() as u64) as usize;
                sounds[i] = make_sound(&mut rng, generation);
                generation += 1;
            }
            // Every 30 seconds the level ends: stop everything.
            if (rendered / rate).is_multiple_of(30)
                && engine.stop_all() == Err(PlayError::QueueFull)
            {
                queue_full += 1;
            }
            // Heap: the first minute is warm-up (queues, sets and buffers
            // reach their working size); after it, no growth.
            let live = LIVE.load(Relaxed);
            if rendered / rate == 60 {
                baseline = Some(live);
            } else if baseline.is_some() {
                peak_after_warmup = peak_after_warmup.max(live);
            }
        }
    }
    // Wind down: stop all, render until every voice has ended.
    while engine.stop_all() == Err(PlayError::QueueFull) {
        queue_full += 1;
        engine.render(block);
    }
    for _ in 0..100 {
        engine.render(4_800);
    }
    for ev in engine.drain_events() {
        if ev.is_terminal() {
            assert!(
                playing.remove(&voice_of(&ev).unwrap()),
                "second terminal event {ev:?}"
            );
            terminal += 1;
        }
    }
    assert!(playing.is_empty(), "{} plays never ended", playing.len());
    assert_eq!(terminal, accepted);
    let st = engine.stats();
    assert_eq!(st.steals + st.rejections + st.ended, accepted, "{st:?}");
    assert_eq!(st.active_voices, 0);
    assert_eq!(st.dropped_commands, queue_full);
    assert!(
        accepted > minutes * 60 * 60,
        "the soak played too little: {st:?}"
    );
    assert!(st.steals > 0, "the pool never filled: {st:?}");

    // The game drops its sounds: nothing is held for the audio side any more.
    drop(sounds);
    engine.drain_events().for_each(drop);
    assert_eq!(engine.sounds_in_flight(), 0);

    eprintln!(
        "soak: heap {baseline:?} bytes after warm-up, peak {peak_after_warmup} after; {st:?}"
    );
    if let Some(base) = baseline {
        // Sounds are up to 96 000 stereo frames (768 KB); one being replaced
        // while a voice still plays it can add one more for a moment.
        let slack = 2 << 20;
        assert!(
            peak_after_warmup <= base + slack,
            "heap grew from {base} to {peak_after_warmup} bytes after warm-up"
        );
    }
}
