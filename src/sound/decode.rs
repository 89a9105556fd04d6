//! Loading a sound from a file or bytes in any format voicepool reads: the
//! format is told from the content (its first bytes), never from the file
//! name; WAV goes to `wav.rs` (hound), OGG Vorbis, FLAC and MP3 to
//! `compressed.rs` (symphonia).

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::Path;

use super::{compressed, wav, Sound, SoundError, BYTES_ORIGIN, MAX_FRAMES};

/// What the first bytes of a file say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    /// `RIFF....WAVE`.
    Wav,
    /// Compressed data symphonia decodes.
    Compressed(compressed::Format),
    /// None of them; the text says what it is, where known.
    Unknown(&'static str),
}

/// Bytes [`sniff`] looks at.
pub(crate) const HEAD: usize = 12;

/// Tells the format from the first bytes of the data (up to [`HEAD`]).
pub(crate) fn sniff(head: &[u8]) -> Content {
    use compressed::Format;
    let at = |i: usize| head.get(i).copied().unwrap_or(0);
    if head.is_empty() {
        return Content::Unknown("no data, 0 bytes");
    }
    if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WAVE") {
        return Content::Wav;
    }
    if head.starts_with(b"OggS") {
        return Content::Compressed(Format::Ogg);
    }
    if head.starts_with(b"fLaC") {
        return Content::Compressed(Format::Flac);
    }
    // An ID3v2 tag is followed by MP3 frames (or, rarely, FLAC: symphonia's
    // probe looks past the tag either way).
    if head.starts_with(b"ID3") {
        return Content::Compressed(Format::Mp3);
    }
    // An MPEG audio frame header: 11 sync bits, a version that is not the
    // reserved one, a bitrate index that is not the invalid 15 and a rate
    // index that is not the reserved 3.
    let (b1, b2) = (at(1), at(2));
    let sync = at(0) == 0xFF && b1 & 0xE0 == 0xE0;
    let version_ok = (b1 >> 3) & 0b11 != 0b01;
    let frame_ok = b2 >> 4 != 0xF && (b2 >> 2) & 0b11 != 0b11;
    if sync && version_ok && frame_ok && head.len() >= 4 {
        return match (b1 >> 1) & 0b11 {
            0b01 => Content::Compressed(Format::Mp3),
            0b10 => Content::Unknown("MPEG layer II audio, MP2"),
            0b11 => Content::Unknown("MPEG layer I audio, MP1"),
            _ => Content::Unknown(""),
        };
    }
    if head.starts_with(b"RIFF") || head.starts_with(b"RIFX") || head.starts_with(b"RF64") {
        return Content::Unknown("a RIFF file that is not WAVE");
    }
    Content::Unknown("")
}

/// Reads up to [`HEAD`] bytes from the start, then goes back there.
pub(crate) fn read_head<R: Read + Seek>(r: &mut R) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(HEAD);
    r.by_ref().take(HEAD as u64).read_to_end(&mut head)?;
    r.seek(io::SeekFrom::Start(0))?;
    Ok(head)
}

/// Opens a regular file for reading; anything else is [`SoundError::Io`].
/// Looks before opening: opening a FIFO (or some devices) blocks until a
/// writer appears, and a game must never hang on a bad path.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), SoundError> {
    let io_err = |source| SoundError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io_err)?;
    if meta.is_dir() {
        return Err(io_err(io::Error::other("is a directory")));
    }
    if !meta.is_file() {
        return Err(io_err(io::Error::other(
            "not a regular file (a pipe, socket or device)",
        )));
    }
    let file = File::open(path).map_err(io_err)?;
    Ok((file, meta.len()))
}

