//! [`Sound`]: decoded sample data plus the loudness envelope that stealing ranks by.
//!
//! A sound is decoded to `f32` once, on the game side, and shared by every voice
//! that plays it (cloning a [`Sound`] clones an `Arc`). At load time voicepool
//! also measures how loud the sound is at every point of its length, so that the
//! mixer can tell a loud sound in its silent tail from a faint sound still
//! sounding without doing any analysis on the audio thread.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Length of one loudness-envelope window, in seconds (5 ms).
const ENVELOPE_WINDOW_SECONDS: f64 = 0.005;
/// How many windows ahead the envelope looks: a voice about to get loud
/// within this many windows (20 ms) counts as loud now, so a sound is not
/// stolen in the short gap just before its attack.
const ENVELOPE_LOOKAHEAD_WINDOWS: usize = 4;
/// Sample values are clamped to this magnitude (+12 dBFS) at load, so that no
/// sum of voices can overflow `f32`.
pub const MAX_SAMPLE_MAGNITUDE: f32 = 4.0;
/// Sample values smaller than this are stored as exact zero, so the mixer never
/// meets a denormal number.
const DENORMAL_FLOOR: f32 = 1.0e-15;
/// Zero frames stored after a sound's data (see [`SoundData::samples`]).
pub(crate) const GUARD_FRAMES: usize = 16;
/// The longest sound accepted, in frames (2^31, about 12 hours at 48 kHz).
pub const MAX_FRAMES: usize = 1 << 31;
/// The sample rates accepted, in Hz.
pub const SAMPLE_RATE_RANGE: std::ops::RangeInclusive<u32> = 1_000..=768_000;
/// No more than this many samples are reserved up front when a WAV header
/// announces its length; a header that lies about its size cannot make the
/// loader allocate more than the data actually read.
const MAX_UP_FRONT_SAMPLES: usize = 1 << 20;

/// Sample data shared by every voice that plays one sound.
pub(crate) struct SoundData {
    pub(crate) channels: usize,
    pub(crate) sample_rate: u32,
    pub(crate) frames: usize,
    /// Interleaved samples, `frames * channels` of them, followed by
    /// [`GUARD_FRAMES`] frames of zeros: interpolation may always read
    /// `index + 1`, and the SIMD kernels may load a window of up to 16 frames
    /// from any index below `frames`.
    pub(crate) samples: Box<[f32]>,
    /// Mean-square level per window (over all channels), with look-ahead.
    pub(crate) envelope: Box<[f32]>,
    pub(crate) window_frames: usize,
}

/// A decoded sound, ready to play on any number of voices at once.
///
/// Cheap to clone: clones share the sample data. Samples are stored as
/// interleaved `f32`, mono or stereo, at the sound's own sample rate; the
/// mixer converts rate while playing.
///
/// ```
/// use voicepool::Sound;
/// let tone: Vec<f32> = (0..4_800).map(|i| (i as f32 * 0.05).sin() * 0.5).collect();
/// let sound = Sound::from_samples(1, 48_000, tone)?;
/// assert_eq!(sound.frames(), 4_800);
/// assert!((sound.duration_seconds() - 0.1).abs() < 1e-9);
/// # Ok::<(), voicepool::SoundError>(())
/// ```
#[derive(Clone)]
pub struct Sound {
    pub(crate) data: Arc<SoundData>,
    name: Arc<str>,
}

impl fmt::Debug for Sound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sound")
            .field("name", &&*self.name)
            .field("channels", &self.data.channels)
            .field("sample_rate", &self.data.sample_rate)
            .field("frames", &self.data.frames)
            .finish()
    }
}

/// Why a sound could not be made. Every variant that comes from a file names it.
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
    /// A well-formed file in a format voicepool does not play (compressed
    /// data, more than two channels, 64-bit samples, ...).
    Unsupported {
        /// The file, or `<samples>` for [`Sound::from_samples`].
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
        /// Frames in it.
        frames: u64,
    },
}

impl SoundError {
    /// The file (or `<samples>` / `<bytes>` placeholder) the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SoundError::Io { path, .. }
            | SoundError::NotWav { path, .. }
            | SoundError::Truncated { path, .. }
            | SoundError::Unsupported { path, .. }
            | SoundError::BadSampleRate { path, .. }
            | SoundError::Empty { path }
            | SoundError::NonFiniteSample { path, .. }
            | SoundError::PartialFrame { path, .. }
            | SoundError::TooLong { path, .. } => path,
        }
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

const SAMPLES_ORIGIN: &str = "<samples>";
const BYTES_ORIGIN: &str = "<bytes>";

