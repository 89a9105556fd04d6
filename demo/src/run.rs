//! Driving the engine: live, or offline (as fast as possible, or paced on
//! the wall clock).

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use voicepool::{AudioEngine, EngineSettings, OfflineEngine};

use crate::*;

/// Offline block size: script actions land on 128-frame boundaries (2.7 ms).
pub(crate) const BLOCK: usize = 128;

pub(crate) fn settings(args: &Args) -> EngineSettings {
    EngineSettings {
        voices: args.voices,
        steal_policy: args.policy,
        ..Default::default()
    }
}

/// How an offline render is driven.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    /// As fast as possible, printing a few snapshots of the pool.
    Fast,
    /// On the wall clock: each block rendered when it would play live, the
    /// pool drawn as the live mode draws it.
    RealTime,
}

/// Renders the spell offline into a 16-bit stereo WAV. The audio is the
/// same whatever the pace: the script is played by frame, not by clock.
pub(crate) fn run_offline(
    args: &Args,
    bank: &Bank,
    path: &Path,
    pace: Pace,
) -> Result<Show, String> {
    let mut engine = OfflineEngine::new(settings(args)).map_err(|e| e.to_string())?;
    let rate = engine.sample_rate();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let io = |e: hound::Error| format!("{}: {e}", path.display());
    let mut wav = hound::WavWriter::create(path, spec).map_err(io)?;
    let (actions, casts) = script(args.seconds, bank.sounds.len() - 2);
    let mut show = Show::new(rate);
    let total = (args.seconds * f64::from(rate)) as u64;
    // Snapshots: just after four casts spread over the run.
    let snapshot_casts: Vec<usize> = (0..4).map(|k| k * casts / 4).collect();
    let mut snapshots: Vec<u64> = Vec::new();
    let mut screen = Screen {
        tty: pace == Pace::RealTime && std::io::stdout().is_terminal(),
        drawn: 0,
    };
    let redraw = redraw_interval(screen.tty);
    let start = Instant::now();
    let mut last_draw = start;
    let mut next = 0;
    let mut frame = 0u64;
    while frame < total {
        while let Some(a) = actions
            .get(next)
            .filter(|a| a.at * f64::from(rate) <= frame as f64)
        {
            if a.cast.is_some_and(|c| snapshot_casts.contains(&c)) {
                snapshots.push(frame + u64::from(rate) * 3 / 10);
            }
            show.play(&engine, bank, a, frame);
            next += 1;
        }
        let n = BLOCK.min((total - frame) as usize);
        for &s in engine.render(n) {
            wav.write_sample((s.clamp(-1.0, 1.0) * 32_767.0).round() as i16)
                .map_err(io)?;
        }
        frame += n as u64;
        let events = engine.drain_timed_events();
        show.absorb(events);
        let slots = engine.slots();
        show.observe(&slots, frame);
        match pace {
            Pace::Fast => {
                if snapshots.first().is_some_and(|&at| frame >= at) {
                    snapshots.remove(0);
                    screen.draw(&show.panel(bank, &slots, &engine, show.seconds(frame)));
                }
            }
            Pace::RealTime => {
                if last_draw.elapsed() >= redraw || frame >= total {
                    screen.draw(&show.panel(bank, &slots, &engine, show.seconds(frame)));
                    last_draw = Instant::now();
                }
                // Wait until this block would have finished playing. A few
                // milliseconds ahead is fine: a device buffers that much too.
                let due = start + Duration::from_secs_f64(show.seconds(frame));
                let ahead = due.saturating_duration_since(Instant::now());
                if ahead > Duration::from_millis(5) {
                    std::thread::sleep(ahead);
                }
            }
        }
    }
    wav.finalize().map_err(io)?;
    show.end_frame = frame;
    Ok(show)
}

/// Plays the spell live for `args.seconds` of wall-clock time, drawing the
/// pool 30 times a second on a terminal (every 2 s otherwise).
pub(crate) fn run_live(args: &Args, bank: &Bank, mut engine: AudioEngine) -> Show {
    let rate = engine.sample_rate();
    let (actions, _) = script(args.seconds, bank.sounds.len() - 2);
    let mut show = Show::new(rate);
    let mut screen = Screen {
        tty: std::io::stdout().is_terminal(),
        drawn: 0,
    };
    let redraw = redraw_interval(screen.tty);
    let start = Instant::now();
    let mut last_draw = start;
    let mut next = 0;
    loop {
        let t = start.elapsed();
        let now = engine.stats().frames_rendered;
        while let Some(a) = actions.get(next).filter(|a| a.at <= t.as_secs_f64()) {
            show.play(&engine, bank, a, now);
            next += 1;
        }
        let events = engine.drain_timed_events();
        show.absorb(events);
        let slots = engine.slots();
        show.observe(&slots, engine.stats().frames_rendered);
        let done = t.as_secs_f64() >= args.seconds;
        if last_draw.elapsed() >= redraw || done {
            screen.draw(&show.panel(bank, &slots, &engine, t.as_secs_f64()));
            last_draw = Instant::now();
        }
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(16));
    }
    let _ = engine.stop_all();
    std::thread::sleep(Duration::from_millis(50));
    show.absorb(engine.drain_timed_events());
    show.end_frame = engine.stats().frames_rendered;
    drop(engine);
    show
}
