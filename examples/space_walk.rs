//! A walk down a street of thousands of sound emitters (torches,
//! fountains, birds) into a pool of 24 voices, with a car passing by with
//! its doppler shift. The birds sing one way (a cone each), the air takes
//! the highs of what is far, and houses along the south side have walls:
//! what is behind one is muffled (occluded, as a game's ray cast would
//! say) while the wall stands between. Rendered offline: a WAV of what the
//! listener hears, and a top-down map (SVG) of the street: each emitter
//! coloured by how much of the walk it was a real voice (grey: always
//! virtual), a tick the way each bird faces, a brown square round each
//! emitter that was occluded at some time, the walls, the listener's path,
//! the car's, and a red ring where a voice was stolen.
//!
//! ```sh
//! cargo run --release --example space_walk                 # out/space_walk.wav, out/space_walk.svg
//! cargo run --release --example space_walk -- 3000 30      # emitters, seconds
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;

use voicepool::{
    Cone, DistanceModel, EngineSettings, Event, Listener, Occlusion, OfflineEngine, PlayParams,
    Sound, Spatial, VoiceHandle,
};

const RATE: u32 = 48_000;
const BLOCK: usize = 480;
/// The house fronts along the south side (z = 8), as x ranges.
const WALLS: [(f32, f32); 3] = [(-120.0, -60.0), (-20.0, 30.0), (70.0, 130.0)];
/// How a wall muffles what is behind it.
const WALL: Occlusion = Occlusion {
    gain: 0.35,
    lowpass_hz: 900.0,
};

/// Whether a wall stands between the listener at `lx` (on z = 0) and an
/// emitter at `at`.
fn behind_wall(lx: f32, at: [f32; 3]) -> bool {
    if at[2] <= 8.0 {
        return false;
    }
    let x = lx + (at[0] - lx) * 8.0 / at[2];
    WALLS.iter().any(|&(a, b)| (a..=b).contains(&x))
}

