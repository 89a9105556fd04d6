//! `Sound::from_file` / `from_bytes` over every format they read, with files
//! made at test time: sox (WAV, FLAC, OGG Vorbis) and lame (MP3, with and
//! without its LAME header): lengths, samples against the source and the
//! reference decoders, detection by content, bad and cut files, the length
//! limit. Needs the Debian packages `sox` and `lame` (`.ci/run` and
//! `scripts/setup.sh` install them).

use voicepool_testkit::support;

use std::path::Path;
use support::codecs::{
    best_alignment, channel, corpus, encode, lame, load, rms, s, source_wav, Enc,
};

use support::Scratch;
use voicepool::{Sound, SoundError};

// ---------------------------------------------------------------- formats

/// Every format, a few rates and channel counts: channels, rate and length
/// right (gapless: the length that was encoded), FLAC bit-exact against its
/// WAV, lossy formats within 0.5 dB RMS and correlating above 0.99 with the
/// source once any decoder delay is aligned.
#[test]
fn each_format_decodes_to_what_was_encoded() {
    let dir = Scratch::new("formats");
    // (encoder, rate, channels, bits, frames)
    let rows: &[(Enc, u32, u16, u16, usize)] = &[
        (Enc::Flac, 44_100, 2, 16, 22_173),
        (Enc::Flac, 96_000, 1, 24, 48_001),
        (Enc::Flac, 8_000, 2, 16, 4_000),
        (Enc::Ogg, 44_100, 2, 16, 22_173),
        (Enc::Ogg, 48_000, 1, 16, 24_007),
        (Enc::Ogg, 22_050, 2, 16, 11_111),
        (Enc::Mp3, 44_100, 2, 16, 22_173),
        (Enc::Mp3, 48_000, 1, 16, 24_007),
        (Enc::Mp3, 22_050, 1, 16, 11_111),
        (Enc::Mp3NoTag, 44_100, 2, 16, 22_173),
    ];
    for (i, &(enc, rate, channels, bits, frames)) in rows.iter().enumerate() {
        let what = format!("{enc:?} {rate} Hz {channels} ch {bits}-bit {frames} frames");
        let src = source_wav(&dir, &format!("src{i}"), rate, channels, bits, frames);
        let ext = match enc {
            Enc::Flac => "flac",
            Enc::Ogg => "ogg",
            Enc::Mp3 | Enc::Mp3NoTag => "mp3",
        };
        let file = dir.path(&format!("row{i}.{ext}"));
        encode(enc, &src, &file);
        let reference = Sound::from_wav_file(&src).unwrap();
        assert_eq!(reference.frames(), frames, "{what}: the source");
        let sound = load(&file).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(sound.name(), format!("row{i}"), "{what}");
        assert_eq!(
            (sound.channels(), sound.sample_rate()),
            (channels, rate),
            "{what}"
        );
        match enc {
            Enc::Mp3NoTag => {
                // Nothing records the delay: the decoder's 529 frames and
                // the encoder's 576 stay in front, the padding at the end.
                assert!(sound.frames() > frames, "{what}: {}", sound.frames());
            }
            _ => assert_eq!(sound.frames(), frames, "{what}: decoded length"),
        }
        if let Enc::Flac = enc {
            assert_eq!(sound.samples(), reference.samples(), "{what}: bit-exact");
            eprintln!("{what}: {} frames, bit-exact", sound.frames());
            continue;
        }
        // The reference decoders (libvorbisfile through sox, lame's own)
        // trim as the file says too: the same length, the same samples but
        // for rounding.
        let reference_decode = match enc {
            Enc::Ogg => Some(support::sox_samples(&file)),
            Enc::Mp3 => {
                let out = dir.path(&format!("row{i}-lame.wav"));
                lame(&["--quiet", "--decode", s(&file), s(&out)]);
                Some(Sound::from_wav_file(&out).unwrap().samples().to_vec())
            }
            _ => None,
        };
        if let Some(theirs) = reference_decode {
            assert_eq!(
                theirs.len(),
                sound.samples().len(),
                "{what}: length vs the reference decoder"
            );
            let worst = theirs
                .iter()
                .zip(sound.samples())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            eprintln!("{what}: largest difference from the reference decoder {worst:.2e}");
            assert!(worst < 1e-3, "{what}: {worst} from the reference decoder");
        }
        let ch = channels as usize;
        for c in 0..ch {
            let a = channel(reference.samples(), ch, c);
            let b = channel(sound.samples(), ch, c);
            let (lag, corr) = best_alignment(&a, &b, 2_000);
            let db = 20.0 * (rms(&b) / rms(&a)).log10();
            eprintln!(
                "{what}, channel {c}: {} frames decoded, lag {lag}, correlation {corr:.5}, RMS {db:+.3} dB",
                sound.frames()
            );
            assert!(corr > 0.99, "{what} channel {c}: correlation {corr}");
            assert!(db.abs() < 0.5, "{what} channel {c}: RMS off by {db} dB");
            if !matches!(enc, Enc::Mp3NoTag) {
                assert_eq!(lag, 0, "{what} channel {c}: gapless means no delay");
            }
        }
    }
}

