//! OGG Vorbis, FLAC and MP3, decoded whole with symphonia (only those
//! formats and codecs are compiled in), gapless, downmixed to stereo when
//! they have more channels, every failure a [`SoundError`] naming the file.

use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use symphonia::core::audio::{SampleBuffer, SignalSpec};
use symphonia::core::codecs::{
    CodecType, DecoderOptions, CODEC_TYPE_FLAC, CODEC_TYPE_NULL, CODEC_TYPE_OPUS, CODEC_TYPE_VORBIS,
};
use symphonia::core::errors::Error;
use symphonia::core::formats::{FormatOptions, FormatReader, SeekMode, SeekTo};
use symphonia::core::io::{MediaSource, MediaSourceStream};
use symphonia::core::meta::{Limit, MetadataOptions};
use symphonia::core::probe::Hint;

use super::downmix::{self, Downmix};
use super::{Sound, SoundError, SAMPLE_RATE_RANGE};

/// The compressed formats, as [`super::decode::sniff`] tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Ogg,
    Flac,
    Mp3,
}

impl Format {
    /// As errors name it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Format::Ogg => "OGG",
            Format::Flac => "FLAC",
            Format::Mp3 => "MP3",
        }
    }

    /// A sound made from bytes is named this.
    pub(crate) fn short_name(self) -> &'static str {
        match self {
            Format::Ogg => "ogg",
            Format::Flac => "flac",
            Format::Mp3 => "mp3",
        }
    }
}

/// Decodes a whole compressed file. Symphonia is run under `catch_unwind`:
/// some hostile headers reach unchecked arithmetic in it (an MP3 LAME tag
/// whose delay and padding exceed the stream's length overflows a
/// subtraction in `MpaReader::try_new`), which panics in debug builds; a
/// panic there becomes [`SoundError::Malformed`]. (The default panic hook
/// still prints its message.)
pub(crate) fn decode(
    source: Box<dyn MediaSource>,
    format: Format,
    path: &Path,
    name: String,
    max_frames: usize,
) -> Result<Sound, SoundError> {
    let decoded = guarded(format, path, || {
        let mut decoder = Decoder::open(source, format, path, max_frames)?;
        let mut samples = Vec::new();
        while decoder.next_chunk(&mut samples)? > 0 {}
        Ok((decoder.channels(), decoder.rate(), samples))
    })?;
    Sound::build(path, name, decoded.0, decoded.1, decoded.2)
}

/// Runs `f` (which calls into symphonia) with a panic inside it turned
/// into [`SoundError::Malformed`].
pub(crate) fn guarded<T>(
    format: Format,
    path: &Path,
    f: impl FnOnce() -> Result<T, SoundError>,
) -> Result<T, SoundError> {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(SoundError::Malformed {
            path: path.to_path_buf(),
            format: format.label(),
            reason: "the decoder failed on this data (a panic inside symphonia, caught)".into(),
        })
    })
}

/// At most this many frames before a seek's target are dropped per
/// [`Decoder::next_chunk`] call.
pub(crate) const SKIP_PER_CALL: usize = 32_768;

/// Metadata voicepool never looks at is still parsed by symphonia; these
/// caps keep a hostile tag from costing much memory (tags past them are
/// skipped).
const METADATA_LIMIT: usize = 1 << 20;

/// A compressed file decoded a packet at a time: what [`decode`] runs to
/// the end, and what a stream's loader runs as its ring has room (so a
/// streamed sound plays exactly the samples the decoded one holds).
/// Gapless, downmixed to stereo, every failure a [`SoundError`] naming the
/// file. Call its methods under [`guarded`].
pub(crate) struct Decoder {
    reader: Box<dyn FormatReader>,
    decoder: Box<dyn symphonia::core::codecs::Decoder>,
    track_id: u32,
    format: Format,
    path: PathBuf,
    max_frames: usize,
    /// The stream's length, when the format gives it exactly (FLAC,
    /// LAME-tagged MP3): a shorter stream is `Truncated`.
    announced: Option<u64>,
    /// An OGG Vorbis stream's length (its last granule position): decoded
    /// samples past it are padding and cut.
    trim_to: Option<u64>,
    /// Frames handed out so far, counted from the start of the stream
    /// (after a seek, from where it landed).
    frames: u64,
    /// The first packet's spec, its downmix if it has more than two
    /// channels, and a buffer for its samples.
    spec: SignalSpec,
    mix: Option<Downmix>,
    buf: SampleBuffer<f32>,
    /// Samples decoded by `open` (to learn the layout) not yet handed out.
    pending: Vec<f32>,
    /// Frames to drop from the next output (after a seek, up to the exact
    /// frame asked for).
    skip: u64,
    /// A seek's target, until the first packet after it tells where the
    /// decoder landed (its timestamp).
    seek_target: Option<u64>,
    /// The end was reached (and checked).
    done: bool,
}

