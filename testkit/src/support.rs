//! Helpers shared by the integration tests: a scratch directory that cleans
//! up after itself, and running sox (which `scripts/setup.sh` installs).

pub mod codecs;
pub mod shaped_buses;
pub mod stream_churn;
pub mod virtual_sweep;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh directory under the system temp dir, removed on drop.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub fn new(label: &str) -> Scratch {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "voicepool-{label}-{}-{nanos}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs sox with `args`; panics with a clear message if sox is missing or fails.
pub fn sox(args: &[&str]) -> Vec<u8> {
    let out = Command::new("sox").args(args).output().unwrap_or_else(|e| {
        panic!(
            "cannot run sox ({e}): these tests make their WAV corpus with sox; \
             install it with `bash scripts/setup.sh` (Debian package `sox`)"
        )
    });
    assert!(
        out.status.success(),
        "sox {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The samples of a sound file as sox decodes them: interleaved `f32`.
pub fn sox_samples(path: &Path) -> Vec<f32> {
    let raw = sox(&[
        "-D",
        path.to_str().expect("utf-8 path"),
        "-t",
        "f32",
        "-e",
        "floating-point",
        "-",
    ]);
    raw.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// A small deterministic generator (xorshift64*), so tests need no crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// The voice an event is about (for `Stolen`, the victim); `None` for
/// events about no voice.
pub fn voice_of(ev: &voicepool::Event) -> Option<voicepool::VoiceHandle> {
    ev.voice()
}
