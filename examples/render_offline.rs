//! Renders a short burst of overlapping tones through a 4-voice pool to a WAV
//! file, printing every steal: the smallest look at voicepool without a device.
//!
//! `cargo run --example render_offline -- [out.wav]`

use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};

fn tone(freq: f32, seconds: f32, decay: f32) -> Result<Sound, voicepool::SoundError> {
    let rate = 48_000;
    let n = (seconds * rate as f32) as usize;
    let s = (0..n)
        .map(|i| {
            let t = i as f32 / rate as f32;
            (t * freq * std::f32::consts::TAU).sin() * (-t * decay).exp() * 0.5
        })
        .collect();
    Sound::from_samples(1, rate, s)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "render_offline.wav".into());
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 4,
        ..Default::default()
    })?;
    let pluck = tone(660.0, 1.5, 6.0)?.with_name("pluck");
    let hum = tone(110.0, 3.0, 0.2)?.with_name("hum");
    engine.play(&hum, PlayParams::default().volume(0.6).protected(true))?;
    for i in 0..24 {
        let pitch = 1.0 + (i % 5) as f32 * 0.25;
        let pan = (i % 3) as f32 - 1.0;
        engine.play(&pluck, PlayParams::default().pitch(pitch).pan(pan))?;
        engine.render(4_800); // 100 ms between plucks
        for ev in engine.drain_events() {
            if let Event::Stolen { victim, by } = ev {
                println!("voice {} stolen by voice {}", victim.id(), by.id());
            }
        }
    }
    engine.render_to_wav(&path, 1.0)?;
    let stats = engine.stats();
    println!(
        "wrote {path}: {} plays, {} steals, {} rejections, peak {} voices",
        stats.started, stats.steals, stats.rejections, stats.peak_active_voices
    );
    Ok(())
}