impl Decoder {
    /// Opens `source` and decodes up to its first audio, so the layout is
    /// known.
    pub(crate) fn open(
        source: Box<dyn MediaSource>,
        format: Format,
        path: &Path,
        max_frames: usize,
    ) -> Result<Decoder, SoundError> {
        let label = format.label();
        let mut hint = Hint::new();
        hint.with_extension(format.short_name());
        let stream = MediaSourceStream::new(source, Default::default());
        let format_options = FormatOptions {
            enable_gapless: true,
            ..Default::default()
        };
        let metadata_options = MetadataOptions {
            limit_metadata_bytes: Limit::Maximum(METADATA_LIMIT),
            limit_visual_bytes: Limit::Maximum(METADATA_LIMIT),
        };
        let probed = symphonia::default::get_probe()
            .format(&hint, stream, &format_options, &metadata_options)
            .map_err(|e| match e {
                Error::Unsupported(_) => malformed(
                    path,
                    format,
                    format!("not a readable {label} stream (symphonia's probe found none)"),
                ),
                other => map_err(path, format, other),
            })?;
        let reader = probed.format;
        let track = reader
            .tracks()
            .iter()
            .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
            .ok_or_else(|| malformed(path, format, "no audio track".into()))?;
        let track_id = track.id;
        let params = track.codec_params.clone();
        let decoder =
            match symphonia::default::get_codecs().make(&params, &DecoderOptions::default()) {
                Ok(d) => d,
                Err(Error::Unsupported(_)) => {
                    return Err(unsupported(
                        path,
                        format!(
                            "{label} stream of {} audio (WAV, OGG Vorbis, FLAC and MP3 are read)",
                            codec_name(params.codec)
                        ),
                    ))
                }
                Err(e) => return Err(map_err(path, format, e)),
            };
        // FLAC's STREAMINFO gives the exact length: refuse too long a file
        // before decoding it, and know a cut one. So does an MP3's Xing
        // header when a LAME header (which gives the delay) comes with it;
        // without, symphonia estimates the length from the bitrate.
        // Decoding stops at the limit anyway.
        // A LAME header whose delay and padding exceed the stream's length
        // makes symphonia subtract past zero: a panic in debug builds
        // (caught by `guarded`), a wrapped-around length in release ones,
        // caught here.
        if format == Format::Mp3 && params.n_frames.is_some_and(|n| n > u64::MAX / 2) {
            return Err(malformed(
                path,
                format,
                "the LAME header's delay and padding exceed the stream's length".into(),
            ));
        }
        let exact_length =
            params.codec == CODEC_TYPE_FLAC || (format == Format::Mp3 && params.delay.is_some());
        let announced = params.n_frames.filter(|&n| exact_length && n > 0);
        if let Some(n) = announced.filter(|&n| n > max_frames as u64 && format == Format::Flac) {
            return Err(SoundError::TooLong {
                path: path.to_path_buf(),
                frames: n,
            });
        }
        // An OGG stream's length is its last granule position, and the
        // Vorbis specification says decoded samples past it are padding to
        // discard (libvorbisfile does). Symphonia 0.5 computes that length
        // (`n_frames`) but does not trim to it (sox-made files come out 35
        // to 99 frames long), so it is done here.
        let trim_to = params
            .n_frames
            .filter(|_| format == Format::Ogg && params.codec == CODEC_TYPE_VORBIS);
        let fallback = SignalSpec::new(
            params.sample_rate.unwrap_or(48_000),
            symphonia::core::audio::Channels::FRONT_LEFT,
        );
        let mut d = Decoder {
            reader,
            decoder,
            track_id,
            format,
            path: path.to_path_buf(),
            max_frames,
            announced,
            trim_to,
            frames: 0,
            spec: fallback,
            mix: None,
            buf: SampleBuffer::new(0, fallback),
            pending: Vec::new(),
            skip: 0,
            seek_target: None,
            done: false,
        };
        let mut first = Vec::new();
        d.decode_packet(&mut first, true)?;
        d.pending = first;
        Ok(d)
    }

