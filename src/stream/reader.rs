//! The audio side of streamed plays: per stream slot, the ring's consumer
//! and a small staging buffer that holds the stretch of the stream a voice
//! is reading, contiguous (a ring wraps; the kernels read straight runs),
//! with zero guard frames after the stream's last frame.
//!
//! Real-time contract: everything here runs on the audio thread. The
//! staging buffers are allocated when the engine is made; reading the ring
//! is `ringbuf`'s lock-free `pop_slice` and `skip`; the loader's state is
//! read with atomic loads. An empty ring is never waited for: the voice
//! goes silent there and the underrun is counted.

use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::Arc;

use ringbuf::traits::{Consumer, Observer};
use ringbuf::HeapCons;

use crate::sound::GUARD_FRAMES;
use crate::stream::source::{StreamCurve, StreamShared, NO_END};

/// Source frames a slot stages at most (plus guard frames): the kernels
/// read a voice's block from here in runs of up to this many frames.
pub(crate) const STAGING_FRAMES: usize = 4_096;

/// One slot's reader.
pub(crate) struct StreamReader {
    ring: HeapCons<f32>,
    shared: Arc<StreamShared>,
    /// Interleaved: `STAGING_FRAMES + GUARD_FRAMES` stereo frames.
    staging: Box<[f32]>,
    /// The stream frame `staging` starts at, and how many frames it holds.
    base: u64,
    staged: usize,
    channels: usize,
    /// Samples ever taken from the ring (popped or skipped).
    taken: u64,
    /// The play (epoch) it reads for, and the voice's id, while one does;
    /// `latest`, the newest epoch the game gave this slot (a seek the
    /// voice could not take, stopping as it was), released with it.
    epoch: u32,
    latest: u32,
    /// Frames the voice's positions (and `base`) are short of the
    /// stream's: a long-running loop is moved back now and then so its
    /// 32.32 position never overflows.
    offset: u64,
    voice: u64,
    active: bool,
    /// Its ring was filled once (the play may sound).
    primed: bool,
    /// Ran dry and still is; `new_underrun`: since the last report.
    starving: bool,
    new_underrun: bool,
    /// Its play has not had its terminal event yet (dry spells of a
    /// stolen play's fade-out are not reported).
    reporting: bool,
    /// Rendered (or held by a pause) in the current block.
    touched: bool,
}

/// What a voice may read: the staged stretch and whether the stream ends
/// within it.
pub(crate) struct Window<'a> {
    /// Interleaved, from frame `base` on, with at least `GUARD_FRAMES`
    /// frames (finite samples) after `frames`.
    pub(crate) data: &'a [f32],
    pub(crate) base: u64,
    pub(crate) frames: usize,
    /// The stream frame after its last, if it is within the window (then
    /// the frames after it are zeros).
    pub(crate) end: Option<u64>,
}

impl StreamReader {
    pub(crate) fn new(ring: HeapCons<f32>, shared: Arc<StreamShared>) -> StreamReader {
        StreamReader {
            ring,
            shared,
            staging: vec![0.0; 2 * (STAGING_FRAMES + GUARD_FRAMES)].into_boxed_slice(),
            base: 0,
            staged: 0,
            channels: 1,
            taken: 0,
            epoch: 0,
            latest: 0,
            offset: 0,
            voice: 0,
            active: false,
            primed: false,
            starving: false,
            new_underrun: false,
            reporting: false,
            touched: false,
        }
    }

    /// A play (or a seek: a new epoch) starts reading at stream frame
    /// `from`.
    pub(crate) fn begin(&mut self, epoch: u32, voice: u64, channels: usize, from: u64) {
        self.epoch = epoch;
        self.latest = epoch;
        self.offset = 0;
        self.shared.reading.store(epoch, Release);
        self.voice = voice;
        self.channels = channels.clamp(1, 2);
        self.base = from;
        self.staged = 0;
        self.active = true;
        self.primed = false;
        self.starving = false;
        self.new_underrun = false;
        self.reporting = true;
        self.touched = true;
    }

    /// The play had its terminal event (ended, or stolen and fading in a
    /// tail): no more reports for it.
    pub(crate) fn silence_reports(&mut self) {
        self.reporting = false;
        self.new_underrun = false;
    }

    /// Play `voice` moved to stream frame `frame`, on a new epoch: read it
    /// from there. If this slot no longer reads for `voice` (its play is
    /// over), nobody will read the epoch: it is released at once.
    /// `movable`: the voice is in the pool and not stopping (a voice
    /// fading out, stopped or stolen, keeps reading where it is; the new
    /// epoch is released with the slot).
    pub(crate) fn seek(&mut self, epoch: u32, voice: u64, frame: u64, movable: bool) {
        if !(self.active && self.voice == voice) {
            self.shared.released.store(epoch, Release);
        } else if movable {
            let channels = self.channels;
            self.begin(epoch, voice, channels, frame);
        } else {
            self.latest = epoch;
        }
    }

    /// Moves the voice's frame numbers `shift` frames back (its position
    /// is moved by the caller): what a loop that has played for hours
    /// does, so positions stay far below 2^32 frames.
    pub(crate) fn rebase(&mut self, shift: u64) {
        self.base -= shift.min(self.base);
        self.offset += shift;
    }

    /// The stream frame staging starts at, as the voice counts frames.
    pub(crate) fn base(&self) -> u64 {
        self.base
    }

    /// Whether the play may sound: its loader is on it and has filled the
    /// ring once. Skips what earlier plays left in the ring on the way.
    pub(crate) fn ready(&mut self) -> bool {
        self.touched = true;
        if self.primed {
            return true;
        }
        if !self.sync() {
            return false;
        }
        self.primed = self.shared.ready_epoch.load(Acquire) == self.epoch;
        self.primed
    }

