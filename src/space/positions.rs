//! [`Positions`]: where every positioned play is and how it moves, in a
//! table of cells shared by the game side (which writes them, from any
//! thread, with no lock and no command) and the audio side (which reads
//! them once per block, and only for the voices it hears).
//!
//! A game moves hundreds or thousands of emitters every frame; one command
//! each would fill the command queue and cost a queue round trip and an id
//! lookup per emitter. Instead each positioned play owns a cell, named by
//! its [`super::VoiceHandle`], and a move is a sequence-locked write into
//! it: the writer makes the cell's sequence odd, writes, and makes it even
//! again; a reader that saw the same even sequence before and after its
//! read has a consistent position and velocity, and one that did not keeps
//! what it had and looks again next block. The audio thread never waits
//! and never writes here.
//!
//! Which cell a play owns is decided on the game side, under its mutex
//! (see `space::control::GameSpace`); a cell comes back once the audio side
//! is done with its play. Each cell records the play id that owns it, so a
//! stale handle's write lands nowhere.

use std::hint::spin_loop;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use ringbuf::HeapProd;

use crate::protocol::modulation::Mods;
use crate::protocol::space::{ValidOcclusion, Vec3};
use crate::protocol::NO_EMITTER;
use crate::space::Emitter;

/// What the audio side gets with the first positioned play: the shared
/// cells, a record for each (where its play was last read to be, what was
/// heard of it), and the queue on which it gives a cell back once its play
/// is over for good. Made on the game side, where allocating is allowed.
pub(crate) struct EmitterTable {
    pub(crate) positions: Arc<Positions>,
    pub(crate) records: Box<[Emitter]>,
    /// Each cell's play's parameter maps, if it has any (an `Arc` the game
    /// side keeps alive: replacing one here only decrements it).
    pub(crate) mods: Box<[Option<Arc<Mods>>]>,
    /// Room for every cell: a give-back never fails.
    pub(crate) returns: HeapProd<u32>,
}

/// One positioned play's position and velocity, sequence-locked.
struct Cell {
    /// Even: stable. Odd: a writer is at it.
    seq: AtomicU32,
    /// The id of the play that owns the cell (0: none yet).
    owner: AtomicU64,
    /// Position, velocity, orientation, then the occlusion's gain and
    /// cutoff, as `f32` bits.
    at: [AtomicU32; FIELDS],
    /// The cell of the owner's next layer (a layered cue's voices each
    /// have a cell, and a move writes them all), or `NO_EMITTER`. Only
    /// the game side reads or writes it.
    next: AtomicU32,
}

/// The `f32`s a cell holds.
const FIELDS: usize = 11;
/// Where each part starts in a cell.
pub(crate) const POSITION: usize = 0;
pub(crate) const ORIENTATION: usize = 6;
pub(crate) const OCCLUSION: usize = 9;

/// A position and velocity as read, with the sequence they were read at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Read {
    pub(crate) seq: u32,
    pub(crate) position: Vec3,
    pub(crate) velocity: Vec3,
    pub(crate) orientation: Vec3,
    pub(crate) occlusion: ValidOcclusion,
}

/// The table of cells, allocated whole when the first positioned play is
/// made.
///
/// Real-time contract: the audio side only calls [`Positions::seq`] and
/// [`Positions::read`] (atomic loads; never waits, never writes). Writers
/// are game threads; two writing the same cell at once take turns.
pub(crate) struct Positions {
    cells: Box<[Cell]>,
}

