//! The soak run: a long game session simulated offline, as fast as it
//! renders, checking after every block that nothing has gone wrong.
//!
//! Shared by `examples/soak` (long runs: `--hours 24`) and `tests/soak_run.rs`
//! (a short run in the test suite). The binary that runs it supplies an
//! allocation counter (a counting `#[global_allocator]`), so that the render
//! path can be shown to allocate and free nothing.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use voicepool::bench_support::SplitMix;
use voicepool::{Engine, EngineSettings, Event, PlayParams, Sound, StealPolicy, VoiceHandle};

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Config {
    /// Simulated session length, in hours.
    pub hours: f64,
    /// Pool size (small, so that voices are stolen all the time).
    pub voices: usize,
    /// Seed of the script (the same seed renders the same session).
    pub seed: u64,
    /// Output rate, Hz.
    pub sample_rate: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hours: 0.1,
            voices: 8,
            seed: 1,
            sample_rate: 48_000,
        }
    }
}

/// What happened.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub frames: u64,
    pub blocks: u64,
    pub plays: u64,
    pub queue_full: u64,
    pub started: u64,
    pub steals: u64,
    pub rejections: u64,
    pub ended: u64,
    pub stops: u64,
    pub param_changes: u64,
    pub stop_alls: u64,
    pub peak_active: usize,
    /// Allocations plus frees counted inside `Mixer::process`.
    pub render_allocations: u64,
    /// Engine memory (game side, queues, mixer) in bytes, measured after
    /// the first thousand blocks and checked unchanged at the end.
    pub engine_memory: usize,
    /// FNV-1a hash of every output sample's bits (determinism check).
    pub output_hash: u64,
    pub wall: Duration,
    pub sample_rate: u32,
}

impl Report {
    pub fn simulated_seconds(&self) -> f64 {
        self.frames as f64 / f64::from(self.sample_rate)
    }

    /// Simulated time over wall-clock time.
    pub fn speed(&self) -> f64 {
        self.simulated_seconds() / self.wall.as_secs_f64().max(1e-9)
    }

    pub fn summary(&self) -> String {
        format!(
            "{:.3} simulated hours, {} frames in {} blocks; {} plays ({} started, {} stolen, {} rejected, {} ended, {} queue-full), {} stops, {} parameter changes, {} stop-alls; peak {} voices; {} allocations on the render path; engine memory {} bytes throughout; {:.0}x real time ({:.1} s wall)",
            self.simulated_seconds() / 3600.0,
            self.frames,
            self.blocks,
            self.plays,
            self.started,
            self.steals,
            self.rejections,
            self.ended,
            self.queue_full,
            self.stops,
            self.param_changes,
            self.stop_alls,
            self.peak_active,
            self.render_allocations,
            self.engine_memory,
            self.speed(),
            self.wall.as_secs_f64(),
        )
    }
}

/// The sounds a session uses: one-shots and loops, mono and stereo, at
/// several rates, from one frame long to a second, with a loud attack and
/// a silent tail among them.
fn sounds() -> Vec<(Sound, bool)> {
    let tone = |channels: u16, rate: u32, frames: usize, f: f32, amp: f32| {
        let s: Vec<f32> = (0..frames * channels as usize)
            .map(|i| {
                let t = (i / channels as usize) as f32 / rate as f32;
                amp * (std::f32::consts::TAU * f * t).sin()
            })
            .collect();
        Sound::from_samples(channels, rate, s).expect("valid sound")
    };
    let decay: Vec<f32> = (0..24_000)
        .map(|i| {
            let t = i as f32 / 48_000.0;
            (t * 1_500.0).sin() * (-t * 30.0).exp()
        })
        .collect();
    vec![
        (tone(1, 48_000, 2_400, 880.0, 0.6), false),
        (tone(1, 44_100, 22_050, 220.0, 0.5), false),
        (tone(2, 22_050, 6_615, 440.0, 0.7), false),
        (tone(1, 48_000, 48_000, 110.0, 0.3), true),
        (tone(2, 44_100, 44_100, 330.0, 0.4), true),
        (Sound::from_samples(1, 48_000, decay).expect("valid"), false),
        (
            Sound::from_samples(1, 8_000, vec![0.9]).expect("valid"),
            false,
        ),
        (
            Sound::from_samples(2, 96_000, vec![0.5, -0.5, -0.5, 0.5]).expect("valid"),
            true,
        ),
    ]
}

