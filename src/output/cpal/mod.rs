//! [`AudioEngine`]: the mixer on a live output device, through cpal.

use std::fmt;
use std::ops::{Deref, DerefMut};
#[cfg(not(web))]
use std::sync::{Arc, Mutex};
#[cfg(not(web))]
use std::thread::JoinHandle;

#[cfg(not(web))]
use crossbeam_channel::Receiver;

use crate::control::settings::EngineSettings;
use crate::control::Engine;
use crate::error::EngineError;
use crate::mixer::Mixer;

mod info;
#[cfg(not(web))]
mod open;
pub(super) mod report;
pub(super) mod side;
#[cfg(not(web))]
mod supervisor;

pub use super::state::OutputState;
pub use info::{DeviceSampleFormat, StreamInfo};

use side::AudioSide;
#[cfg(not(web))]
use supervisor::Control;

/// The fewest frames the scratch buffer holds.
pub const MIN_BLOCK_FRAMES: usize = 256;
/// The most frames the scratch buffer holds; bigger device requests are
/// rendered in chunks.
pub const MAX_BLOCK_FRAMES: usize = 1 << 16;

#[cfg(feature = "hooks")]
pub use hook::{CallbackHook, CallbackPhase};
#[cfg(not(feature = "hooks"))]
pub(crate) use hook::{CallbackHook, CallbackPhase};

/// Instrumentation of the data callback (feature `hooks`: tests only).
mod hook {
    /// Where the data callback is, for a [`CallbackHook`].
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum CallbackPhase {
        /// The data callback has just been entered, on the audio thread.
        Enter,
        /// The data callback is about to return.
        Exit,
    }

    /// A function the data callback calls on entry and exit, on the audio
    /// thread. For instrumenting the audio thread (allocation counters,
    /// profilers, sanitizers); it must itself keep the real-time rules.
    pub type CallbackHook = fn(CallbackPhase);
}

