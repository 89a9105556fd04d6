//! [`AudioEngine`]: the mixer on a live output device, through cpal.
//!
//! [`AudioEngine::start`] opens the default output device (or the one named in
//! [`EngineSettings::device`]), takes the device's default stream config
//! (its rate, channel count and sample format; if that format is not `f32`,
//! `i16` or `u16`, another config at the same rate that is), asks for
//! [`EngineSettings::buffer_frames`] if set, and moves the [`Mixer`] into
//! the stream's data callback. The game side is the same [`Engine`] that
//! [`crate::OfflineEngine`] dereferences to.
//!
//! # Real-time contract of the callback
//!
//! The data callback calls one function, the real-time entry point
//! (`AudioSide::fill`, private), which keeps the rules of [`crate::mixer`]:
//!
//! - the mixer renders into a stereo scratch buffer allocated in
//!   [`AudioEngine::start`], big enough for the largest block the device is
//!   expected to ask for ([`StreamInfo::max_block_frames`]); a larger request
//!   is rendered in chunks of that size, never by growing the buffer;
//! - the mix is converted into the device's format in place in the device's
//!   buffer: stereo is written to the first two channels (extra channels get
//!   silence), mono gets `(left + right) / 2`;
//! - nothing allocates, frees, locks, blocks, prints or panics.
//!
//! Stream errors arrive on cpal's error callback, which may run on yet
//! another thread. It only bumps [`crate::Stats::stream_errors`] and pushes
//! an [`Event::StreamError`] onto a lock-free queue that the game side reads
//! with its other events. (cpal builds the error value, with its message,
//! before voicepool sees it; that allocation is cpal's.) cpal 0.16's ALSA
//! backend recovers from buffer underruns without reporting them, so
//! underruns there are neither counted nor reported. The same backend
//! retries a write that keeps failing (other than an underrun) forever,
//! without looking at its stop flag: errors keep being reported, the game
//! side keeps working (a stalled audio side makes `play` return
//! [`crate::PlayError::QueueFull`] once the queue fills), but dropping the
//! engine then blocks. A device that disappears fails at `poll` instead,
//! where cpal does stop.
//!
//! # Shutdown: the audio side is freed on the game side
//!
//! The callback owns the audio-side state (mixer and scratch buffer) through
//! a small wrapper whose `Drop` does not free it but sends it back over a
//! one-slot queue to the [`AudioEngine`]. Dropping (or [`AudioEngine::close`]-ing)
//! the engine drops the cpal stream, which stops the device and drops the
//! callback (cpal's ALSA backend joins its audio thread, so this happens
//! before the drop returns); the state then waits in the queue and is freed
//! on the thread that dropped the engine. If a host kept the callback alive
//! past that point, the queue's receiver would be gone and the state would
//! be freed wherever the host finally drops it; [`AudioEngine::close`]
//! returns `None` in that case so a test can tell.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, Sample, SizedSample};
use crossbeam_channel::{Receiver, Sender};
use ringbuf::traits::Producer;
use ringbuf::HeapProd;

use crate::command::{Event, StreamErrorKind, TimedEvent};
use crate::engine::Engine;
use crate::error::EngineError;
use crate::mixer::Mixer;
use crate::settings::EngineSettings;
use crate::stats::Counters;

/// The fewest frames the scratch buffer holds.
pub const MIN_BLOCK_FRAMES: usize = 256;
/// The most frames the scratch buffer holds; bigger device requests are
/// rendered in chunks.
pub const MAX_BLOCK_FRAMES: usize = 1 << 16;
/// Stream errors that can wait for the game between `drain_events` calls;
/// beyond this they are still counted in [`crate::Stats::stream_errors`].
const STREAM_ERROR_CAPACITY: usize = 64;

/// The sample formats voicepool writes to a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceSampleFormat {
    /// 32-bit float, -1.0 to 1.0.
    F32,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 16-bit integer (silence is 32768).
    U16,
}

impl DeviceSampleFormat {
    fn from_cpal(format: cpal::SampleFormat) -> Option<Self> {
        match format {
            cpal::SampleFormat::F32 => Some(DeviceSampleFormat::F32),
            cpal::SampleFormat::I16 => Some(DeviceSampleFormat::I16),
            cpal::SampleFormat::U16 => Some(DeviceSampleFormat::U16),
            _ => None,
        }
    }
}