/// Runs the session. `allocations` reads the calling thread's count of
/// allocations and frees; `progress` is called now and then with the
/// report so far. Returns the report, or what went wrong and when.
pub fn run(
    cfg: &Config,
    allocations: fn() -> u64,
    mut progress: impl FnMut(&Report),
) -> Result<Report, String> {
    let settings = EngineSettings {
        voices: cfg.voices,
        steal_policy: StealPolicy::Quietest,
        sample_rate: cfg.sample_rate,
        ..Default::default()
    };
    let (mut engine, mut mixer) = Engine::new(settings).map_err(|e| e.to_string())?;
    let sounds = sounds();
    let mut rng = SplitMix(cfg.seed);
    let mut out = vec![0.0f32; 2 * 2_048];
    let total_frames = (cfg.hours * 3600.0 * f64::from(cfg.sample_rate)) as u64;
    let mut report = Report {
        sample_rate: cfg.sample_rate,
        output_hash: 0xcbf2_9ce4_8422_2325,
        ..Default::default()
    };
    // Every handle played and not yet ended: whether it has started.
    let mut outstanding: HashMap<VoiceHandle, bool> = HashMap::new();
    let mut playing: Vec<VoiceHandle> = Vec::new();
    let start = Instant::now();
    let mut next_progress = start + Duration::from_secs(10);
    let mut finishing = false;
    loop {
        if report.frames >= total_frames && !finishing {
            finishing = true;
            engine.stop_all().map_err(|e| format!("stop_all: {e}"))?;
        }
        if !finishing {
            script_block(
                &engine,
                &sounds,
                &mut rng,
                &mut report,
                &mut outstanding,
                &playing,
            )?;
        }
        // Mostly 10 ms blocks; now and then an odd size (one frame, or
        // more than the mix bus holds).
        let frames = match rng.below(100) {
            0 => 1,
            1 => 1 + rng.below(2_048) as usize,
            _ => 480,
        };
        let block = &mut out[..2 * frames];
        let before = allocations();
        mixer.process(block);
        report.render_allocations += allocations() - before;
        report.frames += frames as u64;
        report.blocks += 1;
        for (i, &s) in block.iter().enumerate() {
            if !s.is_finite() || s.abs() > 1.0 || s.is_subnormal() {
                return Err(format!(
                    "sample {i} of block {} is {s} (frame {})",
                    report.blocks, report.frames
                ));
            }
            report.output_hash =
                (report.output_hash ^ u64::from(s.to_bits())).wrapping_mul(0x0000_0100_0000_01B3);
        }
        mixer
            .check_invariants()
            .map_err(|e| format!("after block {}: {e}", report.blocks))?;
        for event in engine.drain_events() {
            account(event, &mut report, &mut outstanding, &mut playing)
                .map_err(|e| format!("block {}: {e}", report.blocks))?;
        }
        let stats = engine.stats();
        report.peak_active = report.peak_active.max(stats.active_voices);
        if stats.active_voices > cfg.voices || stats.lost_events != 0 {
            return Err(format!("block {}: bad stats {stats:?}", report.blocks));
        }
        if finishing && outstanding.is_empty() {
            break;
        }
        if finishing && report.frames > total_frames + 10 * u64::from(cfg.sample_rate) {
            return Err(format!(
                "{} voices never ended: {:?}",
                outstanding.len(),
                outstanding.keys().take(5).collect::<Vec<_>>()
            ));
        }
        if report.blocks == 1_000 {
            report.engine_memory = engine.memory_bytes() + mixer.memory_bytes();
        }
        if report.blocks.is_multiple_of(4096) && Instant::now() >= next_progress {
            report.wall = start.elapsed();
            progress(&report);
            next_progress += Duration::from_secs(10);
        }
    }
    report.wall = start.elapsed();
    if report.render_allocations != 0 {
        return Err(format!(
            "{} allocations or frees on the render path",
            report.render_allocations
        ));
    }
    let memory = engine.memory_bytes() + mixer.memory_bytes();
    if report.blocks > 1_000 && memory != report.engine_memory {
        return Err(format!(
            "engine memory went from {} to {memory} bytes",
            report.engine_memory
        ));
    }
    let played = report.plays;
    let terminal = report.steals + report.rejections + report.ended;
    if played != terminal {
        return Err(format!("{played} plays but {terminal} terminal events"));
    }
    Ok(report)
}

