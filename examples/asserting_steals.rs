//! How a game tests its own audio: render a scripted scene offline (the
//! same mixer as live, deterministic to the sample) and assert on what
//! happened: which voice was stolen and by whom, what was refused, and what
//! came out. Copy the shape into your game's `tests/`.
//!
//! The scene: a pool of four voices; an ambience loop (protected), a quiet
//! and a loud engine hum, a radio line; then an explosion arrives. (The
//! levels keep the mix below the output limiter, whose bending would mix
//! tones into each other and blur the check.) The
//! expected thief is the explosion and the expected victim the quiet hum
//! (the voice the player misses least), and after the steal's short fade
//! the quiet hum's tone is gone from the output while the others play on.
//!
//! ```text
//! cargo run --example asserting_steals     # runs the checks, prints what they saw
//! cargo test --example asserting_steals    # the same checks as tests
//! ```

use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, VoiceHandle};

const RATE: u32 = 48_000;

/// A sine at `hz`, `seconds` long: each sound its own tone, so the output
/// can be searched for it.
fn tone(hz: f32, seconds: f32, amp: f32) -> Sound {
    let n = (seconds * RATE as f32) as usize;
    let s = (0..n)
        .map(|i| (i as f32 * hz * std::f32::consts::TAU / RATE as f32).sin() * amp)
        .collect();
    Sound::from_samples(1, RATE, s).expect("a tone")
}

/// How much of `hz` is in `x` (one channel): the amplitude of its
/// component, by correlation (a Goertzel in two lines).
fn amplitude_of(x: &[f32], hz: f32) -> f32 {
    let w = hz * std::f32::consts::TAU / RATE as f32;
    let (re, im) = x
        .iter()
        .enumerate()
        .fold((0.0f64, 0.0f64), |(re, im), (i, &v)| {
            let p = f64::from(w) * i as f64;
            (re + f64::from(v) * p.cos(), im + f64::from(v) * p.sin())
        });
    (2.0 * (re * re + im * im).sqrt() / x.len() as f64) as f32
}

/// The scene's handles.
struct Scene {
    engine: OfflineEngine,
    quiet_hum: VoiceHandle,
    loud_hum: VoiceHandle,
    explosion: VoiceHandle,
}

/// Plays the scene up to the explosion's arrival.
fn scene() -> Scene {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 4,
        ..Default::default()
    })
    .expect("an engine");
    let looped = PlayParams::default().looping(true);
    engine
        .play(&tone(110.0, 1.0, 0.1), looped.protected(true))
        .expect("ambience");
    let quiet_hum = engine
        .play(&tone(440.0, 1.0, 0.5), looped.volume(0.05))
        .expect("quiet hum");
    let loud_hum = engine
        .play(&tone(660.0, 1.0, 0.5), looped.volume(0.4))
        .expect("loud hum");
    engine
        .play(&tone(880.0, 3.0, 0.15), PlayParams::default())
        .expect("radio");
    engine.render(24_000); // half a second: every voice is old enough to steal
    engine.drain_events().for_each(drop);
    let explosion = engine
        .play(&tone(1_320.0, 2.0, 0.3), PlayParams::default())
        .expect("explosion");
    Scene {
        engine,
        quiet_hum,
        loud_hum,
        explosion,
    }
}

/// The explosion steals the quiet hum, and nothing else is stolen.
fn the_explosion_steals_the_quiet_hum() -> Result<(), String> {
    let mut s = scene();
    s.engine.render(480);
    let steals: Vec<Event> = s
        .engine
        .drain_events()
        .filter(|e| matches!(e, Event::Stolen { .. } | Event::Rejected { .. }))
        .collect();
    let expected = [Event::Stolen {
        victim: s.quiet_hum,
        by: s.explosion,
    }];
    if steals != expected {
        return Err(format!("expected {expected:?}, saw {steals:?}"));
    }
    println!("  stolen: the quiet hum, by the explosion");
    Ok(())
}

/// After the steal's fade, the quiet hum's tone is gone; the loud hum and
/// the explosion sound.
fn the_victim_is_silent_and_the_rest_plays_on() -> Result<(), String> {
    let mut s = scene();
    s.engine.render(960); // the steal and its 10 ms fade
    let left: Vec<f32> = s.engine.render(4_800).chunks(2).map(|f| f[0]).collect();
    let (victim, kept, thief) = (
        amplitude_of(&left, 440.0),
        amplitude_of(&left, 660.0),
        amplitude_of(&left, 1_320.0),
    );
    println!("  in the output: 440 Hz {victim:.4}, 660 Hz {kept:.4}, 1320 Hz {thief:.4}");
    if victim > 1e-4 || kept < 0.05 || thief < 0.05 {
        return Err(format!(
            "expected the 440 Hz hum gone and the others sounding: {victim} {kept} {thief}"
        ));
    }
    if !s.engine.is_playing(s.loud_hum) || s.engine.is_playing(s.quiet_hum) {
        return Err("is_playing disagrees with the steal".into());
    }
    Ok(())
}

fn main() {
    type Check = fn() -> Result<(), String>;
    let checks: [(&str, Check); 2] = [
        (
            "the explosion steals the quiet hum",
            the_explosion_steals_the_quiet_hum,
        ),
        (
            "the victim is silent and the rest plays on",
            the_victim_is_silent_and_the_rest_plays_on,
        ),
    ];
    let mut failed = false;
    for (name, check) in checks {
        println!("{name}:");
        if let Err(e) = check() {
            println!("  FAILED: {e}");
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
    println!("all checks passed");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_explosion_steals_the_quiet_hum() {
        super::the_explosion_steals_the_quiet_hum().unwrap();
    }

    #[test]
    fn the_victim_is_silent_and_the_rest_plays_on() {
        super::the_victim_is_silent_and_the_rest_plays_on().unwrap();
    }
}