/// What [`AudioEngine::start`] opened.
///
/// ```no_run
/// use voicepool::{AudioEngine, EngineSettings, StreamInfo};
/// let engine = AudioEngine::start(EngineSettings { buffer_frames: Some(256), ..Default::default() })?;
/// let StreamInfo { device, sample_rate, buffer_frames, .. } = engine.info();
/// match buffer_frames {
///     Some(n) => println!("{device}: {n}-frame buffers at {sample_rate} Hz"),
///     None => println!("{device}: the device's default buffer at {sample_rate} Hz"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamInfo {
    /// The device's name as the host reports it.
    pub device: String,
    /// The stream's rate in Hz (the device's default rate); the mixer
    /// renders at this rate.
    pub sample_rate: u32,
    /// Channels the device is written with (stereo goes to the first two;
    /// mono gets a downmix).
    pub channels: u16,
    /// The sample format written.
    pub sample_format: DeviceSampleFormat,
    /// The fixed buffer size asked of the device, in frames, or `None` for
    /// the device's default (also when a fixed size was asked for in the
    /// settings and the device refused it).
    pub buffer_frames: Option<u32>,
    /// The largest block rendered in one go; bigger device requests are
    /// rendered in chunks of this size. It is the buffer size asked for, or
    /// 200 ms at the stream's rate for the device default, within
    /// [`MIN_BLOCK_FRAMES`]`..=`[`MAX_BLOCK_FRAMES`].
    pub max_block_frames: usize,
}

#[cfg(feature = "hooks")]
pub use hook::{CallbackHook, CallbackPhase};
#[cfg(not(feature = "hooks"))]
use hook::{CallbackHook, CallbackPhase};

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

/// An engine playing live on an output device: the game side ([`Engine`],
/// through `Deref`) plus the running stream.
///
/// `Send` and `Sync` wherever cpal's output stream is (on Linux it is; on
/// some platforms, such as macOS, it is not), so on Linux it may be made on
/// one thread and moved to the one that owns it. Portable code keeps it on
/// one thread and gives other threads [`crate::Controller`]s. Dropping it stops the stream;
/// see the [module docs](self) for where the audio side is freed. Every play
/// still in flight then ends with [`crate::Event::Ended`] for the game side.
///
/// ```no_run
/// use voicepool::{AudioEngine, EngineSettings, Event, PlayParams, Sound};
/// let mut engine = AudioEngine::start(EngineSettings::default())?;
/// let swish = Sound::from_wav_file("samples/swish.wav")?;
/// engine.play(&swish, PlayParams::default().pan(-0.3))?;
/// for event in engine.drain_events() {
///     if let Event::Stolen { victim, by } = event {
///         println!("{by:?} took the voice of {victim:?}");
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AudioEngine {
    engine: Engine,
    stream: Option<cpal::Stream>,
    home: Receiver<Box<AudioSide>>,
    info: StreamInfo,
}

impl fmt::Debug for AudioEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AudioEngine")
            .field("info", &self.info)
            .field("stats", &self.engine.stats())
            .finish()
    }
}

impl AudioEngine {
    /// Opens the output device and starts playing (silence until the first
    /// `play`). Errors: [`EngineError::InvalidSettings`] for bad settings,
    /// [`EngineError::NoDevice`] when there is no usable output device (or
    /// none of the name asked for), [`EngineError::Device`] when the device
    /// refuses the stream. A `NoDevice` error names the output devices the
    /// host lists (or says there are none) and what to do: render with
    /// [`crate::OfflineEngine`], or check the sound server or ALSA set-up.
    /// Nothing is printed: on Linux, alsa-lib's own error messages (a line
    /// on stderr for every device it cannot open) are silenced on this
    /// thread while devices are probed and opened.
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
    pub fn start_with_hook(
        settings: EngineSettings,
        hook: CallbackHook,
    ) -> Result<AudioEngine, EngineError> {
        AudioEngine::start_hooked(settings, hook)
    }

