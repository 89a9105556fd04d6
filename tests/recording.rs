//! Recording what an offline engine renders: the file holds exactly what
//! `render` returned, in either format; errors name the file and lose
//! nothing.

use voicepool_testkit::common;
use voicepool_testkit::support;

use common::*;
use support::Scratch;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, RenderError, WavFormat};

/// An engine with a few voices playing, so the output is not silence.
fn busy_engine() -> OfflineEngine {
    let e = OfflineEngine::new(EngineSettings::default()).unwrap();
    for (i, f) in [220.0, 330.0, 440.0].into_iter().enumerate() {
        let p = PlayParams::default().volume(0.3).pan(i as f32 * 0.5 - 0.5);
        e.play(&sine(f, 0.5, RATE, 0.8), p).unwrap();
    }
    e
}

/// Renders blocks of awkward sizes, some with new plays between them,
/// returning everything `render` returned.
fn drive(e: &mut OfflineEngine) -> Vec<f32> {
    let mut out = Vec::new();
    for (i, n) in [480, 0, 1, 333, 4_096, 17, 480, 2_000]
        .into_iter()
        .enumerate()
    {
        if i % 3 == 0 {
            e.play(&sine(660.0, 0.1, RATE, 0.5), PlayParams::default())
                .unwrap();
        }
        out.extend_from_slice(e.render(n));
    }
    out
}

fn read_f32(path: &std::path::Path) -> (hound::WavSpec, Vec<f32>) {
    let mut r = hound::WavReader::open(path).unwrap();
    let spec = r.spec();
    (spec, r.samples::<f32>().map(Result::unwrap).collect())
}

#[test]
fn the_recording_is_exactly_what_render_returned() {
    let scratch = Scratch::new("recording");
    for format in [WavFormat::Float32, WavFormat::Int16] {
        let path = scratch.path(&format!("{format:?}.wav"));
        let mut e = busy_engine();
        e.render(960); // before the recording: not in it
        e.start_recording(&path, format).unwrap();
        assert!(e.is_recording());
        let rendered = drive(&mut e);
        let take = e.stop_recording().unwrap().unwrap();
        assert!(!e.is_recording());
        e.render(480); // after: not in it
        assert_eq!(take.path, path);
        assert_eq!(take.frames, rendered.len() as u64 / 2);
        let mut r = hound::WavReader::open(&path).unwrap();
        let spec = r.spec();
        assert_eq!((spec.channels, spec.sample_rate), (2, RATE));
        match format {
            WavFormat::Float32 => {
                let got: Vec<f32> = r.samples::<f32>().map(Result::unwrap).collect();
                assert_eq!(got, rendered, "bit for bit");
            }
            WavFormat::Int16 => {
                let got: Vec<i16> = r.samples::<i16>().map(Result::unwrap).collect();
                let want: Vec<i16> = rendered
                    .iter()
                    .map(|&s| (s * 32_767.0).round() as i16)
                    .collect();
                assert_eq!(got, want);
            }
        }
        assert!(rendered.iter().any(|&s| s.abs() > 0.1), "not silence");
    }
}

#[test]
fn render_to_wav_while_recording_is_in_the_recording_too() {
    let scratch = Scratch::new("recording");
    let (all, part) = (scratch.path("all.wav"), scratch.path("part.wav"));
    let mut e = busy_engine();
    e.start_recording(&all, WavFormat::Float32).unwrap();
    let mut want = e.render(480).to_vec();
    e.render_to_wav(&part, 0.05).unwrap();
    want.extend(read_f32(&part).1);
    want.extend_from_slice(e.render(480));
    e.stop_recording().unwrap();
    assert_eq!(read_f32(&all).1, want);
}

#[test]
fn dropping_the_engine_finishes_the_file() {
    let scratch = Scratch::new("recording");
    let path = scratch.path("dropped.wav");
    let rendered = {
        let mut e = busy_engine();
        e.start_recording(&path, WavFormat::Float32).unwrap();
        drive(&mut e)
    };
    assert_eq!(read_f32(&path).1, rendered);
}

#[test]
fn recording_errors_name_the_file_and_lose_nothing() {
    let scratch = Scratch::new("recording");
    let mut e = busy_engine();
    assert!(e.stop_recording().unwrap().is_none(), "nothing to stop");

    // A file that cannot be created: the error names it; not recording.
    let bad = scratch.path("no-such-dir/take.wav");
    let err = e.start_recording(&bad, WavFormat::Int16).unwrap_err();
    assert!(matches!(err, RenderError::Io { ref path, .. } if *path == bad));
    assert!(err.to_string().contains("no-such-dir"), "{err}");
    assert!(!e.is_recording());

    // A second start while recording is refused and names the first file,
    // which goes on recording untouched.
    let first = scratch.path("first.wav");
    e.start_recording(&first, WavFormat::Float32).unwrap();
    let mut want = e.render(480).to_vec();
    let err = e
        .start_recording(scratch.path("second.wav"), WavFormat::Float32)
        .unwrap_err();
    assert!(matches!(err, RenderError::AlreadyRecording { ref path } if *path == first));
    assert!(err.to_string().contains("first.wav"), "{err}");
    assert!(!scratch.path("second.wav").exists());
    want.extend_from_slice(e.render(480));
    e.stop_recording().unwrap();
    assert_eq!(read_f32(&first).1, want);
}
