//! The checks of the `sound_bytes` fuzz target (`fuzz/`), run in the normal
//! test suite over damaged small OGG Vorbis, FLAC and MP3 files made by sox
//! and lame: cuts at every length, every header byte at edge values, random
//! bit flips and byte runs. Every input must give a sane sound or an error
//! naming `<bytes>`, and never a panic that escapes. Inputs the fuzzer
//! keeps go to `tests/fuzz-regressions/sound_bytes/`, named after the
//! outcome they must keep giving (`ok-`, or the `SoundError` variant in
//! lower case). Needs sox and lame.

use voicepool_testkit::sound_oracle;
use voicepool_testkit::support;

use std::path::Path;
use std::process::Command;

use sound_oracle::check_any_format;
use support::{sox, Rng, Scratch};
use voicepool::SoundError;

/// Small files of each compressed kind: mono and stereo, a few rates.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let dir = Scratch::new("fuzz-seeds");
    let mut out = Vec::new();
    for (rate, channels) in [("8000", "1"), ("44100", "2")] {
        let wav = dir.path(&format!("s{rate}.wav"));
        let w = wav.to_str().unwrap();
        sox(&[
            "-r", rate, "-n", "-b", "16", "-c", channels, w, "synth", "0.06", "sine", "300:3000",
            "gain", "-3",
        ]);
        for ext in ["flac", "ogg", "mp3"] {
            let p = dir.path(&format!("s{rate}.{ext}"));
            let ps = p.to_str().unwrap();
            if ext == "mp3" {
                let ok = Command::new("lame")
                    .args(["--quiet", w, ps])
                    .status()
                    .expect("lame is needed (Debian package `lame`)");
                assert!(ok.success());
            } else {
                sox(&[w, ps]);
            }
            out.push((format!("{ext} {rate} Hz"), std::fs::read(&p).unwrap()));
        }
    }
    out
}

/// Runs the oracle; counts the inputs symphonia panicked on (caught, and
/// reported as `Malformed`).
fn check(data: &[u8], panics: &mut usize) {
    if let Err(SoundError::Malformed { reason, .. }) = check_any_format(data) {
        if reason.contains("panic") {
            *panics += 1;
        }
    }
}

#[test]
fn every_cut() {
    let mut panics = 0;
    for (what, seed) in seeds() {
        for len in 0..=seed.len() {
            check(&seed[..len], &mut panics);
        }
        assert!(check_any_format(&seed).is_ok(), "{what}: the seed itself");
    }
    eprintln!("cuts: {panics} caught panics");
}

#[test]
fn header_bytes_at_edge_values() {
    let mut panics = 0;
    for (_, seed) in seeds() {
        for i in 0..seed.len().min(160) {
            for v in [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF] {
                let mut m = seed.clone();
                m[i] = v;
                check(&m, &mut panics);
            }
        }
    }
    eprintln!("header bytes: {panics} caught panics");
}

#[test]
fn random_flips_and_runs() {
    let mut rng = Rng(0xF0F0_1234_ABCD_0001);
    let mut panics = 0;
    for (_, seed) in seeds() {
        for round in 0..600 {
            let mut m = seed.clone();
            if round % 3 == 0 {
                // A run of random bytes somewhere.
                let at = rng.next_u64() as usize % m.len();
                let n = (1 + rng.next_u64() as usize % 64).min(m.len() - at);
                m[at..at + n].copy_from_slice(&rng.bytes(n));
            } else {
                for _ in 0..1 + rng.next_u64() % 8 {
                    let at = rng.next_u64() as usize % m.len();
                    m[at] ^= 1 << (rng.next_u64() % 8);
                }
            }
            check(&m, &mut panics);
        }
    }
    eprintln!("flips and runs: {panics} caught panics");
}

/// Each kept input is named after the outcome it must keep giving.
#[test]
fn inputs_the_fuzzer_kept() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions/sound_bytes");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/fuzz-regressions/sound_bytes exists") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expected = name.split('-').next().unwrap();
        let got = match check_any_format(&bytes) {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("{e:?}")
                .split([' ', '{'])
                .next()
                .unwrap()
                .to_lowercase(),
        };
        assert_eq!(got, expected, "{name}");
        n += 1;
    }
    assert!(n > 0, "no inputs in {}", dir.display());
}
