//! `Sound::from_file` / `from_bytes` over every format they read, with files
//! made at test time: sox (WAV, FLAC, OGG Vorbis) and lame (MP3, with and
//! without its LAME header). Needs the Debian packages `sox` and `lame`
//! (`.ci/run` and `scripts/setup.sh` install them).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{sox, Scratch};
use voicepool::{Sound, SoundError};

// ---------------------------------------------------------------- helpers

/// Runs lame; panics with a clear message if it is missing or fails.
fn lame(args: &[&str]) {
    let out = Command::new("lame")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run lame ({e}): these tests encode MP3 with it (Debian package `lame`)")
        });
    assert!(
        out.status.success(),
        "lame {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A test signal of exactly `frames` frames: a 200 Hz to 4 kHz sweep on
/// the first channel, a 3 kHz to 300 Hz sweep on the second, at -6 dBFS
/// (sweeps, so that a delay shows as a lag of best correlation).
fn source_wav(
    dir: &Scratch,
    name: &str,
    rate: u32,
    channels: u16,
    bits: u16,
    frames: usize,
) -> PathBuf {
    let path = dir.path(&format!("{name}.wav"));
    let (rate, bits, ch, len) = (
        rate.to_string(),
        bits.to_string(),
        channels.to_string(),
        format!("{frames}s"),
    );
    let mut args = vec![
        "-r",
        &rate,
        "-n",
        "-b",
        &bits,
        "-c",
        &ch,
        s(&path),
        "synth",
        &len,
        "sine",
        "200:4000",
    ];
    if channels == 2 {
        args.extend(["sine", "3000:300"]);
    }
    args.extend(["gain", "-6"]);
    sox(&args);
    path
}

#[derive(Clone, Copy, Debug)]
enum Enc {
    Flac,
    Ogg,
    /// lame with its LAME/Xing header (encoder delay and padding recorded).
    Mp3,
    /// lame -t: no header, so nothing says what to trim.
    Mp3NoTag,
}

fn encode(enc: Enc, src: &Path, dst: &Path) {
    match enc {
        Enc::Flac => drop(sox(&[s(src), s(dst)])),
        Enc::Ogg => drop(sox(&[s(src), "-C", "5", s(dst)])),
        Enc::Mp3 => lame(&["--quiet", "-b", "192", s(src), s(dst)]),
        Enc::Mp3NoTag => lame(&["--quiet", "-t", "-b", "192", s(src), s(dst)]),
    }
}

/// Loads `path` from the file and from its bytes; both must agree.
fn load(path: &Path) -> Result<Sound, SoundError> {
    let from_file = Sound::from_file(path);
    if let Ok(bytes) = std::fs::read(path) {
        match (&from_file, Sound::from_bytes(&bytes)) {
            (Ok(a), Ok(b)) => assert_eq!(a.samples(), b.samples(), "{}", path.display()),
            (Err(a), Err(b)) => {
                assert_eq!(std::mem::discriminant(a), std::mem::discriminant(&b));
                assert_eq!(b.path(), Path::new("<bytes>"));
            }
            (a, b) => panic!("{}: file gives {a:?}, bytes give {b:?}", path.display()),
        }
    }
    from_file
}

fn channel(samples: &[f32], channels: usize, c: usize) -> Vec<f64> {
    samples
        .chunks_exact(channels)
        .map(|f| f64::from(f[c]))
        .collect()
}

fn rms(x: &[f64]) -> f64 {
    (x.iter().map(|v| v * v).sum::<f64>() / x.len().max(1) as f64).sqrt()
}

/// The lag (decoded relative to source, in frames, within ±`max_lag`) at
/// which the two correlate best, and that correlation.
fn best_alignment(src: &[f64], dec: &[f64], max_lag: isize) -> (isize, f64) {
    let corr_at = |lag: isize| {
        let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
        for (i, &x) in src.iter().enumerate() {
            let j = i as isize + lag;
            if j < 0 || j as usize >= dec.len() {
                continue;
            }
            let y = dec[j as usize];
            sxy += x * y;
            sxx += x * x;
            syy += y * y;
        }
        sxy / (sxx * syy).sqrt().max(1e-30)
    };
    (-max_lag..=max_lag)
        .map(|lag| (lag, corr_at(lag)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap()
}

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

// ---------------------------------------------------------------- layouts

/// A channel's (left, right) gain in the downmix.
type Gains = (f64, f64);

/// Each channel of a 3, 4 (quad), 6 (5.1) and 8 (7.1) channel file alone
/// carries a tone: where it lands in the stereo downmix, as WAV (sox's
/// extensible header with its channel mask), FLAC and OGG Vorbis (the same
/// channels in Vorbis's own order).
#[test]
fn surround_channels_land_where_bs775_puts_them() {
    const H: f64 = std::f64::consts::FRAC_1_SQRT_2;
    let dir = Scratch::new("layouts");
    let tone = dir.path("tone.wav");
    let silence = dir.path("silence.wav");
    sox(&[
        "-D",
        "-r",
        "48000",
        "-n",
        "-b",
        "16",
        "-c",
        "1",
        s(&tone),
        "synth",
        "4800s",
        "sine",
        "1000",
        "gain",
        "-6",
    ]);
    sox(&[
        "-D",
        "-r",
        "48000",
        "-n",
        "-b",
        "16",
        "-c",
        "1",
        s(&silence),
        "trim",
        "0",
        "4800s",
    ]);
    let tone_rms = rms(&channel(
        Sound::from_wav_file(&tone).unwrap().samples(),
        1,
        0,
    ));
    // (layout, (left, right) gain of each channel in WAV order, the
    // channels in Vorbis order as sox remix numbers them)
    let layouts: &[(&str, &[Gains], &str)] = &[
        ("3.0", &[(1.0, 0.0), (0.0, 1.0), (H, H)], "1 3 2"),
        (
            "quad",
            &[(1.0, 0.0), (0.0, 1.0), (H, 0.0), (0.0, H)],
            "1 2 3 4",
        ),
        (
            "5.1",
            &[
                (1.0, 0.0),
                (0.0, 1.0),
                (H, H),
                (0.0, 0.0),
                (H, 0.0),
                (0.0, H),
            ],
            "1 3 2 5 6 4",
        ),
        (
            "7.1",
            &[
                (1.0, 0.0),
                (0.0, 1.0),
                (H, H),
                (0.0, 0.0),
                (H, 0.0),
                (0.0, H),
                (H, 0.0),
                (0.0, H),
            ],
            "1 3 2 7 8 5 6 4",
        ),
    ];
    for &(layout, gains, vorbis_order) in layouts {
        for (k, &(want_l, want_r)) in gains.iter().enumerate() {
            let wav = dir.path(&format!("{layout}-{k}.wav"));
            let mut args = vec!["-D", "-M"];
            for c in 0..gains.len() {
                args.push(if c == k { s(&tone) } else { s(&silence) });
            }
            args.push(s(&wav));
            sox(&args);
            let flac = dir.path(&format!("{layout}-{k}.flac"));
            sox(&[s(&wav), s(&flac)]);
            let ogg = dir.path(&format!("{layout}-{k}.ogg"));
            let mut remix = vec!["-D", s(&wav), "-C", "8", s(&ogg), "remix"];
            remix.extend(vorbis_order.split(' '));
            sox(&remix);
            for (file, tolerance) in [(&wav, 1e-4), (&flac, 1e-4), (&ogg, 0.02)] {
                let sound = load(file).unwrap_or_else(|e| panic!("{e}"));
                let what = format!("{layout}, channel {k} alone, {}", file.display());
                assert_eq!((sound.channels(), sound.frames()), (2, 4_800), "{what}");
                let l = rms(&channel(sound.samples(), 2, 0)) / tone_rms;
                let r = rms(&channel(sound.samples(), 2, 1)) / tone_rms;
                assert!(
                    (l - want_l).abs() < tolerance && (r - want_r).abs() < tolerance,
                    "{what}: left {l:.4}, right {r:.4}, want {want_l:.4}, {want_r:.4}"
                );
            }
        }
    }
}

/// A 5.1 file with a different signal in every channel: the downmix is
/// exactly `L = FL + 0.7071 C + 0.7071 Ls`, `R = FR + 0.7071 C + 0.7071 Rs`
/// (LFE dropped), and the FLAC of it gives the same samples as the WAV.
#[test]
fn a_five_one_mix_is_exact() {
    let dir = Scratch::new("five-one");
    let wav = dir.path("mix.wav");
    sox(&[
        "-r",
        "44100",
        "-n",
        "-b",
        "16",
        "-c",
        "6",
        s(&wav),
        "synth",
        "0.2",
        "sine",
        "300:3000",
        "sine",
        "3000:300",
        "sine",
        "440",
        "sine",
        "50",
        "square",
        "220",
        "triangle",
        "330",
        "gain",
        "-3",
    ]);
    let flac = dir.path("mix.flac");
    sox(&[s(&wav), s(&flac)]);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let expected: Vec<f32> = support::sox_samples(&wav)
        .chunks_exact(6)
        .flat_map(|f| [f[0] + h * f[2] + h * f[4], f[1] + h * f[2] + h * f[5]])
        .collect();
    let from_wav = load(&wav).unwrap();
    let from_flac = load(&flac).unwrap();
    assert_eq!(from_wav.samples(), from_flac.samples());
    assert_eq!(from_wav.samples().len(), expected.len());
    for (i, (got, want)) in from_wav.samples().iter().zip(&expected).enumerate() {
        assert!((got - want).abs() < 1e-6, "sample {i}: {got} vs {want}");
    }
}

// ---------------------------------------------------------------- detection and errors

/// Small files of every format, made from one source.
fn corpus(dir: &Scratch) -> Vec<(&'static str, PathBuf)> {
    let src = source_wav(dir, "corpus", 44_100, 2, 16, 4_410);
    let mut out = vec![("wav", src.clone())];
    for (ext, enc) in [("flac", Enc::Flac), ("ogg", Enc::Ogg), ("mp3", Enc::Mp3)] {
        let p = dir.path(&format!("corpus.{ext}"));
        encode(enc, &src, &p);
        out.push((ext, p));
    }
    out
}

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
            "the file is empty (0 bytes)",
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

/// A WAV's extensible channel mask decides where each channel goes: its
/// set bits name the channels in order; channels past them alternate left
/// and right; no mask means the standard order.
#[test]
fn the_wav_channel_mask_is_honoured() {
    const H: f64 = std::f64::consts::FRAC_1_SQRT_2;
    let dir = Scratch::new("mask");
    let base = dir.path("base.wav");
    // A tone in channel 0 of 6, silence in channels 1 to 5, mask 0x3F.
    sox(&[
        "-D",
        "-r",
        "48000",
        "-n",
        "-b",
        "16",
        "-c",
        "6",
        s(&base),
        "synth",
        "4800s",
        "sine",
        "1000",
        "sine",
        "0",
        "sine",
        "0",
        "sine",
        "0",
        "sine",
        "0",
        "sine",
        "0",
        "gain",
        "-6",
    ]);
    let bytes = std::fs::read(&base).unwrap();
    assert_eq!(
        &bytes[40..44],
        &0x3Fu32.to_le_bytes(),
        "sox's mask, at its place"
    );
    let reference = load(&base).unwrap();
    let level = rms(&channel(reference.samples(), 2, 0));
    // (mask, where channel 0 lands)
    let rows: &[(u32, Gains)] = &[
        (0x3F, (1.0, 0.0)), // front left
        (0x7E, (0.0, 1.0)), // front right first: FR FC LFE BL BR FLC
        (0x3C, (H, H)),     // front centre first: FC LFE BL BR + 2 unknown
        (0x38, (0.0, 0.0)), // LFE first: dropped
        (0x0, (1.0, 0.0)),  // no mask: the standard order
        (0x600, (H, 0.0)),  // only SL SR named: channel 0 is SL
    ];
    for &(mask, (want_l, want_r)) in rows {
        let mut m = bytes.clone();
        m[40..44].copy_from_slice(&mask.to_le_bytes());
        let path = dir.path(&format!("mask-{mask:x}.wav"));
        std::fs::write(&path, &m).unwrap();
        let sound = load(&path).unwrap();
        let l = rms(&channel(sound.samples(), 2, 0)) / level;
        let r = rms(&channel(sound.samples(), 2, 1)) / level;
        assert!(
            (l - want_l).abs() < 1e-4 && (r - want_r).abs() < 1e-4,
            "mask {mask:#x}: left {l:.4} right {r:.4}"
        );
    }
}