impl Sound {
    /// Loads a WAV file: 8, 16, 24 or 32-bit integer PCM or 32-bit float,
    /// mono or stereo, at any rate in [`SAMPLE_RATE_RANGE`].
    ///
    /// The sound is named after the file stem ([`Sound::name`]). Errors name
    /// the file and the reason; nothing is allocated up front from the size a
    /// header claims.
    pub fn from_wav_file(path: impl AsRef<Path>) -> Result<Sound, SoundError> {
        let path = path.as_ref();
        let io_err = |source| SoundError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if meta.is_dir() {
            return Err(io_err(io::Error::other("is a directory")));
        }
        if meta.len() == 0 {
            return Err(SoundError::NotWav {
                path: path.to_path_buf(),
                reason: "the file is empty (0 bytes)".into(),
            });
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Self::decode(BufReader::new(file), path, name)
    }

    /// Decodes WAV data held in memory (for example embedded with
    /// `include_bytes!`). Errors refer to the data as `<bytes>`.
    pub fn from_wav_bytes(bytes: &[u8]) -> Result<Sound, SoundError> {
        let path = Path::new(BYTES_ORIGIN);
        if bytes.is_empty() {
            return Err(SoundError::NotWav {
                path: path.to_path_buf(),
                reason: "no data (0 bytes)".into(),
            });
        }
        Self::decode(io::Cursor::new(bytes), path, "wav".to_string())
    }

    /// Makes a sound from interleaved `f32` samples made in code.
    ///
    /// `channels` must be 1 or 2. Samples must be finite; magnitudes above
    /// [`MAX_SAMPLE_MAGNITUDE`] are clamped to it.
    pub fn from_samples(
        channels: u16,
        sample_rate: u32,
        samples: Vec<f32>,
    ) -> Result<Sound, SoundError> {
        Self::build(
            Path::new(SAMPLES_ORIGIN),
            "samples".to_string(),
            channels as usize,
            sample_rate,
            samples,
        )
    }

    /// Returns this sound under another name (as shown by tools such as the
    /// demo). Shares the sample data.
    pub fn with_name(&self, name: &str) -> Sound {
        Sound {
            data: Arc::clone(&self.data),
            name: name.into(),
        }
    }

    /// The sound's name: the file stem for files, `"samples"` otherwise.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Channels per frame (1 or 2).
    pub fn channels(&self) -> u16 {
        self.data.channels as u16
    }

    /// The rate the sound was recorded at, in Hz.
    pub fn sample_rate(&self) -> u32 {
        self.data.sample_rate
    }

    /// Length in frames at the sound's own rate.
    pub fn frames(&self) -> usize {
        self.data.frames
    }

    /// Length in seconds at pitch 1.0.
    pub fn duration_seconds(&self) -> f64 {
        self.data.frames as f64 / self.data.sample_rate as f64
    }

    /// Interleaved samples as stored (after clamping).
    pub fn samples(&self) -> &[f32] {
        &self.data.samples[..self.data.frames * self.data.channels]
    }

    /// The measured RMS level (0.0 to about 1.0) around `frame`, as the mixer
    /// sees it when ranking voices: the loudest 5 ms window from `frame` to
    /// 20 ms ahead. Past the end it is 0.
    pub fn level_at(&self, frame: usize) -> f32 {
        self.data.mean_square_at(frame).sqrt()
    }

    /// True when `a` and `b` share sample data.
    pub fn ptr_eq(a: &Sound, b: &Sound) -> bool {
        Arc::ptr_eq(&a.data, &b.data)
    }

    fn decode<R: Read + Seek>(reader: R, path: &Path, name: String) -> Result<Sound, SoundError> {
        let not_wav = |reason: String| SoundError::NotWav {
            path: path.to_path_buf(),
            reason,
        };
        let mut wav = hound::WavReader::new(reader).map_err(|e| match e {
            hound::Error::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                not_wav("the header ends early".into())
            }
            hound::Error::IoError(source) => SoundError::Io {
                path: path.to_path_buf(),
                source,
            },
            hound::Error::Unsupported => SoundError::Unsupported {
                path: path.to_path_buf(),
                reason:
                    "compressed or unknown sample encoding (only PCM and 32-bit float are read)"
                        .into(),
            },
            hound::Error::FormatError(reason) => not_wav(reason.to_string()),
            other => not_wav(other.to_string()),
        })?;
        let spec = wav.spec();
        let channels = spec.channels as usize;
        if channels > 2 {
            return Err(SoundError::Unsupported {
                path: path.to_path_buf(),
                reason: format!("{channels} channels (only mono and stereo are played)"),
            });
        }
        if !SAMPLE_RATE_RANGE.contains(&spec.sample_rate) {
            return Err(SoundError::BadSampleRate {
                path: path.to_path_buf(),
                sample_rate: spec.sample_rate,
            });
        }
        let expected_frames = u64::from(wav.duration());
        let claimed = wav.len() as usize;
        let mut samples = Vec::with_capacity(claimed.min(MAX_UP_FRONT_SAMPLES));
        let truncated = |got: usize| SoundError::Truncated {
            path: path.to_path_buf(),
            expected_frames,
            read_frames: (got / channels.max(1)) as u64,
        };
        let map_read = |e: hound::Error, got: usize| match e {
            hound::Error::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => truncated(got),
            hound::Error::IoError(source) => SoundError::Io {
                path: path.to_path_buf(),
                source,
            },
            other => not_wav(other.to_string()),
        };
        match (spec.sample_format, spec.bits_per_sample) {
            (hound::SampleFormat::Float, 32) => {
                for s in wav.samples::<f32>() {
                    samples.push(s.map_err(|e| map_read(e, samples.len()))?);
                }
            }
            (hound::SampleFormat::Int, bits @ 1..=32) => {
                let scale = 1.0 / (1u64 << (bits - 1)) as f64;
                for s in wav.samples::<i32>() {
                    let v = s.map_err(|e| map_read(e, samples.len()))?;
                    samples.push((v as f64 * scale) as f32);
                }
            }
            (format, bits) => {
                return Err(SoundError::Unsupported {
                    path: path.to_path_buf(),
                    reason: format!("{bits}-bit {format:?} samples"),
                })
            }
        }
        if samples.len() < claimed {
            return Err(truncated(samples.len()));
        }
        Self::build(path, name, channels, spec.sample_rate, samples)
    }

