//! Opening a sound to stream: [`Sound::stream_file`] and
//! [`Sound::stream_bytes`] check the data (its format, and its first second
//! decoded, measured for how loud it starts) and make the [`StreamSource`]
//! every play opens anew. Game side: it reads and decodes, and may
//! allocate.

use std::io::Seek;
use std::path::Path;
use std::sync::Arc;

use super::origin::{Origin, Reader};
use super::source::{StreamDecoder, StreamKind, StreamSource};
use crate::sound::decode;
use crate::sound::loudness::Meter;
use crate::sound::spectrum::Spectrum;
use crate::sound::{Sound, SoundError};

/// How much of the start [`Sound::stream_file`] decodes to check the file
/// and measure its opening loudness.
const OPENING_SECONDS: f64 = 1.0;

impl Sound {
    /// Opens a sound file to be *streamed*: every play of the returned
    /// sound decodes the file as it plays, a fraction of a second ahead,
    /// on the engine's loader thread, instead of holding it decoded in
    /// memory. For music and long ambiences or dialogue: a 10-minute
    /// stereo OGG streamed holds a few hundred kilobytes, where
    /// [`Sound::from_file`] holds 200 MB.
    ///
    /// WAV, OGG Vorbis, FLAC and MP3 stream (told from the content, as
    /// [`Sound::from_file`] tells them). The rare WAV whose samples have
    /// fewer valid bits than their containers (20 bits in 3 bytes, ...) is
    /// refused with [`SoundError::Unsupported`]; [`Sound::from_file`]
    /// decodes it.
    /// A streamed play sounds exactly the samples the decoded sound holds:
    /// gapless, downmixed to stereo the same way. The file is opened and
    /// its first second decoded here, so a missing, unreadable or
    /// undecodable file is an error now, with the same errors as
    /// [`Sound::from_file`]; a file that fails later, while streaming,
    /// ends its play at what was decoded (counted in
    /// [`crate::Stats::stream_decode_errors`]). Every play opens the file
    /// again: replaced on disk by one of another channel layout, rate or
    /// length ([`SoundError::Changed`]), or removed, its plays end the same
    /// way; one that decodes to the same layout plays its new content.
    ///
    /// How streamed plays behave (see also [`crate::EngineSettings::streams`]):
    ///
    /// - An engine plays at most [`crate::EngineSettings::streams`] streamed
    ///   plays at once; one more is [`crate::PlayError::TooManyStreams`].
    /// - A play starts once the loader has filled its ring (a few
    ///   milliseconds after `play`; at once, deterministically, in an
    ///   [`crate::OfflineEngine`]), or at its `start_at` frame if that is
    ///   later.
    /// - If the loader falls behind, the play goes silent where its ring
    ///   ran dry, holding its position (nothing is skipped), and goes on
    ///   when data comes: [`crate::Event::StreamUnderrun`], counted in
    ///   [`crate::Stats::stream_underruns`]. The audio thread never waits.
    /// - [`crate::Controller::seek`] moves a streamed play like any other.
    /// - Streamed plays take part in stealing, ranked by the loudness of what
    ///   the loader has decoded ahead of the play position. They do not go
    ///   virtual ([`crate::PlayParams::virtualize`] is ignored): a stolen
    ///   stream ends.
    /// - [`Sound::frames`] is the length the file announces (exact for FLAC,
    ///   OGG Vorbis and MP3 with a LAME header; estimated for other MP3s);
    ///   [`Sound::samples`] is empty.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-stream-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let path = dir.join("music.flac");
    /// # let ok = std::process::Command::new("sox").args(["-n", "-r", "48000", "-c", "2"]).arg(&path)
    /// #     .args(["synth", "1", "sine", "440"]).status().map(|s| s.success()).unwrap_or(false);
    /// # if !ok { return Ok(()); } // sox makes the file here; without it there is nothing to stream
    /// let music = Sound::stream_file(&path)?; // "music.ogg", "music.flac", "music.mp3"
    /// assert!(music.is_streamed());
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let h = engine.play(&music, PlayParams::default().looping(true))?;
    /// engine.render(4_800);
    /// assert!(engine.is_playing(h));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stream_file(path: impl AsRef<Path>) -> Result<Sound, SoundError> {
        let path = path.as_ref();
        let (mut file, len) = decode::open_regular(path)?;
        if len == 0 {
            return Err(SoundError::UnknownFormat {
                path: path.to_path_buf(),
                reason: "an empty file, 0 bytes".into(),
            });
        }
        let head = decode::read_head(&mut file).map_err(|source| SoundError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let kind = StreamKind::of(&head, path)?;
        file.rewind().map_err(|source| SoundError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let origin = Origin::File(path.to_path_buf());
        let source = check_and_measure(Reader::File(file), (origin, kind), path)?;
        Ok(Sound::streamed(decode::name_of(path), source))
    }

    /// A sound to be streamed from `bytes` in memory (a file's contents),
    /// as [`Sound::stream_file`] streams a file: for where there is no file
    /// system (a browser: bytes the page fetched) or a game that keeps its
    /// sounds in an archive. The bytes are shared by every play, not copied
    /// per play (a `Vec<u8>` is moved into an `Arc<[u8]>` once; pass an
    /// `Arc<[u8]>` the game holds to share it without that copy); each
    /// play decodes them as it plays, a fraction of a second
    /// ahead, and sounds exactly what a play of the file would. Errors
    /// name the data `<bytes>`; unreadable or undecodable bytes are an
    /// error now.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let ogg = std::fs::read("samples/ambience.ogg")?; // in a browser: fetched
    /// let wind = Sound::stream_bytes(ogg)?;
    /// assert!(wind.is_streamed());
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let h = engine.play(&wind, PlayParams::default().looping(true))?;
    /// engine.render(4_800);
    /// assert!(engine.is_playing(h));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stream_bytes(bytes: impl Into<Arc<[u8]>>) -> Result<Sound, SoundError> {
        let bytes: Arc<[u8]> = bytes.into();
        let path = Path::new(crate::sound::BYTES_ORIGIN);
        if bytes.is_empty() {
            return Err(SoundError::UnknownFormat {
                path: path.to_path_buf(),
                reason: "no bytes".into(),
            });
        }
        let head = &bytes[..bytes.len().min(decode::HEAD)];
        let kind = StreamKind::of(head, path)?;
        let origin = Origin::Bytes(bytes);
        let reader = origin.open()?;
        let source = check_and_measure(reader, (origin, kind), path)?;
        Ok(Sound::streamed(crate::sound::BYTES_ORIGIN.into(), source))
    }

