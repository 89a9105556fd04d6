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
