//! [`Sound`]: decoded sample data plus the loudness analysis that stealing
//! ranks by (`sound/loudness.rs`), decoded from WAV (`sound/wav.rs`), OGG
//! Vorbis, FLAC or MP3 (`sound/compressed.rs`, told apart by their content
//! in `sound/decode.rs`), or made in code.

use std::fmt;
use std::io::{self, BufReader};
use std::path::Path;
use std::sync::{Arc, OnceLock};

pub use crate::error::{SoundError, MAX_FRAMES, SAMPLE_RATE_RANGE, SUPPORTED_FORMATS};
pub(crate) mod bands;
pub(crate) mod compressed;
pub(crate) mod decode;
pub(crate) mod downmix;
pub(crate) mod loop_tile;
pub(crate) mod loudness;
pub(crate) mod spectrum;
pub(crate) mod wav;

use loop_tile::LoopTile;
use loudness::Loudness;
pub use wav::MAX_CHUNKS_BEFORE_DATA;

/// Sample values are clamped to this magnitude (+12 dBFS) at load, so that no
/// sum of voices can overflow `f32`.
pub const MAX_SAMPLE_MAGNITUDE: f32 = 4.0;
/// Sample values smaller than this are stored as exact zero, so the mixer never
/// meets a denormal number.
const DENORMAL_FLOOR: f32 = 1.0e-15;
/// Zero frames stored after a sound's data (see [`SoundData::samples`]).
pub(crate) const GUARD_FRAMES: usize = 16;

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
    /// Its loudness at every point, as stealing ranks it.
    pub(crate) loudness: Loudness,
    /// How its energy spreads over four bands (what a bus's filters take
    /// from it, for stealing).
    pub(crate) bands: bands::Bands,
    /// How its energy spreads over the critical bands, window by window
    /// (what masking-aware stealing reads).
    pub(crate) spectrum: spectrum::Spectrum,
    /// For a short sound played looping: the sound repeated, made on the
    /// game side by [`SoundData::prepare_loop`]; the audio side only reads
    /// it (`OnceLock::get` is one atomic load, no lock).
    loop_tile: OnceLock<Option<LoopTile>>,
    /// For a streamed sound ([`Sound::stream_file`]): the file its plays
    /// decode. Its `samples` are then only guard frames and `frames` 0.
    pub(crate) stream: Option<Arc<crate::stream::source::StreamSource>>,
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
///
/// A sound is decoded to `f32` once, on the game side, and shared by every voice
/// that plays it (cloning a [`Sound`] clones an `Arc`). At load time voicepool
/// also measures how loud the sound is at every point of its length, so that the
/// mixer can tell a loud sound in its silent tail from a faint sound still
/// sounding without doing any analysis on the audio thread.
///
/// # More than two channels
///
/// Voices play mono and stereo. A file with more channels is downmixed to
/// stereo at load, each channel by its speaker position (from the file's
/// channel mask, or the standard order for its channel count):
///
/// | position | left | right |
/// | --- | --- | --- |
/// | front left | 1 | 0 |
/// | front right | 0 | 1 |
/// | front centre, and the other centre-line speakers (rear centre, top centre, ...) | 0.7071 | 0.7071 |
/// | LFE | 0 | 0 |
/// | any other speaker on the left (rear, side, left of centre, top left, ...) | 0.7071 | 0 |
/// | any other speaker on the right | 0 | 0.7071 |
/// | unknown (no mask and no standard layout, or more channels than the mask names) | by index: even to the left, odd to the right, 1 for channels 0 and 1, 0.7071 for the rest |
///
/// For 5.1 and 7.1 this is the ITU-R BS.775 downmix, `L = FL + 0.7071 C +
/// 0.7071 Ls (+ 0.7071 Lb)` and the right mirrored, with the LFE channel
/// dropped as BS.775 does (it only repeats, boosted for a subwoofer, what
/// the main channels carry). Gains are not normalized, so a surround file
/// is as loud as its stereo fold-down; peaks above 1 (at most 2.41 for
/// 5.1, 3.12 for 7.1) are left to the mixer's limiter, and every sample is
/// still clamped to ±[`MAX_SAMPLE_MAGNITUDE`]. The standard orders without a
/// mask (WAV, FLAC): 3 = L R C, 4 (quad) = L R Lb Rb, 5 = L R C Lb Rb,
/// 6 (5.1) = L R C LFE Lb Rb, 7 (6.1) = L R C LFE Cb Ls Rs, 8 (7.1) = L R C
/// LFE Lb Rb Ls Rs; OGG Vorbis files are read in the order its
/// specification gives (5.1 = L C R Lb Rb LFE).
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

