//! The error enums, and the limits they report. A leaf: every layer may
//! import it, and it imports nothing of the crate.
//!
//! Every error is a value the caller can match on; none of them is ever a
//! panic. Errors about a file name the file.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The longest sound accepted, in frames (2^31, about 12 hours at 48 kHz).
pub const MAX_FRAMES: usize = 1 << 31;
/// The sample rates accepted, in Hz.
pub const SAMPLE_RATE_RANGE: std::ops::RangeInclusive<u32> = 1_000..=768_000;

/// Why a play, stop or set_* call did nothing.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, PlayError, PlayParams, Sound};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
/// let distance = f32::NAN; // a bug in the game's attenuation code
/// match engine.play(&blip, PlayParams::default().volume(1.0 / distance)) {
///     Ok(_) => unreachable!(),
///     Err(PlayError::InvalidParameter { name, .. }) => assert_eq!(name, "volume"),
///     Err(PlayError::QueueFull) => { /* the audio side is behind: skip this sound */ }
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum PlayError {
    /// The command queue is full: the audio thread has not caught up. Nothing
    /// was sent; try again next frame. Counted in [`crate::Stats::dropped_commands`].
    QueueFull,
    /// A parameter was NaN or infinite, or a pitch was 0 or below (other
    /// finite out-of-range values are clamped instead; see
    /// [`crate::PlayParams`]).
    InvalidParameter {
        /// Which parameter.
        name: &'static str,
        /// The value given.
        value: f32,
    },
    /// The audio side is gone (its mixer was dropped).
    EngineStopped,
    /// A value that can never make sense (a group of at most 0 voices).
    Invalid {
        /// Which parameter.
        name: &'static str,
        /// What it must be.
        reason: &'static str,
    },
    /// Every group the engine was made with (`EngineSettings::groups`) is
    /// already created.
    TooManyGroups {
        /// `EngineSettings::groups`.
        max: usize,
    },
    /// Every bus the engine was made with (`EngineSettings::buses`) is
    /// already created.
    TooManyBuses {
        /// `EngineSettings::buses`.
        max: usize,
    },
    /// `play` was given a group or bus made by another engine.
    ForeignHandle,
    /// Every parameter an engine can make (`limits::MAX_PARAMS`) is made.
    TooManyParams {
        /// `limits::MAX_PARAMS`.
        max: usize,
    },
    /// A streamed sound's play while every stream slot is in use
    /// (`EngineSettings::streams`).
    TooManyStreams {
        /// `EngineSettings::streams`.
        max: usize,
    },
    /// A streamed sound's play when the engine's stream loader thread
    /// could not be started (the system refused a new thread). Nothing was
    /// sent; a later play tries to start it again.
    LoaderUnavailable,
}

/// `value` if it is finite, else [`PlayError::InvalidParameter`] naming
/// `name`: the check every call that takes a number makes first.
pub(crate) fn finite(name: &'static str, value: f32) -> Result<f32, PlayError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(PlayError::InvalidParameter { name, value })
    }
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::QueueFull => write!(f, "command queue is full (the audio thread is behind)"),
            PlayError::InvalidParameter { name, value } if value.is_finite() => {
                write!(f, "invalid {name}: {value} (must be above 0)")
            }
            PlayError::InvalidParameter { name, value } => {
                write!(f, "invalid {name}: {value} (must be finite)")
            }
            PlayError::EngineStopped => write!(f, "the engine's audio side has stopped"),
            PlayError::Invalid { name, reason } => write!(f, "invalid {name}: {reason}"),
            PlayError::TooManyGroups { max } => write!(
                f,
                "all {max} groups are created (raise EngineSettings::groups)"
            ),
            PlayError::TooManyBuses { max } => write!(
                f,
                "all {max} buses are created (raise EngineSettings::buses)"
            ),
            PlayError::TooManyParams { max } => {
                write!(f, "all {max} parameters an engine can make are made")
            }
            PlayError::ForeignHandle => {
                write!(f, "the group or bus belongs to another engine")
            }
            PlayError::TooManyStreams { max } => write!(
                f,
                "all {max} streams are playing (raise EngineSettings::streams)"
            ),
            PlayError::LoaderUnavailable => write!(
                f,
                "the stream loader thread could not be started (the system refused a thread)"
            ),
        }
    }
}

impl std::error::Error for PlayError {}