    fn start_hooked(
        settings: EngineSettings,
        hook: CallbackHook,
    ) -> Result<AudioEngine, EngineError> {
        settings.validate()?;
        // alsa-lib prints a line to stderr for every device it cannot open;
        // while we look for one, those lines are ours to report, not its.
        let _quiet = QuietAlsa::new();
        let host = cpal::default_host();
        let (device, device_name) =
            find_device(&host, settings.device.as_deref()).map_err(|e| advise(&host, e))?;
        let (config, format) =
            choose_config(&device, &device_name).map_err(|e| advise(&host, e))?;
        let sample_rate = config.sample_rate().0;
        let channels = config.channels();
        if channels == 0 {
            return Err(EngineError::Device(format!(
                "{device_name:?}: the device's default config has 0 channels"
            )));
        }
        let (engine, mixer) = Engine::with_rate(settings.clone(), sample_rate)?;

        let fixed = settings.buffer_frames.map(|n| match config.buffer_size() {
            cpal::SupportedBufferSize::Range { min, max } => n.clamp(*min, (*max).max(*min)),
            cpal::SupportedBufferSize::Unknown => n,
        });
        let (home_tx, home) = crossbeam_channel::bounded(1);
        let mut side = Box::new(AudioSide {
            mixer,
            scratch: Box::new([]),
            channels: usize::from(channels),
            hook,
        });
        let mut last_error = String::new();
        // Try the fixed size asked for, then the device's default. A failed
        // build drops the callback on this thread, which hands `side` back.
        let attempts: &[Option<u32>] = match fixed {
            Some(_) => &[fixed, None],
            None => &[None],
        };
        for &buffer_frames in attempts {
            let max_block_frames = buffer_frames
                .map_or(sample_rate as usize / 5, |n| n as usize)
                .clamp(MIN_BLOCK_FRAMES, MAX_BLOCK_FRAMES);
            if side.scratch.len() != max_block_frames * 2 {
                side.scratch = vec![0.0; max_block_frames * 2].into_boxed_slice();
            }
            let stream_config = cpal::StreamConfig {
                channels,
                sample_rate: config.sample_rate(),
                buffer_size: buffer_frames
                    .map_or(cpal::BufferSize::Default, cpal::BufferSize::Fixed),
            };
            let (events, counters) = engine.stream_error_sink(STREAM_ERROR_CAPACITY);
            let errors = ErrorSink { events, counters };
            let callback = HandBack {
                value: Some(side),
                home: home_tx.clone(),
            };
            let built = match format {
                DeviceSampleFormat::F32 => build::<f32>(&device, &stream_config, callback, errors),
                DeviceSampleFormat::I16 => build::<i16>(&device, &stream_config, callback, errors),
                DeviceSampleFormat::U16 => build::<u16>(&device, &stream_config, callback, errors),
            };
            match built {
                Ok(stream) => {
                    let info = StreamInfo {
                        device: device_name,
                        sample_rate,
                        channels,
                        sample_format: format,
                        buffer_frames,
                        max_block_frames,
                    };
                    let engine = AudioEngine {
                        engine,
                        stream: Some(stream),
                        home,
                        info,
                    };
                    if let Some(stream) = &engine.stream {
                        stream.play().map_err(|e| {
                            EngineError::Device(format!(
                                "{:?}: cannot start the stream: {e}",
                                engine.info.device
                            ))
                        })?;
                    }
                    return Ok(engine);
                }
                Err(e) => {
                    last_error = match buffer_frames {
                        Some(n) => format!("with a buffer of {n} frames: {e}"),
                        None => format!("with the device's default buffer: {e}"),
                    };
                    match home.try_recv() {
                        Ok(back) => side = back,
                        Err(_) => break,
                    }
                }
            }
        }
        Err(EngineError::Device(format!(
            "{device_name:?}: cannot open a {channels}-channel {format:?} stream at {sample_rate} Hz {last_error}"
        )))
    }

    /// What was opened: device, rate, channels, format, buffer.
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
    pub fn info(&self) -> &StreamInfo {
        &self.info
    }

    /// The output rate in Hz (the device's).
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
        self.info.sample_rate
    }

    /// Stops the stream and returns the audio side's [`Mixer`], which came
    /// back to this thread when the stream released its callback; `None` if
    /// the host did not release it (the state is then freed by the host).
    /// Dropping the engine does the same and frees the mixer here.
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

    fn stop_stream(&mut self) -> Option<Box<AudioSide>> {
        // Dropping the stream stops it. (Not paused first: with ALSA's
        // `linear` plugin, a write racing a pause deadlocks inside alsa-lib.)
        drop(self.stream.take());
        self.home.try_recv().ok()
    }
}