// ---------------------------------------------------------------- detection and errors

/// The format comes from the content: every file loads the same under
/// every other format's extension, and under none.
#[test]
fn the_content_decides_the_format_not_the_name() {
    let dir = Scratch::new("by-content");
    for (ext, path) in corpus(&dir) {
        let right = load(&path).unwrap();
        for other in ["wav", "ogg", "flac", "mp3", "bin", ""] {
            let renamed = if other.is_empty() {
                dir.path(&format!("{ext}-no-extension"))
            } else {
                dir.path(&format!("{ext}-as.{other}"))
            };
            std::fs::copy(&path, &renamed).unwrap();
            let sound = load(&renamed).unwrap_or_else(|e| panic!("{ext} named {other:?}: {e}"));
            assert_eq!(sound.samples(), right.samples(), "{ext} named {other:?}");
            assert_eq!(sound.name(), renamed.file_stem().unwrap().to_str().unwrap());
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(Sound::from_bytes(&bytes).unwrap().name(), ext);
    }
}

/// What each kind of bad input gives: the variant, and a message naming
/// the file and (for an unknown format) the formats that are read.
#[test]
fn bad_files_give_errors_naming_them() {
    let dir = Scratch::new("bad-files");
    let corpus = corpus(&dir);
    let bytes_of =
        |ext: &str| std::fs::read(&corpus.iter().find(|c| c.0 == ext).unwrap().1).unwrap();
    let flac = bytes_of("flac");
    let ogg = bytes_of("ogg");
    let mut rng = support::Rng(0x5EED_F00D);
    let mut random = rng.bytes(4_000);
    random[0] = b'x';
    // (file name, content or None for no file, expected variant, text the message holds)
    let rows: Vec<(&str, Option<Vec<u8>>, &str, &str)> = vec![
        (
            "garbage.ogg",
            Some(b"this is a text file, not audio\n".to_vec()),
            "UnknownFormat",
            "unsupported format: expected WAV, OGG Vorbis, FLAC or MP3",
        ),
        (
            "random.ogg",
            Some(random),
            "UnknownFormat",
            "expected WAV, OGG Vorbis, FLAC or MP3",
        ),
        (
            "empty.ogg",
            Some(Vec::new()),
            "UnknownFormat",
            "unsupported format (an empty file, 0 bytes): expected",
        ),
        ("missing.ogg", None, "Io", "cannot read"),
        (
            "layer2.mp3",
            Some([&[0xFF, 0xFD, 0x90, 0x64][..], &[0; 400]].concat()),
            "UnknownFormat",
            "MPEG layer II audio, MP2",
        ),
        (
            "oggs-then-junk.ogg",
            Some([&b"OggS"[..], &[7; 200]].concat()),
            "Malformed",
            "malformed OGG data",
        ),
        (
            "id3-only.mp3",
            Some(b"ID3\x04\0\0\0\0\0\0".to_vec()),
            "Malformed",
            "malformed MP3 data",
        ),
        (
            "flac-header-cut.flac",
            Some(flac[..30].to_vec()),
            "Malformed",
            "malformed FLAC data",
        ),
        (
            "flac-cut.flac",
            Some(flac[..flac.len() / 2].to_vec()),
            "Truncated",
            "header announces 4410 frames",
        ),
        (
            "ogg-header-cut.ogg",
            Some(ogg[..100].to_vec()),
            "Malformed",
            "malformed OGG data",
        ),
        (
            // Hand-made pages: an OpusHead, OpusTags and one packet.
            "opus.ogg",
            Some(
                std::fs::read(
                    Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("tests/fuzz-regressions/sound_bytes/unsupported-ogg-opus.bin"),
                )
                .unwrap(),
            ),
            "Unsupported",
            "OGG stream of Opus audio (WAV, OGG Vorbis, FLAC and MP3 are read)",
        ),
    ];
    for (name, content, variant, text) in rows {
        let path = dir.path(name);
        if let Some(c) = &content {
            std::fs::write(&path, c).unwrap();
        }
        let err = match load(&path) {
            Ok(s) => panic!("{name} loaded: {s:?}"),
            Err(e) => e,
        };
        let shown = err.to_string();
        eprintln!("{name}: {shown}");
        assert_eq!(err.path(), path, "{name}");
        assert!(
            shown.starts_with(&path.display().to_string()),
            "{name}: {shown}"
        );
        assert!(format!("{err:?}").starts_with(variant), "{name}: {err:?}");
        assert!(shown.contains(text), "{name}: {shown}");
    }
}

/// A file cut short: an error naming it where the format can tell (a
/// header's length, as for WAV; OGG's missing last page), else what is
/// there (an MP3 without a LAME header says nothing of its length).
#[test]
fn cut_files_are_reported_where_the_format_can_tell() {
    let dir = Scratch::new("cut");
    let mut files = corpus(&dir);
    let no_tag = dir.path("corpus-no-tag.mp3");
    encode(Enc::Mp3NoTag, &files[0].1, &no_tag);
    files.push(("mp3 without LAME header", no_tag));
    for (what, path) in files {
        let bytes = std::fs::read(&path).unwrap();
        let full = Sound::from_bytes(&bytes).unwrap().frames();
        let cut = dir.path("cut");
        std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
        let got = load(&cut);
        match &got {
            Ok(s) => eprintln!("{what} cut at 2/3: {} of {full} frames", s.frames()),
            Err(e) => eprintln!("{what} cut at 2/3: {e}"),
        }
        match (what, got) {
            (
                "wav" | "flac" | "mp3",
                Err(SoundError::Truncated {
                    expected_frames, ..
                }),
            ) => {
                assert_eq!(expected_frames, 4_410, "{what}")
            }
            ("ogg", Err(SoundError::Malformed { format: "OGG", .. })) => {}
            ("mp3 without LAME header", Ok(s)) => assert!(s.frames() < full),
            (_, other) => panic!("{what}: {other:?}"),
        }
    }
}

/// Decoding stops at the frame limit (`MAX_FRAMES`; lowered here through
/// the test hook), and a FLAC header announcing more than `MAX_FRAMES` is
/// refused before anything is decoded.
#[test]
fn the_length_limit_holds() {
    let dir = Scratch::new("limits");
    for (ext, path) in corpus(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        match Sound::from_bytes_with_frame_limit(&bytes, 1_000) {
            Err(SoundError::TooLong { frames, .. }) if ext == "flac" => assert_eq!(frames, 4_410),
            Err(SoundError::TooLong { frames, .. }) if ext != "wav" => {
                assert!(frames > 1_000 && frames < 4_410, "{ext}: {frames}")
            }
            Ok(s) if ext == "wav" => assert_eq!(s.frames(), 4_410), // WAV keeps MAX_FRAMES
            other => panic!("{ext}: {other:?}"),
        }
        assert_eq!(
            Sound::from_bytes_with_frame_limit(&bytes, 4_410)
                .unwrap()
                .frames(),
            4_410
        );
    }
    // STREAMINFO's 36-bit total sample count, at bytes 21.5 to 26.
    let mut flac = std::fs::read(dir.path("corpus.flac")).unwrap();
    let mut word = u64::from_be_bytes(flac[18..26].try_into().unwrap());
    word = (word & !((1 << 36) - 1)) | (1 << 35);
    flac[18..26].copy_from_slice(&word.to_be_bytes());
    let path = dir.path("huge.flac");
    std::fs::write(&path, &flac).unwrap();
    match Sound::from_file(&path) {
        Err(SoundError::TooLong { frames, .. }) => assert_eq!(frames, 1 << 35),
        other => panic!("{other:?}"),
    }
}
