//! Buses that shape sound, heard and drawn: twenty seconds of a small
//! scene mixed through a bus tree. Music plays on a bus that dialogue
//! ducks by 12 dB; gunshots and swishes play on a "world" bus and send to
//! a reverb bus; footsteps play on a bus feeding the world. Halfway, a
//! pause menu opens: the world's low-pass glides from fully open to 500 Hz
//! (the footsteps with it, and what the world sends to the reverb keeps
//! ringing), a UI click plays on a plain bus, and closing the menu opens
//! the filter again.
//!
//! It renders `out/bus_mix.wav` and draws `out/bus_mix.svg`: each bus's
//! level per block (from `Engine::bus_meter`), the music bus's duck gain,
//! and when dialogue spoke and the menu was open.
//!
//! ```text
//! cargo run --release --example bus_mix
//! ```

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use voicepool::{
    BusHandle, BusSettings, Duck, Effect, EffectParam, EngineSettings, OfflineEngine, PlayParams,
    Sound,
};

const RATE: u32 = 48_000;
const BLOCK: usize = 480;
const SECONDS: usize = 20;

/// A line of dialogue: vowel-like syllables of harmonics with short pauses.
fn dialogue(seed: u32) -> Sound {
    let mut s = Vec::new();
    for k in 0..(6 + seed % 4) {
        let f0 = 110.0 + ((seed * 7 + k * 13) % 40) as f32;
        let len = 4_800 + ((seed + k * 31) % 5) as usize * 1_200;
        for i in 0..len {
            let t = i as f32 / RATE as f32;
            let env = (std::f32::consts::PI * i as f32 / len as f32).sin();
            let v: f32 = (1..=10)
                .map(|h| (t * f0 * h as f32 * std::f32::consts::TAU).sin() / h as f32)
                .sum();
            s.push(v * env * 0.25);
        }
        s.extend(std::iter::repeat_n(0.0, 2_400));
    }
    Sound::from_samples(1, RATE, s).expect("a line")
}

/// A gunshot: a noise crack decaying over 60 ms.
fn shot(seed: u32) -> Sound {
    let mut x = 0x9E37_79B9u32 ^ seed.wrapping_mul(0x85EB_CA6B);
    let s = (0..4_800)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let n = (x >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0;
            n * 0.8 * (-(i as f32) / 2_900.0).exp()
        })
        .collect();
    Sound::from_samples(1, RATE, s).expect("a shot")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let music = Sound::from_wav_file(samples.join("ambience.wav"))?;
    let swish = Sound::from_wav_file(samples.join("swish.wav"))?;
    let step = Sound::from_wav_file(samples.join("footstep.wav"))?;
    let click = Sound::from_samples(
        1,
        RATE,
        (0..480).map(|i| if i < 48 { 0.5 } else { 0.0 }).collect(),
    )?;

    let mut e = OfflineEngine::new(EngineSettings::default())?;
    let speech = e.create_bus()?;
    let score = e.create_bus_with(BusSettings {
        duck: Some(Duck {
            by: speech,
            amount_db: -12.0,
            attack: Duration::from_millis(50),
            release: Duration::from_millis(400),
        }),
        volume: 0.8,
        ..Default::default()
    })?;
    let hall = e.create_bus_with(BusSettings {
        effects: vec![Effect::Reverb {
            room: 0.75,
            damping: 0.35,
            wet: 1.0,
        }],
        ..Default::default()
    })?;
    let world = e.create_bus_with(BusSettings {
        effects: vec![Effect::LowPass {
            cutoff_hz: f32::MAX,
        }],
        ..Default::default()
    })?;
    let steps = e.create_bus_with(BusSettings {
        output: Some(world),
        ..Default::default()
    })?;
    let ui = e.create_bus()?;
    let buses: [(&str, BusHandle, &str); 5] = [
        ("music", score, "#2a7ab0"),
        ("dialogue", speech, "#c0392b"),
        ("world", world, "#27ae60"),
        ("reverb", hall, "#8e44ad"),
        ("master", e.master_bus(), "#555555"),
    ];

    e.play(&music, PlayParams::default().bus(score).looping(true))?;
    let blocks = SECONDS * RATE as usize / BLOCK;
    let (menu_open, menu_close) = (blocks / 2, blocks / 2 + 300);
    let lines = [150usize, 700, 1_350, 1_750];
    let mut levels: Vec<[f32; 5]> = Vec::with_capacity(blocks);
    let mut ducks = Vec::with_capacity(blocks);
    let mut out = Vec::with_capacity(blocks * BLOCK * 2);
    for b in 0..blocks {
        if let Some(k) = lines.iter().position(|&l| l == b) {
            e.play(
                &dialogue(k as u32),
                PlayParams::default().bus(speech).pan(-0.2),
            )?;
        }
        if b % 37 == 5 {
            let p = PlayParams::default()
                .bus(world)
                .pan(((b % 7) as f32 - 3.0) / 4.0);
            e.play(&shot(b as u32), p.send(hall, 0.35))?;
        }
        if b % 53 == 20 {
            e.play(&swish, PlayParams::default().bus(world).send(hall, 0.25))?;
        }
        if b % 25 == 0 {
            e.play(&step, PlayParams::default().bus(steps).volume(0.6))?;
        }
        if b == menu_open || b == menu_close {
            let cutoff = if b == menu_open { 500.0 } else { f32::MAX };
            e.set_effect_param(
                world,
                0,
                EffectParam::CutoffHz(cutoff),
                Duration::from_millis(300),
            )?;
            e.play(&click, PlayParams::default().bus(ui))?;
        }
        out.extend_from_slice(e.render(BLOCK));
        let meter = |bus| e.bus_meter(bus).expect("a bus of this engine");
        levels.push(buses.map(|(_, bus, _)| meter(bus).peak));
        ducks.push(meter(score).duck_gain);
        e.drain_events().for_each(drop);
    }
    std::fs::create_dir_all("out")?;
    write_wav("out/bus_mix.wav", &out)?;
    let svg = draw(&buses, &levels, &ducks, &lines, (menu_open, menu_close));
    std::fs::write("out/bus_mix.svg", svg)?;
    let db = |x: f32| 20.0 * x.max(1e-6).log10();
    let ducked = ducks.iter().copied().fold(1.0f32, f32::min);
    println!(
        "{SECONDS} s: the music ducked to {:.1} dB under dialogue; the world's peak {:.1} dB with the menu open, {:.1} dB before",
        db(ducked),
        db(levels[menu_open + 60..menu_close].iter().map(|l| l[2]).fold(0.0, f32::max)),
        db(levels[menu_open - 240..menu_open].iter().map(|l| l[2]).fold(0.0, f32::max)),
    );
    println!("wrote out/bus_mix.wav and out/bus_mix.svg");
    Ok(())
}

