//! A WAV header that claims gigabytes must not make the loader allocate them
//! up front. A counting global allocator records the largest single request
//! and the peak of live bytes while loading such a file.
//!
//! Its own test binary (one test), so no other test's allocations count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use voicepool::{Sound, SoundError};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwards the caller's layout to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
            LARGEST.fetch_max(layout.size(), Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A 16-bit mono WAV whose data chunk claims `claim` bytes but holds `data`.
fn lying_wav(claim: u32, frames: usize) -> Vec<u8> {
    let mut out = b"RIFF\xff\xff\xff\xffWAVEfmt \x10\0\0\0".to_vec();
    out.extend(1u16.to_le_bytes()); // PCM
    out.extend(1u16.to_le_bytes()); // mono
    out.extend(48_000u32.to_le_bytes());
    out.extend(96_000u32.to_le_bytes());
    out.extend(2u16.to_le_bytes());
    out.extend(16u16.to_le_bytes());
    out.extend(b"data");
    out.extend(claim.to_le_bytes());
    out.extend((0..frames).flat_map(|i| (i as i16).to_le_bytes()));
    out
}

/// Peak live bytes above the starting point while running `f`.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    LARGEST.store(0, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - base, LARGEST.load(Relaxed))
}

#[test]
fn headers_claiming_gigabytes_allocate_only_what_is_read() {
    // Limit: the loader may reserve a few MiB up front, never the claim.
    const LIMIT: usize = 16 << 20;
    // 4 GiB - 2 bytes claimed (about 2^31 samples), 1000 frames present.
    let bytes = lying_wav(0xFFFF_FFFE, 1_000);
    let (res, peak, largest) = peak_during(|| Sound::from_wav_bytes(&bytes));
    match res {
        Err(SoundError::Truncated {
            expected_frames,
            read_frames,
            ..
        }) => assert_eq!((expected_frames, read_frames), (0x7FFF_FFFF, 1_000)),
        other => panic!("{other:?}"),
    }
    assert!(peak < LIMIT, "peak {peak} bytes while loading");
    assert!(largest < LIMIT, "one allocation of {largest} bytes");

    // The same from a file.
    let path = std::env::temp_dir().join(format!("voicepool-claims-{}.wav", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let (res, peak, largest) = peak_during(|| Sound::from_wav_file(&path));
    let _ = std::fs::remove_file(&path);
    assert!(matches!(res, Err(SoundError::Truncated { .. })), "{res:?}");
    assert!(peak < LIMIT, "peak {peak} bytes while loading a file");
    assert!(largest < LIMIT, "one allocation of {largest} bytes (file)");
}
