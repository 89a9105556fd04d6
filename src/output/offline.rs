//! [`OfflineEngine`]: the mixer run on the calling thread, block by block,
//! through the same command and event queues as the live engine. The same
//! script renders bit-identically every time.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::path::Path;

use crate::control::settings::EngineSettings;
use crate::control::{Controller, Engine};
use crate::error::EngineError;
pub use crate::error::RenderError;
use crate::mixer::Mixer;
use crate::output::recorder::Recorder;
pub use crate::output::recorder::{Recording, WavFormat};

/// The most frames one [`OfflineEngine::render`] call renders (2^24, about
/// 5.8 minutes at 48 kHz); longer requests are cut to this.
pub const MAX_RENDER_FRAMES: usize = 1 << 24;

/// The most frames [`OfflineEngine::render_to_wav`] writes: a WAV file's
/// sizes are 32-bit, so 8-byte stereo float frames fill it at about 536
/// million (3 hours 6 minutes at 48 kHz).
pub const MAX_WAV_FRAMES: u64 = (u32::MAX as u64 - 4_096) / 8;

/// Block size [`OfflineEngine::render_to_wav`] renders in (10 ms at 48 kHz).
pub const WAV_BLOCK_FRAMES: usize = 480;

/// An engine with no device: render blocks on demand, in tests or to a file.
/// Every game-side call (`play`, `stop`, `drain_events`, `stats` and the
/// rest) is its own; [`OfflineEngine::engine`] is the [`Engine`] it drives.
///
/// ```
/// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let blip = Sound::from_samples(1, 48_000, vec![0.25; 240])?;
/// let h = engine.play(&blip, PlayParams::default().pan(-1.0))?;
/// let block = engine.render(480);
/// assert_eq!(block.len(), 960); // interleaved stereo
/// assert!(block.chunks(2).all(|f| f[1] == 0.0)); // hard left
/// let events: Vec<Event> = engine.drain_events().collect();
/// assert_eq!(events, [Event::Started { voice: h }, Event::Ended { voice: h }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OfflineEngine {
    engine: Engine,
    mixer: Mixer,
    buffer: Vec<f32>,
    /// Boxed: a WAV writer and its buffer would otherwise make every
    /// engine a few hundred bytes wider, recording or not.
    recorder: Option<Box<Recorder>>,
    /// The stream loader is held back (a test hook).
    loader_held: bool,
    /// Source frames a stream's ring holds.
    stream_ring: usize,
}

impl fmt::Debug for OfflineEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OfflineEngine")
            .field("sample_rate", &self.mixer.sample_rate())
            .field("frames_rendered", &self.mixer.frames_rendered())
            .finish()
    }
}

/// With streamed plays in flight, [`OfflineEngine::render`] renders in
/// blocks of at most this many frames, filling the streams' rings before
/// each (a browser's live output does the same: `output/web.rs`).
const STREAM_PIECE_FRAMES: usize = 2_048;

/// What an engine whose stream loader runs inline (offline, or in a
/// browser) does before each piece of a render with streamed plays in
/// flight: plays and seeks taken first, then their rings filled (the second
/// pass after the audio side dropped what earlier plays left in them).
/// Returns the most frames the piece may have: at most
/// [`STREAM_PIECE_FRAMES`], and few enough that the fastest streamed play
/// (a play pitched up reads its ring faster) reads at most three quarters
/// of a full ring of `ring` frames.
pub(crate) fn fill_streams(mixer: &mut Mixer, controller: &Controller, ring: usize) -> usize {
    mixer.drain_early();
    controller.pump_streams();
    mixer.skip_stale_stream_data();
    controller.pump_streams();
    let demand = mixer.stream_demand().max(1.0);
    ((0.75 * ring as f64 / demand) as usize).clamp(1, STREAM_PIECE_FRAMES)
}