const SAMPLES_ORIGIN: &str = "<samples>";
pub(crate) const BYTES_ORIGIN: &str = "<bytes>";

impl Sound {
    /// Loads a WAV file: 8, 16, 24 or 32-bit integer PCM or 32-bit float,
    /// plain or `WAVE_FORMAT_EXTENSIBLE` headers (including fewer valid
    /// bits than the container, such as 24 bits in 4 bytes), at any rate in
    /// [`SAMPLE_RATE_RANGE`]. More than two channels are downmixed to stereo
    /// (by the channel mask of an extensible header, or the standard order;
    /// see [the module documentation](crate::sound)). [`Sound::from_file`]
    /// reads OGG Vorbis, FLAC and MP3 as well.
    ///
    /// The sound is named after the file stem ([`Sound::name`]). Errors name
    /// the file and the reason:
    ///
    /// | input | result |
    /// | --- | --- |
    /// | missing file, directory, pipe or device, unreadable | [`SoundError::Io`] |
    /// | empty file, random bytes, malformed header | [`SoundError::NotWav`] |
    /// | data ends before the length its header gives (even mid-sample) | [`SoundError::Truncated`] |
    /// | 64-bit float, A-law, µ-law, ADPCM or other compressed data | [`SoundError::Unsupported`], naming the format |
    /// | a data chunk with zero frames | [`SoundError::Empty`] |
    /// | a header announcing more than [`MAX_FRAMES`] frames | [`SoundError::TooLong`], from the header alone (nothing is read or reserved) |
    /// | more than [`MAX_CHUNKS_BEFORE_DATA`] chunks before `data` | [`SoundError::NotWav`], naming the limit |
    /// | a rate outside [`SAMPLE_RATE_RANGE`] | [`SoundError::BadSampleRate`] |
    /// | a NaN or infinite float sample | [`SoundError::NonFiniteSample`] |
    ///
    /// Nothing is allocated up front from the size a header claims (at most
    /// a few megabytes are reserved; the rest grows with the data actually
    /// read), and a non-regular file is refused without being opened, so a
    /// FIFO cannot make the call wait.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-load-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # OfflineEngine::new(EngineSettings::default())?.render_to_wav(dir.join("swish.wav"), 0.1)?;
    /// # let path = dir.join("swish.wav");
    /// let swish = Sound::from_wav_file(&path)?; // for example "samples/swish.wav"
    /// assert_eq!(swish.name(), "swish");
    /// assert_eq!((swish.channels(), swish.sample_rate(), swish.frames()), (2, 48_000, 4_800));
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// engine.play(&swish, PlayParams::default())?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_wav_file(path: impl AsRef<Path>) -> Result<Sound, SoundError> {
        let path = path.as_ref();
        let (file, len) = decode::open_regular(path)?;
        if len == 0 {
            return Err(SoundError::NotWav {
                path: path.to_path_buf(),
                reason: "the file is empty (0 bytes)".into(),
            });
        }
        let name = decode::name_of(path);
        wav::decode(BufReader::new(file), path, name)
    }

    /// Decodes WAV data held in memory (for example embedded with
    /// `include_bytes!`). Errors refer to the data as `<bytes>`.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, Sound};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-bytes-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # OfflineEngine::new(EngineSettings::default())?.render_to_wav(dir.join("click.wav"), 0.01)?;
    /// # let bytes = std::fs::read(dir.join("click.wav"))?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// // In a game: `let bytes = include_bytes!("../assets/click.wav");`
    /// let click = Sound::from_wav_bytes(&bytes)?;
    /// assert_eq!(click.frames(), 480);
    /// assert!(Sound::from_wav_bytes(b"RIFF").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_wav_bytes(bytes: &[u8]) -> Result<Sound, SoundError> {
        let path = Path::new(BYTES_ORIGIN);
        if bytes.is_empty() {
            return Err(SoundError::NotWav {
                path: path.to_path_buf(),
                reason: "no data (0 bytes)".into(),
            });
        }
        wav::decode(io::Cursor::new(bytes), path, "wav".to_string())
    }

    /// Makes a sound from interleaved `f32` samples made in code.
    ///
    /// `channels` must be 1 or 2. Samples must be finite; magnitudes above
    /// [`MAX_SAMPLE_MAGNITUDE`] are clamped to it.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let rate = 48_000;
    /// let beep: Vec<f32> = (0..rate / 10).map(|i| (i as f32 * 0.057).sin() * 0.4).collect();
    /// let sound = Sound::from_samples(1, rate as u32, beep)?;
    /// assert_eq!((sound.channels(), sound.frames()), (1, 4_800));
    /// assert!(Sound::from_samples(1, 48_000, vec![f32::NAN]).is_err());
    /// assert!(Sound::from_samples(3, 48_000, vec![0.0; 3]).is_err()); // mono or stereo only
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
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
    ///
    /// ```
    /// use voicepool::Sound;
    /// let samples = Sound::from_samples(1, 48_000, vec![0.2; 480])?;
    /// let step = samples.with_name("footstep");
    /// assert_eq!((samples.name(), step.name()), ("samples", "footstep"));
    /// assert!(Sound::ptr_eq(&samples, &step)); // no copy of the data
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn with_name(&self, name: &str) -> Sound {
        Sound {
            data: Arc::clone(&self.data),
            name: name.into(),
        }
    }

    /// The name as a shared string (for the engine's record of what each
    /// voice plays).
    pub(crate) fn name_arc(&self) -> Arc<str> {
        Arc::clone(&self.name)
    }

    /// The sound's name: the file stem for files, `"samples"` otherwise.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let sound = Sound::from_samples(1, 48_000, vec![0.2; 480])?;
    /// assert_eq!(sound.name(), "samples");
    /// assert_eq!(sound.with_name("door_creak").name(), "door_creak");
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Channels per frame (1 or 2).
    ///
    /// ```
    /// use voicepool::Sound;
    /// let stereo = Sound::from_samples(2, 48_000, vec![0.1, -0.1, 0.2, -0.2])?; // L R L R
    /// assert_eq!((stereo.channels(), stereo.frames()), (2, 2));
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn channels(&self) -> u16 {
        self.data.channels as u16
    }

    /// The rate the sound was recorded at, in Hz.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let old = Sound::from_samples(1, 22_050, vec![0.1; 22_050])?;
    /// assert_eq!(old.sample_rate(), 22_050); // the mixer converts while playing
    /// assert_eq!(old.duration_seconds(), 1.0);
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn sample_rate(&self) -> u32 {
        self.data.sample_rate
    }

    /// Length in frames at the sound's own rate (for a streamed sound, the
    /// length its file announces; see [`Sound::stream_file`]).
    ///
    /// ```
    /// use voicepool::Sound;
    /// let stereo = Sound::from_samples(2, 44_100, vec![0.1; 2 * 44_100])?;
    /// assert_eq!(stereo.frames(), 44_100); // frames, not samples
    /// assert_eq!(stereo.samples().len(), 2 * 44_100);
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn frames(&self) -> usize {
        match &self.data.stream {
            Some(s) => usize::try_from(s.frames).unwrap_or(usize::MAX),
            None => self.data.frames,
        }
    }

    /// Length in seconds at pitch 1.0.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let line = Sound::from_samples(1, 24_000, vec![0.1; 36_000])?;
    /// assert_eq!(line.duration_seconds(), 1.5); // at pitch 2.0 it plays in 0.75 s
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn duration_seconds(&self) -> f64 {
        self.frames() as f64 / self.data.sample_rate as f64
    }

    /// Interleaved samples as stored (after clamping); empty for a
    /// streamed sound, which holds none.
    ///
    /// ```
    /// use voicepool::{limits::MAX_SAMPLE_MAGNITUDE, Sound};
    /// let sound = Sound::from_samples(1, 48_000, vec![0.5, -9.0, 1e-20])?;
    /// assert_eq!(sound.samples(), [0.5, -MAX_SAMPLE_MAGNITUDE, 0.0]); // clamped; tiny values are 0
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn samples(&self) -> &[f32] {
        &self.data.samples[..self.data.frames * self.data.channels]
    }

    /// The sound's loudness at `frame`, as stealing measures it: the RMS of
    /// its K-weighted signal (ITU-R BS.1770's weighting: presence-range
    /// content counts more than rumble) over the 5 ms window holding
    /// `frame`, summed over channels. About 0.77 for a full-scale 1 kHz sine
    /// (its RMS, 0.71, plus the 0.69 dB K-weighting adds at 1 kHz).
    /// Past the end it is 0.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let hum: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.0065).sin() * 0.5).collect(); // 50 Hz
    /// let hiss: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.39).sin() * 0.5).collect(); // 3 kHz
    /// let (hum, hiss) = (Sound::from_samples(1, 48_000, hum)?, Sound::from_samples(1, 48_000, hiss)?);
    /// assert!(hiss.level_at(24_000) > 1.5 * hum.level_at(24_000)); // same RMS, not as loud
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn level_at(&self, frame: usize) -> f32 {
        self.data.loudness.power_at(frame as u64).sqrt()
    }

    /// True when `a` and `b` share sample data.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let a = Sound::from_samples(1, 48_000, vec![0.5; 480])?;
    /// let b = a.clone();
    /// let c = Sound::from_samples(1, 48_000, vec![0.5; 480])?;
    /// assert!(Sound::ptr_eq(&a, &b) && !Sound::ptr_eq(&a, &c));
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn ptr_eq(a: &Sound, b: &Sound) -> bool {
        Arc::ptr_eq(&a.data, &b.data)
    }

    pub(super) fn build(
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
        condition(&mut samples);
        let loudness = Loudness::measure(&samples, channels, sample_rate);
        let (spectrum, bands) =
            spectrum::Spectrum::measure_with_bands(&samples, channels, sample_rate);
        // Exactly the guard frames more: the default growth would double the
        // allocation (a 1 GB sound would need 2 GB for a moment), and with
        // the capacity exact, `into_boxed_slice` does not reallocate.
        samples.reserve_exact(channels * GUARD_FRAMES);
        samples.extend(std::iter::repeat_n(0.0, channels * GUARD_FRAMES));
        Ok(Sound {
            name: name.into(),
            data: Arc::new(SoundData {
                channels,
                sample_rate,
                frames,
                samples: samples.into_boxed_slice(),
                loudness,
                bands,
                spectrum,
                loop_tile: OnceLock::new(),
                stream: None,
            }),
        })
    }

    /// A streamed sound: its plays decode `source`.
    pub(crate) fn build_stream(
        name: String,
        source: Arc<crate::stream::source::StreamSource>,
    ) -> Sound {
        let channels = source.channels;
        Sound {
            name: name.into(),
            data: Arc::new(SoundData {
                channels,
                sample_rate: source.rate,
                frames: 0,
                samples: vec![0.0; channels * GUARD_FRAMES].into_boxed_slice(),
                loudness: Loudness::measure(&[], channels, source.rate),
                bands: bands::Bands::FLAT,
                spectrum: spectrum::Spectrum::unmeasured(source.rate),
                loop_tile: OnceLock::new(),
                stream: Some(source),
            }),
        }
    }
}