/// Interleaved stereo `f32` to a 16-bit WAV.
fn write_wav(path: &str, out: &[f32]) -> Result<(), Box<dyn std::error::Error>> {
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec)?;
    for &s in out {
        w.write_sample((s.clamp(-1.0, 1.0) * 32_767.0) as i16)?;
    }
    w.finalize()?;
    Ok(())
}

/// One lane per bus (its peak per block, in dB from -60 to 0), the music's
/// duck gain over its lane, dialogue and the menu marked.
fn draw(
    buses: &[(&str, BusHandle, &str); 5],
    levels: &[[f32; 5]],
    ducks: &[f32],
    lines: &[usize],
    menu: (usize, usize),
) -> String {
    let (w, lane, left) = (1_000.0f32, 90.0f32, 90.0f32);
    let h = lane * buses.len() as f32 + 40.0;
    let n = levels.len() as f32;
    let x = |b: usize| left + (w - left - 10.0) * b as f32 / n;
    let y = |k: usize, v: f32| {
        let db = (20.0 * v.max(1e-3).log10()).clamp(-60.0, 0.0);
        lane * k as f32 + 10.0 + (lane - 20.0) * (-db / 60.0)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(s, r##"<rect width="{w}" height="{h}" fill="white"/>"##);
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="0" width="{}" height="{}" fill="#f3e9c6"/>"##,
        x(menu.0),
        x(menu.1) - x(menu.0),
        h - 40.0
    );
    for &l in lines {
        let _ = writeln!(
            s,
            r##"<line x1="{0}" x2="{0}" y1="0" y2="{1}" stroke="#c0392b" stroke-dasharray="3,3"/>"##,
            x(l),
            h - 40.0
        );
    }
    for (k, (name, _, color)) in buses.iter().enumerate() {
        let _ = writeln!(
            s,
            r##"<text x="6" y="{}" fill="{color}">{name}</text>"##,
            lane * k as f32 + lane / 2.0
        );
        let pts: String = levels
            .iter()
            .enumerate()
            .map(|(b, l)| format!("{:.1},{:.1} ", x(b), y(k, l[k])))
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1"/>"##
        );
    }
    let duck: String = ducks
        .iter()
        .enumerate()
        .map(|(b, &g)| format!("{:.1},{:.1} ", x(b), y(0, g)))
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{duck}" fill="none" stroke="black" stroke-width="2"/>"##
    );
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="{}">Peak per 10 ms block (0 to -60 dB a lane); black: music's duck gain; red: dialogue starts; shaded: menu (world low-passed)</text>"##,
        h - 15.0
    );
    s.push_str("</svg>\n");
    s
}
