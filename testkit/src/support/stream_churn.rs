//! Streamed plays churning through a small engine: plays (more than there
//! are stream slots), seeks, stops, pauses, steals by decoded sounds, the
//! loader held back now and then so streams run dry. Shared by the
//! allocation-counting test and the RealtimeSanitizer test, which each
//! watch the audio side's `process` calls.

use std::collections::HashSet;
use std::time::Duration;

use super::{sox, Scratch};
use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, VoiceHandle};

/// What the churn did, for the caller to assert on.
pub struct Churned {
    pub stats: voicepool::Stats,
    pub streams_started: usize,
    pub streams_stolen: usize,
    pub seeks: usize,
}

/// Runs the churn; `process(engine, frames)` renders one block of the
/// audio side (the caller wraps it in its checks).
pub fn stream_churn(mut process: impl FnMut(&mut OfflineEngine, usize)) -> Churned {
    let dir = Scratch::new("stream-churn");
    let flac = dir.path("music.flac");
    let ogg = dir.path("voice.ogg");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    sox(&[
        "-n",
        "-r",
        "44100",
        "-c",
        "2",
        &s(&flac),
        "synth",
        "1.5",
        "sine",
        "300",
        "sine",
        "500",
    ]);
    sox(&[
        "-n",
        "-r",
        "22050",
        "-c",
        "1",
        &s(&ogg),
        "synth",
        "1",
        "sine",
        "700",
    ]);
    let streams = [
        Sound::stream_file(&flac).unwrap(),
        Sound::stream_file(&ogg).unwrap(),
    ];
    let tone: Vec<f32> = (0..9_600).map(|i| (i as f32 * 0.07).sin() * 0.6).collect();
    let blip = Sound::from_samples(1, 48_000, tone).unwrap();
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: 4,
        streams: 2,
        stream_buffer_frames: 4_096,
        virtual_voices: 2,
        event_capacity: 16,
        command_capacity: 16,
        ..Default::default()
    })
    .unwrap();
    let mut live: Vec<VoiceHandle> = Vec::new();
    let mut stream_handles = HashSet::new();
    let (mut started, mut stolen, mut seeks) = (0, 0, 0);
    let mut bed = None;
    for i in 0..1_500usize {
        // The loader falls behind for a stretch now and then; meanwhile
        // the streams already playing are left to run dry.
        let held = (100..160).contains(&(i % 300));
        if i % 3 == 0 && !held {
            let p = PlayParams::default()
                .looping(i % 9 == 0)
                .volume([0.05, 0.5, 1.0][i % 3])
                .virtualize(i % 2 == 0)
                .priority(if i % 5 == 0 { 200 } else { 64 })
                .start_at(if i % 4 == 1 { engine.clock() + 300 } else { 0 });
            if let Ok(h) = engine.play(&streams[i % 2], p) {
                live.push(h);
                stream_handles.insert(h);
                started += 1;
            }
        }
        if i % 300 == 90 {
            // A looping stream that nothing steals, to run dry in the
            // held stretch.
            let p = PlayParams::default().looping(true).protected(true);
            if let Ok(h) = engine.play(&streams[i % 2], p) {
                stream_handles.insert(h);
                started += 1;
                bed = Some(h);
            }
        }
        if i % 300 == 165 {
            if let Some(h) = bed.take() {
                let _ = engine.stop(h);
            }
        }
        if held {
            engine.hold_stream_loader(true);
            process(&mut engine, [0, 1, 64, 480, 1_024, 333][i % 6]);
            continue;
        }
        engine.hold_stream_loader(false);
        let _ = engine.play(&blip, PlayParams::default().priority((i % 3) as u8 * 64));
        if let Some(&h) = live.get(i % live.len().max(1)) {
            match i % 23 {
                0 | 5 | 11 => {
                    let _ = engine.seek(h, Duration::from_millis((i * 37 % 2_000) as u64));
                    seeks += 1;
                }
                3 | 17 | 20 => drop(engine.stop(h)),
                7 => drop(engine.pause(h)),
                9 => drop(engine.resume(h)),
                13 => drop(engine.set_pitch(h, 1.7)),
                _ => {}
            }
        }
        match i % 41 {
            0 => drop(engine.pause_bus(engine.master_bus())),
            2 => drop(engine.resume_bus(engine.master_bus())),
            30 => drop(engine.stop_all()),
            _ => {}
        }
        process(&mut engine, [0, 1, 64, 480, 1_024, 333][i % 6]);
        if i % 5 == 0 {
            for e in engine.drain_events() {
                if let Event::Stolen { victim, .. } = e {
                    stolen += usize::from(stream_handles.contains(&victim));
                }
            }
            live.retain(|&h| engine.is_playing(h));
        }
    }
    Churned {
        stats: engine.stats(),
        streams_started: started,
        streams_stolen: stolen,
        seeks,
    }
}
