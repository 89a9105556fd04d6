//! Limits that guard memory and time, and never refuse a valid file: a WAV
//! header that claims too much is refused from the header; `from_samples`
//! needs little more than the caller's buffer; a valid file with many chunks
//! before its data loads.
//!
//! The memory tests run in a child process (this test binary run again)
//! under an address-space cap, so that a regression fails the test instead
//! of taking the test run down with it.

use voicepool_testkit::support;

use std::io::Write;
use std::path::Path;

use support::Scratch;
use voicepool::sound::{MAX_CHUNKS_BEFORE_DATA, MAX_FRAMES};
use voicepool::{Sound, SoundError};

const CHILD: &str = "VOICEPOOL_WAV_LIMITS_CHILD";

/// Runs test `name` again in a child process (with `CHILD` set) and fails
/// with the child's output unless it succeeds.
fn in_child(name: &str, extra_env: &[(&str, &str)]) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .envs(extra_env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child {name} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// This process's address space now, in bytes.
fn vm_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmSize:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

/// Caps this process's address space at its current size plus `margin`.
fn cap_address_space(margin: u64) {
    let limit = vm_size() + margin;
    let rl = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: setrlimit reads the struct we pass; no memory is shared.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_AS, &rl) };
    assert_eq!(rc, 0, "setrlimit failed");
}

/// A canonical 44-byte PCM header (`fmt ` then `data`).
fn header(channels: u16, bits: u16, data_len: u32) -> Vec<u8> {
    let block = channels * bits / 8;
    let mut h = Vec::new();
    h.extend_from_slice(b"RIFF");
    h.extend_from_slice(&36u32.saturating_add(data_len).to_le_bytes());
    h.extend_from_slice(b"WAVEfmt ");
    h.extend_from_slice(&16u32.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&channels.to_le_bytes());
    h.extend_from_slice(&48_000u32.to_le_bytes());
    h.extend_from_slice(&(48_000 * u32::from(block)).to_le_bytes());
    h.extend_from_slice(&block.to_le_bytes());
    h.extend_from_slice(&bits.to_le_bytes());
    h.extend_from_slice(b"data");
    h.extend_from_slice(&data_len.to_le_bytes());
    h
}

/// A sparse 2 GiB file (a few KB on disk) whose header announces
/// 2^31 + 16 frames of 8-bit mono: more than `MAX_FRAMES`.
fn sparse_huge_wav(path: &Path) {
    let frames = MAX_FRAMES as u64 + 16;
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&header(1, 8, frames as u32)).unwrap();
    f.set_len(44 + frames).unwrap();
}

#[test]
fn a_header_claiming_too_many_frames_is_refused_before_decoding() {
    if !is_child() {
        let scratch = Scratch::new("wav_limits_huge");
        let path = scratch.path("huge.wav");
        sparse_huge_wav(&path);
        let p = path.to_str().unwrap();
        in_child(
            "a_header_claiming_too_many_frames_is_refused_before_decoding",
            &[("HUGE_WAV", p)],
        );
        return;
    }
    let path = std::env::var("HUGE_WAV").unwrap();
    // Decoding even a part of 2 GiB would go far past this.
    cap_address_space(256 << 20);
    for from_bytes in [false, true] {
        let got = if from_bytes {
            // Only the header and a little data: from memory, the claim is
            // just as large.
            let mut bytes = header(1, 8, MAX_FRAMES as u32 + 16);
            bytes.extend_from_slice(&[128; 4_096]);
            Sound::from_wav_bytes(&bytes)
        } else {
            Sound::from_wav_file(&path)
        };
        match got {
            Err(SoundError::TooLong { frames, path: p }) => {
                assert_eq!(frames, MAX_FRAMES as u64 + 16);
                if !from_bytes {
                    assert_eq!(p, Path::new(&path));
                }
            }
            other => panic!("expected TooLong, got {other:?}"),
        }
    }
}

#[test]
fn from_samples_needs_little_more_than_the_callers_buffer() {
    // 256 MiB of samples. With the default growth, appending the guard
    // frames would reallocate to twice that for a moment.
    const SAMPLES: usize = 64 << 20;
    if !is_child() {
        in_child(
            "from_samples_needs_little_more_than_the_callers_buffer",
            &[],
        );
        return;
    }
    let mut samples = Vec::with_capacity(SAMPLES);
    samples.resize(SAMPLES, 0.25f32);
    // Half the buffer again is room for the analysis tables and the like,
    // not for a second copy.
    cap_address_space((SAMPLES * 4 / 2) as u64);
    let sound = Sound::from_samples(2, 48_000, samples).unwrap();
    assert_eq!(sound.frames(), SAMPLES / 2);
    assert_eq!(sound.samples()[SAMPLES - 1], 0.25);
}

/// A PCM WAV with `extra` odd-sized `LIST` chunks (3 bytes plus RIFF's pad
/// byte each) between `fmt ` and `data`, holding `data` as 16-bit mono.
fn many_chunks_wav(extra: usize, data: &[i16]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(b"WAVEfmt ");
    body.extend_from_slice(&header(1, 16, 0)[16..36]);
    for i in 0..extra {
        body.extend_from_slice(b"LIST");
        body.extend_from_slice(&3u32.to_le_bytes());
        body.extend_from_slice(&[b'a', b'b', (i % 251) as u8, 0]);
    }
    body.extend_from_slice(b"data");
    body.extend_from_slice(&((data.len() * 2) as u32).to_le_bytes());
    for s in data {
        body.extend_from_slice(&s.to_le_bytes());
    }
    let mut wav = b"RIFF".to_vec();
    wav.extend_from_slice(&(body.len() as u32).to_le_bytes());
    wav.extend_from_slice(&body);
    wav
}

#[test]
fn many_odd_sized_chunks_before_the_data_are_read() {
    let scratch = Scratch::new("wav_limits_chunks");
    let data: Vec<i16> = (0..480).map(|i| (i * 64 - 15_000) as i16).collect();
    let want: Vec<f32> = data.iter().map(|&s| f32::from(s) / 32_768.0).collect();
    for extra in [0, 62, 63, 64, 1_000, 100_000] {
        let wav = many_chunks_wav(extra, &data);
        let path = scratch.path(&format!("chunks_{extra}.wav"));
        std::fs::write(&path, &wav).unwrap();
        for got in [Sound::from_wav_file(&path), Sound::from_wav_bytes(&wav)] {
            let sound = got.unwrap_or_else(|e| panic!("{extra} chunks: {e}"));
            assert_eq!(sound.samples(), &want[..], "{extra} chunks");
        }
        if extra == 63 {
            // sox reads it too (so it is a valid file, not a lenient read).
            assert_eq!(support::sox_samples(&path), want);
        }
    }
}

#[test]
fn a_file_with_more_chunks_than_the_limit_says_which_limit() {
    let wav = many_chunks_wav(MAX_CHUNKS_BEFORE_DATA + 1, &[1, 2, 3]);
    match Sound::from_wav_bytes(&wav) {
        Err(SoundError::NotWav { reason, .. }) => {
            assert!(
                reason.contains(&MAX_CHUNKS_BEFORE_DATA.to_string()) && reason.contains("chunks"),
                "{reason}"
            );
        }
        other => panic!("expected NotWav naming the limit, got {other:?}"),
    }
}
