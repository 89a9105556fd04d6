//! Doppler glides within the block: an emitter speeding toward the
//! listener changes its doppler shift every block, and the pitch moves in
//! small steps across each block, not in one step at its start; the
//! position in the sound runs on without a jump (phase-continuous).
//!
//! The sound is a ramp (sample n is n / len), so the output, divided by
//! the constant gain, reads back where in the sound the voice is: its
//! difference from frame to frame is the voice's step.

use voicepool::{DistanceModel, EngineSettings, OfflineEngine, PlayParams, Sound, Spatial};

const RATE: u32 = 48_000;
const BLOCK: usize = 480;
const LEN: usize = 4 * RATE as usize;

/// Per output frame, the step (source frames per output frame) of an
/// emitter 200 m ahead coming at 10 m/s more every block.
fn steps() -> Vec<f64> {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let ramp: Vec<f32> = (0..LEN).map(|n| n as f32 / LEN as f32).collect();
    let ramp = Sound::from_samples(1, RATE, ramp).unwrap();
    let flat = Spatial {
        distance: DistanceModel::None,
        ..Spatial::default()
    };
    let mut z = -200.0f32;
    let h = e
        .play(
            &ramp,
            PlayParams::default().position([0.0, 0.0, z]).spatial(flat),
        )
        .unwrap();
    let mut out = Vec::new();
    for k in 0..20 {
        let v = 10.0 * k as f32;
        z += v * BLOCK as f32 / RATE as f32;
        e.set_position(h, [0.0, 0.0, z], [0.0, 0.0, v]).unwrap();
        out.extend(e.render(BLOCK).chunks(2).map(|f| f64::from(f[0])));
    }
    // Straight ahead, centred: the gain per side is cos(pi/4).
    let g = std::f64::consts::FRAC_1_SQRT_2;
    out.windows(2)
        .map(|w| (w[1] - w[0]) / g * LEN as f64)
        .collect()
}

#[test]
fn the_doppler_shift_glides_across_each_block() {
    let steps = steps();
    // Each block's mean step, from block 3 on (the voice sounding, the
    // speed changing).
    let means: Vec<f64> = steps[3 * BLOCK..]
        .chunks_exact(BLOCK)
        .map(|b| b.iter().sum::<f64>() / BLOCK as f64)
        .collect();
    // Rising all the way (the position runs on, faster and faster).
    assert!(means.windows(2).all(|w| w[1] > w[0] + 0.005), "{means:?}");
    for b in 1..means.len() {
        let change = means[b] - means[b - 1];
        // The largest change of step from one frame to the next, within
        // the block and across its start: about an eighth of the block's
        // change (a piece of 64 frames), not all of it at once. (The ramp
        // reads back to within a few parts in a million.)
        let start = (3 + b) * BLOCK - 1;
        let largest = steps[start..start + BLOCK]
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max);
        assert!(
            largest < 0.2 * change,
            "block {b}: a step of {largest} in one frame; {change} over the block"
        );
    }
    assert!(
        steps[3 * BLOCK..].iter().all(|&s| s > 0.9 && s < 3.0),
        "no jump in position"
    );
}
