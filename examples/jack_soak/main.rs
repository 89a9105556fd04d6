//! The paced soak: the live engine on JACK's dummy driver (paced in real
//! time like a sound card, 256-frame periods at 48 kHz: a 5.33 ms budget
//! per callback), with a 60 Hz game thread firing spell bursts into a
//! 12-voice pool while every core is kept busy by a background process.
//! Prints the callbacks, late callbacks, the worst callback against its
//! budget, xruns, plays and steals every ten seconds and at the end, and
//! checks that every accepted play ended in exactly one terminal event.
//!
//! ```text
//! cargo run --release --features jack --example jack_soak -- --minutes 5
//! ```
//!
//! Options: `--minutes M` (default 1), `--period N` (default 256),
//! `--no-load` (leave the cores idle). It starts its own `jackd` (Debian:
//! `apt-get install jackd2`) under a server name of its own and stops it
//! at the end.

use voicepool_testkit::jack::jackd;
use voicepool_testkit::jack::storm;

use std::time::Duration;

use voicepool::{AudioEngine, EngineSettings, StealPolicy};

fn main() {
    let mut minutes = 1.0f64;
    let mut period = 256u32;
    let mut load = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--minutes" => minutes = args.next().and_then(|v| v.parse().ok()).unwrap_or(minutes),
            "--period" => period = args.next().and_then(|v| v.parse().ok()).unwrap_or(period),
            "--no-load" => load = false,
            other => {
                eprintln!("jack_soak: unknown option {other}");
                std::process::exit(2);
            }
        }
    }
    if !jackd::Jackd::installed() {
        eprintln!("jack_soak: jackd is not installed (Debian: apt-get install jackd2)");
        std::process::exit(2);
    }
    let name = format!("voicepool-soak-{}", std::process::id());
    // Before any thread starts: libjack reads it when a client opens.
    std::env::set_var("JACK_DEFAULT_SERVER", &name);
    let _server = jackd::Jackd::start(&name, 48_000, period).unwrap_or_else(|e| {
        eprintln!("jack_soak: {e}");
        std::process::exit(1);
    });
    // The engine opens before the cores are made busy: a busy machine can
    // make the server too slow to take a new client at all.
    let settings = EngineSettings {
        host: Some("JACK".into()),
        voices: 12,
        steal_policy: StealPolicy::Quietest,
        buffer_frames: Some(period),
        ..Default::default()
    };
    let opened = storm::open_retrying(Duration::from_secs(30), || {
        AudioEngine::start(settings.clone())
    });
    let mut engine = opened.unwrap_or_else(|e| {
        eprintln!("jack_soak: {e}");
        std::process::exit(1);
    });
    let background = load.then(storm::Load::start);
    let info = engine.info();
    println!(
        "jack_soak: {} at {} Hz, {}-frame periods; {} busy background processes; {minutes} min",
        info.device,
        info.sample_rate,
        period,
        background.as_ref().map_or(0, storm::Load::processes)
    );
    let mut second = 0;
    let out = storm::storm(&mut engine, minutes * 60.0, |stats| {
        second += 1;
        if second % 10 == 0 {
            println!("{second:5} s: {}", storm::figures(stats));
        }
    });
    drop(background);
    println!(
        "jack_soak: {:.1} min; {}; {} plays accepted, {} refused (queue full), {} without a terminal event, {} with more than one",
        out.seconds / 60.0,
        storm::figures(&out.stats),
        out.accepted,
        out.refused,
        out.missing,
        out.duplicated
    );
    drop(engine);
    if out.missing + out.duplicated > 0 {
        std::process::exit(1);
    }
}
