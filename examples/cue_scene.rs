//! A scene played by cues, as a sound designer would hand it to a game:
//! footsteps on grass then on stone (six takes each, shuffled, varied in
//! pitch and level), a layered gunshot (a body, a mechanism click and a
//! tail after it), and a car whose engine follows its speed (a parameter
//! mapped to pitch, level and a low-pass) as it speeds up, cruises and
//! brakes, into a pool of 12 voices; from 6.5 s to 8.5 s the player is
//! underwater (a snapshot: the world bus low-passed to 500 Hz and turned
//! down, blended in over 0.4 s and out over 0.8 s).
//!
//! It renders `out/cue_scene.wav` and draws `out/cue_scene.svg`: the speed
//! parameter, the underwater snapshot's cutoff and the mix's level over
//! time, each footstep marked with the take it played, each gunshot. The
//! same seed renders the same file.
//!
//! ```sh
//! cargo run --release --example cue_scene
//! ```

use std::fmt::Write as _;
use std::time::Duration;

use voicepool::{
    BusSettings, Cue, Curve, Effect, EffectParam, EngineSettings, Event, OfflineEngine, Pick,
    PlayParams, Snapshot, Sound, Target, WavFormat,
};

const RATE: u32 = 48_000;
const BLOCK: usize = 480;
const SECONDS: usize = 12;

/// A small generator for the synthesized takes.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// A step: a burst of noise through a one-pole low-pass at `bright`
/// (0 dull to 1 bright), with a knock at `knock` Hz, decaying in `ms`.
fn step(seed: u64, bright: f32, knock: f32, ms: f32) -> Sound {
    let mut n = Noise(seed | 1);
    let len = (RATE as f32 * ms / 1_000.0 * 3.0) as usize;
    let mut y = 0.0;
    let samples = (0..len)
        .map(|i| {
            let t = i as f32 / RATE as f32;
            let env = (-t * 1_000.0 / ms).exp();
            y += bright * (n.next() - y);
            let tone = (t * knock * std::f32::consts::TAU).sin() * 0.5;
            (y + tone) * env * 0.6
        })
        .collect();
    Sound::from_samples(1, RATE, samples)
        .expect("a step")
        .with_name(&format!("step {seed}"))
}

/// A decaying noise burst (`ms`), low-passed by `bright`.
fn burst(seed: u64, bright: f32, ms: f32, amp: f32, name: &str) -> Sound {
    let mut n = Noise(seed | 1);
    let len = (RATE as f32 * ms / 1_000.0 * 4.0) as usize;
    let mut y = 0.0;
    let samples = (0..len)
        .map(|i| {
            let env = (-(i as f32) / (RATE as f32 * ms / 1_000.0)).exp();
            y += bright * (n.next() - y);
            y * env * amp
        })
        .collect();
    Sound::from_samples(1, RATE, samples)
        .expect("a burst")
        .with_name(name)
}

/// One second of an engine's hum: a 60 Hz buzz with its harmonics.
fn hum() -> Sound {
    let samples = (0..RATE as usize)
        .map(|i| {
            let t = i as f32 / RATE as f32;
            (1..=8)
                .map(|k| (t * 60.0 * k as f32 * std::f32::consts::TAU).sin() / k as f32)
                .sum::<f32>()
                * 0.15
        })
        .collect();
    Sound::from_samples(1, RATE, samples)
        .expect("the hum")
        .with_name("engine")
}

/// When the player dives and comes up, in seconds, and the fades.
const DIVE: (f32, f32) = (6.5, 8.5);
const FADES: (f32, f32) = (0.4, 0.8);
/// The world bus's cutoff, open and underwater.
const CUTOFFS: (f32, f32) = (20_000.0, 500.0);

/// The world's cutoff at `t`: the snapshot's blend, in log frequency.
fn cutoff_at(t: f32) -> f32 {
    let under = if t < DIVE.0 {
        0.0
    } else if t < DIVE.1 {
        ((t - DIVE.0) / FADES.0).min(1.0)
    } else {
        1.0 - ((t - DIVE.1) / FADES.1).min(1.0)
    };
    CUTOFFS.0 * (CUTOFFS.1 / CUTOFFS.0).powf(under)
}