    /// True for a sound made by [`Sound::stream_file`] or
    /// [`Sound::stream_bytes`]: its plays stream.
    ///
    /// ```
    /// use voicepool::Sound;
    /// let decoded = Sound::from_samples(1, 48_000, vec![0.1; 480])?;
    /// assert!(!decoded.is_streamed());
    /// # Ok::<(), voicepool::SoundError>(())
    /// ```
    pub fn is_streamed(&self) -> bool {
        self.data.stream.is_some()
    }
}

/// Decodes the first second: the file is readable and has audio, how
/// loud it starts, and how that spreads over the bands.
fn check_and_measure(
    file: Reader,
    (origin, kind): (Origin, StreamKind),
    path: &Path,
) -> Result<StreamSource, SoundError> {
    let mut d = StreamDecoder::open(file, kind, path)?;
    let (channels, rate) = (d.channels(), d.rate());
    let mut meter = Meter::new(channels, rate);
    let want = (OPENING_SECONDS * f64::from(rate)) as usize;
    let mut chunk = Vec::new();
    // (Kept for its spectrum: at most a second, freed on return.)
    let mut opening = Vec::with_capacity(want * channels);
    let (mut frames, mut windows, mut last) = (0, 0usize, 0.0);
    while frames < want {
        chunk.clear();
        let n = d.next_chunk(&mut chunk, path)?;
        if n == 0 {
            break;
        }
        frames += n;
        meter.push(&chunk, |sum| {
            windows += 1;
            last = sum;
        });
        opening.extend_from_slice(&chunk);
    }
    let (spectrum, opening_bands) = Spectrum::measure_with_bands(&opening, channels, rate);
    if frames == 0 {
        return Err(SoundError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(StreamSource {
        path: path.to_path_buf(),
        origin,
        kind,
        channels,
        rate,
        frames: d.length(),
        opening_power: if windows > 0 {
            last / windows as f64
        } else {
            0.0
        },
        opening_shape: spectrum.average(),
        opening_bands,
    })
}

impl Sound {
    /// A streamed sound: no samples held, its plays decoded from `source`.
    fn streamed(name: String, source: StreamSource) -> Sound {
        Sound::build_stream(name, Arc::new(source))
    }
}
