//! [`Recorder`]: everything an [`crate::OfflineEngine`] renders, written to
//! a WAV file as it is rendered, from `start_recording` to
//! `stop_recording`. Game side only (file I/O): the offline engine renders
//! on the caller's thread, so nothing here touches an audio thread.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use crate::error::RenderError;
use crate::output::offline::MAX_WAV_FRAMES;

/// Sample format of a recorded WAV file.
///
/// ```
/// use voicepool::WavFormat;
/// assert_eq!(WavFormat::default(), WavFormat::Float32);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WavFormat {
    /// 32-bit float: exactly the samples `render` returned.
    #[default]
    Float32,
    /// 16-bit integer: each sample times 32 767, rounded (what most tools
    /// and players expect; the output is always within -1..=1, so nothing
    /// clips).
    Int16,
}

/// A finished recording: where it went and how long it is.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, WavFormat};
/// # let dir = std::env::temp_dir().join(format!("voicepool-doc-recording-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// engine.start_recording(dir.join("level1.wav"), WavFormat::Int16)?;
/// engine.render(48_000);
/// let rec = engine.stop_recording()?.expect("was recording");
/// let seconds = rec.frames as f64 / f64::from(engine.sample_rate());
/// println!("wrote {} ({seconds} s)", rec.path.display());
/// assert_eq!(seconds, 1.0);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Recording {
    /// The file written.
    pub path: PathBuf,
    /// Stereo frames in it.
    pub frames: u64,
}

/// A WAV file being written block by block.
pub(crate) struct Recorder {
    path: PathBuf,
    format: WavFormat,
    rate: u32,
    /// `None` once a write failed or the file is full: the rest is not
    /// recorded, and `finish` reports why.
    wav: Option<hound::WavWriter<BufWriter<File>>>,
    frames: u64,
    error: Option<RenderError>,
}

impl Recorder {
    /// Creates the file (its errors name it).
    pub(crate) fn create(
        path: &Path,
        format: WavFormat,
        rate: u32,
    ) -> Result<Recorder, RenderError> {
        let (bits, sample_format) = match format {
            WavFormat::Float32 => (32, hound::SampleFormat::Float),
            WavFormat::Int16 => (16, hound::SampleFormat::Int),
        };
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: rate,
            bits_per_sample: bits,
            sample_format,
        };
        let wav = hound::WavWriter::create(path, spec).map_err(|e| io_error(path, e))?;
        Ok(Recorder {
            path: path.to_path_buf(),
            format,
            rate,
            wav: Some(wav),
            frames: 0,
            error: None,
        })
    }

    /// The file being written.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// True once a write failed or the file filled up: nothing more is
    /// written.
    pub(crate) fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Appends interleaved stereo `samples`. A write error, or reaching
    /// what a WAV file can hold, stops the recording; `finish` reports it.
    pub(crate) fn write(&mut self, samples: &[f32]) {
        let Some(wav) = self.wav.as_mut() else {
            return;
        };
        let frames = (samples.len() / 2) as u64;
        let room = MAX_WAV_FRAMES - self.frames;
        let take = frames.min(room) as usize * 2;
        let written = match self.format {
            WavFormat::Float32 => samples[..take]
                .iter()
                .try_for_each(|&s| wav.write_sample(s)),
            WavFormat::Int16 => samples[..take].iter().try_for_each(|&s| {
                wav.write_sample((s.clamp(-1.0, 1.0) * 32_767.0).round() as i16)
            }),
        };
        self.frames += take as u64 / 2;
        if let Err(e) = written {
            self.error = Some(io_error(&self.path, e));
            self.wav = None;
        } else if frames > room {
            self.error = Some(RenderError::RecordingFull {
                path: self.path.clone(),
                max_seconds: MAX_WAV_FRAMES as f64 / f64::from(self.rate),
            });
            self.finish_file();
        }
    }

    /// Writes the header's final sizes and closes the file, keeping the
    /// first error.
    fn finish_file(&mut self) {
        if let Some(wav) = self.wav.take() {
            if let Err(e) = wav.finalize() {
                self.error.get_or_insert(io_error(&self.path, e));
            }
        }
    }

    /// Finishes the file: the recording, or the first error it met (the
    /// file then holds what was written before it).
    pub(crate) fn finish(mut self) -> Result<Recording, RenderError> {
        self.finish_file();
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(Recording {
                path: std::mem::take(&mut self.path),
                frames: self.frames,
            }),
        }
    }
}

fn io_error(path: &Path, e: hound::Error) -> RenderError {
    RenderError::Io {
        path: path.to_path_buf(),
        source: match e {
            hound::Error::IoError(e) => e,
            other => io::Error::other(other.to_string()),
        },
    }
}
