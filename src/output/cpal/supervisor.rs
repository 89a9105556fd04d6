//! The output thread: opens the stream, owns it, watches it, reopens a
//! device when it is lost, and hands the audio side home at the end.
//!
//! It wakes every [`POLL`] (or at once when the engine asks it to stop),
//! turns what the stream's error callback counted into events, and decides
//! the device is lost when the error callback says so or when no data
//! callback has come for [`STALL`]. Recovery takes the audio side out of
//! the old stream's [`Slot`] (even if that stream can never be dropped),
//! disposes of the old stream, and opens the device again at the mixer's
//! rate, with a backoff between attempts ([`FIRST_RETRY`] doubling to
//! [`LAST_RETRY`]). This thread allocates freely; the callbacks never do.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use super::open::{self, Live, ProbeError, QuietAlsa};
use super::report::{Reporter, STREAM_EVENT_CAPACITY};
use super::side::AudioSide;
use super::{CallbackHook, StreamInfo};
use crate::control::settings::EngineSettings;
use crate::control::Engine;
use crate::error::EngineError;

/// How often the thread looks at the stream.
pub(super) const POLL: Duration = Duration::from_millis(20);
/// No data callback for this long: the device is lost.
pub(super) const STALL: Duration = Duration::from_secs(1);
/// The first wait between two attempts to reopen.
pub(super) const FIRST_RETRY: Duration = Duration::from_millis(50);
/// The longest wait between two attempts to reopen.
pub(super) const LAST_RETRY: Duration = Duration::from_secs(2);
/// How long a callback may stay inside the slot before the thread gives up
/// taking the side (a host suspended mid-callback).
const TAKE_PATIENCE: Duration = Duration::from_secs(5);
/// How long dropping an old stream may take before the thread leaves it to
/// finish (or hang) on a thread of its own.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const DROP_PATIENCE: Duration = Duration::from_secs(2);
/// What the engine and the thread share.
#[derive(Default)]
pub(super) struct Control {
    /// Set by the engine: stop, hand the audio side home, return.
    pub(super) stop: AtomicBool,
    /// Losses the engine asked to simulate (feature `hooks`: tests).
    pub(super) simulated_losses: AtomicU64,
    /// Set by the thread: the device is lost and not (yet) reopened.
    pub(super) lost: AtomicBool,
}

/// What the thread reports back once the first stream runs.
pub(super) type Ready = Result<(Engine, StreamInfo), EngineError>;

