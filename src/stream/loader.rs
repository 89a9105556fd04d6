//! The loader: decodes streamed plays into their slots' rings, ahead of
//! the audio thread, on a thread of the engine's own ([`Loader`]), or, in
//! an offline engine, on the rendering thread before each block, run until
//! every ring is full (so offline renders are deterministic).
//!
//! Not real-time code: it opens files, decodes and allocates. It never
//! waits for the audio thread: a full ring is left for the next pass
//! (every [`POLL`], or at once when the game side starts a play).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use ringbuf::traits::{Observer, Producer};
use ringbuf::HeapProd;

use super::source::StreamDecoder;
use super::source::{StreamShared, StreamSource};
use crate::sound::loudness::Meter;

/// How often the loader thread tops up the rings when nothing wakes it.
/// A ring holds [`crate::EngineSettings::stream_buffer_frames`] (half a
/// second by default): 5 ms is a hundredth of it.
pub(crate) const POLL: Duration = Duration::from_millis(5);

/// At most this many frames are decoded for one slot per pass before the
/// others get their turn (a slot never hogs the loader).
const FRAMES_PER_TURN: usize = 16_384;

/// A play (or a seek: a new epoch on the same slot) for the loader.
pub(crate) struct Request {
    pub(crate) slot: usize,
    pub(crate) epoch: u32,
    pub(crate) source: Arc<StreamSource>,
    pub(crate) looping: bool,
    /// The frame of the stream to start at.
    pub(crate) from: u64,
}

/// What the loader is doing for one slot.
struct Job {
    epoch: u32,
    source: Arc<StreamSource>,
    looping: bool,
    decoder: Option<StreamDecoder>,
    meter: Meter,
    /// Decoded, not yet pushed (whole frames from `pending_at` on).
    pending: Vec<f32>,
    pending_at: usize,
    /// The frame of the stream (from its start) after the last one pushed.
    next_frame: u64,
    /// Samples pushed into the ring before this job's first.
    origin: u64,
    /// The ring was filled once with this job's samples (`ready_epoch`
    /// told).
    ready: bool,
    /// Nothing more to push.
    finished: bool,
    /// Frames decoded since the stream (re)started: a loop that yields
    /// none in a whole pass ends rather than spin.
    lap_frames: u64,
}

/// One slot, the loader's half: the ring's producer and the current job.
struct Slot {
    ring: HeapProd<f32>,
    shared: Arc<StreamShared>,
    /// A request waiting for the audio side to read its epoch (a seek on
    /// a slot still read for the play's earlier epoch).
    waiting: Option<Request>,
    /// Samples ever pushed into the ring.
    pushed: u64,
    job: Option<Job>,
}

/// The loader's state: its slots and the requests from the game side.
pub(crate) struct Worker {
    slots: Vec<Slot>,
    requests: Receiver<Request>,
    /// Bumped on every decode error (shared with the engine's stats).
    errors: Arc<std::sync::atomic::AtomicU64>,
    /// A test's stand-in for a decoder that panics: the next decode does.
    #[cfg(feature = "hooks")]
    panic_next: Arc<std::sync::atomic::AtomicBool>,
}

impl Worker {
    pub(crate) fn new(
        rings: Vec<(HeapProd<f32>, Arc<StreamShared>)>,
        requests: Receiver<Request>,
        errors: Arc<std::sync::atomic::AtomicU64>,
    ) -> Worker {
        Worker {
            slots: rings
                .into_iter()
                .map(|(ring, shared)| Slot {
                    ring,
                    shared,
                    waiting: None,
                    pushed: 0,
                    job: None,
                })
                .collect(),
            requests,
            errors,
            #[cfg(feature = "hooks")]
            panic_next: Arc::default(),
        }
    }

