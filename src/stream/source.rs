//! Streamed sounds: [`crate::Sound::stream_file`] (or `stream_bytes`, in
//! `stream/open.rs`) opens a file and checks it, and every play of the
//! sound decodes it anew, a little ahead of the play
//! position, on the engine's loader thread (`stream::loader`) into a fixed
//! ring of samples per stream slot that the audio thread only reads
//! (`stream::reader`).
//!
//! This module holds what the three sides share: [`StreamSource`] (what a
//! streamed sound is: its file and format, told once) and [`StreamShared`]
//! (one per stream slot, allocated when the engine is made: the atomics
//! through which the loader tells the audio side which play its samples
//! are for, when they are ready, where the stream ends, and how loud what
//! it decoded is, and through which the audio side tells the loader and
//! the game side that it is done with a play).
//!
//! # The hand-over protocol
//!
//! Each play of a stream on a slot is an *epoch* (a number the game side
//! gives it, never 0). The ring carries samples of one epoch after another;
//! the loader counts every sample it ever pushed, and stores, before it
//! pushes the first sample of an epoch, how many came before
//! ([`StreamShared::origin`]), then the epoch ([`StreamShared::loader_epoch`],
//! release). The audio side, playing epoch `e`, reads the epoch (acquire),
//! and once it is `e` skips samples up to the origin: whatever an earlier
//! play left in the ring is never heard. Seeking starts a new epoch on the
//! same slot. When the voice is gone (ended, stolen and faded, or never
//! started) the audio side stores its epoch in [`StreamShared::released`];
//! the loader then stops decoding for it, and the game side may give the
//! slot to the next play.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU32, AtomicU64};

use super::origin::{Origin, Reader};
use super::wav::WavStream;
use crate::sound::compressed::{self, Decoder, Format};
use crate::sound::decode::{self, Content};
use crate::sound::loudness::EnergyCurve;
use crate::sound::{SoundError, MAX_FRAMES};

/// What a streamed sound is: a file or bytes in memory, its format and
/// layout as checked by [`crate::Sound::stream_file`] or [`crate::Sound::stream_bytes`].
/// Every play opens it anew.
#[derive(Debug)]
pub(crate) struct StreamSource {
    /// What errors name it by: the file, or `<bytes>`.
    pub(crate) path: PathBuf,
    pub(crate) origin: Origin,
    pub(crate) kind: StreamKind,
    pub(crate) channels: usize,
    pub(crate) rate: u32,
    /// Its length in frames, as the file tells it (0 if it does not).
    pub(crate) frames: u64,
    /// The mean loudness (K-weighted power per window) of its first second:
    /// what stealing assumes of a play whose loader has not decoded
    /// anything yet.
    pub(crate) opening_power: f64,
    /// How its first second spreads over the critical bands (averaged over
    /// its windows) and over the four coarse bands: what masking and a
    /// bus's filters assume of a streamed play, whose spectrum is not
    /// measured as it plays.
    pub(crate) opening_shape: crate::sound::spectrum::Shape,
    pub(crate) opening_bands: crate::sound::bands::Bands,
}

/// How a streamed file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamKind {
    Compressed(Format),
    Wav,
}

impl StreamKind {
    /// How data starting with `head` streams, told from its content, or
    /// the error naming `path` if it is no format we read.
    pub(super) fn of(head: &[u8], path: &Path) -> Result<StreamKind, SoundError> {
        match decode::sniff(head) {
            Content::Compressed(format) => Ok(StreamKind::Compressed(format)),
            Content::Wav => Ok(StreamKind::Wav),
            Content::Unknown(reason) => Err(SoundError::UnknownFormat {
                path: path.to_path_buf(),
                reason: reason.into(),
            }),
        }
    }
}

/// A streamed file being decoded: a chunk at a time, from where it was
/// opened or sought.
pub(crate) enum StreamDecoder {
    Compressed(Box<Decoder>),
    Wav(Box<WavStream>),
}

impl StreamDecoder {
    pub(super) fn open(
        file: Reader,
        kind: StreamKind,
        path: &Path,
    ) -> Result<StreamDecoder, SoundError> {
        match kind {
            StreamKind::Compressed(format) => compressed::guarded(format, path, || {
                Decoder::open(Box::new(file), format, path, MAX_FRAMES)
                    .map(|d| StreamDecoder::Compressed(Box::new(d)))
            }),
            StreamKind::Wav => WavStream::open(file, path).map(|w| StreamDecoder::Wav(Box::new(w))),
        }
    }

    pub(super) fn channels(&self) -> usize {
        match self {
            StreamDecoder::Compressed(d) => d.channels(),
            StreamDecoder::Wav(w) => w.channels(),
        }
    }

    pub(super) fn rate(&self) -> u32 {
        match self {
            StreamDecoder::Compressed(d) => d.rate(),
            StreamDecoder::Wav(w) => w.rate(),
        }
    }