/// A tiny deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `seconds` of sound from `f(t, noise)`, as a mono `Sound`.
fn synth(seconds: f32, seed: u64, f: impl Fn(f32, f32) -> f32) -> Sound {
    let mut rng = Lcg(seed);
    let n = (seconds * RATE as f32) as usize;
    let samples = (0..n)
        .map(|i| f(i as f32 / RATE as f32, rng.unit() * 2.0 - 1.0))
        .collect();
    Sound::from_samples(1, RATE, samples).expect("finite samples")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(3_000);
    let seconds: f32 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(40.0);

    // Sounds, made here: a crackling torch, a fountain's hiss, a bird's
    // chirp every second and a half, a car's engine hum.
    let torch = synth(2.0, 1, |t, n| {
        let crackle = if (t * 37.0).fract() < 0.02 {
            n
        } else {
            n * 0.1
        };
        crackle * 0.3
    });
    let fountain = synth(2.0, 2, |_, n| n * 0.25);
    let bird = synth(1.5, 3, |t, _| {
        if t < 0.15 {
            (t * std::f32::consts::TAU * (2_500.0 + 8_000.0 * t)).sin() * 0.4
        } else {
            0.0
        }
    });
    let engine_hum = synth(1.0, 4, |t, n| {
        ((t * std::f32::consts::TAU * 90.0).sin() * 0.5 + n * 0.1) * 0.6
    });

    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 24,
        virtual_voices: count + 16,
        command_capacity: 4_096,
        event_capacity: 16_384,
        ..Default::default()
    })?;
    let near = Spatial {
        distance: DistanceModel::Inverse,
        min_distance: 1.5,
        max_distance: 150.0,
        air_absorption: 1.0,
        ..Spatial::default()
    };
    // A bird sings the way it faces.
    let singer = Spatial {
        cone: Some(Cone {
            inner_deg: 90.0,
            outer_deg: 220.0,
            outer_gain: 0.35,
            outer_lowpass_hz: 2_500.0,
        }),
        ..near
    };
    // The street: 300 m along x, 40 m wide; emitters on both sides.
    let mut rng = Lcg(42);
    let mut emitters: Vec<(VoiceHandle, [f32; 3], &str)> = Vec::with_capacity(count);
    let mut facing: Vec<Option<[f32; 3]>> = Vec::with_capacity(count);
    for k in 0..count {
        let x = rng.unit() * 300.0 - 150.0;
        let z = (rng.unit() * 16.0 + 4.0) * if k % 2 == 0 { 1.0 } else { -1.0 };
        let (sound, kind, volume) = match k % 10 {
            0 => (&fountain, "fountain", 0.8),
            1..=3 => (&bird, "bird", 0.6),
            _ => (&torch, "torch", 0.5),
        };
        let at = [x, if kind == "bird" { 6.0 } else { 1.0 }, z];
        let params = PlayParams::default()
            .looping(true)
            .virtualize(true)
            .volume(volume)
            .position(at);
        let params = if kind == "bird" {
            let a = rng.unit() * std::f32::consts::TAU;
            let dir = [a.cos(), 0.0, a.sin()];
            facing.push(Some(dir));
            params.orientation(dir).spatial(singer)
        } else {
            facing.push(None);
            params.spatial(near)
        };
        emitters.push((engine.play(sound, params)?, at, kind));
        if k % 1_000 == 999 {
            engine.render(BLOCK); // the queue takes 1,024 commands a block
            engine.drain_events().for_each(drop);
        }
    }
    // The car: from far left to far right along z = -2, at 25 m/s,
    // passing the listener halfway through the walk.
    let car_speed = 25.0;
    let car = engine.play(
        &engine_hum,
        PlayParams::default()
            .looping(true)
            .priority(200)
            .position([-car_speed * seconds / 2.0, 0.5, -2.0])
            .velocity([car_speed, 0.0, 0.0])
            .spatial(Spatial {
                max_distance: 300.0,
                ..near
            }),
    )?;

    let blocks = (seconds * RATE as f32) as usize / BLOCK;
    let walk = |b: usize| -100.0 + 200.0 * b as f32 / blocks as f32; // x of the listener
    let walk_speed = 200.0 / seconds;
    let mut real_blocks: HashMap<VoiceHandle, u32> = HashMap::new();
    let mut stolen: HashMap<VoiceHandle, u32> = HashMap::new();
    let mut samples = 0u32;
    let mut wav = Vec::with_capacity(blocks * BLOCK * 2);
    let mut car_path = Vec::new();
    // Which emitters a wall stands in front of now, and which ever were.
    let mut occluded = vec![false; emitters.len()];
    let mut ever_occluded = vec![false; emitters.len()];
    for b in 0..blocks {
        let t = b as f32 * BLOCK as f32 / RATE as f32;
        engine.set_listener(Listener {
            position: [walk(b), 1.7, 0.0].into(),
            forward: [1.0, 0.0, 0.0].into(),
            velocity: [walk_speed, 0.0, 0.0].into(),
            ..Listener::default()
        })?;
        for (k, (handle, at, _)) in emitters.iter().enumerate() {
            let now = behind_wall(walk(b), *at);
            if now != occluded[k] {
                occluded[k] = now;
                ever_occluded[k] |= now;
                engine.set_occlusion(*handle, if now { WALL } else { Occlusion::NONE })?;
            }
        }
        let car_x = -car_speed * seconds / 2.0 + car_speed * t;
        engine.set_position(car, [car_x, 0.5, -2.0], [car_speed, 0.0, 0.0])?;
        wav.extend_from_slice(engine.render(BLOCK));
        for ev in engine.drain_events() {
            if let Event::Stolen { victim, .. } = ev {
                *stolen.entry(victim).or_default() += 1;
            }
        }
        if b % 10 == 0 {
            samples += 1;
            for v in engine.slots().iter().filter_map(|s| s.voice) {
                *real_blocks.entry(v).or_default() += 1;
            }
            if b % 50 == 0 {
                car_path.push(car_x);
            }
        }
    }
    let stats = engine.stats();
    std::fs::create_dir_all("out")?;
    let mut recording = hound::WavWriter::create(
        "out/space_walk.wav",
        hound::WavSpec {
            channels: 2,
            sample_rate: RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        },
    )?;
    for s in &wav {
        recording.write_sample((s.clamp(-1.0, 1.0) * 32_767.0) as i16)?;
    }
    recording.finalize()?;

    // The map: x across (300 m), z down (40 m), 4 px a metre.
    let (w, h, scale) = (1_240.0, 200.0, 4.0);
    let px = |x: f32| 20.0 + (x + 150.0) * scale;
    let pz = |z: f32| h / 2.0 + z * scale;
    let mut svg = String::new();
    writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="#fcfcf8"/>"##,
        h + 40.0
    )?;
    for &(a, b) in &WALLS {
        writeln!(
            svg,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#8a5a2b" stroke-width="3"/>"##,
            px(a),
            pz(8.0),
            px(b),
            pz(8.0)
        )?;
    }
    for (k, (handle, at, kind)) in emitters.iter().enumerate() {
        if ever_occluded[k] {
            writeln!(
                svg,
                r##"<rect x="{:.1}" y="{:.1}" width="6" height="6" fill="none" stroke="#8a5a2b" stroke-width="0.6"/>"##,
                px(at[0]) - 3.0,
                pz(at[2]) - 3.0
            )?;
        }
        if let Some(dir) = facing[k] {
            writeln!(
                svg,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#3a7" stroke-width="0.8"/>"##,
                px(at[0]),
                pz(at[2]),
                px(at[0] + dir[0] * 1.5),
                pz(at[2] + dir[2] * 1.5)
            )?;
        }
        let share = real_blocks.get(handle).copied().unwrap_or(0) as f32 / samples.max(1) as f32;
        let colour = if share == 0.0 {
            "#c8c8c8".to_string()
        } else {
            let g = (200.0 * (1.0 - share)) as u8;
            format!("rgb(20,{g},{})", 120 + g / 2)
        };
        let r = if *kind == "fountain" { 2.5 } else { 1.6 };
        writeln!(
            svg,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{r}" fill="{colour}"/>"#,
            px(at[0]),
            pz(at[2])
        )?;
        if stolen.contains_key(handle) {
            writeln!(
                svg,
                r##"<circle cx="{:.1}" cy="{:.1}" r="4" fill="none" stroke="#d33" stroke-width="0.8"/>"##,
                px(at[0]),
                pz(at[2])
            )?;
        }
    }
    writeln!(
        svg,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-width="2" marker-end="url(#a)"/>"##,
        px(walk(0)),
        pz(0.0),
        px(walk(blocks)),
        pz(0.0)
    )?;
    if let (Some(first), Some(last)) = (car_path.first(), car_path.last()) {
        writeln!(
            svg,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#e08000" stroke-width="2" stroke-dasharray="6 4"/>"##,
            px(first.max(-150.0)),
            pz(-2.0),
            px(last.min(150.0)),
            pz(-2.0)
        )?;
    }
    writeln!(
        svg,
        r##"<text x="20" y="{}">{count} emitters, 24 voices, {seconds} s: black line the listener's walk, orange the car (25 m/s, doppler); blue dots were real voices (darker: longer), grey always virtual, large dots fountains, green ticks where birds face; brown lines walls, brown squares were behind one; red rings were stolen</text></svg>"##,
        h + 28.0
    )?;
    std::fs::write("out/space_walk.svg", svg)?;

    let ever_real = real_blocks.len();
    println!(
        "{count} emitters into 24 voices over {seconds} s: {ever_real} were real at some point, {} stolen, {} virtualized, {} resumed; {} were behind a wall at some time",
        stats.steals,
        stats.virtualized,
        stats.resumed,
        ever_occluded.iter().filter(|&&o| o).count()
    );
    println!("wrote out/space_walk.wav and out/space_walk.svg");
    Ok(())
}