impl Drop for AudioEngine {
    fn drop(&mut self) {
        drop(self.stop_stream());
    }
}

impl Deref for AudioEngine {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl DerefMut for AudioEngine {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

/// Adds to a [`EngineError::NoDevice`] what was seen and what to do about
/// it: the output devices the host lists (or that it lists none), and the
/// ways on (render with [`crate::OfflineEngine`], or fix the audio set-up).
/// Other errors pass through unchanged.
fn advise(host: &cpal::Host, error: EngineError) -> EngineError {
    let EngineError::NoDevice(reason) = error else {
        return error;
    };
    let seen = match host.output_devices() {
        Ok(devices) => {
            let names: Vec<String> = devices.filter_map(|d| d.name().ok()).collect();
            if names.is_empty() {
                "no output devices were found".to_string()
            } else {
                format!("output devices seen: {}", names.join(", "))
            }
        }
        Err(e) => format!("no output devices were found (cannot list them: {e})"),
    };
    let check = if cfg!(target_os = "linux") {
        "check that a sound server (PipeWire, PulseAudio) is running, or the ALSA \
         configuration (~/.asoundrc, /etc/asound.conf)"
    } else {
        "check the system's sound output settings"
    };
    EngineError::NoDevice(format!(
        "{reason}; {seen}; to render without a device use OfflineEngine; to play, {check}"
    ))
}

/// While alive, alsa-lib prints none of its error messages on this thread
/// (Linux only; elsewhere it does nothing).
///
/// It sets alsa-lib's thread-local error handler
/// (`snd_lib_error_set_local`, alsa-lib 1.1.6 and later) to one that drops
/// the message, and puts back the one it replaced when dropped. The
/// thread-local handler is consulted by alsa-lib's default handler only, so
/// a program that installed its own global handler
/// (`snd_lib_error_set_handler`) keeps getting every message, and other
/// threads' messages are untouched. (The global setter cannot be used the
/// same way: it does not return the handler it replaces, so it could only be
/// reset to alsa-lib's default afterwards, overriding the program's own.)
/// cpal probes and opens devices on the calling thread, so this covers
/// everything `AudioEngine::start` does until the stream runs.
#[cfg(target_os = "linux")]
struct QuietAlsa {
    previous: alsa_sys::snd_local_error_handler_t,
}

#[cfg(target_os = "linux")]
impl QuietAlsa {
    fn new() -> QuietAlsa {
        /// Drops alsa-lib's message (and its `va_list`, left untouched).
        unsafe extern "C" fn drop_message(
            _file: *const std::ffi::c_char,
            _line: std::ffi::c_int,
            _function: *const std::ffi::c_char,
            _err: std::ffi::c_int,
            _fmt: *const std::ffi::c_char,
            _args: *mut alsa_sys::__va_list_tag,
        ) {
        }
        // SAFETY: sets a thread-local pointer inside alsa-lib; the handler
        // reads none of its arguments and is valid for the whole program.
        let previous = unsafe { alsa_sys::snd_lib_error_set_local(Some(drop_message)) };
        QuietAlsa { previous }
    }
}

#[cfg(target_os = "linux")]
impl Drop for QuietAlsa {
    fn drop(&mut self) {
        // SAFETY: puts back the handler alsa-lib returned on this thread
        // (`None`, alsa-lib's own printing, unless someone had set one).
        unsafe { alsa_sys::snd_lib_error_set_local(self.previous) };
    }
}

#[cfg(not(target_os = "linux"))]
struct QuietAlsa;

#[cfg(not(target_os = "linux"))]
impl QuietAlsa {
    fn new() -> QuietAlsa {
        QuietAlsa
    }
}

/// The device named `name`, or the host's default output device.
fn find_device(
    host: &cpal::Host,
    name: Option<&str>,
) -> Result<(cpal::Device, String), EngineError> {
    let Some(name) = name else {
        let device = host.default_output_device().ok_or_else(|| {
            EngineError::NoDevice(format!(
                "the {} host has no default output device",
                host.id().name()
            ))
        })?;
        let name = device.name().unwrap_or_else(|_| "default".into());
        return Ok((device, name));
    };
    let devices = host.output_devices().map_err(|e| {
        EngineError::NoDevice(format!("cannot list output devices to find {name:?}: {e}"))
    })?;
    for device in devices {
        match device.name() {
            Ok(n) if n == name => return Ok((device, n)),
            _ => {}
        }
    }
    // `advise` adds the names that were there.
    Err(EngineError::NoDevice(format!(
        "no output device named {name:?}"
    )))
}

/// The device's default config if its format is one voicepool writes;
/// otherwise the best config at the default rate that is.
fn choose_config(
    device: &cpal::Device,
    name: &str,
) -> Result<(cpal::SupportedStreamConfig, DeviceSampleFormat), EngineError> {
    let default = device.default_output_config().map_err(|e| {
        let why = match e {
            cpal::DefaultStreamConfigError::DeviceNotAvailable => {
                "it does not exist or is in use".to_string()
            }
            cpal::DefaultStreamConfigError::StreamTypeNotSupported => {
                "it cannot be opened for output".to_string()
            }
            cpal::DefaultStreamConfigError::BackendSpecific { err } => err.to_string(),
        };
        EngineError::NoDevice(format!("output device {name:?} cannot be opened: {why}"))
    })?;
    if let Some(format) = DeviceSampleFormat::from_cpal(default.sample_format()) {
        return Ok((default, format));
    }
    let rate = default.sample_rate();
    let rank = |f: DeviceSampleFormat| match f {
        DeviceSampleFormat::F32 => 2,
        DeviceSampleFormat::I16 => 1,
        DeviceSampleFormat::U16 => 0,
    };
    device
        .supported_output_configs()
        .map_err(|e| EngineError::Device(format!("{name:?}: cannot list its configs: {e}")))?
        .filter(|c| c.min_sample_rate() <= rate && rate <= c.max_sample_rate())
        .filter_map(|c| DeviceSampleFormat::from_cpal(c.sample_format()).map(|f| (c, f)))
        .max_by_key(|(c, f)| {
            (
                c.channels() == default.channels(),
                c.channels() == 2,
                rank(*f),
            )
        })
        .map(|(c, f)| (c.with_sample_rate(rate), f))
        .ok_or_else(|| {
            EngineError::Device(format!(
                "{name:?} offers no f32, i16 or u16 output at {} Hz (its default format is {})",
                rate.0,
                default.sample_format()
            ))
        })
}

fn build<T>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    mut callback: HandBack<Box<AudioSide>>,
    mut errors: ErrorSink,
) -> Result<cpal::Stream, cpal::BuildStreamError>
where
    T: SizedSample + FromSample<f32>,
{
    device.build_output_stream::<T, _, _>(
        config,
        move |out: &mut [T], _: &cpal::OutputCallbackInfo| match callback.value.as_mut() {
            Some(side) => side.fill(out),
            None => out.fill(T::EQUILIBRIUM),
        },
        move |err| errors.report(&err),
        None,
    )
}

/// Everything the data callback owns.
struct AudioSide {
    mixer: Mixer,
    /// Interleaved stereo, `max_block_frames * 2` samples.
    scratch: Box<[f32]>,
    /// Device channels (at least 1).
    channels: usize,
    hook: CallbackHook,
}

impl AudioSide {
    /// **The real-time entry point**: the whole body of the data callback.
    /// Renders `out.len() / channels` frames in chunks of at most the
    /// scratch buffer's size and converts them into `out`. Allocates,
    /// frees, locks and prints nothing; never panics (slicing is bounded by
    /// `chunks_exact_mut`; a trailing partial frame, which a host should
    /// never pass, is filled with silence).
    #[cfg_attr(feature = "rtsan", rtsan_standalone::nonblocking)]
    fn fill<T: Sample + FromSample<f32>>(&mut self, out: &mut [T]) {
        (self.hook)(CallbackPhase::Enter);
        let channels = self.channels.max(1);
        let block = (self.scratch.len() / 2).max(1);
        let mut chunks = out.chunks_exact_mut(channels * block);
        for chunk in &mut chunks {
            self.render_chunk(chunk, channels);
        }
        let rest = chunks.into_remainder();
        let whole = rest.len() / channels * channels;
        let (frames, partial) = rest.split_at_mut(whole);
        if !frames.is_empty() {
            self.render_chunk(frames, channels);
        }
        partial.fill(T::EQUILIBRIUM);
        (self.hook)(CallbackPhase::Exit);
    }