    pub(super) fn length(&self) -> u64 {
        match self {
            StreamDecoder::Compressed(d) => d.length_hint().unwrap_or(0),
            StreamDecoder::Wav(w) => w.length(),
        }
    }

    fn seek(&mut self, frame: u64, path: &Path) -> Result<(), SoundError> {
        match self {
            StreamDecoder::Compressed(d) => compressed::guarded(d.format(), path, || d.seek(frame)),
            StreamDecoder::Wav(w) => w.seek(frame),
        }
    }

    /// The next frames, appended to `out` (see `Decoder::next_chunk`): 0 at
    /// the end, or while [`StreamDecoder::is_skipping`].
    pub(crate) fn next_chunk(
        &mut self,
        out: &mut Vec<f32>,
        path: &Path,
    ) -> Result<usize, SoundError> {
        match self {
            StreamDecoder::Compressed(d) => {
                let format = d.format();
                compressed::guarded(format, path, || d.next_chunk(out))
            }
            StreamDecoder::Wav(w) => w.next_chunk(out),
        }
    }

    /// Still decoding up to a seek's target.
    pub(crate) fn is_skipping(&self) -> bool {
        match self {
            StreamDecoder::Compressed(d) => d.is_skipping(),
            StreamDecoder::Wav(_) => false,
        }
    }
}

impl StreamSource {
    /// Opens the file and moves to `from` (a frame of the stream).
    ///
    /// The file must still be what [`crate::Sound::stream_file`] read: replaced by
    /// one of another channel count, rate or length, it is
    /// [`SoundError::Changed`] (a play must not read mono samples as
    /// stereo frames, nor loop or seek by a length that is no longer true).
    pub(crate) fn open(&self, from: u64) -> Result<StreamDecoder, SoundError> {
        let mut d = StreamDecoder::open(self.origin.open()?, self.kind, &self.path)?;
        let (channels, rate, frames) = (d.channels(), d.rate(), d.length());
        let length_changed = self.frames != 0 && frames != 0 && frames != self.frames;
        if channels != self.channels || rate != self.rate || length_changed {
            return Err(SoundError::Changed {
                path: self.path.clone(),
                reason: format!(
                    "it was {} channel(s) at {} Hz, {} frames, when opened for \
                     streaming, and is now {channels} at {rate} Hz, {frames} frames",
                    self.channels, self.rate, self.frames
                ),
            });
        }
        if from > 0 {
            d.seek(from, &self.path)?;
        }
        Ok(d)
    }
}

/// No end known yet (a loop, or a one-shot still decoding).
pub(crate) const NO_END: u64 = u64::MAX;

/// One stream slot's shared state. Allocated when the engine is made;
/// written by the loader and the audio side with atomic stores only (see
/// the module docs for who writes what). Real-time safe to read.
pub(crate) struct StreamShared {
    /// Loader: the epoch it fills the ring for (0: none yet).
    pub(crate) loader_epoch: AtomicU32,
    /// Loader: samples pushed into the ring before the epoch's first.
    pub(crate) origin: AtomicU64,
    /// Loader: the epoch whose ring it has filled once (so its play may
    /// start).
    pub(crate) ready_epoch: AtomicU32,
    /// Loader: the frame of the stream (from its start) after the last one
    /// it will ever push for this epoch, once decoding reached the end of a
    /// one-shot (or failed); [`NO_END`] until then.
    pub(crate) end_frame: AtomicU64,
    /// Audio side: the last epoch it is done with.
    pub(crate) released: AtomicU32,
    /// Audio side: the epoch it reads (the loader starts a seek's epoch on
    /// a slot only once the audio side reads it, so the audio side never
    /// takes the new epoch's samples for the old one's).
    pub(crate) reading: AtomicU32,
    /// Loader: the frame of the stream the epoch's samples start at (a
    /// seek's target, else 0), and its analysis windows' length.
    start_frame: AtomicU64,
    window_frames: AtomicU32,
    /// Loader: what stealing assumes beyond what it has measured (the
    /// stream's opening loudness, then the mean of its last windows).
    ahead_power: AtomicU64,
    /// Loader: complete analysis windows measured from `start_frame`, and
    /// the running sum of their power after each (`f64` bits), the last
    /// `sums.len()` of them.
    windows: AtomicU64,
    sums: Box<[AtomicU64]>,
}

/// Windows the loader's recent loudness is averaged over (100 ms).
const RECENT_WINDOWS: u64 = 20;