impl Positions {
    /// `n` cells, owned by nobody.
    pub(crate) fn new(n: usize) -> Positions {
        Positions {
            cells: (0..n)
                .map(|_| Cell {
                    seq: AtomicU32::new(0),
                    owner: AtomicU64::new(0),
                    at: Default::default(),
                    next: AtomicU32::new(NO_EMITTER),
                })
                .collect(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.cells)
    }

    /// Game side: cell `i` now belongs to play `owner`, at `position`
    /// moving at `velocity`, facing `orientation`, not occluded.
    pub(crate) fn claim(
        &self,
        i: u32,
        owner: u64,
        position: Vec3,
        velocity: Vec3,
        orientation: Vec3,
    ) {
        if let Some(cell) = self.cells.get(i as usize) {
            let seq = cell.lock();
            cell.owner.store(owner, Ordering::Relaxed);
            cell.next.store(NO_EMITTER, Ordering::Relaxed);
            let none = ValidOcclusion::NONE;
            cell.put(POSITION, &position);
            cell.put(POSITION + 3, &velocity);
            cell.put(ORIENTATION, &orientation);
            cell.put(OCCLUSION, &[none.gain, none.lowpass_hz]);
            cell.seq.store(seq.wrapping_add(2), Ordering::Release);
        }
    }

    /// Play `owner`, in cell `i`, is now at `position` moving at
    /// `velocity` (tests; the game side writes with
    /// [`Positions::write_at`]).
    #[cfg(test)]
    pub(crate) fn write(&self, i: u32, owner: u64, position: Vec3, velocity: Vec3) {
        let mut both = [0.0; 6];
        both[..3].copy_from_slice(&position);
        both[3..].copy_from_slice(&velocity);
        self.write_at(i, owner, POSITION, &both);
    }

    /// Game side: play `owner`, in cell `i`, now has `values` from field
    /// `start` on (`POSITION` and then the velocity, `ORIENTATION`,
    /// `OCCLUSION`). Does nothing if the cell is not the play's (a stale
    /// handle: its cell went to another play, or to none yet).
    ///
    /// Returns whether it wrote.
    pub(crate) fn write_at(&self, i: u32, owner: u64, start: usize, values: &[f32]) -> bool {
        let Some(cell) = self.cells.get(i as usize) else {
            return false;
        };
        let seq = cell.lock();
        if cell.owner.load(Ordering::Relaxed) == owner {
            cell.put(start, values);
            cell.seq.store(seq.wrapping_add(2), Ordering::Release);
            true
        } else {
            // Nothing written: the sequence a reader saw still holds.
            cell.seq.store(seq, Ordering::Release);
            false
        }
    }

    /// Game side: the play claiming cell `next` is the next layer of the
    /// one in cell `i` (made after both were claimed).
    pub(crate) fn link(&self, i: u32, next: u32) {
        if let Some(cell) = self.cells.get(i as usize) {
            cell.next.store(next, Ordering::Relaxed);
        }
    }

    /// Game side: the cell of the next layer after cell `i`'s play, if any.
    pub(crate) fn next(&self, i: u32) -> Option<u32> {
        let next = self.cells.get(i as usize)?.next.load(Ordering::Relaxed);
        (next != NO_EMITTER).then_some(next)
    }

    /// Audio side: cell `i`'s sequence now (it changes with every write).
    pub(crate) fn seq(&self, i: u32) -> u32 {
        self.cells
            .get(i as usize)
            .map_or(0, |c| c.seq.load(Ordering::Acquire))
    }

    /// Audio side: cell `i` as it is, or `None` while a writer is at it.
    pub(crate) fn read(&self, i: u32) -> Option<Read> {
        let cell = self.cells.get(i as usize)?;
        let seq = cell.seq.load(Ordering::Acquire);
        if seq & 1 == 1 {
            return None;
        }
        let f = |k: usize| f32::from_bits(cell.at[k].load(Ordering::Relaxed));
        let read = Read {
            seq,
            position: [f(0), f(1), f(2)],
            velocity: [f(3), f(4), f(5)],
            orientation: [f(6), f(7), f(8)],
            occlusion: ValidOcclusion {
                gain: f(9),
                lowpass_hz: f(10),
            },
        };
        fence(Ordering::Acquire);
        (cell.seq.load(Ordering::Relaxed) == seq).then_some(read)
    }
}

impl Cell {
    /// Makes the sequence odd (waiting for another writer to finish);
    /// returns the even value it had.
    fn lock(&self) -> u32 {
        loop {
            let seq = self.seq.load(Ordering::Relaxed);
            if seq & 1 == 0
                && self
                    .seq
                    .compare_exchange_weak(seq, seq | 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                // The writes below are not seen before the odd sequence.
                fence(Ordering::Release);
                return seq;
            }
            spin_loop();
        }
    }

    /// Stores `values` from field `start` on (as far as the cell goes).
    fn put(&self, start: usize, values: &[f32]) {
        for (a, x) in self.at.iter().skip(start).zip(values) {
            a.store(x.to_bits(), Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_is_read_whole_and_a_stale_owner_writes_nothing() {
        let t = Positions::new(4);
        t.claim(2, 7, [1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.0, 0.0, -1.0]);
        let first = t.read(2).expect("stable");
        assert_eq!(first.position, [1.0, 2.0, 3.0]);
        assert_eq!(first.velocity, [4.0, 5.0, 6.0]);
        t.write(2, 6, [9.0; 3], [9.0; 3]); // not the owner
        assert_eq!(t.read(2), Some(first));
        t.write(2, 7, [-1.0; 3], [0.5; 3]);
        let second = t.read(2).expect("stable");
        assert_ne!(second.seq, first.seq);
        assert_eq!((second.position, second.velocity), ([-1.0; 3], [0.5; 3]));
        // Out of range: nothing, no panic.
        t.write(9, 7, [0.0; 3], [0.0; 3]);
        assert_eq!(t.read(9), None);
    }

    #[test]
    fn a_reader_never_sees_half_a_write() {
        // Writers keep all six components equal; a torn read would not.
        let t = Arc::new(Positions::new(1));
        t.claim(0, 1, [0.0; 3], [0.0; 3], [0.0; 3]);
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let t = Arc::clone(&t);
                std::thread::spawn(move || {
                    for i in 0..100_000u32 {
                        let x = (i * 2 + w) as f32;
                        t.write(0, 1, [x; 3], [x; 3]);
                    }
                })
            })
            .collect();
        let mut whole = 0;
        while whole < 10_000 && !writers.iter().all(|w| w.is_finished()) {
            if let Some(r) = t.read(0) {
                let all = r.position.iter().chain(&r.velocity);
                assert!(all.clone().all(|&x| x == r.position[0]), "torn: {r:?}");
                whole += 1;
            }
        }
        writers.into_iter().for_each(|w| w.join().expect("writer"));
        assert!(t.read(0).is_some());
    }
}
