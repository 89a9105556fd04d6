//! [`OfflineEngine`]: the mixer run on the calling thread, block by block,
//! through the same command and event queues as the live engine. The same
//! script renders bit-identically every time.

use std::fmt;
use std::io;
use std::ops::{Deref, DerefMut};
use std::path::Path;

use crate::engine::Engine;
use crate::error::EngineError;
pub use crate::error::RenderError;
use crate::mixer::Mixer;
use crate::settings::EngineSettings;

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
/// Dereferences to [`Engine`] (and so to [`crate::Controller`]) for `play`,
/// `stop`, `drain_events`, `stats` and the rest.
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
}

impl fmt::Debug for OfflineEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OfflineEngine")
            .field("sample_rate", &self.mixer.sample_rate())
            .field("frames_rendered", &self.mixer.frames_rendered())
            .finish()
    }
}

impl OfflineEngine {
    /// An engine rendering at `settings.sample_rate`.
    pub fn new(settings: EngineSettings) -> Result<OfflineEngine, EngineError> {
        let (engine, mixer) = Engine::new(settings)?;
        Ok(OfflineEngine {
            engine,
            mixer,
            buffer: Vec::new(),
        })
    }

    /// The output rate in Hz.
    pub fn sample_rate(&self) -> u32 {
        self.mixer.sample_rate()
    }

    /// Renders the next `frames` frames as one block and returns them,
    /// interleaved stereo. Commands sent since the last call take effect at
    /// the start of the block. Any frame count works (0 too); only a request
    /// larger than any before grows the buffer; more than
    /// [`MAX_RENDER_FRAMES`] renders that many.
    pub fn render(&mut self, frames: usize) -> &[f32] {
        let len = frames.min(MAX_RENDER_FRAMES) * 2;
        if self.buffer.len() < len {
            self.buffer.resize(len, 0.0);
        }
        self.mixer.process(&mut self.buffer[..len]);
        self.engine.pump();
        &self.buffer[..len]
    }

    /// Renders `seconds` of audio in [`WAV_BLOCK_FRAMES`]-frame blocks into
    /// a 32-bit float stereo WAV file at the engine's rate.
    ///
    /// Refused before anything is written: a negative, NaN or infinite
    /// duration ([`RenderError::InvalidDuration`]) and one longer than a WAV
    /// file can hold ([`RenderError::TooLong`], see [`MAX_WAV_FRAMES`]).
    pub fn render_to_wav(
        &mut self,
        path: impl AsRef<Path>,
        seconds: f64,
    ) -> Result<(), RenderError> {
        let path = path.as_ref();
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
        let io_err = |e: hound::Error| RenderError::Io {
            path: path.to_path_buf(),
            source: match e {
                hound::Error::IoError(e) => e,
                other => io::Error::other(other.to_string()),
            },
        };
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: self.sample_rate(),
            bits_per_sample: 32,
            sample_format: hound::SampleFormat::Float,
        };
        let mut wav = hound::WavWriter::create(path, spec).map_err(io_err)?;
        let mut left = frames as u64;
        while left > 0 {
            let n = left.min(WAV_BLOCK_FRAMES as u64) as usize;
            for &s in self.render(n) {
                wav.write_sample(s).map_err(io_err)?;
            }
            left -= n as u64;
        }
        wav.finalize().map_err(io_err)
    }

    /// Heap memory of the whole engine, in bytes: [`Engine::memory_bytes`]
    /// plus [`Mixer::memory_bytes`] plus the render buffer (which grows only
    /// when a render asks for more frames than any before). Sample data is
    /// not counted.
    pub fn memory_bytes(&self) -> usize {
        self.engine.memory_bytes()
            + self.mixer.memory_bytes()
            + self.buffer.capacity() * std::mem::size_of::<f32>()
    }

    /// The mixer this engine drives (for benchmarks and tests).
    #[cfg(feature = "hooks")]
    pub fn mixer_mut(&mut self) -> &mut Mixer {
        &mut self.mixer
    }

    /// Checks the pool's invariants (free list + live voices = pool size,
    /// no voice in two slots). For tests and soak runs.
    #[cfg(feature = "hooks")]
    pub fn check_invariants(&self) -> Result<(), String> {
        self.mixer.check_invariants()
    }
}

impl Deref for OfflineEngine {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl DerefMut for OfflineEngine {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}
