//! Streaming from memory (`Sound::stream_bytes`), where a file system is
//! missing (a browser) or the game holds its data in an archive: a play
//! of the bytes sounds exactly what a play of the file sounds, for every
//! format, looping and sought; bad bytes are errors naming `<bytes>`.

use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, SoundError};

/// A render of `sound` played looping, sought to 0.3 s after 0.2 s.
fn render(sound: &Sound) -> Vec<f32> {
    let mut e = OfflineEngine::new(EngineSettings::default()).expect("engine");
    let h = e
        .play(sound, PlayParams::default().looping(true))
        .expect("play");
    let mut out = e.render(9_600).to_vec();
    e.seek(h, std::time::Duration::from_millis(300))
        .expect("seek");
    for _ in 0..40 {
        out.extend_from_slice(e.render(480));
    }
    out
}

#[test]
fn bytes_stream_exactly_as_their_file_does() {
    let dir = std::env::temp_dir().join(format!("voicepool-stream-bytes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    // A WAV made here; the sample OGG; FLAC and MP3 made by sox if it is there.
    let mut files = vec![std::path::PathBuf::from("samples/ambience.ogg")];
    let wav = dir.join("tone.wav");
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 44_100,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(&wav, spec).expect("wav");
    for i in 0..88_200i32 {
        w.write_sample(((i * 37) % 20_000 - 10_000) as i16)
            .expect("sample");
    }
    w.finalize().expect("finalize");
    files.push(wav);
    for ext in ["flac", "mp3"] {
        let out = dir.join(format!("tone.{ext}"));
        let made = std::process::Command::new("sox")
            .args(["-n", "-r", "48000", "-c", "2"])
            .arg(&out)
            .args(["synth", "2", "sine", "330"])
            .status()
            .is_ok_and(|s| s.success());
        if made {
            files.push(out);
        }
    }
    for file in &files {
        let bytes = std::fs::read(file).expect("read");
        let from_file = Sound::stream_file(file).expect("stream file");
        let from_bytes = Sound::stream_bytes(bytes).expect("stream bytes");
        assert!(from_bytes.is_streamed(), "{}", file.display());
        assert_eq!(
            from_bytes.frames(),
            from_file.frames(),
            "{}",
            file.display()
        );
        let (a, b) = (render(&from_file), render(&from_bytes));
        assert!(a.iter().any(|&s| s != 0.0), "{}: silent", file.display());
        assert_eq!(a, b, "{}", file.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_bytes_are_errors_naming_them() {
    let cases: [(&[u8], &str); 3] = [
        (b"", "empty"),
        (b"not a sound at all, just text", "unknown"),
        (b"RIFF\x10\0\0\0WAVEjunkjunkjunk", "wav"),
    ];
    for (bytes, what) in cases {
        let err = Sound::stream_bytes(bytes.to_vec()).expect_err(what);
        assert_eq!(err.path(), std::path::Path::new("<bytes>"), "{what}: {err}");
        assert!(!matches!(err, SoundError::Io { .. }), "{what}: {err}");
    }
}