    /// True once the loader fills for this epoch; drops samples of
    /// earlier epochs still in the ring.
    fn sync(&mut self) -> bool {
        if self.shared.loader_epoch.load(Acquire) != self.epoch {
            return false;
        }
        let origin = self
            .shared
            .origin
            .load(std::sync::atomic::Ordering::Relaxed);
        if self.taken < origin {
            let stale = usize::try_from(origin - self.taken).unwrap_or(usize::MAX);
            self.taken += self.ring.skip(stale) as u64;
        }
        self.taken >= origin
    }

    /// The staged stretch from stream frame `from` on (frames before it are
    /// dropped), topped up from the ring.
    pub(crate) fn window(&mut self, from: u64) -> Window<'_> {
        let ch = self.channels;
        if from > self.base {
            let drop = usize::try_from(from - self.base)
                .unwrap_or(usize::MAX)
                .min(self.staged);
            self.staging.copy_within(drop * ch..self.staged * ch, 0);
            self.staged -= drop;
            self.base += drop as u64;
        }
        let mine = self.sync();
        if mine && self.base < from {
            // A step of more than two frames can carry the position past
            // everything staged: the frames in between are never read.
            let behind = usize::try_from(from - self.base).unwrap_or(usize::MAX);
            let whole = self.ring.occupied_len() / ch;
            let skipped = self.ring.skip(behind.min(whole) * ch);
            self.taken += skipped as u64;
            self.base += (skipped / ch) as u64;
        }
        if mine && self.base >= from {
            let room = (STAGING_FRAMES - self.staged) * ch;
            let whole = self.ring.occupied_len() / ch * ch;
            let want = room.min(whole);
            let at = self.staged * ch;
            let got = self.ring.pop_slice(&mut self.staging[at..at + want]);
            self.taken += got as u64;
            self.staged += got / ch;
        }
        // The end, if the loader found it for this play and it is staged.
        let staged_to = self.base + self.staged as u64;
        let end = self.shared.end_frame.load(Acquire);
        let end = end.checked_sub(self.offset).filter(|_| end != NO_END);
        let end = end.filter(|&e| mine && e >= self.base && e <= staged_to);
        if let Some(e) = end {
            // Zeros after the last frame: interpolation from it reads them.
            let last = ((e - self.base) as usize).min(self.staged);
            self.staged = last;
            self.staging[last * ch..(last + GUARD_FRAMES) * ch].fill(0.0);
        }
        Window {
            data: &self.staging[..(self.staged + GUARD_FRAMES) * ch],
            base: self.base,
            frames: self.staged,
            end,
        }
    }

    /// The voice found no data where it had to play `frames`.
    pub(crate) fn underrun(&mut self) {
        if !self.starving {
            self.starving = true;
            self.new_underrun = self.reporting;
        }
    }

    /// The voice played from the ring again.
    pub(crate) fn fed(&mut self) {
        self.starving = false;
    }

    /// Its loudness curve, for stealing, while the loader is on its play.
    pub(crate) fn curve(&self) -> Option<StreamCurve<'_>> {
        self.shared.curve(self.epoch, self.offset)
    }

    /// Heap bytes held (staging; the ring is counted by the engine).
    fn memory_bytes(&self) -> usize {
        self.staging.len() * 4 + self.shared.memory_bytes()
    }
}

/// Every slot's reader.
pub(crate) struct StreamReaders {
    slots: Box<[StreamReader]>,
}

impl StreamReaders {
    pub(crate) fn new(slots: Vec<StreamReader>) -> StreamReaders {
        StreamReaders {
            slots: slots.into_boxed_slice(),
        }
    }

    /// Slot `k`'s reader (`None` for a number no slot has).
    #[inline]
    pub(crate) fn get(&mut self, k: usize) -> Option<&mut StreamReader> {
        self.slots.get_mut(k)
    }

    /// Slot `k`'s reader, to read.
    #[inline]
    pub(crate) fn peek(&self, k: usize) -> Option<&StreamReader> {
        self.slots.get(k)
    }

    /// The number of slots.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// At the end of a block: every slot whose play no voice rendered (it
    /// ended, was stolen and faded, or never started) is released to the
    /// loader and the game side, and what is left in its ring dropped.
    /// Calls `underrun(voice)` for every play that ran dry in the block.
    pub(crate) fn end_block(&mut self, rendered: bool, mut underrun: impl FnMut(u64)) {
        if !rendered {
            return;
        }
        for s in self.slots.iter_mut() {
            if s.active && !s.touched {
                s.active = false;
                s.taken += s.ring.clear() as u64;
                s.shared.released.store(s.latest, Release);
            }
            if std::mem::take(&mut s.new_underrun) && s.active {
                underrun(s.voice);
            }
            s.touched = false;
        }
    }

    /// Drops what earlier epochs left in the rings of active slots whose
    /// loader is on their epoch.
    pub(crate) fn skip_stale(&mut self) {
        for s in self.slots.iter_mut().filter(|s| s.active) {
            s.sync();
        }
    }

    /// Slot `k` is still read (by a voice its bus holds still).
    pub(crate) fn touch(&mut self, k: usize) {
        if let Some(s) = self.slots.get_mut(k) {
            s.touched = true;
        }
    }

    /// Slots reading for a play.
    pub(crate) fn active(&self) -> usize {
        self.slots.iter().filter(|s| s.active).count()
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.iter().map(StreamReader::memory_bytes).sum()
    }
}