    /// Takes new requests, then fills every ring as far as it has room
    /// (or its stream has data), a turn per slot. True if it got anywhere.
    pub(crate) fn pump(&mut self) -> bool {
        while let Ok(req) = self.requests.try_recv() {
            self.queue(req);
        }
        let mut any = false;
        for i in 0..self.slots.len() {
            let slot = &mut self.slots[i];
            let go = match &slot.waiting {
                Some(req) => slot.shared.may_start(req.epoch),
                None => Some(false),
            };
            match go {
                Some(true) => {
                    if let Some(req) = slot.waiting.take() {
                        self.start(req);
                        any = true;
                    }
                }
                None => slot.waiting = None,
                Some(false) => {}
            }
        }
        for i in 0..self.slots.len() {
            any |= self.fill(i);
        }
        any
    }

    /// Pumps until nothing more can be pushed: every ring full or every
    /// stream at its end (what an offline engine does before each block).
    pub(crate) fn pump_all(&mut self) {
        while self.pump() {}
    }

    /// Takes a request: it waits in its slot until it may start.
    fn queue(&mut self, req: Request) {
        if let Some(slot) = self.slots.get_mut(req.slot) {
            slot.waiting = Some(req);
        }
    }

    fn start(&mut self, req: Request) {
        let Some(slot) = self.slots.get_mut(req.slot) else {
            return;
        };
        // The earlier job's decoder goes before the next one is opened (a
        // seek would otherwise hold two).
        slot.job = None;
        let source = req.source;
        let meter = Meter::new(source.channels, source.rate);
        slot.shared.begin(
            req.epoch,
            slot.pushed,
            req.from,
            meter.window_frames(),
            source.opening_power,
        );
        // A decoder that panics (a bug in it, met on a malformed file) is a
        // decode error of this stream: the loader and every other stream
        // go on, and the play ends where its samples do. (symphonia's calls
        // are guarded inside `StreamDecoder` already; this covers hound's
        // WAV reading and the loader's own code, so that no panic can end
        // the thread and leave plays in flight waiting forever.)
        let opened = catch_unwind(AssertUnwindSafe(|| source.open(req.from)));
        let decoder = match opened {
            Ok(Ok(d)) => Some(d),
            Ok(Err(_)) | Err(_) => {
                self.errors.fetch_add(1, Relaxed);
                None
            }
        };
        slot.job = Some(Job {
            epoch: req.epoch,
            looping: req.looping,
            finished: decoder.is_none(),
            decoder,
            source,
            meter,
            pending: Vec::new(),
            pending_at: 0,
            next_frame: req.from,
            origin: slot.pushed,
            ready: false,
            lap_frames: 0,
        });
        if let Some(job) = &slot.job {
            if job.finished {
                slot.shared.end_frame.store(job.next_frame, Release);
                slot.shared.ready_epoch.store(job.epoch, Release);
            }
        }
    }