    fn build(
        path: &Path,
        name: String,
        channels: usize,
        sample_rate: u32,
        mut samples: Vec<f32>,
    ) -> Result<Sound, SoundError> {
        let path_buf = || path.to_path_buf();
        if !(1..=2).contains(&channels) {
            return Err(SoundError::Unsupported {
                path: path_buf(),
                reason: format!("{channels} channels (only mono and stereo are played)"),
            });
        }
        if !SAMPLE_RATE_RANGE.contains(&sample_rate) {
            return Err(SoundError::BadSampleRate {
                path: path_buf(),
                sample_rate,
            });
        }
        if !samples.len().is_multiple_of(channels) {
            return Err(SoundError::PartialFrame {
                path: path_buf(),
                samples: samples.len(),
                channels,
            });
        }
        let frames = samples.len() / channels;
        if frames == 0 {
            return Err(SoundError::Empty { path: path_buf() });
        }
        if frames > MAX_FRAMES {
            return Err(SoundError::TooLong {
                path: path_buf(),
                frames: frames as u64,
            });
        }
        if let Some(index) = samples.iter().position(|s| !s.is_finite()) {
            return Err(SoundError::NonFiniteSample {
                path: path_buf(),
                index,
            });
        }
        for s in samples.iter_mut() {
            *s = s.clamp(-MAX_SAMPLE_MAGNITUDE, MAX_SAMPLE_MAGNITUDE);
            if s.abs() < DENORMAL_FLOOR {
                *s = 0.0;
            }
        }
        let window_frames =
            ((sample_rate as f64 * ENVELOPE_WINDOW_SECONDS).round() as usize).max(1);
        let envelope = envelope(&samples, channels, window_frames);
        samples.extend(std::iter::repeat_n(0.0, channels * GUARD_FRAMES));
        Ok(Sound {
            name: name.into(),
            data: Arc::new(SoundData {
                channels,
                sample_rate,
                frames,
                samples: samples.into_boxed_slice(),
                envelope,
                window_frames,
            }),
        })
    }
}

/// Mean square per window over all channels, then the maximum over the next
/// [`ENVELOPE_LOOKAHEAD_WINDOWS`] windows.
fn envelope(samples: &[f32], channels: usize, window_frames: usize) -> Box<[f32]> {
    let raw: Vec<f32> = samples
        .chunks(window_frames * channels)
        .map(|w| {
            let sum: f64 = w.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
            (sum / w.len() as f64) as f32
        })
        .collect();
    (0..raw.len())
        .map(|i| {
            raw[i..(i + 1 + ENVELOPE_LOOKAHEAD_WINDOWS).min(raw.len())]
                .iter()
                .fold(0.0f32, |m, &v| m.max(v))
        })
        .collect()
}

impl SoundData {
    /// Mean-square level at a frame position (0 past the end). Real-time safe.
    #[inline]
    pub(crate) fn mean_square_at(&self, frame: usize) -> f32 {
        self.envelope
            .get(frame / self.window_frames)
            .copied()
            .unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_follows_content_with_lookahead() {
        // 100 ms of silence, then 100 ms at 0.5 amplitude (square wave).
        let mut s = vec![0.0f32; 4_800];
        s.extend((0..4_800).map(|i| if i % 2 == 0 { 0.5 } else { -0.5 }));
        let sound = Sound::from_samples(1, 48_000, s).unwrap();
        assert_eq!(sound.level_at(0), 0.0);
        assert!((sound.level_at(6_000) - 0.5).abs() < 1e-6);
        // 10 ms before the attack, the look-ahead already sees it.
        assert!((sound.level_at(4_800 - 480) - 0.5).abs() < 1e-6);
        assert_eq!(sound.level_at(1_000_000), 0.0);
    }

    #[test]
    fn samples_are_clamped_and_denormals_flushed() {
        let sound = Sound::from_samples(1, 48_000, vec![100.0, -100.0, 1e-30, 0.25]).unwrap();
        assert_eq!(sound.samples(), &[4.0, -4.0, 0.0, 0.25]);
    }
}
