//! The wand-swish demo: a hero waves a wand in a rhythm; every cast is a
//! swish plus a burst of sparkles (dozens of short sounds with random pitch,
//! pan and volume) over a quiet looping ambience, into a small pool of
//! voices, so stealing happens all the time. The ambience asks to
//! virtualize: when a burst takes its voice it keeps time silently and comes
//! back, at the sample it would have reached, once there is room.
//!
//! ```text
//! cargo run --release -p voicepool-demo                      # live, or offline if no device
//! cargo run --release -p voicepool-demo -- --paced           # no device: render, watched in real time
//! cargo run --release -p voicepool-demo -- --offline         # render as fast as possible
//! cargo run --release -p voicepool-demo -- --policy reject   # hear the wand go silent
//! ```
//!
//! Flags: `--voices N` (default 12), `--seconds S` (above 0, at most 600;
//! default 12), `--policy quietest|oldest|reject`, `--offline` (render
//! offline as fast as possible, even if a device exists), `--paced` (render
//! offline on the wall clock: one block at a time, each when it would play,
//! with the same live view of the pool; for watching without a sound card),
//! `--render FILE.wav` (where a render goes; alone, it means `--offline`),
//! `--timeline FILE.svg` (where the picture of the run goes: one row per
//! slot, a bar per voice, a mark where a voice was stolen, a dashed bar
//! where a voice was virtual and a mark where it came back). Files are named
//! after the policy unless given: `out/wand_swish_quietest.wav` and
//! `out/wand_swish_quietest.svg`, `out/wand_swish_reject.wav`, ...
//!
//! While it runs it shows the pool: one line per slot with the sound's name
//! and a level bar, and running counts of plays, steals and rejections.

mod args;
mod run;
mod show;
mod spell;
mod timeline;

use std::io::IsTerminal;

use voicepool::AudioEngine;

pub(crate) use args::*;
pub(crate) use run::*;
pub(crate) use show::*;
pub(crate) use spell::*;
pub(crate) use timeline::*;

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}\n\n{HELP}");
            return;
        }
        Err(e) => {
            eprintln!("wand_swish: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let bank = match Bank::load() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("wand_swish: {e}");
            std::process::exit(1);
        }
    };
    let policy = policy_name(args.policy);
    println!(
        "wand_swish: {} voices, policy {policy}, {} s of spells",
        args.voices, args.seconds
    );
    let mut pace = Pace::RealTime;
    let live = if args.paced {
        None
    } else if args.offline || args.render.is_some() {
        pace = Pace::Fast;
        None
    } else {
        match AudioEngine::start(settings(&args)) {
            Ok(engine) => Some(engine),
            Err(e) => {
                // Someone watching a terminal sees the pool at the pace it
                // would have played; a pipe gets the render at full speed.
                if !std::io::stdout().is_terminal() {
                    pace = Pace::Fast;
                }
                println!("{e}\nso rendering offline instead");
                None
            }
        }
    };
    let (show, rendered) = match live {
        Some(engine) => {
            let i = engine.info();
            println!(
                "playing live on {:?}: {} Hz, {} channels, {:?}",
                i.device, i.sample_rate, i.channels, i.sample_format
            );
            (run_live(&args, &bank, engine), None)
        }
        None => {
            let path = args
                .render
                .clone()
                .unwrap_or_else(|| default_output(args.policy, "wav"));
            match pace {
                Pace::Fast => println!("rendering offline to {} ...\n", path.display()),
                Pace::RealTime => println!(
                    "rendering to {} in real time, as it would play live \
(--offline: full speed) ...\n",
                    path.display()
                ),
            }
            match run_offline(&args, &bank, &path, pace) {
                Ok(show) => (show, Some(path)),
                Err(e) => {
                    eprintln!("wand_swish: {e}");
                    std::process::exit(1);
                }
            }
        }
    };
    let mut show = show;
    show.infer_slots();
    let steals = show.voices.iter().filter(|v| v.stolen_by.is_some()).count();
    let rejected = show.voices.iter().filter(|v| v.rejected.is_some()).count();
    println!(
        "done: {} plays, {steals} stolen, {rejected} rejected, {} went virtual ({} came back); the wand swished {} of {} times{}",
        show.plays,
        show.virtual_spans.len(),
        show.virtual_spans.iter().filter(|s| s.resumed).count(),
        show.swishes - show.swishes_rejected,
        show.swishes,
        if show.play_errors + show.stream_errors > 0 {
            format!(
                " ({} plays refused, {} stream errors)",
                show.play_errors, show.stream_errors
            )
        } else {
            String::new()
        }
    );
    if let Some(path) = rendered {
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        println!(
            "wrote {} ({:.1} MB, {:.1} s, 16-bit stereo {} Hz)",
            path.display(),
            size as f64 / 1e6,
            show.seconds(show.end_frame),
            show.rate
        );
    }
    {
        let path = args
            .timeline
            .clone()
            .unwrap_or_else(|| default_output(args.policy, "svg"));
        let svg = timeline_svg(&show, &bank, args.voices, &policy);
        let written = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, svg));
        match written {
            Ok(()) => println!("wrote {} (timeline: one row per slot)", path.display()),
            Err(e) => {
                eprintln!("wand_swish: cannot write {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    }
}