/// The car's speed at `t` seconds: 0 to 100 over 5 s, cruising, braking
/// to 10 from 9 s.
fn speed_at(t: f32) -> f32 {
    match t {
        t if t < 5.0 => 20.0 * t,
        t if t < 9.0 => 100.0,
        t => (100.0 - 45.0 * (t - 9.0)).max(10.0),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 12,
        seed: 2026,
        ..Default::default()
    })?;

    // What the sound designer made.
    let world = engine.create_bus_with(BusSettings {
        effects: vec![Effect::LowPass {
            cutoff_hz: CUTOFFS.0,
        }],
        ..Default::default()
    })?;
    let underwater = engine.create_snapshot(
        Snapshot::new()
            .effect_param(world, 0, EffectParam::CutoffHz(CUTOFFS.1))
            .bus_volume(world, 0.6),
    )?;
    let speed = engine.create_param("speed", 0.0)?;
    let grass = Cue::new((1..=6).map(|k| step(k, 0.15, 90.0, 25.0)))
        .pick(Pick::Shuffle)
        .pitch_range(0.92..=1.08)
        .volume_range_db(-4.0..=0.0);
    let stone = Cue::new((11..=16).map(|k| step(k, 0.8, 420.0, 12.0)))
        .pick(Pick::Shuffle)
        .pitch_range(0.95..=1.05)
        .volume_range_db(-3.0..=0.0);
    let gunshot = Cue::new([
        burst(21, 0.5, 60.0, 0.9, "body"),
        burst(22, 0.6, 55.0, 0.9, "body 2"),
    ])
    .pick(Pick::Random)
    .layer(Cue::new([burst(23, 0.95, 4.0, 0.5, "click")]))
    .layer(Cue::new([burst(24, 0.1, 400.0, 0.3, "tail")]).delay(Duration::from_millis(35)));
    let car = Cue::new([hum()])
        .looping(true)
        .map(
            speed,
            Target::Pitch,
            Curve::linear([(0.0, 0.7), (100.0, 2.2)]),
        )
        .map(
            speed,
            Target::VolumeDb,
            Curve::linear([(0.0, -14.0), (60.0, 0.0)]),
        )
        .map(
            speed,
            Target::LowPassHz,
            Curve::linear([(0.0, 600.0), (100.0, 9_000.0)]),
        );

    // The game.
    std::fs::create_dir_all("out")?;
    engine.start_recording("out/cue_scene.wav", WavFormat::Int16)?;
    let on = |p: PlayParams| p.bus(world);
    engine.play_cue(&car, on(PlayParams::default().pan(0.3).volume(0.8)))?;
    let (mut levels, mut speeds) = (Vec::new(), Vec::new());
    let mut cutoffs = Vec::new();
    let mut marks: Vec<(usize, String)> = Vec::new();
    let blocks = SECONDS * RATE as usize / BLOCK;
    for b in 0..blocks {
        let t = (b * BLOCK) as f32 / RATE as f32;
        // A step every 0.45 s: grass for 5 s, stone after.
        if b % 45 == 0 {
            let surface = if t < 5.0 { &grass } else { &stone };
            let pan = if (b / 45) % 2 == 0 { -0.2 } else { 0.2 };
            let h = engine.play_cue(surface, on(PlayParams::default().pan(pan)))?;
            let take = engine.voice_info(h).map(|i| i.sound_name.to_string());
            marks.push((b, take.unwrap_or_default()));
        }
        if [300, 520, 700].contains(&b) {
            engine.play_cue(&gunshot, on(PlayParams::default().pan(-0.5)))?;
            marks.push((b, "gunshot".into()));
        }
        if b % 5 == 0 {
            engine.set_param(speed, speed_at(t + 0.05), Duration::from_millis(50))?;
        }
        let at = |s: f32| b == (s * RATE as f32) as usize / BLOCK;
        if at(DIVE.0) {
            engine.start_snapshot(underwater, Duration::from_secs_f32(FADES.0))?;
            marks.push((b, "dive".into()));
        }
        if at(DIVE.1) {
            engine.stop_snapshot(underwater, Duration::from_secs_f32(FADES.1))?;
            marks.push((b, "surface".into()));
        }
        cutoffs.push(cutoff_at(t));
        let block = engine.render(BLOCK);
        let peak = block.iter().fold(0.0f32, |m, &s| m.max(s.abs()));
        levels.push(peak);
        speeds.push(speed_at(t));
    }
    engine.stop_recording()?;
    let events: Vec<Event> = engine.drain_events().collect();
    let steals = events
        .iter()
        .filter(|e| matches!(e, Event::Stolen { .. }))
        .count();
    let ended = events.iter().filter(|e| e.is_terminal()).count();

    std::fs::write(
        "out/cue_scene.svg",
        draw(&levels, (&speeds, &cutoffs), &marks),
    )?;
    let steps: Vec<&str> = marks
        .iter()
        .map(|(_, s)| s.as_str())
        .filter(|s| s.starts_with("step"))
        .collect();
    println!(
        "{} steps ({}), 3 gunshots of 3 layers, a car following its speed, a dive; {ended} plays over, {steals} stolen",
        steps.len(),
        steps.join(", ")
    );
    println!("wrote out/cue_scene.wav and out/cue_scene.svg");
    Ok(())
}