/// What every sample goes through before the mixer sees it: clamped to
/// ±[`MAX_SAMPLE_MAGNITUDE`], tiny values flushed to exact zero (no
/// denormals), anything not finite made 0 (a decoded sound refuses those
/// before this; a stream's loader cannot refuse what it finds mid-file).
pub(crate) fn condition(samples: &mut [f32]) {
    for s in samples.iter_mut() {
        *s = if s.is_finite() {
            s.clamp(-MAX_SAMPLE_MAGNITUDE, MAX_SAMPLE_MAGNITUDE)
        } else {
            0.0
        };
        if s.abs() < DENORMAL_FLOOR {
            *s = 0.0;
        }
    }
}

impl SoundData {
    /// Game side, before a looping play is sent: makes the sound's loop
    /// tile if it is short enough to want one (once; allocates).
    pub(crate) fn prepare_loop(&self) {
        if self.stream.is_some() {
            return;
        }
        self.loop_tile
            .get_or_init(|| LoopTile::new(&self.samples, self.frames, self.channels));
    }

    /// The loop tile, if one was made. Real-time safe.
    #[inline]
    pub(crate) fn loop_tile(&self) -> Option<&LoopTile> {
        self.loop_tile.get().and_then(Option::as_ref)
    }
}

#[cfg(test)]
mod tests;