    /// The format it decodes.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// Channels of what it hands out: 1 or 2 (more are downmixed).
    pub(crate) fn channels(&self) -> usize {
        self.spec.channels.count().min(2)
    }

    /// The stream's sample rate.
    pub(crate) fn rate(&self) -> u32 {
        self.spec.rate
    }

    /// The stream's length in frames if the file says it (exactly for FLAC,
    /// OGG Vorbis and LAME-tagged MP3; estimated for other MP3s).
    pub(crate) fn length_hint(&self) -> Option<u64> {
        self.trim_to.or(self.announced).or_else(|| {
            self.reader
                .tracks()
                .iter()
                .find(|t| t.id == self.track_id)
                .and_then(|t| t.codec_params.n_frames)
        })
    }

    /// Appends the next decoded frames (interleaved, [`Decoder::channels`]
    /// per frame) to `out`; returns how many, 0 at the end of the stream,
    /// or 0 while [`Decoder::is_skipping`] (frames up to a seek's target
    /// are dropped at most [`SKIP_PER_CALL`] per call, so a caller serving
    /// several streams is never held up long).
    pub(crate) fn next_chunk(&mut self, out: &mut Vec<f32>) -> Result<usize, SoundError> {
        let ch = self.channels();
        let mut dropped = 0;
        loop {
            let before = out.len();
            if !self.pending.is_empty() {
                out.append(&mut self.pending);
            } else if self.done || !self.decode_packet(out, false)? {
                self.skip = 0;
                return Ok(0);
            }
            // After a seek: drop what comes before the frame asked for.
            let got = (out.len() - before) / ch;
            let drop = (self.skip.min(got as u64)) as usize;
            if drop > 0 {
                out.drain(before..before + drop * ch);
                self.skip -= drop as u64;
            }
            if got > drop {
                return Ok(got - drop);
            }
            dropped += drop;
            if dropped >= SKIP_PER_CALL {
                return Ok(0);
            }
        }
    }

    /// True while frames before a seek's target are still being dropped.
    pub(crate) fn is_skipping(&self) -> bool {
        self.skip > 0 && !self.done
    }

    /// Moves to `frame` (from the start of the stream): the next chunk
    /// starts with exactly that frame (or the stream ends, if it is past
    /// the end). FLAC seeks through the format to a frame at or before it
    /// and decodes up to it; OGG Vorbis and MP3 decode from where they are
    /// and drop frames up to it (symphonia 0.5's seek there does not tell
    /// exactly where its output lands), so call this on a fresh decoder.
    pub(crate) fn seek(&mut self, frame: u64) -> Result<(), SoundError> {
        if self.format != Format::Flac {
            let at = self.frames - (self.pending.len() / self.channels()) as u64;
            self.skip = frame.saturating_sub(at);
            return Ok(());
        }
        self.pending.clear();
        self.done = false;
        if frame == 0 && self.frames == 0 {
            return Ok(());
        }
        let to = SeekTo::TimeStamp {
            ts: frame,
            track_id: self.track_id,
        };
        if self.announced.is_some_and(|n| frame >= n) {
            // At or past the end: nothing more to hand out.
            self.done = true;
            return Ok(());
        }
        match self.reader.seek(SeekMode::Accurate, to) {
            Ok(_) => {}
            // Past the end: nothing more to hand out.
            Err(Error::SeekError(_)) => {
                self.done = true;
                return Ok(());
            }
            Err(Error::IoError(e)) if e.kind() == io::ErrorKind::UnexpectedEof => {
                self.done = true;
                return Ok(());
            }
            Err(e) => return Err(map_err(&self.path, self.format, e)),
        }
        self.decoder.reset();
        self.skip = 0;
        self.seek_target = Some(frame);
        Ok(())
    }