/// Why an engine could not be made or started.
///
/// ```
/// use voicepool::{EngineError, EngineSettings, OfflineEngine};
/// match OfflineEngine::new(EngineSettings { voices: 0, ..Default::default() }) {
///     Err(EngineError::InvalidSettings(why)) => assert!(why.starts_with("voices = 0")),
///     other => panic!("expected InvalidSettings, got {other:?}"),
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum EngineError {
    /// A field of [`crate::EngineSettings`] is out of range; the text says which.
    InvalidSettings(String),
    /// There is no output device (or none by the name asked for).
    NoDevice(String),
    /// The output device refused: the text says what was tried and why.
    Device(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::InvalidSettings(r) => write!(f, "invalid engine settings: {r}"),
            EngineError::NoDevice(r) => write!(f, "no usable audio output device: {r}"),
            EngineError::Device(r) => write!(f, "audio output device error: {r}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// Why a sound could not be made. Every variant that comes from a file names it.
///
/// ```
/// use voicepool::{Sound, SoundError};
/// match Sound::from_wav_file("sounds/no_such_file.wav") {
///     Err(SoundError::Io { path, .. }) => assert_eq!(path.to_str(), Some("sounds/no_such_file.wav")),
///     other => panic!("expected an I/O error, got {other:?}"),
/// }
/// let err = Sound::from_wav_bytes(b"not a wav file").unwrap_err();
/// assert!(matches!(err, SoundError::NotWav { .. }));
/// println!("{err}"); // names the data and the reason
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum SoundError {
    /// The file could not be opened or read (missing, a directory, no permission).
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The data is not a WAV file, or its header is malformed.
    NotWav {
        /// The file (or `<bytes>` for in-memory data).
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file ends before the data its header announces.
    Truncated {
        /// The file.
        path: PathBuf,
        /// Frames the header announces.
        expected_frames: u64,
        /// Whole frames actually present.
        read_frames: u64,
    },
    /// A well-formed file in a format voicepool does not play (a WAV of
    /// compressed data or 64-bit samples, an OGG of Opus, ...), or
    /// [`crate::Sound::from_samples`] given more than two channels.
    Unsupported {
        /// The file, or `<samples>` for [`crate::Sound::from_samples`].
        path: PathBuf,
        /// What is not supported.
        reason: String,
    },
    /// The sample rate is zero or outside [`SAMPLE_RATE_RANGE`].
    BadSampleRate {
        /// The file, or `<samples>`.
        path: PathBuf,
        /// The rate found.
        sample_rate: u32,
    },
    /// There is no audio in it (zero frames).
    Empty {
        /// The file, or `<samples>`.
        path: PathBuf,
    },
    /// A sample is NaN or infinite.
    NonFiniteSample {
        /// The file, or `<samples>`.
        path: PathBuf,
        /// Index of the first bad sample (interleaved).
        index: usize,
    },
    /// The sample count is not a whole number of frames.
    PartialFrame {
        /// The file, or `<samples>`.
        path: PathBuf,
        /// Samples given.
        samples: usize,
        /// Channels per frame.
        channels: usize,
    },
    /// Longer than [`MAX_FRAMES`].
    TooLong {
        /// The file, or `<samples>`.
        path: PathBuf,
        /// Frames in it (from the header), or, for a compressed file that
        /// does not say, the frames decoded when decoding stopped.
        frames: u64,
    },
    /// The content is none of the formats [`crate::Sound::from_file`] and
    /// [`crate::Sound::from_bytes`] read ([`SUPPORTED_FORMATS`]), whatever
    /// the file is called.
    UnknownFormat {
        /// The file, or `<bytes>`.
        path: PathBuf,
        /// What the content is, where it says (an empty file, MPEG layer II
        /// audio, ...); empty when nothing is recognized.
        reason: String,
    },
    /// A file recognized as OGG, FLAC or MP3 whose data cannot be decoded
    /// (a damaged header or packet, a file cut inside its headers).
    Malformed {
        /// The file, or `<bytes>`.
        path: PathBuf,
        /// The format the content was recognized as (`"OGG"`, `"FLAC"`,
        /// `"MP3"`).
        format: &'static str,
        /// What the decoder said.
        reason: String,
    },
    /// A streamed file ([`crate::Sound::stream_file`]) is no longer what
    /// it was when it was opened: replaced on disk by one of another
    /// channel count, sample rate or length. Its plays end (counted in
    /// [`crate::Stats::stream_decode_errors`]); open it again to play the
    /// new content.
    Changed {
        /// The file.
        path: PathBuf,
        /// What it was and what it is now.
        reason: String,
    },
}

/// The formats [`crate::Sound::from_file`] reads, as error messages name them.
pub const SUPPORTED_FORMATS: &str = "WAV, OGG Vorbis, FLAC or MP3";

/// The `path` field of whichever variant `$e` is (every one has one).
macro_rules! every_path {
    ($e:expr) => {
        match $e {
            SoundError::Io { path, .. }
            | SoundError::NotWav { path, .. }
            | SoundError::Truncated { path, .. }
            | SoundError::Unsupported { path, .. }
            | SoundError::BadSampleRate { path, .. }
            | SoundError::Empty { path }
            | SoundError::NonFiniteSample { path, .. }
            | SoundError::PartialFrame { path, .. }
            | SoundError::TooLong { path, .. }
            | SoundError::UnknownFormat { path, .. }
            | SoundError::Malformed { path, .. }
            | SoundError::Changed { path, .. } => path,
        }
    };
}

impl SoundError {
    /// The file (or `<samples>` / `<bytes>` placeholder) the error is about.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let err = Sound::from_samples(2, 48_000, vec![0.0; 3]).unwrap_err(); // 1.5 stereo frames
    /// assert_eq!(err.path().to_str(), Some("<samples>"));
    /// ```
    pub fn path(&self) -> &Path {
        every_path!(self)
    }

    /// The same error, about `path`: for data decoded from memory
    /// ([`crate::Sound::from_bytes`], whose errors say `<bytes>`) that came
    /// from a file the caller knows, such as an asset.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let err = Sound::from_bytes(b"not a sound").unwrap_err().for_file("sfx/swish.ogg");
    /// assert_eq!(err.path().to_str(), Some("sfx/swish.ogg"));
    /// assert!(err.to_string().contains("sfx/swish.ogg"));
    /// ```
    pub fn for_file(mut self, file: impl Into<PathBuf>) -> SoundError {
        *self.path_mut() = file.into();
        self
    }

    fn path_mut(&mut self) -> &mut PathBuf {
        every_path!(self)
    }
}

impl fmt::Display for SoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path().display();
        match self {
            SoundError::Io { source, .. } => write!(f, "{p}: cannot read: {source}"),
            SoundError::NotWav { reason, .. } => write!(f, "{p}: not a valid WAV file: {reason}"),
            SoundError::Truncated {
                expected_frames,
                read_frames,
                ..
            } => write!(
                f,
                "{p}: truncated: header announces {expected_frames} frames, file holds {read_frames}"
            ),
            SoundError::Unsupported { reason, .. } => write!(f, "{p}: unsupported: {reason}"),
            SoundError::BadSampleRate { sample_rate, .. } => write!(
                f,
                "{p}: sample rate {sample_rate} Hz is outside {}..={} Hz",
                SAMPLE_RATE_RANGE.start(),
                SAMPLE_RATE_RANGE.end()
            ),
            SoundError::Empty { .. } => write!(f, "{p}: contains no audio (zero frames)"),
            SoundError::NonFiniteSample { index, .. } => {
                write!(f, "{p}: sample {index} is NaN or infinite")
            }
            SoundError::PartialFrame {
                samples, channels, ..
            } => write!(
                f,
                "{p}: {samples} samples is not a whole number of {channels}-channel frames"
            ),
            SoundError::TooLong { frames, .. } => {
                write!(f, "{p}: {frames} frames is longer than the {MAX_FRAMES} allowed")
            }
            SoundError::UnknownFormat { reason, .. } if reason.is_empty() => {
                write!(f, "{p}: unsupported format: expected {SUPPORTED_FORMATS}")
            }
            SoundError::UnknownFormat { reason, .. } => write!(
                f,
                "{p}: unsupported format ({reason}): expected {SUPPORTED_FORMATS}"
            ),
            SoundError::Malformed { format, reason, .. } => {
                write!(f, "{p}: malformed {format} data: {reason}")
            }
            SoundError::Changed { reason, .. } => {
                write!(f, "{p}: changed on disk while streamed: {reason}")
            }
        }
    }
}

impl std::error::Error for SoundError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SoundError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Why [`crate::OfflineEngine::render_to_wav`] or a recording
/// ([`crate::OfflineEngine::start_recording`]) failed.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, RenderError};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let path = std::env::temp_dir().join("voicepool-never-written.wav");
/// match engine.render_to_wav(&path, -1.0) {
///     Err(RenderError::InvalidDuration(s)) => assert_eq!(s, -1.0), // nothing was written
///     other => panic!("expected InvalidDuration, got {other:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum RenderError {
    /// `seconds` was negative, NaN or infinite.
    InvalidDuration(f64),
    /// `seconds` is more than a WAV file can hold ([`crate::output::offline::MAX_WAV_FRAMES`]).
    TooLong {
        /// The duration asked for.
        seconds: f64,
        /// The longest a WAV file at this rate can hold.
        max_seconds: f64,
    },
    /// The file could not be created or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// `start_recording` while a recording is running (to `path`); stop it
    /// first.
    AlreadyRecording {
        /// The file being recorded.
        path: PathBuf,
    },
    /// The recording reached what a WAV file can hold; the file holds
    /// everything up to that point.
    RecordingFull {
        /// The file.
        path: PathBuf,
        /// How long that is at this rate.
        max_seconds: f64,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::InvalidDuration(s) => {
                write!(f, "cannot render {s} seconds (must be finite and >= 0)")
            }
            RenderError::TooLong {
                seconds,
                max_seconds,
            } => write!(
                f,
                "cannot render {seconds} seconds to WAV (a WAV file holds at most {max_seconds:.0})"
            ),
            RenderError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            RenderError::AlreadyRecording { path } => write!(
                f,
                "already recording to {} (stop_recording first)",
                path.display()
            ),
            RenderError::RecordingFull { path, max_seconds } => write!(
                f,
                "{}: recording stopped at {max_seconds:.0} seconds, all a WAV file can hold",
                path.display()
            ),
        }
    }
}

impl std::error::Error for RenderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RenderError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