/// The game's side of one block: a few plays, stops and parameter changes.
fn script_block(
    engine: &Engine,
    sounds: &[(Sound, bool)],
    rng: &mut SplitMix,
    report: &mut Report,
    outstanding: &mut HashMap<VoiceHandle, bool>,
    playing: &[VoiceHandle],
) -> Result<(), String> {
    let plays = match rng.below(10) {
        0..=4 => 0,
        5..=8 => 1,
        _ => 1 + rng.below(4),
    };
    for _ in 0..plays {
        let (sound, looping) = &sounds[rng.below(sounds.len() as u64) as usize];
        let params = PlayParams::default()
            .volume(rng.unit() * 1.2)
            .pan(rng.unit() * 2.0 - 1.0)
            .pitch(if rng.chance(0.7) {
                1.0
            } else {
                0.25 + rng.unit() * 3.0
            })
            .priority([64, 128, 128, 200][rng.below(4) as usize])
            .protected(*looping && rng.chance(0.05))
            .fade_in(if rng.chance(0.3) {
                rng.unit() * 0.05
            } else {
                0.0
            })
            .looping(*looping);
        match engine.play(sound, params) {
            Ok(h) => {
                report.plays += 1;
                if outstanding.insert(h, false).is_some() {
                    return Err(format!("handle {h:?} issued twice"));
                }
            }
            Err(voicepool::PlayError::QueueFull) => report.queue_full += 1,
            Err(e) => return Err(format!("play: {e}")),
        }
    }
    if !playing.is_empty() {
        let pick = |rng: &mut SplitMix| playing[rng.below(playing.len() as u64) as usize];
        if rng.chance(0.15) {
            engine.stop(pick(rng)).map_err(|e| format!("stop: {e}"))?;
            report.stops += 1;
        }
        if rng.chance(0.2) {
            let h = pick(rng);
            let r = match rng.below(3) {
                0 => engine.set_volume(h, rng.unit()),
                1 => engine.set_pan(h, rng.unit() * 2.0 - 1.0),
                _ => engine.set_pitch(h, 0.5 + rng.unit()),
            };
            r.map_err(|e| format!("set: {e}"))?;
            report.param_changes += 1;
        }
    }
    if rng.chance(0.000_2) {
        engine.stop_all().map_err(|e| format!("stop_all: {e}"))?;
        report.stop_alls += 1;
    }
    Ok(())
}

/// Books one event, checking that each handle starts at most once and ends
/// exactly once.
fn account(
    event: Event,
    report: &mut Report,
    outstanding: &mut HashMap<VoiceHandle, bool>,
    playing: &mut Vec<VoiceHandle>,
) -> Result<(), String> {
    let forget = |playing: &mut Vec<VoiceHandle>, h: VoiceHandle| {
        if let Some(i) = playing.iter().position(|&p| p == h) {
            playing.swap_remove(i);
        }
    };
    match event {
        Event::Started { voice } => match outstanding.get_mut(&voice) {
            Some(started @ false) => {
                *started = true;
                playing.push(voice);
                report.started += 1;
            }
            Some(true) => return Err(format!("{voice:?} started twice")),
            None => return Err(format!("{voice:?} started but was never played")),
        },
        Event::Stolen { victim, by } => {
            if outstanding.remove(&victim) != Some(true) {
                return Err(format!("{victim:?} stolen but not playing"));
            }
            if !outstanding.contains_key(&by) {
                return Err(format!("{victim:?} stolen by unknown {by:?}"));
            }
            forget(playing, victim);
            report.steals += 1;
        }
        Event::Rejected { voice } => {
            if outstanding.remove(&voice) != Some(false) {
                return Err(format!("{voice:?} rejected but not waiting to start"));
            }
            report.rejections += 1;
        }
        Event::Ended { voice } => {
            if outstanding.remove(&voice) != Some(true) {
                return Err(format!("{voice:?} ended but not playing"));
            }
            forget(playing, voice);
            report.ended += 1;
        }
        other => return Err(format!("unexpected event {other:?}")),
    }
    Ok(())
}
