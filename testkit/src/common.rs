//! Sounds and helpers shared by the integration tests.

use voicepool::{EngineSettings, Event, OfflineEngine, Sound, TimedEvent, VoiceHandle};

pub const RATE: u32 = 48_000;

/// A mono sine at `amp`, `seconds` long.
pub fn sine(freq: f32, seconds: f32, rate: u32, amp: f32) -> Sound {
    let n = (seconds * rate as f32) as usize;
    let s = (0..n)
        .map(|i| (i as f32 * freq * std::f32::consts::TAU / rate as f32).sin() * amp)
        .collect();
    Sound::from_samples(1, rate, s).unwrap()
}

/// A mono constant (DC) signal: every sample `amp`.
pub fn dc(seconds: f32, rate: u32, amp: f32) -> Sound {
    let n = (seconds * rate as f32) as usize;
    Sound::from_samples(1, rate, vec![amp; n]).unwrap()
}

/// `loud_seconds` of full-scale sine, then silence up to `seconds`: a loud
/// sound with a long silent tail (an explosion's decay, cut to the extreme).
pub fn burst_then_silence(loud_seconds: f32, seconds: f32) -> Sound {
    let n = (seconds * RATE as f32) as usize;
    let loud = (loud_seconds * RATE as f32) as usize;
    let s = (0..n)
        .map(|i| {
            if i < loud {
                (i as f32 * 440.0 * std::f32::consts::TAU / RATE as f32).sin()
            } else {
                0.0
            }
        })
        .collect();
    Sound::from_samples(1, RATE, s).unwrap()
}

/// Renders `seconds` in 480-frame blocks, returning everything rendered.
pub fn render_seconds(engine: &mut OfflineEngine, seconds: f32) -> Vec<f32> {
    let mut out = Vec::new();
    let blocks = (seconds * engine.sample_rate() as f32 / 480.0).round() as usize;
    for _ in 0..blocks {
        out.extend_from_slice(engine.render(480));
    }
    out
}

/// Only the `Stolen` and `Rejected` events.
pub fn steals_and_rejections(events: impl Iterator<Item = Event>) -> Vec<Event> {
    events
        .filter(|e| matches!(e, Event::Stolen { .. } | Event::Rejected { .. }))
        .collect()
}

/// One channel (0 left, 1 right) of interleaved stereo.
pub fn channel(out: &[f32], c: usize) -> Vec<f32> {
    out.chunks(2).map(|f| f[c]).collect()
}

/// The largest difference between neighbouring samples (a click detector).
pub fn largest_step(x: &[f32]) -> f32 {
    x.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max)
}

/// An offline engine of `voices` voices and `virtual_voices` virtual ones.
pub fn virtual_engine(voices: usize, virtual_voices: usize) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        virtual_voices,
        ..Default::default()
    })
    .unwrap()
}

/// Renders `blocks` blocks of 480 frames, collecting the timed events as
/// it goes; returns the output.
pub fn render_blocks(
    e: &mut OfflineEngine,
    blocks: usize,
    events: &mut Vec<TimedEvent>,
) -> Vec<f32> {
    let mut out = Vec::new();
    for _ in 0..blocks {
        out.extend_from_slice(e.render(480));
        events.extend(e.drain_timed_events());
    }
    out
}

/// The frame of the first event equal to `wanted`.
pub fn frame_of(events: &[TimedEvent], wanted: Event) -> Option<u64> {
    events.iter().find(|e| e.event == wanted).map(|e| e.frame)
}

/// The frame of `voice`'s terminal event.
pub fn end_of(events: &[TimedEvent], voice: VoiceHandle) -> Option<u64> {
    events
        .iter()
        .find(|e| e.event.is_terminal() && e.event.voice() == Some(voice))
        .map(|e| e.frame)
}

/// The RMS of `x` (0 for none), in `f64`.
pub fn rms(x: &[f32]) -> f64 {
    (x.iter().map(|&s| f64::from(s) * f64::from(s)).sum::<f64>() / x.len().max(1) as f64).sqrt()
}

/// `frames` frames of white noise of peak `amp` at `rate`, mono,
/// deterministic.
pub fn noise(frames: usize, rate: u32, amp: f32) -> Sound {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let s = (0..frames)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * amp
        })
        .collect();
    Sound::from_samples(1, rate, s).unwrap()
}
