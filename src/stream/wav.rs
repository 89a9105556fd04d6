//! A WAV file read a chunk at a time, for streaming: hound reads the
//! samples (converted exactly as `sound::wav` converts them for a decoded
//! sound, and downmixed the same way), our chunk walk finds the channel
//! mask and names formats hound would misread. WAV files whose samples
//! hound reads wrongly (fewer valid bits than their container holds) are
//! refused for streaming; [`crate::Sound::from_file`] decodes them.

use std::io::{BufReader, Seek};
use std::path::{Path, PathBuf};

use super::origin::Reader;
use crate::sound::downmix::{self, Downmix};
use crate::sound::wav::{header_error, unsupported, walk_chunks};
use crate::sound::{SoundError, SAMPLE_RATE_RANGE};

/// Frames read per chunk.
const CHUNK_FRAMES: usize = 4_096;

pub(crate) struct WavStream {
    reader: hound::WavReader<BufReader<Reader>>,
    path: PathBuf,
    /// Channels in the file.
    channels: usize,
    /// `None` for 32-bit float, else the scale of an integer sample.
    int_scale: Option<f64>,
    mix: Option<Downmix>,
    rate: u32,
    /// Frames in the file, and the next one to read.
    frames: u64,
    at: u64,
    buf: Vec<f32>,
}

impl WavStream {
    pub(crate) fn open(file: Reader, path: &Path) -> Result<WavStream, SoundError> {
        let io = |source| SoundError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = file;
        let walk = walk_chunks(&mut file, false);
        file.rewind().map_err(io)?;
        let fmt = walk.fmt.map(|(f, _)| f);
        if let Some(reason) = fmt.as_ref().and_then(|f| f.unsupported()) {
            return Err(unsupported(path, reason));
        }
        let reader =
            hound::WavReader::new(BufReader::new(file)).map_err(|e| header_error(e, path))?;
        let spec = reader.spec();
        let channels = usize::from(spec.channels);
        if !SAMPLE_RATE_RANGE.contains(&spec.sample_rate) {
            return Err(SoundError::BadSampleRate {
                path: path.to_path_buf(),
                sample_rate: spec.sample_rate,
            });
        }
        let padded = fmt.as_ref().is_some_and(|f| {
            f.channels == spec.channels
                && f.valid_bits == Some(spec.bits_per_sample)
                && f.channels > 0
                && u32::from(spec.bits_per_sample) < u32::from(f.block_align / f.channels) * 8
        });
        if padded || channels == 0 {
            return Err(unsupported(
                path,
                "streaming a WAV whose samples have fewer valid bits than their containers \
                 (load it with Sound::from_file)"
                    .into(),
            ));
        }
        let int_scale = match (spec.sample_format, spec.bits_per_sample) {
            (hound::SampleFormat::Float, 32) => None,
            (hound::SampleFormat::Int, bits @ 1..=32) => Some(1.0 / (1u64 << (bits - 1)) as f64),
            (format, bits) => {
                return Err(unsupported(
                    path,
                    format!(
                    "{bits}-bit {format:?} samples (8 to 32-bit integer and 32-bit float are read)"
                ),
                ))
            }
        };
        let mask = fmt
            .as_ref()
            .filter(|f| f.channels == spec.channels)
            .and_then(|f| f.channel_mask);
        Ok(WavStream {
            frames: u64::from(reader.duration()),
            reader,
            path: path.to_path_buf(),
            channels,
            int_scale,
            mix: (channels > 2).then(|| Downmix::new(&downmix::positions(channels, mask))),
            rate: spec.sample_rate,
            at: 0,
            buf: Vec::new(),
        })
    }

    /// Channels handed out: 1 or 2.
    pub(crate) fn channels(&self) -> usize {
        self.channels.min(2)
    }

    pub(crate) fn rate(&self) -> u32 {
        self.rate
    }

    pub(crate) fn length(&self) -> u64 {
        self.frames
    }

    /// Appends up to [`CHUNK_FRAMES`] frames to `out`; 0 at the end.
    pub(crate) fn next_chunk(&mut self, out: &mut Vec<f32>) -> Result<usize, SoundError> {
        let frames = (self.frames - self.at).min(CHUNK_FRAMES as u64) as usize;
        let count = frames * self.channels;
        self.buf.clear();
        let truncated = |read: u64| SoundError::Truncated {
            path: self.path.clone(),
            expected_frames: self.frames,
            read_frames: read,
        };
        match self.int_scale {
            None => {
                for s in self.reader.samples::<f32>().take(count) {
                    self.buf.push(s.map_err(|_| truncated(self.at))?);
                }
            }
            Some(scale) => {
                for s in self.reader.samples::<i32>().take(count) {
                    let v = s.map_err(|_| truncated(self.at))?;
                    self.buf.push((v as f64 * scale) as f32);
                }
            }
        }
        let got = self.buf.len() / self.channels;
        let whole = &self.buf[..got * self.channels];
        match &self.mix {
            Some(mix) => mix.extend(whole, out),
            None => out.extend_from_slice(whole),
        }
        self.at += got as u64;
        if got < frames {
            return Err(truncated(self.at));
        }
        Ok(got)
    }

    /// Moves to `frame` (past the end: the end).
    pub(crate) fn seek(&mut self, frame: u64) -> Result<(), SoundError> {
        let frame = frame.min(self.frames);
        self.reader
            .seek(frame as u32)
            .map_err(|source| SoundError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.at = frame;
        Ok(())
    }
}