/// The name a sound loaded from `path` gets: the file stem.
pub(crate) fn name_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn unknown(path: &Path, reason: &str) -> SoundError {
    SoundError::UnknownFormat {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

impl Sound {
    /// Loads a sound file in any format voicepool reads: WAV, OGG Vorbis,
    /// FLAC or MP3 ([`SUPPORTED_FORMATS`](super::SUPPORTED_FORMATS)), told
    /// apart by the content, not the file name (an OGG file named `.wav`
    /// loads as OGG). Decoded whole, on the calling thread, like
    /// [`Sound::from_wav_file`]; the sound is named after the file stem.
    ///
    /// - WAV is read exactly as [`Sound::from_wav_file`] reads it, with the
    ///   same errors.
    /// - Compressed files decode gapless: the encoder delay and padding the
    ///   file records (MP3's LAME/Xing header, OGG's granule positions) are
    ///   trimmed, so the sound has the length that was encoded and loops
    ///   without a gap. An MP3 without a LAME header keeps the decoder's
    ///   delay (529 frames of silence in front) and the encoder's padding.
    /// - More than two channels are downmixed to stereo at load (ITU-R
    ///   BS.775 for 5.1 and 7.1: centre and surrounds at -3 dB, LFE dropped;
    ///   the rules for every layout are in [`Sound`]'s documentation).
    /// - Decoding stops with [`SoundError::TooLong`] once the sound passes
    ///   [`MAX_FRAMES`], so a small hostile file cannot expand into
    ///   unbounded memory; a FLAC header announcing more is refused before
    ///   decoding.
    ///
    /// | input | result |
    /// | --- | --- |
    /// | missing file, directory, pipe or device, unreadable | [`SoundError::Io`] |
    /// | empty file, or content of no supported format (whatever its name) | [`SoundError::UnknownFormat`], naming the formats read |
    /// | OGG, FLAC or MP3 data that cannot be decoded | [`SoundError::Malformed`], naming the format and the reason |
    /// | an OGG of another codec (Opus, ...) | [`SoundError::Unsupported`] |
    /// | a FLAC file, or an MP3 with a LAME header, shorter than its header says | [`SoundError::Truncated`] |
    /// | an OGG file cut inside a packet | [`SoundError::Malformed`] (cut between pages, what is there loads) |
    /// | a WAV file | as [`Sound::from_wav_file`] |
    ///
    /// Every error names the file. Only the first stream of a chained OGG
    /// file is read.
    ///
    /// ```
    /// use voicepool::{limits::SUPPORTED_FORMATS, Sound, SoundError};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-from-file-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # voicepool::OfflineEngine::new(Default::default())?.render_to_wav(dir.join("swish.wav"), 0.1)?;
    /// # let path = dir.join("swish.wav");
    /// let swish = Sound::from_file(&path)?; // "swish.wav", "music.ogg", "door.flac", "voice.mp3"
    /// assert_eq!((swish.name(), swish.frames()), ("swish", 4_800));
    ///
    /// std::fs::write(dir.join("notes.ogg"), "not audio")?;
    /// let err = Sound::from_file(dir.join("notes.ogg")).unwrap_err();
    /// assert!(matches!(err, SoundError::UnknownFormat { .. }));
    /// assert!(err.to_string().ends_with("notes.ogg: unsupported format: expected WAV, OGG Vorbis, FLAC or MP3"));
    /// # assert!(err.to_string().ends_with(SUPPORTED_FORMATS));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Sound, SoundError> {
        let path = path.as_ref();
        let (mut file, len) = open_regular(path)?;
        if len == 0 {
            return Err(unknown(path, "an empty file, 0 bytes"));
        }
        let io_err = |source| SoundError::Io {
            path: path.to_path_buf(),
            source,
        };
        let head = read_head(&mut file).map_err(io_err)?;
        let name = name_of(path);
        match sniff(&head) {
            Content::Wav => wav::decode(BufReader::new(file), path, name),
            Content::Compressed(format) => {
                compressed::decode(Box::new(file), format, path, name, MAX_FRAMES)
            }
            Content::Unknown(reason) => Err(unknown(path, reason)),
        }
    }

    /// Decodes sound data held in memory (for example embedded with
    /// `include_bytes!`), in any format [`Sound::from_file`] reads, told
    /// from the content. Errors refer to the data as `<bytes>`; the sound is
    /// named after its format (`"wav"`, `"ogg"`, `"flac"` or `"mp3"`).
    /// Compressed data is copied once, for the decoder.
    ///
    /// ```
    /// use voicepool::{Sound, SoundError};
    /// # let dir = std::env::temp_dir().join(format!("voicepool-doc-from-bytes-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # voicepool::OfflineEngine::new(Default::default())?.render_to_wav(dir.join("click.wav"), 0.01)?;
    /// # let bytes = std::fs::read(dir.join("click.wav"))?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// // In a game: `let bytes = include_bytes!("../assets/click.ogg");`
    /// let click = Sound::from_bytes(&bytes)?;
    /// assert_eq!((click.name(), click.frames()), ("wav", 480));
    /// let err = Sound::from_bytes(b"ID3 and nothing else").unwrap_err();
    /// assert!(matches!(err, SoundError::Malformed { format: "MP3", .. }), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Sound, SoundError> {
        Self::from_bytes_limited(bytes, MAX_FRAMES)
    }

    /// [`Sound::from_bytes`] with a lower limit than [`MAX_FRAMES`] on a
    /// compressed sound's length, so tests can reach the limit without
    /// decoding gigabytes. Test hook, not public API.
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn from_bytes_with_frame_limit(
        bytes: &[u8],
        max_frames: usize,
    ) -> Result<Sound, SoundError> {
        Self::from_bytes_limited(bytes, max_frames.min(MAX_FRAMES))
    }

    fn from_bytes_limited(bytes: &[u8], max_frames: usize) -> Result<Sound, SoundError> {
        let path = Path::new(BYTES_ORIGIN);
        let head = &bytes[..bytes.len().min(HEAD)];
        match sniff(head) {
            Content::Wav => wav::decode(io::Cursor::new(bytes), path, "wav".to_string()),
            Content::Compressed(format) => compressed::decode(
                Box::new(io::Cursor::new(bytes.to_vec())),
                format,
                path,
                format.short_name().to_string(),
                max_frames,
            ),
            Content::Unknown(reason) => Err(unknown(path, reason)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::compressed::Format;
    use super::*;

    #[test]
    fn sniffing_reads_magic_bytes() {
        let cases: [(&[u8], Content); 9] = [
            (b"RIFF\0\0\0\0WAVEfmt ", Content::Wav),
            (b"OggS\0\x02", Content::Compressed(Format::Ogg)),
            (b"fLaC\0\0\0\x22", Content::Compressed(Format::Flac)),
            (b"ID3\x04\0\0", Content::Compressed(Format::Mp3)),
            (&[0xFF, 0xFB, 0x90, 0x64], Content::Compressed(Format::Mp3)),
            (
                &[0xFF, 0xFD, 0x90, 0x64],
                Content::Unknown("MPEG layer II audio, MP2"),
            ),
            (&[0xFF, 0xFF, 0xFF, 0xFF], Content::Unknown("")),
            (
                b"RIFF\0\0\0\0AVI ",
                Content::Unknown("a RIFF file that is not WAVE"),
            ),
            (b"", Content::Unknown("no data, 0 bytes")),
        ];
        for (head, want) in cases {
            assert_eq!(sniff(head), want, "{head:?}");
        }
    }
}