/// An engine playing live on an output device: the game side (every
/// [`Engine`] call is its own) plus the output thread that owns the stream
/// (it reopens a lost device by itself: below).
///
/// `Send` and `Sync`: the stream never leaves the output thread, so the
/// engine may be made on one thread and moved to the one that owns it;
/// other threads get [`crate::Controller`]s. Dropping it stops the stream
/// (below: where the audio side is freed). Every
/// play still in flight then ends with [`crate::Event::Ended`] for the game
/// side.
///
/// ```no_run
/// use voicepool::{AudioEngine, EngineSettings, Event, PlayParams, Sound, StreamErrorKind};
/// let mut engine = AudioEngine::start(EngineSettings::default())?;
/// let swish = Sound::from_file("samples/swish.wav")?;
/// engine.play(&swish, PlayParams::default().pan(-0.3))?;
/// for event in engine.drain_events() {
///     match event {
///         Event::Stolen { victim, by } => println!("{by:?} took the voice of {victim:?}"),
///         Event::StreamError { kind: StreamErrorKind::DeviceLost } => println!("output lost"),
///         Event::OutputRecovered { device, sample_rate } => {
///             println!("playing again on {device} at {sample_rate} Hz")
///         }
///         _ => {}
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`AudioEngine::start`] starts the engine's output thread, which opens
/// the default output device (or the one named in
/// [`EngineSettings::device`], on the host named in [`EngineSettings::host`]),
/// takes the device's default stream config (its rate, channel count and
/// sample format; if that format is not `f32`, `i16` or `u16`, another
/// config at the same rate that is), asks for
/// [`EngineSettings::buffer_frames`] if set, and moves the [`Mixer`] into
/// the stream's data callback. The game side is the same [`Engine`] an
/// [`crate::OfflineEngine`] drives.
///
/// # Real-time contract of the callback
///
/// The data callback calls one function, the real-time entry point
/// (`Slot::fill`, private), which keeps the rules of [`crate::Mixer`]:
///
/// - it borrows the audio side (mixer and scratch buffer) from a cell with
///   one atomic exchange, and gives it back with one store (a cell whose
///   side the output thread has taken gives silence);
/// - the mixer renders into a stereo scratch buffer allocated on the output
///   thread, big enough for the largest block the device is expected to ask
///   for ([`StreamInfo::max_block_frames`]); a larger request is rendered
///   in chunks of that size, never by growing the buffer;
/// - the mix is converted into the device's format in place in the device's
///   buffer: stereo is written to the first two channels (extra channels get
///   silence), mono gets `(left + right) / 2`;
/// - it reads the monotonic clock on entry and exit and counts the
///   callback, and a late one, in [`crate::Stats`] (`callbacks`,
///   `late_callbacks`, `worst_callback`, `callback_budget`): relaxed atomics;
/// - nothing allocates, frees, locks, blocks, prints or panics.
///
/// Stream errors arrive on cpal's error callback, which may run on the
/// audio thread (ALSA) or another (JACK). It only sorts the error (device
/// lost, underrun, other) by its text and bumps an atomic counter. cpal's
/// JACK host reports every xrun, counted in [`crate::Stats::underruns`];
/// cpal 0.16's ALSA backend recovers from buffer underruns without
/// reporting them, so there they are neither counted nor reported (a late
/// callback still counts in `late_callbacks`).
///
/// # The output thread, and device recovery
///
/// The stream lives on a thread of the engine's own, the output thread
/// (`supervisor.rs`), which opens it, watches it every 20 ms and turns the
/// error counts into [`crate::Event::StreamError`]s. The device is lost when the
/// error callback says so (a vanished ALSA device, a JACK server that shut
/// down) or when no data callback has come for a second. Then the game
/// gets `StreamError { kind: DeviceLost }`, and, with
/// [`EngineSettings::recover_device`] on (the default), the output thread
/// takes the audio side out of the old stream's cell (it can do so while
/// that stream still exists, even one whose host thread hangs), disposes of
/// the old stream, and reopens the named device, or the default one, at the
/// mixer's rate, retrying with a backoff (50 ms doubling to 2 s) until it
/// opens. The same mixer, voices and queues go on from where they stopped:
/// nothing is rendered while no device plays, so voices keep their
/// positions and the engine's clock ([`crate::Controller::clock`]) pauses; commands
/// sent meanwhile wait in the queue (a full queue is
/// [`crate::PlayError::QueueFull`], as ever). The game then gets
/// [`crate::Event::OutputRecovered`] with the device's name and rate.
///
/// The rate never changes: a device is only opened at the rate the mixer
/// runs at (its default, or one of its configs that offers that rate). A
/// device that only offers other rates is not used (the game gets
/// `StreamError { kind: RateUnavailable }` once per loss) and the thread
/// keeps trying; a game that wants to follow the device to another rate
/// turns recovery off and starts a new engine.
///
/// # Shutdown: the audio side is freed on the game side
///
/// Dropping (or [`AudioEngine::close`]-ing) the engine tells the output
/// thread to stop (waking it from a wait between retries at once). It takes
/// the audio side out of the stream's cell, drops the stream (on Linux on a
/// thread of its own, waited for at most 2 s: cpal 0.16's ALSA backend
/// can hang there when a write keeps failing), and sends the side home,
/// where it is freed on the thread that dropped the engine.
pub struct AudioEngine {
    engine: Engine,
    #[cfg(not(web))]
    control: Arc<Control>,
    #[cfg(not(web))]
    pub(in crate::output) thread: Option<JoinHandle<()>>,
    #[cfg(not(web))]
    home: Receiver<Box<AudioSide>>,
    /// The stream now open (or last open), as the output thread keeps it.
    #[cfg(not(web))]
    info: Arc<Mutex<Option<StreamInfo>>>,
    /// The page's context and node (in a browser).
    #[cfg(web)]
    pub(in crate::output) web: Option<super::web::WebOutput>,
    /// The stream first opened; its rate is the engine's for good.
    first: StreamInfo,
}

impl fmt::Debug for AudioEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AudioEngine")
            .field("info", &self.info())
            .field("stats", &self.engine.stats())
            .finish()
    }
}