    /// Fills slot `i`'s ring; true if it got anywhere (pushed samples, or
    /// decoded toward a seek's target).
    fn fill(&mut self, i: usize) -> bool {
        let errors = &self.errors;
        #[cfg(feature = "hooks")]
        let panic_next = &self.panic_next;
        let slot = &mut self.slots[i];
        let Some(epoch) = slot.job.as_ref().map(|j| j.epoch) else {
            return false;
        };
        if slot.shared.released.load(Acquire) == epoch {
            // The audio side is done with this play.
            slot.job = None;
            return false;
        }
        let Some(job) = slot.job.as_mut() else {
            return false;
        };
        let ch = job.source.channels;
        let mut pushed_any = false;
        let mut turn = 0;
        while !job.finished && turn < FRAMES_PER_TURN {
            if job.pending_at >= job.pending.len() {
                job.pending.clear();
                job.pending_at = 0;
                // A panic in the decoder ends this stream as a decode error
                // would (see `start`), its decoder dropped.
                let decoded = catch_unwind(AssertUnwindSafe(|| {
                    #[cfg(feature = "hooks")]
                    if panic_next.swap(false, Relaxed) {
                        panic!("a test's decoder panic (feature hooks)");
                    }
                    decode_more(job)
                }));
                match decoded.unwrap_or_else(|_| {
                    job.decoder = None;
                    Err(())
                }) {
                    Ok(true) => {
                        if job.pending.is_empty() {
                            // Dropping frames up to a seek's target: work
                            // done, a share of the turn used.
                            turn += FRAMES_PER_TURN / 2;
                            pushed_any = true;
                        }
                        continue;
                    }
                    Ok(false) => {}
                    Err(()) => {
                        errors.fetch_add(1, Relaxed);
                    }
                }
                job.finished = true;
                job.meter.finish(|sum| slot.shared.push_window(sum));
                slot.shared.end_frame.store(job.next_frame, Release);
                break;
            }
            let room = slot.ring.vacant_len() / ch * ch;
            if room == 0 {
                break;
            }
            let take = room.min(job.pending.len() - job.pending_at);
            let chunk = &job.pending[job.pending_at..job.pending_at + take];
            let n = slot.ring.push_slice(chunk);
            debug_assert_eq!(n, take);
            let shared = &slot.shared;
            job.meter.push(chunk, |sum| shared.push_window(sum));
            job.pending_at += n;
            slot.pushed += n as u64;
            job.next_frame += (n / ch) as u64;
            turn += n / ch;
            pushed_any = true;
        }
        // A quarter of the ring holds this job's samples (not an earlier
        // play's, which the audio side has yet to skip): the play may
        // start, with the loader well ahead of it (an eighth of a second
        // by default, while the loader goes on filling).
        let capacity = slot.ring.capacity().get() as u64;
        let primed = 4 * (slot.pushed - job.origin) >= capacity;
        if !job.ready && (primed || job.finished) {
            job.ready = true;
            slot.shared.ready_epoch.store(job.epoch, Release);
        }
        pushed_any
    }
}

/// Decodes the next chunk into `job.pending`, rewinding a loop at the end.
/// `Ok(false)` at the end of a one-shot, `Err` on a decode error.
fn decode_more(job: &mut Job) -> Result<bool, ()> {
    for _ in 0..2 {
        let Some(decoder) = job.decoder.as_mut() else {
            return Err(());
        };
        let source = &job.source;
        let got = decoder
            .next_chunk(&mut job.pending, &source.path)
            .map_err(|_| ())?;
        if got > 0 {
            job.lap_frames += got as u64;
            // Clamped and flushed as a decoded sound's samples are.
            crate::sound::condition(&mut job.pending);
            return Ok(true);
        }
        if decoder.is_skipping() {
            // Decoding up to a seek's target: more to come.
            return Ok(true);
        }
        if !job.looping || job.lap_frames == 0 {
            return Ok(false);
        }
        // The end of a loop: the same file again from its start, decoded
        // as the first time (so every lap is the same samples).
        job.decoder = Some(source.open(0).map_err(|_| ())?);
        job.lap_frames = 0;
    }
    Ok(false)
}

/// The game side's handle on the loader: a channel of requests, and either
/// the loader thread (started by [`Loader::start`] at the first streamed
/// play, and tried again at the next if the system refused it) or, for an
/// offline engine, the worker itself, run by [`Loader::pump_all`].
pub(crate) struct Loader {
    requests: Option<Sender<Request>>,
    mode: Mode,
    /// A test's stand-in for a system that refuses the thread.
    #[cfg(feature = "hooks")]
    refuse_thread: bool,
    /// The worker's [`Worker::panic_next`] (tests).
    #[cfg(feature = "hooks")]
    panic_next: Arc<std::sync::atomic::AtomicBool>,
}

enum Mode {
    /// Not started yet (a live engine before its first streamed play).
    Idle(Option<Worker>),
    Thread(Option<JoinHandle<()>>),
    Inline(Worker),
}