    /// Renders `out.len() / channels` frames (at most the scratch size).
    fn render_chunk<T: Sample + FromSample<f32>>(&mut self, out: &mut [T], channels: usize) {
        let frames = out.len() / channels;
        let Some(mix) = self.scratch.get_mut(..frames * 2) else {
            out.fill(T::EQUILIBRIUM);
            return;
        };
        self.mixer.process(mix);
        write_frames(mix, out, channels);
    }
}

/// Converts interleaved stereo `mix` into `out` with `channels` channels:
/// mono gets `(left + right) / 2`, stereo is copied, more channels get left
/// and right in the first two and silence in the rest.
fn write_frames<T: Sample + FromSample<f32>>(mix: &[f32], out: &mut [T], channels: usize) {
    if channels == 1 {
        for (o, f) in out.iter_mut().zip(mix.chunks_exact(2)) {
            if let [l, r] = f {
                *o = T::from_sample((l + r) * 0.5);
            }
        }
        return;
    }
    for (o, f) in out.chunks_exact_mut(channels).zip(mix.chunks_exact(2)) {
        if let ([ol, or, extra @ ..], [l, r]) = (o, f) {
            *ol = T::from_sample(*l);
            *or = T::from_sample(*r);
            extra.fill(T::EQUILIBRIUM);
        }
    }
}

/// Holds a value inside a callback; when the callback is dropped, sends the
/// value home instead of freeing it where the drop happens.
struct HandBack<V> {
    value: Option<V>,
    home: Sender<V>,
}

impl<V> Drop for HandBack<V> {
    fn drop(&mut self) {
        if let Some(value) = self.value.take() {
            // A bounded channel's `try_send` neither allocates nor blocks.
            // If the receiver is gone, the value is freed here after all.
            let _ = self.home.try_send(value);
        }
    }
}

/// What the error callback owns: a queue to the game side and the counters.
struct ErrorSink {
    events: HeapProd<TimedEvent>,
    counters: Arc<Counters>,
}

impl ErrorSink {
    /// Counts the error and queues an [`Event::StreamError`]. Lock-free and
    /// allocation-free (it may run on the audio thread).
    fn report(&mut self, err: &cpal::StreamError) {
        let kind = match err {
            cpal::StreamError::DeviceNotAvailable => StreamErrorKind::DeviceLost,
            cpal::StreamError::BackendSpecific { .. } => StreamErrorKind::Backend,
        };
        Counters::bump(&self.counters.stream_errors);
        let ev = TimedEvent {
            frame: self.counters.frames.load(Relaxed),
            event: Event::StreamError { kind },
        };
        if self.events.try_push(ev).is_err() {
            Counters::bump(&self.counters.lost_events);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{OfflineEngine, PlayParams, Sound};

    fn stereo_sound() -> Sound {
        let samples = (0..2_000)
            .flat_map(|i| {
                let t = i as f32;
                [0.5 * (t * 0.03).cos(), -0.25 * (t * 0.11).cos()]
            })
            .collect();
        Sound::from_samples(2, 48_000, samples).unwrap()
    }

    fn make_side(channels: usize, block: usize) -> (Engine, AudioSide) {
        let (engine, mixer) = Engine::new(EngineSettings::default()).unwrap();
        let side = AudioSide {
            mixer,
            scratch: vec![0.0; block * 2].into_boxed_slice(),
            channels,
            hook: |_| {},
        };
        (engine, side)
    }

    fn offline(frames: usize, sound: &Sound) -> Vec<f32> {
        let mut engine = OfflineEngine::new(EngineSettings::default()).unwrap();
        engine.play(sound, PlayParams::default()).unwrap();
        engine.render(frames).to_vec()
    }

    #[test]
    fn a_request_larger_than_the_scratch_buffer_is_rendered_in_chunks() {
        let sound = stereo_sound();
        let (engine, mut side) = make_side(2, 256);
        engine.play(&sound, PlayParams::default()).unwrap();
        // 1000 frames: three whole chunks of 256 and one of 232.
        let mut out = vec![9.0f32; 2_000];
        side.fill(&mut out);
        assert_eq!(side.scratch.len(), 512, "the scratch buffer did not grow");
        assert_eq!(out, offline(1_000, &sound));
    }

    #[test]
    fn mono_devices_get_a_downmix_and_extra_channels_get_silence() {
        let sound = stereo_sound();
        let expected = offline(300, &sound);

        let (engine, mut side) = make_side(1, 512);
        engine.play(&sound, PlayParams::default()).unwrap();
        let mut mono = vec![0.0f32; 300];
        side.fill(&mut mono);
        for (m, f) in mono.iter().zip(expected.chunks(2)) {
            assert_eq!(*m, (f[0] + f[1]) * 0.5);
        }

        let (engine, mut side) = make_side(4, 512);
        engine.play(&sound, PlayParams::default()).unwrap();
        let mut quad = vec![7u16; 1_200];
        side.fill(&mut quad);
        for (q, f) in quad.chunks(4).zip(expected.chunks(2)) {
            assert_eq!(q[0], u16::from_sample(f[0]));
            assert_eq!(q[1], u16::from_sample(f[1]));
            assert_eq!(&q[2..], &[32_768, 32_768], "u16 silence is mid-scale");
        }
        assert!(quad.chunks(4).any(|q| q[0] != 32_768 && q[0] != q[1]));
    }

    #[test]
    fn i16_output_is_the_mix_converted() {
        let sound = stereo_sound();
        let expected = offline(400, &sound);
        let (engine, mut side) = make_side(2, 512);
        engine.play(&sound, PlayParams::default()).unwrap();
        let mut out = vec![0i16; 800];
        side.fill(&mut out);
        let want: Vec<i16> = expected.iter().map(|&s| i16::from_sample(s)).collect();
        assert_eq!(out, want);
        assert!(out.iter().any(|&s| s > 8_000) && out.iter().any(|&s| s < -4_000));
    }

    #[test]
    fn a_partial_trailing_frame_is_silenced_not_a_panic() {
        let (_engine, mut side) = make_side(3, 256);
        let mut out = vec![5i16; 3 * 10 + 2];
        side.fill(&mut out);
        assert_eq!(&out[30..], &[0, 0]);
    }

    #[test]
    fn stream_errors_become_events_and_counts_and_the_engine_keeps_working() {
        let (mut engine, mut side) = make_side(2, 256);
        let (events, counters) = engine.stream_error_sink(4);
        let mut sink = ErrorSink { events, counters };
        sink.report(&cpal::StreamError::DeviceNotAvailable);
        sink.report(&cpal::StreamError::BackendSpecific {
            err: cpal::BackendSpecificError {
                description: "xrun".into(),
            },
        });
        let h = engine.play(&stereo_sound(), PlayParams::default()).unwrap();
        side.fill(&mut [0.0f32; 64]);
        let events: Vec<Event> = engine.drain_events().collect();
        assert!(events.contains(&Event::StreamError {
            kind: StreamErrorKind::DeviceLost
        }));
        assert!(events.contains(&Event::StreamError {
            kind: StreamErrorKind::Backend
        }));
        assert!(events.contains(&Event::Started { voice: h }));
        assert_eq!(engine.stats().stream_errors, 2);
        assert!(engine.is_playing(h));
    }

    #[test]
    fn a_dropped_callback_sends_its_state_home_instead_of_freeing_it() {
        struct Recorder(Arc<std::sync::Mutex<Option<std::thread::ThreadId>>>);
        impl Drop for Recorder {
            fn drop(&mut self) {
                *self.0.lock().unwrap() = Some(std::thread::current().id());
            }
        }
        let dropped_on = Arc::new(std::sync::Mutex::new(None));
        let (tx, rx) = crossbeam_channel::bounded(1);
        let callback = HandBack {
            value: Some(Recorder(Arc::clone(&dropped_on))),
            home: tx,
        };
        // As a host does: the callback is dropped on its audio thread.
        std::thread::spawn(move || drop(callback)).join().unwrap();
        assert_eq!(
            *dropped_on.lock().unwrap(),
            None,
            "freed on the audio thread"
        );
        drop(rx.try_recv().expect("the state came home"));
        assert_eq!(
            *dropped_on.lock().unwrap(),
            Some(std::thread::current().id())
        );
    }
}
