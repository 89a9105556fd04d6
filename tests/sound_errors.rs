//! Loading WAV files: the formats the core reads, and a clear `SoundError`
//! naming the file for every way a file can be wrong.

use std::path::{Path, PathBuf};
use std::process::Command;

use voicepool::{Sound, SoundError};

/// A scratch directory of this test's, removed (with what is in it) when
/// dropped.
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(test: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("voicepool-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

fn write_wav(path: &Path, spec: hound::WavSpec, samples: &[i32]) {
    let mut w = hound::WavWriter::create(path, spec).unwrap();
    for &s in samples {
        w.write_sample(s).unwrap();
    }
    w.finalize().unwrap();
}

fn spec(channels: u16, rate: u32, bits: u16) -> hound::WavSpec {
    hound::WavSpec {
        channels,
        sample_rate: rate,
        bits_per_sample: bits,
        sample_format: hound::SampleFormat::Int,
    }
}

fn sox(args: &[&str]) {
    let status = Command::new("sox")
        .args(args)
        .status()
        .expect("sox is needed for this test: run scripts/setup.sh");
    assert!(status.success(), "sox {args:?} failed");
}

fn assert_names_file(err: &SoundError, path: &Path) {
    assert_eq!(err.path(), path);
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
}

#[test]
fn integer_pcm_of_every_width_loads_scaled_to_unit_range() {
    let dir = temp_dir("widths");
    for bits in [8u16, 16, 24, 32] {
        let full = 1i64 << (bits - 1);
        let path = dir.join(format!("w{bits}.wav"));
        let half = (full / 2) as i32;
        write_wav(
            &path,
            spec(1, 22_050, bits),
            &[0, half, -half, (-full) as i32],
        );
        let s = Sound::from_wav_file(&path).unwrap();
        assert_eq!((s.channels(), s.sample_rate(), s.frames()), (1, 22_050, 4));
        assert_eq!(s.samples(), &[0.0, 0.5, -0.5, -1.0], "{bits}-bit");
        assert_eq!(s.name(), format!("w{bits}"));
    }
}

#[test]
fn float_and_stereo_files_load_as_written() {
    let dir = temp_dir("float");
    let path = dir.join("f.wav");
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 96_000,
        bits_per_sample: 32,
        sample_format: hound::SampleFormat::Float,
    };
    let mut w = hound::WavWriter::create(&path, spec).unwrap();
    for s in [0.25f32, -0.75, 0.125, 1.0] {
        w.write_sample(s).unwrap();
    }
    w.finalize().unwrap();
    let s = Sound::from_wav_file(&path).unwrap();
    assert_eq!((s.channels(), s.sample_rate(), s.frames()), (2, 96_000, 2));
    assert_eq!(s.samples(), &[0.25, -0.75, 0.125, 1.0]);
}

#[test]
fn a_sox_made_file_loads() {
    let dir = temp_dir("sox");
    let path = dir.join("tone.wav");
    let p = path.to_str().unwrap();
    sox(&[
        "-n", "-r", "44100", "-b", "16", "-c", "2", p, "synth", "0.5", "sine", "440",
    ]);
    let s = Sound::from_wav_file(&path).unwrap();
    assert_eq!(
        (s.channels(), s.sample_rate(), s.frames()),
        (2, 44_100, 22_050)
    );
    assert!(s.level_at(10_000) > 0.3);
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let dir = temp_dir("missing");
    let path = dir.join("nope.wav");
    let err = Sound::from_wav_file(&path).unwrap_err();
    assert!(matches!(err, SoundError::Io { .. }), "{err:?}");
    assert_names_file(&err, &path);
}

#[test]
fn a_directory_is_an_io_error() {
    let dir = temp_dir("dir");
    let path = dir.to_path_buf();
    let err = Sound::from_wav_file(&path).unwrap_err();
    assert!(matches!(err, SoundError::Io { .. }), "{err:?}");
    assert_names_file(&err, &path);
}

#[test]
fn a_text_file_is_not_a_wav() {
    let dir = temp_dir("text");
    let path = dir.join("readme.wav");
    std::fs::write(&path, "this is not audio, it is a text file\n").unwrap();
    let err = Sound::from_wav_file(&path).unwrap_err();
    assert!(matches!(err, SoundError::NotWav { .. }), "{err:?}");
    assert_names_file(&err, &path);
}

#[test]
fn an_empty_file_is_not_a_wav() {
    let dir = temp_dir("emptyfile");
    let path = dir.join("zero.wav");
    std::fs::write(&path, []).unwrap();
    let err = Sound::from_wav_file(&path).unwrap_err();
    assert!(matches!(err, SoundError::NotWav { .. }), "{err:?}");
    assert_names_file(&err, &path);
}

#[test]
fn a_file_cut_short_is_truncated() {
    let dir = temp_dir("trunc");
    let path = dir.join("cut.wav");
    write_wav(&path, spec(1, 48_000, 16), &vec![1000; 48_000]);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = Sound::from_wav_file(&path).unwrap_err();
    match &err {
        SoundError::Truncated {
            expected_frames,
            read_frames,
            ..
        } => {
            assert_eq!(*expected_frames, 48_000);
            assert!(
                *read_frames > 20_000 && *read_frames < 24_000,
                "{read_frames}"
            );
        }
        other => panic!("expected Truncated, got {other:?}"),
    }
    assert_names_file(&err, &path);
}

#[test]
fn more_than_two_channels_are_downmixed_to_stereo() {
    // Three channels, plain header: the standard order, L R C.
    let dir = temp_dir("chan");
    let path = dir.join("surround.wav");
    write_wav(&path, spec(3, 48_000, 16), &[8192, -8192, 16384, 0, 0, 0]);
    let s = Sound::from_wav_file(&path).unwrap();
    assert_eq!((s.channels(), s.frames()), (2, 2));
    let c = 0.5 * std::f32::consts::FRAC_1_SQRT_2;
    assert_eq!(s.samples(), &[0.25 + c, -0.25 + c, 0.0, 0.0]);
}

#[test]
fn compressed_data_is_unsupported() {
    let dir = temp_dir("alaw");
    let path = dir.join("alaw.wav");
    let p = path.to_str().unwrap();
    sox(&[
        "-n", "-r", "8000", "-e", "a-law", p, "synth", "0.1", "sine", "440",
    ]);
    let err = Sound::from_wav_file(&path).unwrap_err();
    assert!(matches!(err, SoundError::Unsupported { .. }), "{err:?}");
    assert_names_file(&err, &path);
}

#[test]
fn a_zero_sample_rate_is_rejected() {
    let dir = temp_dir("rate");
    let path = dir.join("rate0.wav");
    write_wav(&path, spec(1, 8_000, 16), &[0, 1, 2, 3]);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[24..28].copy_from_slice(&0u32.to_le_bytes()); // fmt chunk: sample rate
    bytes[28..32].copy_from_slice(&0u32.to_le_bytes()); // and byte rate, to match
    std::fs::write(&path, &bytes).unwrap();
    let err = Sound::from_wav_file(&path).unwrap_err();
    assert!(
        matches!(err, SoundError::BadSampleRate { sample_rate: 0, .. }),
        "{err:?}"
    );
    assert_names_file(&err, &path);
}

#[test]
fn a_wav_with_no_frames_is_empty() {
    let dir = temp_dir("nodata");
    let path = dir.join("silent.wav");
    write_wav(&path, spec(2, 48_000, 16), &[]);
    let err = Sound::from_wav_file(&path).unwrap_err();
    assert!(matches!(err, SoundError::Empty { .. }), "{err:?}");
    assert_names_file(&err, &path);
}

#[test]
fn samples_made_in_code_are_checked_too() {
    assert!(matches!(
        Sound::from_samples(1, 48_000, vec![]),
        Err(SoundError::Empty { .. })
    ));
    assert!(matches!(
        Sound::from_samples(2, 48_000, vec![0.0; 3]),
        Err(SoundError::PartialFrame { .. })
    ));
    assert!(matches!(
        Sound::from_samples(1, 0, vec![0.0; 3]),
        Err(SoundError::BadSampleRate { .. })
    ));
    assert!(matches!(
        Sound::from_samples(3, 48_000, vec![0.0; 3]),
        Err(SoundError::Unsupported { .. })
    ));
    assert!(matches!(
        Sound::from_samples(1, 48_000, vec![0.0, f32::NAN]),
        Err(SoundError::NonFiniteSample { index: 1, .. })
    ));
}