impl Loader {
    /// A loader for `worker`, run on its own thread (`threaded`) or by the
    /// caller.
    pub(crate) fn new(requests: Sender<Request>, worker: Worker, threaded: bool) -> Loader {
        Loader {
            requests: Some(requests),
            #[cfg(feature = "hooks")]
            refuse_thread: false,
            #[cfg(feature = "hooks")]
            panic_next: Arc::clone(&worker.panic_next),
            mode: if threaded {
                Mode::Idle(Some(worker))
            } else {
                Mode::Inline(worker)
            },
        }
    }

    /// Runs the loader inline from now on (an offline engine), if its
    /// thread was never started.
    pub(crate) fn make_inline(&mut self) {
        if let Mode::Idle(worker) = &mut self.mode {
            if let Some(w) = worker.take() {
                self.mode = Mode::Inline(w);
            }
        }
    }

    /// Makes sure the loader can take requests: for a live engine, starts
    /// its thread at the first call. False if the thread could not be
    /// started (the system refused a new thread: the worker is kept, so a
    /// later call tries again), or if it has died (it returns only once
    /// this handle is dropped, so a finished one panicked).
    pub(crate) fn start(&mut self) -> bool {
        match &self.mode {
            Mode::Inline(_) => return true,
            Mode::Thread(handle) => return handle.as_ref().is_some_and(|h| !h.is_finished()),
            Mode::Idle(worker) => debug_assert!(worker.is_some(), "an idle loader has its worker"),
        }
        // The worker is handed over only once the thread exists, so that a
        // refused spawn (which drops the closure) does not take it along.
        let (hand, take) = crossbeam_channel::bounded::<Worker>(1);
        let run = move || {
            let Ok(mut w) = take.recv() else {
                return;
            };
            let mut busy = false;
            loop {
                // Straight on while there is work (a deep seek, rings with
                // room), else a nap.
                let nap = if busy { Duration::ZERO } else { POLL };
                match w.requests.recv_timeout(nap) {
                    Ok(req) => w.queue(req),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
                busy = w.pump();
            }
        };
        let builder = std::thread::Builder::new().name("voicepool-loader".into());
        #[cfg(feature = "hooks")]
        let spawned = if self.refuse_thread {
            drop(run); // as a refused spawn does
            Err(std::io::Error::other("a test refused the loader thread"))
        } else {
            builder.spawn(run)
        };
        #[cfg(not(feature = "hooks"))]
        let spawned = builder.spawn(run);
        let Ok(thread) = spawned else {
            return false;
        };
        if let Mode::Idle(Some(w)) = std::mem::replace(&mut self.mode, Mode::Thread(Some(thread))) {
            let _ = hand.send(w);
        }
        true
    }

    /// Makes the loader's next decode panic, as a decoder with a bug might
    /// on a malformed file (tests).
    #[cfg(feature = "hooks")]
    pub(crate) fn panic_next_decode(&self) {
        self.panic_next.store(true, Relaxed);
    }

    /// Makes [`Loader::start`] fail as if the system refused the thread
    /// (`true`), or lets it start the thread again (tests).
    #[cfg(feature = "hooks")]
    pub(crate) fn refuse_thread(&mut self, refuse: bool) {
        self.refuse_thread = refuse;
    }

    /// Hands a request to the loader. (A play makes sure it is started
    /// first: see [`Loader::start`].)
    pub(crate) fn send(&mut self, req: Request) {
        if let Some(tx) = &self.requests {
            let _ = tx.send(req);
        }
    }

    /// Offline: runs the loader until every ring is full or at its end.
    pub(crate) fn pump_all(&mut self) {
        if let Mode::Inline(w) = &mut self.mode {
            w.pump_all();
        }
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        // Closing the channel ends the thread at its next wake-up (at
        // most one decoding pass away).
        self.requests = None;
        if let Mode::Thread(handle) = &mut self.mode {
            if let Some(h) = handle.take() {
                let _ = h.join();
            }
        }
    }
}
