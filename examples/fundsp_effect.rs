//! A bus effect from the ecosystem: any stereo [fundsp] graph, wrapped as a
//! [`CustomEffect`] and played on a bus like a built-in effect. Here a
//! stereo chorus (two voices of fundsp's `chorus`, one per side) thickens
//! a dry tone; the example checks what a game would want to know: the
//! effect changes the sound, renders only finite samples, and allocates
//! nothing once the engine runs (fundsp preallocates in `allocate`, which
//! the wrapper calls from [`CustomEffect::prepare`], on the game side).
//!
//! ```text
//! cargo run --release --example fundsp_effect
//! ```
//!
//! [fundsp]: https://crates.io/crates/fundsp

#[global_allocator]
static ALLOCATOR: voicepool::alloc_check::CountingAllocator =
    voicepool::alloc_check::CountingAllocator;
use voicepool::alloc_check as counting_alloc;

use fundsp::prelude32::*;
use voicepool::{
    BusSettings, CustomEffect, Effect, EngineSettings, OfflineEngine, PlayParams, Sound,
};

/// A fundsp unit of two inputs and two outputs as a bus effect.
struct FunDsp(Box<dyn AudioUnit>);

impl CustomEffect for FunDsp {
    fn prepare(&mut self, sample_rate: u32) {
        // Game side: set the rate and allocate every buffer now.
        self.0.set_sample_rate(f64::from(sample_rate));
        self.0.allocate();
    }

    fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
        let mut out = [0.0f32; 2];
        for (l, r) in left.iter_mut().zip(right.iter_mut()) {
            self.0.tick(&[*l, *r], &mut out);
            *l = out[0];
            *r = out[1];
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let chorus = chorus(1, 0.015, 0.005, 0.4) | chorus(2, 0.015, 0.005, 0.45);
    let effect = FunDsp(Box::new(chorus));

    let mut e = OfflineEngine::new(EngineSettings::default())?;
    let thick = e.create_bus_with(BusSettings {
        effects: vec![Effect::Custom(Box::new(effect))],
        ..Default::default()
    })?;
    let tone: Vec<f32> = (0..48_000)
        .map(|i| {
            let t = i as f32 / 48_000.0;
            ((t * 220.0 * std::f32::consts::TAU).sin()
                + 0.5 * (t * 330.0 * std::f32::consts::TAU).sin())
                * 0.3
        })
        .collect();
    let tone = Sound::from_samples(1, 48_000, tone)?;
    e.play(&tone, PlayParams::default().looping(true).bus(thick))?;
    let mut dry = OfflineEngine::new(EngineSettings::default())?;
    dry.play(&tone, PlayParams::default().looping(true))?;

    // (The offline engine's first render sizes its own output buffer.)
    e.render(480);
    dry.render(480);
    let (mut differs, mut finite, mut allocations) = (0.0f64, true, 0u64);
    for _ in 0..200 {
        let before = counting_alloc::allocations();
        let wet = e.render(480);
        allocations += counting_alloc::allocations() - before;
        let wet = wet.to_vec();
        let plain = dry.render(480);
        finite &= wet.iter().all(|s| s.is_finite() && s.abs() <= 1.0);
        differs += wet
            .iter()
            .zip(plain)
            .map(|(a, b)| f64::from(a - b).powi(2))
            .sum::<f64>();
    }
    let rms = (differs / (200.0 * 960.0)).sqrt();
    println!("a fundsp stereo chorus on a bus: {rms:.4} RMS away from the dry tone, every sample finite: {finite}, allocations while rendering: {allocations}");
    assert!(rms > 0.01 && finite && allocations == 0);
    Ok(())
}
