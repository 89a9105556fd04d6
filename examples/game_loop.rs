//! The shape a game integrates, as a small shooter scene: a 60 Hz loop on
//! the main thread that plays sounds and reads the engine's events every
//! frame, plus a second thread (think: an AI or physics system) that plays
//! footsteps through a [`Controller`].
//!
//! The scene uses voicepool's voice management and its buses: a music bus
//! ducked by 12 dB while the radio speaks, an effects ("world") bus behind
//! a low-pass that is fully open in play, a reverb bus the gunshots and
//! explosions send to, a radio bus and a UI bus; a `guns` group (at most 4
//! gunshots at once, the oldest gives way) and a `steps` group (at most 2,
//! and never two within 50 ms). Halfway through, a pause menu (a
//! snapshot) muffles the world (its low-pass glides to 600 Hz), turns the
//! music down and plays a UI click; closing it (stopping the snapshot)
//! returns both to what the game set. It prints what was limited
//! and stolen, naming each voice by its sound through `voice_info` (no map
//! of its own), and how far the radio ducked the music.
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
use std::sync::Arc;
use std::time::{Duration, Instant};

use voicepool::{
    AudioEngine, BusSettings, Controller, Duck, Effect, EffectParam, Engine, EngineSettings, Event,
    GroupHandle, GroupSettings, OfflineEngine, PlayParams, Snapshot, Sound, StealPolicy,
    VoiceHandle,
};

