//! Huge virtual pools: how long the audio side's blocks take with a million
//! virtual voices, when they are stopped all at once and when a thousand
//! one-shots end on one frame, and how soon the game sees them stopped.
//!
//! ```sh
//! cargo run --release --example huge_virtual            # 1,048,576 virtual voices
//! cargo run --release --example huge_virtual -- 100000  # fewer
//! ```
//!
//! Prints, for each phase, the median and worst block (`Mixer::process` on
//! a 480-frame block, 10 ms at 48 kHz), how many blocks until every `Ended`
//! reached the game, and whether `is_playing` read false at once.

use std::time::{Duration, Instant};

use voicepool::limits::MAX_VIRTUAL_VOICES;
use voicepool::{Engine, EngineSettings, Event, Mixer, PlayParams, Sound};

const BLOCK: usize = 480;

struct Timings(Vec<Duration>);

impl Timings {
    fn report(&mut self, what: &str) {
        self.0.sort();
        let n = self.0.len();
        if n == 0 {
            return;
        }
        let median = self.0[n / 2];
        let worst = self.0[n - 1];
        println!(
            "{what}: {n} blocks, median {:.1} us, worst {:.1} us",
            median.as_secs_f64() * 1e6,
            worst.as_secs_f64() * 1e6
        );
    }
}

fn block(mixer: &mut Mixer, out: &mut [f32], t: &mut Timings) {
    let start = Instant::now();
    mixer.process(out);
    t.0.push(start.elapsed());
}

/// 64 real voices, `count` virtual ones, a queue that holds a burst.
fn settings(count: usize) -> EngineSettings {
    EngineSettings {
        voices: 64,
        virtual_voices: count,
        command_capacity: 65_536,
        ..Default::default()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(MAX_VIRTUAL_VOICES);
    let (mut engine, mut mixer) = Engine::new(settings(count))?;
    let mut out = vec![0.0f32; 2 * BLOCK];
    let hum: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.05).sin() * 0.2).collect();
    let hum = Sound::from_samples(1, 48_000, hum)?;
    // The pool's 64 real voices: loud, protected, so every other play
    // goes virtual at once.
    for _ in 0..64 {
        engine.play(&hum, PlayParams::default().looping(true).protected(true))?;
    }
    let mut fill = Timings(Vec::new());
    let mut handles = Vec::with_capacity(count);
    let quiet = PlayParams::default()
        .looping(true)
        .virtualize(true)
        .volume(0.01);
    let t0 = Instant::now();
    while handles.len() < count {
        // As many as the queue takes this block.
        for _ in 0..4_096.min(count - handles.len()) {
            match engine.play(&hum, quiet) {
                Ok(h) => handles.push(h),
                Err(_) => break,
            }
        }
        block(&mut mixer, &mut out, &mut fill);
        engine.drain_events().for_each(drop);
    }
    while engine.stats().virtual_voices < count {
        block(&mut mixer, &mut out, &mut fill);
        engine.drain_events().for_each(drop);
    }
    println!(
        "{count} virtual voices made in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    let stats = engine.stats();
    println!(
        "virtual now {}, real {}",
        stats.virtual_voices, stats.active_voices
    );
    fill.report("filling");

    let mut idle = Timings(Vec::new());
    for _ in 0..200 {
        block(&mut mixer, &mut out, &mut idle);
        engine.drain_events().for_each(drop);
    }
    idle.report("idle, all virtual and looping");

    // Other passes over every virtual voice, still there: a bus resume
    // brings each up to date, and a full virtual pool looks for its least
    // deserving entry for every newcomer.
    let mut resume = Timings(Vec::new());
    engine.pause_bus(engine.master_bus())?;
    for _ in 0..10 {
        block(&mut mixer, &mut out, &mut resume);
    }
    resume.0.clear();
    engine.resume_bus(engine.master_bus())?;
    for _ in 0..10 {
        block(&mut mixer, &mut out, &mut resume);
        engine.drain_events().for_each(drop);
    }
    resume.report("master bus resumed (10 blocks from the resume)");
    let mut full = Timings(Vec::new());
    for _ in 0..20 {
        for _ in 0..8 {
            let _ = engine.play(&hum, quiet.volume(0.5));
        }
        block(&mut mixer, &mut out, &mut full);
        engine.drain_events().for_each(drop);
    }
    full.report("full virtual pool, 8 newcomers a block");

    // A burst far larger than a block takes: the queue holds it, the audio
    // side takes it a bounded number of commands a block.
    let mut burst = Timings(Vec::new());
    let mut queued = 0;
    while queued < 60_000 && engine.play(&hum, quiet.volume(0.3)).is_ok() {
        queued += 1;
    }
    for _ in 0..(queued / 1_024 + 5) {
        block(&mut mixer, &mut out, &mut burst);
        engine.drain_events().for_each(drop);
    }
    burst.report(&format!("a burst of {queued} plays queued at once"));

    // stop_all: every play ends.
    engine.stop_all()?;
    let sample = handles.iter().step_by(997).copied();
    let stopped_at_once = sample.clone().all(|h| !engine.is_playing(h));
    println!("is_playing false at once after stop_all: {stopped_at_once}");
    let mut stop = Timings(Vec::new());
    let t1 = Instant::now();
    while engine.stats().virtual_voices + engine.stats().active_voices > 0 && stop.0.len() < 100_000
    {
        block(&mut mixer, &mut out, &mut stop);
        engine.drain_events().for_each(drop);
    }
    println!(
        "every Ended after {} blocks ({:.1} s of audio, {:.2} s wall)",
        stop.0.len(),
        stop.0.len() as f64 * BLOCK as f64 / 48_000.0,
        t1.elapsed().as_secs_f64()
    );
    if std::env::var_os("HUGE_VIRTUAL_TRACE").is_some() {
        let first: Vec<u128> = stop.0.iter().take(6).map(|d| d.as_micros()).collect();
        println!("first stop_all blocks (us): {first:?}");
    }
    stop.report("stop_all");

    // A thousand virtual one-shots due on one frame.
    let (mut engine, mut mixer) = Engine::new(settings(count))?;
    for _ in 0..64 {
        engine.play(&hum, PlayParams::default().looping(true).protected(true))?;
    }
    let shot = Sound::from_samples(1, 48_000, vec![0.1; 48_000])?;
    let at = 4 * BLOCK as u64;
    let mut shots = Vec::new();
    for _ in 0..1_000 {
        shots.push(engine.play(&shot, quiet.looping(false).start_at(at))?);
    }
    let mut due = Timings(Vec::new());
    let mut blocks_with_ends = 0;
    let mut ended = 0;
    for _ in 0..200 {
        block(&mut mixer, &mut out, &mut due);
        let n = engine
            .drain_events()
            .filter(|e| matches!(e, Event::Ended { .. }))
            .count();
        ended += n;
        blocks_with_ends += usize::from(n > 0);
    }
    if std::env::var_os("HUGE_VIRTUAL_TRACE").is_some() {
        let first: Vec<u128> = due.0.iter().take(12).map(|d| d.as_micros()).collect();
        println!("first blocks (us): {first:?}");
    }
    println!(
        "1,000 virtual one-shots due on one frame: {ended} ended, over {blocks_with_ends} blocks"
    );
    due.report("one-shots");
    Ok(())
}
