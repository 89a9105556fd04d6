//! Helpers for the tests of compressed formats (`tests/formats.rs`,
//! `tests/downmix.rs`): encoding with sox and lame, loading both ways, and
//! measuring what came out.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{sox, Scratch};
use voicepool::{Sound, SoundError};

/// Runs lame; panics with a clear message if it is missing or fails.
pub fn lame(args: &[&str]) {
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

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A test signal of exactly `frames` frames: a 200 Hz to 4 kHz sweep on
/// the first channel, a 3 kHz to 300 Hz sweep on the second, at -6 dBFS
/// (sweeps, so that a delay shows as a lag of best correlation).
pub fn source_wav(
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
pub enum Enc {
    Flac,
    Ogg,
    /// lame with its LAME/Xing header (encoder delay and padding recorded).
    Mp3,
    /// lame -t: no header, so nothing says what to trim.
    Mp3NoTag,
}

pub fn encode(enc: Enc, src: &Path, dst: &Path) {
    match enc {
        Enc::Flac => drop(sox(&[s(src), s(dst)])),
        Enc::Ogg => drop(sox(&[s(src), "-C", "5", s(dst)])),
        Enc::Mp3 => lame(&["--quiet", "-b", "192", s(src), s(dst)]),
        Enc::Mp3NoTag => lame(&["--quiet", "-t", "-b", "192", s(src), s(dst)]),
    }
}

/// Loads `path` from the file and from its bytes; both must agree.
pub fn load(path: &Path) -> Result<Sound, SoundError> {
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

pub fn channel(samples: &[f32], channels: usize, c: usize) -> Vec<f64> {
    samples
        .chunks_exact(channels)
        .map(|f| f64::from(f[c]))
        .collect()
}

pub fn rms(x: &[f64]) -> f64 {
    (x.iter().map(|v| v * v).sum::<f64>() / x.len().max(1) as f64).sqrt()
}

/// The lag (decoded relative to source, in frames, within ±`max_lag`) at
/// which the two correlate best, and that correlation.
pub fn best_alignment(src: &[f64], dec: &[f64], max_lag: isize) -> (isize, f64) {
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

/// Small files of every format, made from one source.
pub fn corpus(dir: &Scratch) -> Vec<(&'static str, PathBuf)> {
    let src = source_wav(dir, "corpus", 44_100, 2, 16, 4_410);
    let mut out = vec![("wav", src.clone())];
    for (ext, enc) in [("flac", Enc::Flac), ("ogg", Enc::Ogg), ("mp3", Enc::Mp3)] {
        let p = dir.path(&format!("corpus.{ext}"));
        encode(enc, &src, &p);
        out.push((ext, p));
    }
    out
}

/// A channel's (left, right) gain in the downmix.
pub type Gains = (f64, f64);
