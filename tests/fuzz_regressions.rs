//! The checks of the `wav_bytes` fuzz target (`fuzz/`), run in the normal
//! test suite: on every input kept under `tests/fuzz-regressions/` (crashes
//! and interesting cases the fuzzer found), and on a deterministic sweep of
//! corruptions of real WAV files (every header byte set to edge values,
//! random bit flips, cuts at every length). No nightly toolchain needed.

use voicepool_testkit::sound_oracle;
use voicepool_testkit::support;

use std::path::Path;

use sound_oracle::check;
use support::Rng;
use voicepool::Sound;

/// Each kept input is named after the outcome it must keep giving: `ok-`,
/// or the `SoundError` variant in lower case (`notwav-`, `truncated-`, ...).
#[test]
fn inputs_the_fuzzer_kept() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/fuzz-regressions exists") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        check(&bytes);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expected = name.split('-').next().unwrap();
        let got = match Sound::from_wav_bytes(&bytes) {
            Ok(_) => "ok".to_string(),
            Err(e) => {
                let dbg = format!("{e:?}");
                dbg.split([' ', '{']).next().unwrap().to_lowercase()
            }
        };
        assert_eq!(got, expected, "{name}");
        n += 1;
    }
    assert!(n > 0, "no inputs in {}", dir.display());
}

/// Small valid files of each kind the loader reads, made with hound.
fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (channels, bits, float) in [
        (1u16, 8u16, false),
        (2, 16, false),
        (1, 24, false),
        (2, 32, false),
        (1, 32, true),
    ] {
        let spec = hound::WavSpec {
            channels,
            sample_rate: 8_000,
            bits_per_sample: bits,
            sample_format: if float {
                hound::SampleFormat::Float
            } else {
                hound::SampleFormat::Int
            },
        };
        let mut cur = std::io::Cursor::new(Vec::new());
        {
            let mut w = hound::WavWriter::new(&mut cur, spec).unwrap();
            for i in 0..(24 * channels as i32) {
                if float {
                    w.write_sample((i as f32 * 0.3).sin()).unwrap();
                } else {
                    let max = (1i64 << (bits - 1)) - 1;
                    w.write_sample(((i as f64 * 0.3).sin() * max as f64) as i32)
                        .unwrap();
                }
            }
            w.finalize().unwrap();
        }
        out.push(cur.into_inner());
    }
    out
}

#[test]
fn every_header_byte_at_edge_values() {
    for seed in seeds() {
        let header = seed.len().min(80);
        for i in 0..header {
            for v in [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF] {
                let mut m = seed.clone();
                m[i] = v;
                check(&m);
            }
        }
    }
}

#[test]
fn random_bit_flips_and_cuts() {
    let mut rng = Rng(0x0DDB_A11C_0FFE_E000);
    for seed in seeds() {
        for len in 0..=seed.len() {
            check(&seed[..len]);
        }
        for _ in 0..500 {
            let mut m = seed.clone();
            for _ in 0..1 + rng.next_u64() % 4 {
                let at = (rng.next_u64() as usize) % m.len();
                m[at] ^= 1 << (rng.next_u64() % 8);
            }
            check(&m);
        }
    }
}