    /// Decodes packets until one gives audio, appending it (trimmed,
    /// downmixed) to `out`. False at the end of the stream (after checking
    /// it is not shorter than announced). `first`: learning the layout.
    fn decode_packet(&mut self, out: &mut Vec<f32>, first: bool) -> Result<bool, SoundError> {
        let (path, format) = (self.path.as_path(), self.format);
        let label = format.label();
        loop {
            let packet = match self.reader.next_packet() {
                Ok(p) => p,
                Err(Error::IoError(e)) if e.kind() == io::ErrorKind::UnexpectedEof => break,
                // The next stream of a chained OGG file: not read.
                Err(Error::ResetRequired) => break,
                Err(e) => return Err(map_err(path, format, e)),
            };
            if packet.track_id() != self.track_id {
                continue;
            }
            let audio = self
                .decoder
                .decode(&packet)
                .map_err(|e| map_err(path, format, e))?;
            if audio.frames() == 0 {
                continue;
            }
            if let Some(target) = self.seek_target.take() {
                // The first audio after a seek: where the decoder landed.
                self.frames = packet.ts();
                self.skip = target.saturating_sub(packet.ts());
            }
            let spec = *audio.spec();
            if first {
                let count = spec.channels.count();
                if count == 0 {
                    return Err(malformed(path, format, "zero channels".into()));
                }
                if !SAMPLE_RATE_RANGE.contains(&spec.rate) {
                    return Err(SoundError::BadSampleRate {
                        path: path.to_path_buf(),
                        sample_rate: spec.rate,
                    });
                }
                // Symphonia lays the channels out in its mask's bit order
                // (the Vorbis decoder reorders Vorbis's L C R ... to it).
                self.mix = (count > 2)
                    .then(|| Downmix::new(&downmix::positions(count, Some(spec.channels.bits()))));
                self.spec = spec;
            } else if spec != self.spec {
                return Err(unsupported(
                    path,
                    format!(
                        "the {label} stream changes from {} Hz, {} channels to {} Hz, {} channels",
                        self.spec.rate,
                        self.spec.channels.count(),
                        spec.rate,
                        spec.channels.count()
                    ),
                ));
            }
            let take = match self.trim_to {
                Some(n) => audio.frames().min(n.saturating_sub(self.frames) as usize),
                None => audio.frames(),
            };
            if (self.frames as usize).saturating_add(take) > self.max_frames {
                return Err(SoundError::TooLong {
                    path: path.to_path_buf(),
                    frames: self.frames.saturating_add(take as u64),
                });
            }
            if self.buf.capacity() < audio.frames() || first {
                self.buf = SampleBuffer::new(audio.capacity() as u64, spec);
            }
            self.buf.copy_interleaved_ref(audio);
            let kept = &self.buf.samples()[..take * spec.channels.count()];
            self.frames += take as u64;
            match &self.mix {
                Some(mix) => mix.extend(kept, out),
                None => out.extend_from_slice(kept),
            }
            if take == 0 {
                // Past an OGG stream's last granule: the rest is padding.
                break;
            }
            return Ok(true);
        }
        self.done = true;
        if let Some(expected) = self.announced.filter(|&n| self.frames < n) {
            return Err(SoundError::Truncated {
                path: path.to_path_buf(),
                expected_frames: expected,
                read_frames: self.frames,
            });
        }
        Ok(false)
    }
}

fn malformed(path: &Path, format: Format, reason: String) -> SoundError {
    SoundError::Malformed {
        path: path.to_path_buf(),
        format: format.label(),
        reason,
    }
}

fn unsupported(path: &Path, reason: String) -> SoundError {
    SoundError::Unsupported {
        path: path.to_path_buf(),
        reason,
    }
}

fn map_err(path: &Path, format: Format, e: Error) -> SoundError {
    match e {
        Error::IoError(source) if source.raw_os_error().is_some() => SoundError::Io {
            path: path.to_path_buf(),
            source,
        },
        Error::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => malformed(
            path,
            format,
            "the data ends inside a header or packet (is the file cut short?)".into(),
        ),
        Error::Unsupported(what) => unsupported(
            path,
            format!("{} feature not supported: {what}", format.label()),
        ),
        other => malformed(path, format, other.to_string()),
    }
}

/// A codec's name for an error message.
fn codec_name(codec: CodecType) -> String {
    match symphonia::default::get_codecs().get_codec(codec) {
        Some(d) => d.short_name.to_string(),
        None if codec == CODEC_TYPE_OPUS => "Opus".into(),
        None => format!("an unknown codec ({codec})"),
    }
}
