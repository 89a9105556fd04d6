//! The shape a game integrates: a 60 Hz loop on the main thread that plays
//! sounds and reads the engine's events every frame, plus a second thread
//! (think: an AI or physics system) that plays sounds through a
//! [`Controller`]. It prints what was stolen, and by what.
//!
//! ```text
//! cargo run --release --example game_loop               # live, or simulated if no device
//! cargo run --release --example game_loop -- --seconds 10
//! ```
//!
//! With no usable output device, the same loop drives an [`OfflineEngine`]
//! by hand (rendering 1/60 s per frame), so it runs anywhere.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use voicepool::{
    AudioEngine, Controller, Engine, EngineSettings, Event, OfflineEngine, PlayParams, Sound,
    VoiceHandle,
};

/// Live device or, failing that, an offline engine rendered once a frame.
enum Output {
    Live(AudioEngine),
    Simulated(OfflineEngine),
}

impl Output {
    fn engine(&mut self) -> &mut Engine {
        match self {
            Output::Live(e) => e,
            Output::Simulated(e) => e,
        }
    }

    /// Once per game frame: a live device plays on its own; the simulated
    /// one renders the frame's worth of audio here.
    fn tick(&mut self, frame_time: Duration) {
        if let Output::Simulated(e) = self {
            let frames = (frame_time.as_secs_f64() * f64::from(e.sample_rate())).round();
            e.render(frames as usize);
        }
    }
}

/// Which sound each handle plays, for printing (game side only).
type Names = Arc<Mutex<HashMap<VoiceHandle, String>>>;

fn play(ctl: &Controller, names: &Names, sound: &Sound, params: PlayParams) {
    match ctl.play(sound, params) {
        Ok(h) => {
            let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
            names.insert(h, sound.name().to_string());
        }
        Err(e) => println!("  play {} refused: {e}", sound.name()),
    }
}

fn load(name: &str) -> Sound {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(format!("{name}.wav"));
    Sound::from_wav_file(&path).unwrap_or_else(|e| {
        eprintln!("game_loop: {e}");
        std::process::exit(1);
    })
}

fn main() {
    let mut seconds = 5.0f64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next().and_then(|v| v.parse::<f64>().ok())) {
            ("--seconds", Some(s)) if s.is_finite() && s > 0.0 && s <= 600.0 => seconds = s,
            _ => {
                eprintln!("usage: game_loop [--seconds S]   (S from 0 to 600)");
                std::process::exit(2);
            }
        }
    }

    let settings = EngineSettings {
        voices: 8,
        ..Default::default()
    };
    let mut output = match AudioEngine::start(settings.clone()) {
        Ok(e) => {
            println!("playing live on {:?}", e.info().device);
            Output::Live(e)
        }
        Err(e) => {
            println!("{e}\nsimulating the device: rendering 1/60 s per frame offline");
            match OfflineEngine::new(settings) {
                Ok(e) => Output::Simulated(e),
                Err(e) => {
                    eprintln!("game_loop: {e}");
                    std::process::exit(1);
                }
            }
        }
    };

    let swish = load("swish");
    let sparkles: Vec<Sound> = (1..=6).map(|i| load(&format!("sparkle_{i}"))).collect();
    let footstep = load("footstep");
    let ambience = load("ambience");
    let names: Names = Arc::default();

    let ctl = output.engine().controller();
    play(
        &ctl,
        &names,
        &ambience,
        PlayParams::default()
            .volume(0.3)
            .looping(true)
            .protected(true),
    );

    // A second thread plays footsteps through its own Controller.
    let running = Arc::new(AtomicBool::new(true));
    let walker = {
        let (ctl, names, running) = (ctl.clone(), Arc::clone(&names), Arc::clone(&running));
        std::thread::spawn(move || {
            let mut left = true;
            while running.load(Ordering::Relaxed) {
                let pan = if left { -0.3 } else { 0.3 };
                play(
                    &ctl,
                    &names,
                    &footstep,
                    PlayParams::default().volume(0.5).pan(pan),
                );
                left = !left;
                std::thread::sleep(Duration::from_millis(350));
            }
        })
    };

    // The game loop: 60 frames a second.
    let frame_time = Duration::from_secs_f64(1.0 / 60.0);
    let frames = (seconds * 60.0) as u64;
    let start = Instant::now();
    let mut steals = 0;
    for frame in 0..frames {
        // Game logic: every 45 frames the hero casts a spell.
        if frame % 45 == 10 {
            play(&ctl, &names, &swish, PlayParams::default().priority(200));
            for k in 0..12 {
                let s = &sparkles[(frame as usize + k * 5) % sparkles.len()];
                let p = PlayParams::default()
                    .volume(0.15 + 0.04 * (k % 5) as f32)
                    .pitch(0.8 + 0.07 * (k % 9) as f32)
                    .pan(-0.8 + 0.14 * k as f32);
                play(&ctl, &names, s, p);
            }
        }
        output.tick(frame_time);

        // Read what the audio side did since last frame.
        let events: Vec<Event> = output.engine().drain_events().collect();
        let names_now = names.lock().unwrap_or_else(|e| e.into_inner());
        let name = |h: &VoiceHandle| names_now.get(h).map_or("?", String::as_str).to_string();
        for ev in events {
            match ev {
                Event::Stolen { victim, by } => {
                    steals += 1;
                    println!(
                        "frame {frame:4}: {} (#{}) stolen by {} (#{})",
                        name(&victim),
                        victim.id(),
                        name(&by),
                        by.id()
                    );
                }
                Event::Rejected { voice } => {
                    println!(
                        "frame {frame:4}: {} (#{}) rejected",
                        name(&voice),
                        voice.id()
                    );
                }
                Event::StreamError { kind } => println!("frame {frame:4}: stream error {kind:?}"),
                _ => {}
            }
        }
        drop(names_now);

        // Sleep until the next frame is due.
        let due = start + frame_time * (frame as u32 + 1);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    running.store(false, Ordering::Relaxed);
    let _ = walker.join();

    let stats = output.engine().stats();
    println!(
        "{seconds} s: {} voices started, {} stolen ({steals} printed), {} rejected, peak {} of 8 voices",
        stats.started, stats.steals, stats.rejections, stats.peak_active_voices
    );
}