/// The output thread's whole life. Sends the engine (or why there is none)
/// on `ready`, then watches until told to stop and sends the audio side on
/// `home`.
pub(super) fn run(
    settings: EngineSettings,
    hook: CallbackHook,
    control: Arc<Control>,
    info: Arc<Mutex<Option<StreamInfo>>>,
    ready: Sender<Ready>,
    home: Sender<Box<AudioSide>>,
) {
    // alsa-lib prints a line to stderr for every device it cannot open;
    // while this thread looks for one, those lines are ours to report.
    let _quiet = QuietAlsa::new();
    let first = match first_stream(&settings, hook) {
        Ok(first) => first,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let (engine, live, reporter) = first;
    *lock(&info) = Some(live.info.clone());
    let started = (live.info.clone(), reporter.counters.callbacks.load(Relaxed));
    if ready.send(Ok((engine, started.0))).is_err() {
        return;
    }
    let mut watch = Watch {
        rate: live.info.sample_rate,
        settings,
        control,
        info,
        reporter,
        seen: Seen::default(),
        live: Some(live),
        held: None,
        lost: false,
        rate_reported: false,
        callbacks: started.1,
        progress: Instant::now(),
        retry: FIRST_RETRY,
        next_try: Instant::now(),
    };
    while !watch.control.stop.load(Relaxed) {
        watch.step();
        std::thread::park_timeout(POLL);
    }
    if let Some(side) = watch.shut_down() {
        let _ = home.send(side);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Opens the device at its own rate, makes the engine at that rate, and
/// starts the stream with the mixer in it.
fn first_stream(
    settings: &EngineSettings,
    hook: CallbackHook,
) -> Result<(Engine, Live, Reporter), EngineError> {
    let probe = open::probe(settings, None).map_err(|e| match e {
        ProbeError::Engine(e) => e,
        ProbeError::Rate => EngineError::Device("the device offers no usable rate".into()),
    })?;
    let rate = probe.rate();
    let (engine, mixer) = Engine::with_rate(settings.clone(), rate)?;
    let (events, counters) = engine.stream_error_sink(STREAM_EVENT_CAPACITY);
    let side = Box::new(AudioSide {
        mixer,
        scratch: Box::new([]),
        channels: 2,
        hook,
        counters: Arc::clone(&counters),
        rate,
    });
    let live = open::start(&probe, settings, side).map_err(|(e, _side)| e)?;
    Ok((engine, live, Reporter { events, counters }))
}

/// Counts of the live stream's error callback already reported.
#[derive(Default)]
struct Seen {
    lost: u64,
    backend: u64,
}

struct Watch {
    settings: EngineSettings,
    /// The mixer's rate: every stream runs at it.
    rate: u32,
    control: Arc<Control>,
    info: Arc<Mutex<Option<StreamInfo>>>,
    reporter: Reporter,
    /// The stream playing, or lost and not yet disposed of.
    live: Option<Live>,
    seen: Seen,
    /// The audio side while no stream has it.
    held: Option<Box<AudioSide>>,
    /// Lost and not yet recovered.
    lost: bool,
    /// `RateUnavailable` was reported during this loss.
    rate_reported: bool,
    /// Callbacks counted at `progress`.
    callbacks: u64,
    progress: Instant,
    retry: Duration,
    next_try: Instant,
}

impl Watch {
    fn step(&mut self) {
        let now = Instant::now();
        if let Some(live) = &self.live {
            let backend = live.flags.backend.load(Relaxed);
            let lost = live.flags.lost.load(Relaxed);
            let new_backend = backend.saturating_sub(self.seen.backend);
            let new_lost = lost.saturating_sub(self.seen.lost);
            self.seen = Seen { lost, backend };
            let simulated = self.control.simulated_losses.swap(0, Relaxed);
            if !self.lost {
                self.reporter.backend_errors(new_backend);
                let callbacks = self.reporter.counters.callbacks.load(Relaxed);
                if callbacks != self.callbacks {
                    self.callbacks = callbacks;
                    self.progress = now;
                }
                let stalled = now.duration_since(self.progress) >= STALL;
                if new_lost > 0 || simulated > 0 || stalled {
                    self.lost = true;
                    self.control.lost.store(true, Relaxed);
                    self.rate_reported = false;
                    self.reporter.lost(new_lost);
                    self.retry = FIRST_RETRY;
                    self.next_try = now;
                    if !self.settings.recover_device && (new_lost > 0 || simulated > 0) {
                        // Never reopened: the stream goes now, while its
                        // device is gone, not when the engine is dropped
                        // (by then a JACK server of the same name may have
                        // come back, and dropping a client of the old one
                        // under it can crash libjack). A stall may pass,
                        // so a stalled stream is kept.
                        self.retire_stream();
                    }
                }
            }
        }
        if self.lost && self.settings.recover_device && now >= self.next_try {
            self.recover();
        }
    }

    /// One attempt: the side out of the old stream, the old stream away,
    /// a new one open. On failure, the next attempt is scheduled.
    fn recover(&mut self) {
        if !self.retire_stream() {
            // A callback never returned: the side cannot be had.
            self.settings.recover_device = false;
            return;
        }
        let Some(side) = self.held.take() else {
            self.settings.recover_device = false;
            return;
        };
        let probe = match open::probe(&self.settings, Some(self.rate)) {
            Ok(probe) => probe,
            Err(e) => {
                if matches!(e, ProbeError::Rate) && !self.rate_reported {
                    self.rate_reported = true;
                    self.reporter.rate_unavailable();
                }
                self.held = Some(side);
                return self.later();
            }
        };
        match open::start(&probe, &self.settings, side) {
            Ok(live) => {
                self.reporter.recovered(&live.info);
                *lock(&self.info) = Some(live.info.clone());
                self.seen = Seen::default();
                self.live = Some(live);
                self.lost = false;
                self.control.lost.store(false, Relaxed);
                self.callbacks = self.reporter.counters.callbacks.load(Relaxed);
                self.progress = Instant::now();
            }
            Err((_, side)) => {
                self.held = side;
                if self.held.is_none() {
                    self.settings.recover_device = false;
                }
                self.later();
            }
        }
    }

    /// The audio side out of the lost stream (held until a new stream or
    /// the engine's close takes it), and the stream disposed of. False if
    /// a callback never returned: the stream and the side stay where they
    /// are.
    fn retire_stream(&mut self) -> bool {
        let Some(live) = self.live.take() else {
            return true;
        };
        match live.slot.take(TAKE_PATIENCE) {
            Some(side) => {
                self.held = Some(side);
                dispose(live.stream);
                true
            }
            None => {
                self.live = Some(live);
                false
            }
        }
    }

    fn later(&mut self) {
        self.next_try = Instant::now() + self.retry;
        self.retry = (self.retry * 2).min(LAST_RETRY);
    }

    /// The audio side, out of the stream (which is then stopped) or from
    /// where it waited between streams.
    fn shut_down(mut self) -> Option<Box<AudioSide>> {
        if let Some(live) = self.live.take() {
            let side = live.slot.take(TAKE_PATIENCE);
            dispose(live.stream);
            if side.is_some() {
                return side;
            }
        }
        self.held.take()
    }
}

/// Drops a stream, which stops it and releases its callbacks. Some hosts
/// can hang doing so (cpal 0.16's ALSA backend, when a write keeps failing,
/// never looks at its stop flag): on Linux, where streams are `Send`, the
/// drop runs on a thread of its own and is waited for at most
/// [`DROP_PATIENCE`], then left to finish (or hang) there.
fn dispose(stream: cpal::Stream) {
    #[cfg(target_os = "linux")]
    {
        let (done, wait) = crossbeam_channel::bounded::<()>(1);
        let spawned = std::thread::Builder::new()
            .name("voicepool-stream-drop".into())
            .spawn(move || {
                drop(stream);
                let _ = done.send(());
            });
        if spawned.is_ok() {
            let _ = wait.recv_timeout(DROP_PATIENCE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    drop(stream);
}