/// Live device or, failing that, an offline engine rendered once a frame.
enum Output {
    Live(AudioEngine),
    Simulated(Box<OfflineEngine>),
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

fn play(ctl: &Controller, sound: &Sound, params: PlayParams) -> Option<VoiceHandle> {
    match ctl.play(sound, params) {
        Ok(h) => Some(h),
        Err(e) => {
            println!("  play {} refused: {e}", sound.name());
            None
        }
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

/// Decaying noise: a stand-in gunshot (short) or explosion (long, darker).
fn noise_burst(name: &str, seconds: f32, decay: f32, smooth: f32, seed: u32) -> Sound {
    let n = (seconds * 48_000.0) as usize;
    let (mut x, mut y) = (seed, 0.0f32);
    let samples = (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let white = x as f32 / u32::MAX as f32 * 2.0 - 1.0;
            y += (white - y) * smooth; // one-pole low-pass: smaller is darker
            y * (-(i as f32) / (decay * 48_000.0)).exp() * 0.9
        })
        .collect();
    Sound::from_samples(1, 48_000, samples)
        .expect("finite samples")
        .with_name(name)
}

fn usage() -> ! {
    eprintln!("usage: game_loop [--seconds S]   (S above 0, at most 600)");
    std::process::exit(2);
}

fn main() {
    let mut seconds = 6.0f64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next().and_then(|v| v.parse::<f64>().ok())) {
            ("--seconds", Some(s)) if s.is_finite() && s > 0.0 && s <= 600.0 => seconds = s,
            _ => usage(),
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
                Ok(e) => Output::Simulated(Box::new(e)),
                Err(e) => {
                    eprintln!("game_loop: {e}");
                    std::process::exit(1);
                }
            }
        }
    };

    let music = load("ambience").with_name("music");
    let footstep = load("footstep");
    let click = load("sparkle_1").with_name("ui_click");
    let gunshot = noise_burst("gunshot", 0.35, 0.06, 0.6, 7);
    let explosion = noise_burst("explosion", 1.5, 0.4, 0.08, 11);
    let radio_line = noise_burst("radio", 1.0, 2.0, 0.3, 13);

    let ctl = output.engine().controller();
    let setup = || -> Result<_, voicepool::PlayError> {
        let radio = ctl.create_bus()?;
        let music_bus = ctl.create_bus_with(BusSettings {
            duck: Some(Duck {
                by: radio,
                amount_db: -12.0,
                attack: Duration::from_millis(60),
                release: Duration::from_millis(500),
            }),
            ..Default::default()
        })?;
        let sfx = ctl.create_bus_with(BusSettings {
            effects: vec![Effect::LowPass {
                cutoff_hz: f32::MAX,
            }],
            ..Default::default()
        })?;
        let hall = ctl.create_bus_with(BusSettings {
            effects: vec![Effect::Reverb {
                room: 0.6,
                damping: 0.4,
                wet: 1.0,
            }],
            ..Default::default()
        })?;
        let ui = ctl.create_bus()?;
        let guns = ctl.create_group(GroupSettings {
            max_voices: 4,
            policy: StealPolicy::Oldest,
            ..Default::default()
        })?;
        let steps = ctl.create_group(GroupSettings {
            max_voices: 2,
            min_interval: Duration::from_millis(50),
            ..Default::default()
        })?;
        // The pause menu, a mix state: the world muffled, the music down.
        let menu = ctl.create_snapshot(
            Snapshot::new()
                .effect_param(sfx, 0, EffectParam::CutoffHz(600.0))
                .bus_volume(music_bus, 0.3),
        )?;
        Ok((music_bus, sfx, ui, guns, steps, radio, hall, menu))
    };
    let (music_bus, sfx, ui, guns, steps, radio, hall, menu) = setup().unwrap_or_else(|e| {
        eprintln!("game_loop: {e}");
        std::process::exit(1);
    });
    let group_names: HashMap<GroupHandle, &str> = [(guns, "guns"), (steps, "steps")].into();
    play(
        &ctl,
        &music,
        PlayParams::default()
            .bus(music_bus)
            .volume(0.4)
            .looping(true)
            .protected(true),
    );

    // A second thread plays footsteps through its own Controller, every
    // 300 ms, into the `steps` group on the effects bus.
    // (The game is paused during the menu: nobody walks.)
    let running = Arc::new(AtomicBool::new(true));
    let menu_open = Arc::new(AtomicBool::new(false));
    let walker = {
        let (ctl, running, menu) = (ctl.clone(), Arc::clone(&running), Arc::clone(&menu_open));
        std::thread::spawn(move || {
            let mut left = true;
            while running.load(Ordering::Relaxed) {
                if menu.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                let pan = if left { -0.3 } else { 0.3 };
                let p = PlayParams::default()
                    .volume(0.5)
                    .pan(pan)
                    .group(steps)
                    .bus(sfx);
                play(&ctl, &footstep, p);
                left = !left;
                std::thread::sleep(Duration::from_millis(300));
            }
        })
    };

    // The game loop: 60 frames a second. The script, in seconds: a 40-shot
    // machine-gun burst from 0.5 to 2.5, explosions at 1.5 and 2.5, the
    // pause menu from 3.5 to 4.5.
    let frame_time = Duration::from_secs_f64(1.0 / 60.0);
    let frames = (seconds * 60.0) as u64;
    let start = Instant::now();
    let (mut steals, mut in_group, mut limited_rejects, mut steps_lost) = (0, 0, 0, 0);
    let mut deepest_duck = 1.0f32;
    for frame in 0..frames {
        let t = frame as f64 / 60.0;
        if (0.5..2.5).contains(&t) && frame % 3 == 0 {
            let p = PlayParams::default()
                .group(guns)
                .bus(sfx)
                .send(hall, 0.25)
                .pan(0.4)
                .pitch(0.95 + 0.01 * (frame % 10) as f32);
            play(&ctl, &gunshot, p);
        }
        if frame == 90 || frame == 150 {
            let p = PlayParams::default().bus(sfx).send(hall, 0.3).priority(200);
            play(&ctl, &explosion, p);
        }
        if frame == 165 {
            println!("frame {frame:4}: the radio speaks: the music ducks");
            play(
                &ctl,
                &radio_line,
                PlayParams::default().bus(radio).priority(220),
            );
        }
        if frame == 210 {
            println!("frame {frame:4}: pause menu opens: the world muffled, music down, click");
            menu_open.store(true, Ordering::Relaxed);
            let _ = ctl.start_snapshot(menu, Duration::from_millis(300));
            play(&ctl, &click, PlayParams::default().bus(ui).priority(255));
        }
        if frame == 270 {
            println!("frame {frame:4}: pause menu closes: the world opens again");
            menu_open.store(false, Ordering::Relaxed);
            let _ = ctl.stop_snapshot(menu, Duration::from_millis(300));
            play(&ctl, &click, PlayParams::default().bus(ui).priority(255));
        }
        output.tick(frame_time);
        if let Some(m) = output.engine().bus_meter(music_bus) {
            deepest_duck = deepest_duck.min(m.duck_gain);
        }

        // Read what the audio side did since last frame, and name it.
        let engine = output.engine();
        let events: Vec<Event> = engine.drain_events().collect();
        let describe = |h: VoiceHandle| match engine.voice_info(h) {
            Some(info) => {
                let group = info.group.and_then(|g| group_names.get(&g).copied());
                (info.sound_name.to_string(), group)
            }
            None => ("?".to_string(), None),
        };
        for ev in events {
            match ev {
                Event::Stolen { victim, by } => {
                    steals += 1;
                    let ((v, vg), (b, bg)) = (describe(victim), describe(by));
                    let why = if vg.is_some() && vg == bg {
                        in_group += 1;
                        format!(" (group {} at its limit)", vg.unwrap_or("?"))
                    } else {
                        String::new()
                    };
                    if v == "footstep" {
                        steps_lost += 1;
                    }
                    println!(
                        "frame {frame:4}: {v} #{} stolen by {b} #{}{why}",
                        victim.id(),
                        by.id()
                    );
                }
                Event::Rejected { voice } => {
                    let (v, group) = describe(voice);
                    if v == "footstep" {
                        steps_lost += 1;
                    }
                    match group {
                        Some(g) => {
                            limited_rejects += 1;
                            println!("frame {frame:4}: {v} #{} limited by group {g}", voice.id());
                        }
                        None => println!("frame {frame:4}: {v} #{} rejected", voice.id()),
                    }
                }
                Event::StreamError { kind } => println!("frame {frame:4}: stream error {kind:?}"),
                _ => {}
            }
        }

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
        "{seconds} s: {} voices started, {} stolen ({in_group} within a full group), \
         {} rejected ({limited_rejects} by a group), {steps_lost} footsteps lost, peak {} of 8 voices ({steals} steals printed)",
        stats.started, stats.steals, stats.rejections, stats.peak_active_voices
    );
    println!(
        "the radio ducked the music to {:.1} dB",
        20.0 * deepest_duck.max(1e-6).log10()
    );
}