impl OfflineEngine {
    /// An engine rendering at `settings.sample_rate`.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings { voices: 8, sample_rate: 44_100, ..Default::default() })?;
    /// assert_eq!(engine.sample_rate(), 44_100);
    /// assert!(OfflineEngine::new(EngineSettings { sample_rate: 0, ..Default::default() }).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(settings: EngineSettings) -> Result<OfflineEngine, EngineError> {
        let stream_ring = settings.stream_buffer_frames;
        let (engine, mixer) = Engine::new(settings)?;
        engine.stream_loader_inline();
        Ok(OfflineEngine {
            engine,
            mixer,
            buffer: Vec::new(),
            recorder: None,
            loader_held: false,
            stream_ring,
        })
    }

    /// The output rate in Hz.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let one_second = engine.sample_rate() as usize;
    /// engine.render(one_second);
    /// assert_eq!(engine.stats().frames_rendered, 48_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_rate(&self) -> u32 {
        self.mixer.sample_rate()
    }

    /// Renders the next `frames` frames as one block and returns them,
    /// interleaved stereo. Commands sent since the last call take effect at
    /// the start of the block. Any frame count works (0 too); only a request
    /// larger than any before grows the buffer; more than
    /// [`MAX_RENDER_FRAMES`] renders that many.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let chime = Sound::from_samples(1, 48_000, vec![0.5; 2_400])?;
    /// assert!(engine.render(480).iter().all(|&s| s == 0.0)); // nothing playing: silence
    /// engine.play(&chime, PlayParams::default())?;
    /// let mut mix = Vec::new();
    /// for _ in 0..10 {
    ///     mix.extend_from_slice(engine.render(480)); // ten 10 ms blocks, as a device would ask
    /// }
    /// assert_eq!(mix.len(), 2 * 4_800);
    /// assert!(mix[..2 * 2_400].iter().all(|&s| s > 0.0) && mix[2 * 2_400..].iter().all(|&s| s == 0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render(&mut self, frames: usize) -> &[f32] {
        let len = frames.min(MAX_RENDER_FRAMES) * 2;
        if self.buffer.len() < len {
            self.buffer.resize(len, 0.0);
        }
        if self.loader_held {
            self.mixer.process(&mut self.buffer[..len]);
        } else if self.engine.pump_streams() {
            // Streamed plays: the loader fills their rings before each
            // piece, as a loader thread would keep them filled, so a long
            // render never runs one dry.
            let mut done = 0;
            while done < len {
                let piece =
                    fill_streams(&mut self.mixer, &self.engine.controller, self.stream_ring);
                let end = (done + 2 * piece).min(len);
                self.mixer.process(&mut self.buffer[done..end]);
                done = end;
            }
        } else {
            self.mixer.process(&mut self.buffer[..len]);
        }
        self.engine.pump();
        if let Some(r) = self.recorder.as_mut() {
            r.write(&self.buffer[..len]);
        }
        &self.buffer[..len]
    }

    /// Records everything rendered from now on ([`OfflineEngine::render`],
    /// and [`OfflineEngine::render_to_wav`] too) into a stereo WAV file at
    /// the engine's rate, until [`OfflineEngine::stop_recording`] (or until
    /// the engine is dropped, which finishes the file as well). The file is
    /// created now; its errors name it.
    ///
    /// A write error later does not interrupt rendering: the recording
    /// stops there and `stop_recording` reports it. A recording longer than
    /// a WAV file can hold ([`MAX_WAV_FRAMES`]) stops at that length, also
    /// reported.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, WavFormat};
    /// let dir = std::env::temp_dir().join(format!("voicepool-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let beep: Vec<f32> = (0..4_800).map(|i| (i as f32 * 0.1).sin() * 0.3).collect();
    /// engine.play(&Sound::from_samples(1, 48_000, beep)?, PlayParams::default())?;
    ///
    /// engine.start_recording(dir.join("take.wav"), WavFormat::Int16)?;
    /// for _ in 0..10 {
    ///     engine.render(480); // drive it as a test does, checking events as you go
    /// }
    /// let take = engine.stop_recording()?.expect("was recording");
    /// assert_eq!(take.frames, 4_800);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_recording(
        &mut self,
        path: impl AsRef<Path>,
        format: WavFormat,
    ) -> Result<(), RenderError> {
        if let Some(r) = &self.recorder {
            return Err(RenderError::AlreadyRecording {
                path: r.path().to_path_buf(),
            });
        }
        self.recorder = Some(Box::new(Recorder::create(
            path.as_ref(),
            format,
            self.sample_rate(),
        )?));
        Ok(())
    }

    /// Stops recording and finishes the file: `Ok(Some(recording))` with
    /// its path and length, `Ok(None)` if nothing was being recorded, or the
    /// error that stopped it early (the file then holds everything up to
    /// that point).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, WavFormat};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-stop-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// assert_eq!(engine.stop_recording()?, None); // nothing was being recorded
    /// engine.start_recording(dir.join("session.wav"), WavFormat::Float32)?;
    /// engine.render(4_800);
    /// let take = engine.stop_recording()?.expect("was recording");
    /// assert_eq!((take.path, take.frames), (dir.join("session.wav"), 4_800));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop_recording(&mut self) -> Result<Option<Recording>, RenderError> {
        self.recorder.take().map(|r| r.finish()).transpose()
    }

    /// True between [`OfflineEngine::start_recording`] and
    /// [`OfflineEngine::stop_recording`].
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, WavFormat};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-isrec-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// assert!(!engine.is_recording());
    /// engine.start_recording(dir.join("take.wav"), WavFormat::Int16)?;
    /// assert!(engine.is_recording());
    /// engine.stop_recording()?;
    /// assert!(!engine.is_recording());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// Renders `length` of audio (a [`Duration`](std::time::Duration), or
    /// seconds as a number as before 1.0) in [`WAV_BLOCK_FRAMES`]-frame
    /// blocks into a 32-bit float stereo WAV file at the engine's rate.
    ///
    /// Refused before anything is written: a negative, NaN or infinite
    /// duration ([`RenderError::InvalidDuration`]) and one longer than a WAV
    /// file can hold ([`RenderError::TooLong`], see [`MAX_WAV_FRAMES`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-wav-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
    /// engine.play(&Sound::from_samples(1, 48_000, tone)?, PlayParams::default())?;
    /// engine.render_to_wav(dir.join("tone.wav"), Duration::from_millis(500))?;
    /// let back = Sound::from_wav_file(dir.join("tone.wav"))?;
    /// assert_eq!((back.channels(), back.frames()), (2, 24_000));
    /// assert!(engine.render_to_wav(dir.join("bad.wav"), f64::NAN).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render_to_wav(
        &mut self,
        path: impl AsRef<Path>,
        length: impl crate::Seconds,
    ) -> Result<(), RenderError> {
        let path = path.as_ref();
        let seconds = length.seconds();
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(RenderError::InvalidDuration(seconds));
        }
        let rate = f64::from(self.sample_rate());
        let frames = (seconds * rate).round();
        if frames > MAX_WAV_FRAMES as f64 {
            return Err(RenderError::TooLong {
                seconds,
                max_seconds: MAX_WAV_FRAMES as f64 / rate,
            });
        }
        let mut file = Recorder::create(path, WavFormat::Float32, self.sample_rate())?;
        let mut left = frames as u64;
        while left > 0 && !file.failed() {
            let n = left.min(WAV_BLOCK_FRAMES as u64) as usize;
            file.write(self.render(n));
            left -= n as u64;
        }
        file.finish().map(drop)
    }

    /// Heap memory of the whole engine, in bytes: [`Engine::memory_bytes`]
    /// plus [`Mixer::memory_bytes`] plus the render buffer (which grows only
    /// when a render asks for more frames than any before). Sample data is
    /// not counted.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 64, ..Default::default() })?;
    /// let shot = Sound::from_samples(1, 48_000, vec![0.5; 4_800])?;
    /// engine.play(&shot, PlayParams::default())?;
    /// engine.render(480);
    /// let before = engine.memory_bytes();
    /// for _ in 0..1_000 {
    ///     engine.play(&shot, PlayParams::default())?;
    ///     engine.render(480);
    /// }
    /// assert_eq!(engine.memory_bytes(), before); // fixed once started
    /// println!("64 voices: {before} bytes");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memory_bytes(&self) -> usize {
        self.engine.memory_bytes()
            + self.mixer.memory_bytes()
            + self.buffer.capacity() * std::mem::size_of::<f32>()
    }

    /// Runs the stream loader as [`OfflineEngine::render`] does before a
    /// block (unless held): for tests that drive [`OfflineEngine::mixer_mut`]
    /// themselves.
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn pump_stream_loader(&mut self) {
        if !self.loader_held && self.engine.pump_streams() {
            fill_streams(&mut self.mixer, &self.engine.controller, self.stream_ring);
        }
    }

    /// Holds the stream loader back (`true`) so streamed plays starve,
    /// or lets it fill their rings before each block again (tests).
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn hold_stream_loader(&mut self, held: bool) {
        self.loader_held = held;
    }

    /// The mixer this engine drives (for benchmarks and tests).
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn mixer_mut(&mut self) -> &mut Mixer {
        &mut self.mixer
    }

    /// Checks the pool's invariants (free list + live voices = pool size,
    /// no voice in two slots). For tests and soak runs.
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn check_invariants(&self) -> Result<(), String> {
        self.mixer.check_invariants()
    }
}

/// The engine's game-side calls, listed on the engine itself.
impl OfflineEngine {
    crate::control::calls::controller_calls!();
    crate::control::calls::engine_calls!();
}

/// Kept so that code written when the engine's calls were reached through
/// `Deref` still builds; every call is the engine's own now.
#[doc(hidden)]
impl Deref for OfflineEngine {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

#[doc(hidden)]
impl DerefMut for OfflineEngine {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}
