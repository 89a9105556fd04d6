//! Fetching voices' sample data ahead of their turn, when it is worth it.
//!
//! While the pool renders one voice, [`Prefetch::ahead`] is shown the voice
//! a few slots on and asks the CPU to start loading the first cache lines
//! its next segment reads ([`Voice::prefetch`]), so that the kernel finds
//! them in cache instead of waiting on memory. That pays when voices play
//! many different sounds (more sample data than the caches hold); when the
//! sounds in play are few and already cached, the prefetches only cost
//! instructions. So each block also estimates how many bytes of distinct
//! sample data the voices read (a small table of the sounds seen that
//! block), one block in [`ESTIMATE_EVERY`], and the blocks after it
//! prefetch only if that is over [`PREFETCH_ABOVE`].
//!
//! A prefetch is a hint: it changes nothing that is rendered.

use super::voice::Voice;

/// Bytes of distinct sample data read in a block above which the next block
/// prefetches: well above what a handful of shared sounds hold (eight
/// one-second 44.1 kHz stereo sounds are 2.8 MB), near where they stop
/// fitting in the caches of a desktop or console CPU.
pub(crate) const PREFETCH_ABOVE: usize = 8 << 20;

/// The estimate is made in one block of this many (it costs a few
/// instructions per voice; sounds in play change more slowly than that).
pub(crate) const ESTIMATE_EVERY: u64 = 4;

/// Entries in the table of sounds seen (pairs of neighbouring entries act
/// as two-way sets).
const SEEN: usize = 256;

/// Low bits of an entry: the address of the sample data (user-space
/// addresses fit in 48 bits); high bits: the block it was seen in.
const ADDR_BITS: u32 = 48;
const ADDR_MASK: u64 = (1 << ADDR_BITS) - 1;

/// The prefetch switch and the estimate that sets it.
pub(crate) struct Prefetch {
    /// Per entry the address of a sound's data and the block it was seen in.
    seen: Box<[u64; SEEN]>,
    /// This block's number (16 bits, never 0: a zeroed entry is unseen).
    block: u64,
    /// Bytes of distinct sample data seen so far this block.
    bytes: usize,
    /// Whether voices' data is prefetched in this block.
    on: bool,
    /// Whether this block makes the estimate.
    counting: bool,
}

impl Prefetch {
    /// Off, with nothing seen (allocates: made with the mixer).
    pub(crate) fn new() -> Prefetch {
        Prefetch {
            seen: Box::new([0; SEEN]),
            block: 1,
            bytes: 0,
            on: false,
            counting: true,
        }
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of::<[u64; SEEN]>()
    }

    /// Starts a block's estimate.
    pub(crate) fn begin_block(&mut self) {
        self.block = if self.block == 0xFFFF {
            1
        } else {
            self.block + 1
        };
        self.bytes = 0;
        self.counting = self.block.is_multiple_of(ESTIMATE_EVERY);
    }

    /// In a block that makes the estimate, counts `v`'s sample data toward
    /// it if `v` is the first voice seen reading it; prefetches its next
    /// `frames` frames if prefetching is on.
    #[inline(always)]
    pub(crate) fn ahead(&mut self, v: &Voice, frames: usize) {
        if self.counting {
            self.count(v);
        }
        if self.on {
            v.prefetch(frames);
        }
    }

    /// Counts `v`'s sample data toward this block's estimate if it is the
    /// first voice seen reading it.
    #[inline(always)]
    fn count(&mut self, v: &Voice) {
        let (addr, bytes) = v.data_span();
        let addr = addr as u64 & ADDR_MASK;
        let tag = addr | (self.block << ADDR_BITS);
        // Fibonacci hashing: the top 8 bits of the product pick the set.
        let h = (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize & (SEEN - 2);
        let (a, b) = (self.seen[h], self.seen[h + 1]);
        if a != tag && b != tag {
            // A new sound this block: take an entry not used this block if
            // there is one (else evict the first: the estimate then counts
            // a sound twice, erring toward prefetching).
            let stale = |e: u64| e >> ADDR_BITS != self.block;
            let k = if stale(a) || !stale(b) { h } else { h + 1 };
            self.seen[k] = tag;
            self.bytes = self.bytes.saturating_add(bytes);
        }
    }

    /// Ends a block; if it made the estimate, the blocks up to the next
    /// estimate prefetch if its voices read more distinct sample data than
    /// [`PREFETCH_ABOVE`].
    pub(crate) fn end_block(&mut self) {
        if self.counting {
            self.on = self.bytes > PREFETCH_ABOVE;
        }
    }

    /// Whether voices' data is being prefetched (the level refresh then
    /// fetches what it reads early too).
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::params::PlayParams;
    use crate::protocol::EngineId;
    use crate::sound::Sound;
    use std::sync::Arc;

    fn voices(sounds: &[Sound], count: usize) -> Vec<Voice> {
        let p = PlayParams::default()
            .looping(true)
            .validate(EngineId::next())
            .expect("valid");
        (0..count)
            .map(|i| {
                let s = &sounds[i % sounds.len()];
                Voice::new(Arc::clone(&s.data), &p, 48_000, 0, 0, None)
            })
            .collect()
    }

    /// Runs `ESTIMATE_EVERY` blocks (one of which makes the estimate).
    fn block(p: &mut Prefetch, voices: &[Voice]) -> bool {
        for _ in 0..ESTIMATE_EVERY {
            p.begin_block();
            for v in voices {
                p.ahead(v, 480);
            }
            p.end_block();
        }
        p.is_on()
    }

    /// Eight shared one-second sounds on 256 voices (1.4 MB) stay under
    /// the threshold; 64 different ones (11 MB) go over it, and back under
    /// once they stop.
    #[test]
    fn prefetching_turns_on_only_for_much_distinct_data() {
        let sound = |k: usize| {
            Sound::from_samples(1, 44_100, vec![0.01 * (k + 1) as f32; 44_100]).expect("valid")
        };
        let shared: Vec<Sound> = (0..8).map(sound).collect();
        let distinct: Vec<Sound> = (0..64).map(sound).collect();
        let mut p = Prefetch::new();
        let (few, many) = (voices(&shared, 256), voices(&distinct, 256));
        assert!(!block(&mut p, &few));
        assert!(!block(&mut p, &few));
        assert!(block(&mut p, &many));
        assert!(block(&mut p, &many));
        assert!(!block(&mut p, &few));
        for _ in 0..20_000 {
            assert!(!block(&mut p, &few[..8])); // block numbers wrap
        }
        assert!(block(&mut p, &many));
    }
}