impl AudioEngine {
    /// Opens the output device and starts playing (silence until the first
    /// `play`). Errors: [`EngineError::InvalidSettings`] for bad settings,
    /// [`EngineError::NoDevice`] when there is no usable output device (or
    /// none of the name asked for, or no host of the name asked for),
    /// [`EngineError::Device`] when the device refuses the stream. A
    /// `NoDevice` error names the output devices the host lists (or says
    /// there are none) and what to do: render with
    /// [`crate::OfflineEngine`], or check the sound server or ALSA set-up.
    /// Nothing is printed: on Linux, alsa-lib's own error messages (a line
    /// on stderr for every device it cannot open) are silenced on the
    /// output thread, where devices are probed and opened. (cpal's JACK
    /// host prints a line of its own to stdout when no JACK server runs.)
    ///
    /// Once started, a lost device is reopened by the engine itself unless
    /// [`EngineSettings::recover_device`] is off: see [`AudioEngine`].
    ///
    /// ```no_run
    /// use voicepool::{AudioEngine, EngineError, EngineSettings, OfflineEngine};
    /// match AudioEngine::start(EngineSettings { voices: 48, buffer_frames: Some(512), ..Default::default() }) {
    ///     Ok(engine) => println!("playing on {}", engine.info().device),
    ///     Err(EngineError::NoDevice(why)) => {
    ///         eprintln!("{why}"); // says what to check; a server or a test can render instead
    ///         let _engine = OfflineEngine::new(EngineSettings::default())?;
    ///     }
    ///     Err(e) => return Err(e.into()),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start(settings: EngineSettings) -> Result<AudioEngine, EngineError> {
        AudioEngine::start_hooked(settings, |_| {})
    }

    /// As [`AudioEngine::start`], calling `hook` on entry to and exit from
    /// every data callback, on the audio thread (feature `hooks`: tests).
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn start_with_hook(
        settings: EngineSettings,
        hook: CallbackHook,
    ) -> Result<AudioEngine, EngineError> {
        AudioEngine::start_hooked(settings, hook)
    }

    #[cfg(web)]
    fn start_hooked(
        settings: EngineSettings,
        hook: CallbackHook,
    ) -> Result<AudioEngine, EngineError> {
        settings.validate()?;
        let (engine, first, web) = super::web::start(&settings, hook)?;
        Ok(AudioEngine {
            engine,
            web: Some(web),
            first,
        })
    }

    #[cfg(not(web))]
    fn start_hooked(
        settings: EngineSettings,
        hook: CallbackHook,
    ) -> Result<AudioEngine, EngineError> {
        settings.validate()?;
        if cfg!(all(target_arch = "wasm32", target_os = "unknown")) {
            return Err(EngineError::NoDevice(
                "this WebAssembly build has no audio output: build voicepool with its `web` \
                 feature (on by default) for Web Audio in a browser, or render with OfflineEngine"
                    .into(),
            ));
        }
        if cfg!(target_arch = "wasm32") {
            return Err(EngineError::NoDevice(
                "voicepool has no audio output on this WebAssembly target (only in a browser, \
                 wasm32-unknown-unknown): render with OfflineEngine"
                    .into(),
            ));
        }
        let control = Arc::new(Control::default());
        let info = Arc::new(Mutex::new(None));
        let (ready_tx, ready) = crossbeam_channel::bounded(1);
        let (home_tx, home) = crossbeam_channel::bounded(1);
        let (c, i) = (Arc::clone(&control), Arc::clone(&info));
        let thread = std::thread::Builder::new()
            .name("voicepool-output".into())
            .spawn(move || supervisor::run(settings, hook, c, i, ready_tx, home_tx))
            .map_err(|e| EngineError::Device(format!("cannot start the output thread: {e}")))?;
        match ready.recv() {
            Ok(Ok((engine, first))) => Ok(AudioEngine {
                engine,
                control,
                thread: Some(thread),
                home,
                info,
                first,
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(EngineError::Device(
                    "the output thread stopped while opening the device".into(),
                ))
            }
        }
    }

    /// What is open now: device, rate, channels, format, buffer. After a
    /// device was lost and reopened ([`crate::Event::OutputRecovered`]), the new
    /// one; the rate is always the engine's.
    ///
    /// ```no_run
    /// use voicepool::{AudioEngine, EngineSettings};
    /// let engine = AudioEngine::start(EngineSettings::default())?;
    /// let info = engine.info();
    /// println!(
    ///     "{} at {} Hz, {} channels, {:?}, blocks of up to {} frames",
    ///     info.device, info.sample_rate, info.channels, info.sample_format, info.max_block_frames
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn info(&self) -> StreamInfo {
        #[cfg(not(web))]
        {
            let now = self.info.lock().unwrap_or_else(|e| e.into_inner());
            now.clone().unwrap_or_else(|| self.first.clone())
        }
        #[cfg(web)]
        self.first.clone()
    }

    /// The output rate in Hz: the device's when the engine started, kept
    /// for the engine's life.
    ///
    /// ```no_run
    /// use voicepool::{AudioEngine, EngineSettings};
    /// let engine = AudioEngine::start(EngineSettings { sample_rate: 48_000, ..Default::default() })?;
    /// // The device's own rate, which need not be the one asked for.
    /// let latency_ms = 1_000.0 * 512.0 / engine.sample_rate() as f64;
    /// println!("a 512-frame buffer is {latency_ms:.1} ms here");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_rate(&self) -> u32 {
        self.first.sample_rate
    }

    /// Makes the output thread act as if the device had been lost
    /// (feature `hooks`: tests): it reports `DeviceLost` and, with
    /// recovery on, reopens the device.
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn simulate_device_loss(&self) {
        #[cfg(not(web))]
        {
            use std::sync::atomic::Ordering::Relaxed;
            self.control.simulated_losses.fetch_add(1, Relaxed);
            if let Some(t) = &self.thread {
                t.thread().unpark();
            }
        }
    }

    /// Stops the stream and returns the audio side's [`Mixer`], which came
    /// back to this thread from the output thread; `None` if it could not
    /// be had (a host that never returned from a callback). Dropping the
    /// engine does the same and frees the mixer here. Either way the game
    /// side goes too: to read the `Ended` of every play still in flight,
    /// call [`AudioEngine::shut_down`] first.
    ///
    /// ```no_run
    /// use voicepool::{AudioEngine, EngineSettings};
    /// let engine = AudioEngine::start(EngineSettings::default())?;
    /// // ... the game runs ...
    /// if let Some(mixer) = engine.close() {
    ///     println!("rendered {} frames", mixer.frames_rendered());
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn close(mut self) -> Option<Mixer> {
        self.stop_stream().map(|side| side.mixer)
    }

    /// Stops the stream and ends the audio side here, keeping the game
    /// side: every play still in flight (sounding, virtual, scheduled or
    /// queued) ends with one [`crate::Event::Ended`], which
    /// [`Engine::drain_events`] then returns, and every later call that
    /// sends a command answers [`crate::PlayError::EngineStopped`]. What a
    /// game does to learn which of its sounds ended when it gives up an
    /// engine (dropping it, or [`AudioEngine::close`], takes the game side
    /// with it). Calling it again does nothing.
    ///
    /// ```no_run
    /// use voicepool::{AudioEngine, EngineSettings, Event};
    /// let mut engine = AudioEngine::start(EngineSettings::default())?;
    /// // ... the device is lost, and recovery is off ...
    /// engine.shut_down();
    /// for event in engine.drain_events() {
    ///     if let Event::Ended { voice } = event {
    ///         println!("{voice:?} ended with the engine"); // free what owned it
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shut_down(&mut self) {
        if !self.has_output() {
            return;
        }
        match self.stop_stream() {
            // Dropping the mixer ends its plays for the game side.
            Some(side) => drop(side),
            // The host kept it (a callback never returned): it will never
            // render again, so its plays end all the same.
            None => self.engine.audio_side_lost(),
        }
    }

    /// The output thread has found the device lost and not reopened it.
    #[cfg(not(web))]
    pub(in crate::output) fn device_lost(&self) -> bool {
        self.control.lost.load(std::sync::atomic::Ordering::Relaxed)
    }

    #[cfg(web)]
    fn stop_stream(&mut self) -> Option<Box<AudioSide>> {
        self.web.take()?.close()
    }

    #[cfg(not(web))]
    fn stop_stream(&mut self) -> Option<Box<AudioSide>> {
        use std::sync::atomic::Ordering::Relaxed;
        let thread = self.thread.take()?;
        self.control.stop.store(true, Relaxed);
        thread.thread().unpark();
        // The thread sends the side (or drops its sender) and returns.
        let side = self.home.recv().ok();
        let _ = thread.join();
        side
    }
}

impl Drop for AudioEngine {
    fn drop(&mut self) {
        drop(self.stop_stream());
    }
}

/// The engine's game-side calls, listed on the engine itself.
impl AudioEngine {
    crate::control::calls::controller_calls!();
    crate::control::calls::engine_calls!();

    /// Heap bytes the game side holds for this engine: the same call as
    /// [`Engine::memory_bytes`], which has the details.
    #[inline]
    pub fn memory_bytes(&self) -> usize {
        self.engine.memory_bytes()
    }
}

/// Kept so that code written when the engine's calls were reached through
/// `Deref` still builds; every call is the engine's own now.
#[doc(hidden)]
impl Deref for AudioEngine {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

#[doc(hidden)]
impl DerefMut for AudioEngine {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}