impl StreamShared {
    /// A slot whose ring holds `ring_frames` and whose audio side stages up
    /// to `staging_frames`: room for the windows of every frame either may
    /// hold, at the lowest sample rate read.
    pub(crate) fn new(ring_frames: usize, staging_frames: usize) -> StreamShared {
        let min_window = (f64::from(*crate::sound::SAMPLE_RATE_RANGE.start()) * 0.005) as usize;
        let count = ((ring_frames + staging_frames) / min_window.max(1) + 8).next_power_of_two();
        StreamShared {
            loader_epoch: AtomicU32::new(0),
            origin: AtomicU64::new(0),
            ready_epoch: AtomicU32::new(0),
            end_frame: AtomicU64::new(NO_END),
            released: AtomicU32::new(0),
            reading: AtomicU32::new(0),
            start_frame: AtomicU64::new(0),
            window_frames: AtomicU32::new(1),
            ahead_power: AtomicU64::new(0),
            windows: AtomicU64::new(0),
            sums: (0..count).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.sums.len() * 8
    }

    /// Loader: a new epoch begins, its samples starting at frame `start`
    /// after `origin` samples in the ring.
    pub(crate) fn begin(&self, epoch: u32, origin: u64, start: u64, window: usize, power: f64) {
        self.start_frame.store(start, Relaxed);
        self.window_frames.store(window as u32, Relaxed);
        self.ahead_power.store(power.to_bits(), Relaxed);
        self.windows.store(0, Relaxed);
        self.sums[0].store(0f64.to_bits(), Relaxed);
        self.end_frame.store(NO_END, Relaxed);
        self.origin.store(origin, Relaxed);
        self.loader_epoch.store(epoch, Release);
    }

    /// Loader: one more window measured, the running sum after it.
    pub(crate) fn push_window(&self, sum: f64) {
        let n = self.windows.load(Relaxed) + 1;
        let mask = self.sums.len() as u64 - 1;
        self.sums[(n & mask) as usize].store(sum.to_bits(), Relaxed);
        if n > RECENT_WINDOWS {
            let before =
                f64::from_bits(self.sums[((n - RECENT_WINDOWS) & mask) as usize].load(Relaxed));
            let recent = (sum - before) / RECENT_WINDOWS as f64;
            self.ahead_power.store(recent.max(0.0).to_bits(), Relaxed);
        }
        self.windows.store(n, Release);
    }

    /// Loader: whether a request for `epoch` may start now: nobody reads
    /// the slot (the audio side released what it read), or the audio side
    /// already reads `epoch`. `None`: drop it (released already).
    pub(crate) fn may_start(&self, epoch: u32) -> Option<bool> {
        let released = self.released.load(Acquire);
        if released == epoch {
            return None;
        }
        let reading = self.reading.load(Acquire);
        Some(reading == epoch || released == reading)
    }

    /// Audio side: the loudness curve of epoch `epoch`, if the loader is on
    /// it, for positions `offset` frames short of the stream's.
    pub(crate) fn curve(&self, epoch: u32, offset: u64) -> Option<StreamCurve<'_>> {
        if self.loader_epoch.load(Acquire) != epoch {
            return None;
        }
        let windows = self.windows.load(Acquire);
        Some(StreamCurve {
            shared: self,
            start: self.start_frame.load(Relaxed) as f64 - offset as f64,
            window: f64::from(self.window_frames.load(Relaxed).max(1)),
            windows,
            ahead: f64::from_bits(self.ahead_power.load(Relaxed)),
            end: match self.end_frame.load(Acquire) {
                NO_END => NO_END,
                end => end.saturating_sub(offset),
            },
        })
    }
}

/// A stream's loudness as far as its loader has measured it, read by
/// stealing like a decoded sound's table: exact over the windows measured
/// (up to a ring's length ahead of the play position), and beyond them the
/// mean of the last 100 ms measured (the opening second's before any),
/// or silence past the end of a one-shot.
pub(crate) struct StreamCurve<'a> {
    shared: &'a StreamShared,
    start: f64,
    window: f64,
    windows: u64,
    ahead: f64,
    end: u64,
}

impl StreamCurve<'_> {
    fn sum(&self, i: u64) -> f64 {
        let mask = self.shared.sums.len() as u64 - 1;
        f64::from_bits(self.shared.sums[(i & mask) as usize].load(Relaxed))
    }
}

impl EnergyCurve for StreamCurve<'_> {
    fn energy_to(&self, at: f64, _looping: bool) -> f64 {
        let x = ((at - self.start) / self.window).max(0.0);
        let hi = self.windows;
        let oldest = hi.saturating_sub(self.shared.sums.len() as u64 - 2);
        if x < hi as f64 {
            let i = (x as u64).max(oldest);
            let f = (x - i as f64).clamp(0.0, 1.0);
            let (a, b) = (self.sum(i), self.sum(i + 1));
            return a + (b - a) * f;
        }
        let last = self.sum(hi);
        let measured_to = self.start + hi as f64 * self.window;
        if self.end != NO_END && measured_to >= self.end as f64 {
            return last;
        }
        last + (x - hi as f64) * self.ahead
    }

    fn window_frames(&self) -> f64 {
        self.window
    }
}