/// The speed parameter (0 to 100), the underwater snapshot's cutoff (on
/// a log scale, 100 Hz to 20 kHz) and the mix's peak per block (in dB,
/// -60 to 0) over time; each cue play marked with what it played.
fn draw(levels: &[f32], (speeds, cutoffs): (&[f32], &[f32]), marks: &[(usize, String)]) -> String {
    let (w, h, left) = (1_100.0f32, 360.0f32, 50.0f32);
    let n = levels.len() as f32;
    let x = |b: usize| left + (w - left - 10.0) * b as f32 / n;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"##
    );
    let _ = writeln!(s, r##"<rect width="{w}" height="{h}" fill="white"/>"##);
    for (b, name) in marks {
        let color = if name == "gunshot" {
            "#c0392b"
        } else {
            "#7f8c8d"
        };
        let _ = writeln!(
            s,
            r##"<line x1="{0}" x2="{0}" y1="20" y2="290" stroke="{color}" stroke-dasharray="2,3"/><text x="{0}" y="305" transform="rotate(60 {0} 305)" fill="{color}">{name}</text>"##,
            x(*b)
        );
    }
    let level: String = levels
        .iter()
        .enumerate()
        .map(|(b, &v)| {
            let db = (20.0 * v.max(1e-3).log10()).clamp(-60.0, 0.0);
            format!("{:.1},{:.1} ", x(b), 20.0 + 270.0 * (-db / 60.0))
        })
        .collect();
    let speed: String = speeds
        .iter()
        .enumerate()
        .map(|(b, &v)| format!("{:.1},{:.1} ", x(b), 290.0 - 270.0 * v / 100.0))
        .collect();
    let cutoff: String = cutoffs
        .iter()
        .enumerate()
        .map(|(b, &c)| {
            let octaves = (c / 100.0).log2() / (20_000.0f32 / 100.0).log2();
            format!("{:.1},{:.1} ", x(b), 290.0 - 270.0 * octaves)
        })
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{level}" fill="none" stroke="#2c3e50" stroke-width="1"/><polyline points="{speed}" fill="none" stroke="#27ae60" stroke-width="2"/><polyline points="{cutoff}" fill="none" stroke="#2980b9" stroke-width="2"/>"##
    );
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="14">green: the speed parameter (0 to 100); blue: the world's cutoff under the underwater snapshot (100 Hz to 20 kHz, log); dark: the mix's peak per 10 ms (-60 to 0 dB); marks: each footstep's take, each gunshot, the dive</text>"##
    );
    s.push_str("</svg>\n");
    s
}
