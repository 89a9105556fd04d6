//! OGG Vorbis, FLAC and MP3, decoded whole with symphonia (only those
//! formats and codecs are compiled in), gapless, downmixed to stereo when
//! they have more channels, every failure a [`SoundError`] naming the file.

use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;

use symphonia::core::audio::{SampleBuffer, SignalSpec};
use symphonia::core::codecs::{
    CodecType, DecoderOptions, CODEC_TYPE_FLAC, CODEC_TYPE_NULL, CODEC_TYPE_OPUS, CODEC_TYPE_VORBIS,
};
use symphonia::core::errors::Error;
use symphonia::core::formats::FormatOptions;
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
    fn label(self) -> &'static str {
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
pub(super) fn decode(
    source: Box<dyn MediaSource>,
    format: Format,
    path: &Path,
    name: String,
    max_frames: usize,
) -> Result<Sound, SoundError> {
    let decoded = panic::catch_unwind(AssertUnwindSafe(|| {
        decode_samples(source, format, path, max_frames)
    }))
    .unwrap_or_else(|_| {
        Err(SoundError::Malformed {
            path: path.to_path_buf(),
            format: format.label(),
            reason: "the decoder failed on this data (a panic inside symphonia, caught)".into(),
        })
    })?;
    Sound::build(path, name, decoded.channels, decoded.rate, decoded.samples)
}

/// Interleaved samples, mono or stereo.
struct Decoded {
    channels: usize,
    rate: u32,
    samples: Vec<f32>,
}

/// Metadata voicepool never looks at is still parsed by symphonia; these
/// caps keep a hostile tag from costing much memory (tags past them are
/// skipped).
const METADATA_LIMIT: usize = 1 << 20;

fn decode_samples(
    source: Box<dyn MediaSource>,
    format: Format,
    path: &Path,
    max_frames: usize,
) -> Result<Decoded, SoundError> {
    let label = format.label();
    let malformed = |reason: String| SoundError::Malformed {
        path: path.to_path_buf(),
        format: label,
        reason,
    };
    let unsupported = |reason: String| SoundError::Unsupported {
        path: path.to_path_buf(),
        reason,
    };
    let map_err = |e: Error| match e {
        Error::IoError(source) if source.raw_os_error().is_some() => SoundError::Io {
            path: path.to_path_buf(),
            source,
        },
        Error::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            malformed("the data ends inside a header or packet (is the file cut short?)".into())
        }
        Error::Unsupported(what) => unsupported(format!("{label} feature not supported: {what}")),
        other => malformed(other.to_string()),
    };

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
            Error::Unsupported(_) => malformed(format!(
                "not a readable {label} stream (symphonia's probe found none)"
            )),
            other => map_err(other),
        })?;
    let mut reader = probed.format;
    let track = reader
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| malformed("no audio track".into()))?;
    let track_id = track.id;
    let params = track.codec_params.clone();
    let mut decoder =
        match symphonia::default::get_codecs().make(&params, &DecoderOptions::default()) {
            Ok(d) => d,
            Err(Error::Unsupported(_)) => {
                return Err(unsupported(format!(
                    "{label} stream of {} audio (WAV, OGG Vorbis, FLAC and MP3 are read)",
                    codec_name(params.codec)
                )))
            }
            Err(e) => return Err(map_err(e)),
        };
    // FLAC's STREAMINFO gives the exact length: refuse too long a file
    // before decoding it, and know a cut one. So does an MP3's Xing header
    // when a LAME header (which gives the delay) comes with it; without,
    // symphonia estimates the length from the bitrate. Decoding stops at
    // the limit anyway.
    // A LAME header whose delay and padding exceed the stream's length
    // makes symphonia subtract past zero: a panic in debug builds (caught
    // above), a wrapped-around length in release ones, caught here.
    if format == Format::Mp3 && params.n_frames.is_some_and(|n| n > u64::MAX / 2) {
        return Err(malformed(
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
    // An OGG stream's length is its last granule position, and the Vorbis
    // specification says decoded samples past it are padding to discard
    // (libvorbisfile does). Symphonia 0.5 computes that length (`n_frames`)
    // but does not trim to it (sox-made files come out 35 to 99 frames
    // long), so it is done here.
    let trim_to = params
        .n_frames
        .filter(|_| format == Format::Ogg && params.codec == CODEC_TYPE_VORBIS);

    let mut samples: Vec<f32> = Vec::new();
    let mut frames: usize = 0;
    // Set by the first packet that decodes to audio: its spec, the downmix
    // if it has more than two channels, and a buffer for its samples.
    let mut layout: Option<(SignalSpec, Option<Downmix>, SampleBuffer<f32>)> = None;
    loop {
        let packet = match reader.next_packet() {
            Ok(p) => p,
            Err(Error::IoError(e)) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            // The next stream of a chained OGG file: not read.
            Err(Error::ResetRequired) => break,
            Err(e) => return Err(map_err(e)),
        };
        if packet.track_id() != track_id {
            continue;
        }
        let audio = decoder.decode(&packet).map_err(map_err)?;
        if audio.frames() == 0 {
            continue;
        }
        let spec = *audio.spec();
        let (first, mix, buf) = match &mut layout {
            Some(l) => l,
            None => {
                let count = spec.channels.count();
                if count == 0 {
                    return Err(malformed("zero channels".into()));
                }
                if !SAMPLE_RATE_RANGE.contains(&spec.rate) {
                    return Err(SoundError::BadSampleRate {
                        path: path.to_path_buf(),
                        sample_rate: spec.rate,
                    });
                }
                // Symphonia lays the channels out in its mask's bit order
                // (the Vorbis decoder reorders Vorbis's L C R ... to it).
                let mix = (count > 2)
                    .then(|| Downmix::new(&downmix::positions(count, Some(spec.channels.bits()))));
                let buf = SampleBuffer::new(audio.capacity() as u64, spec);
                layout.insert((spec, mix, buf))
            }
        };
        if spec != *first {
            return Err(unsupported(format!(
                "the {label} stream changes from {} Hz, {} channels to {} Hz, {} channels",
                first.rate,
                first.channels.count(),
                spec.rate,
                spec.channels.count()
            )));
        }
        let take = match trim_to {
            Some(n) => audio.frames().min(n.saturating_sub(frames as u64) as usize),
            None => audio.frames(),
        };
        if frames.saturating_add(take) > max_frames {
            return Err(SoundError::TooLong {
                path: path.to_path_buf(),
                frames: frames.saturating_add(take) as u64,
            });
        }
        if buf.capacity() < audio.frames() {
            *buf = SampleBuffer::new(audio.capacity() as u64, spec);
        }
        buf.copy_interleaved_ref(audio);
        let kept = &buf.samples()[..take * spec.channels.count()];
        frames += take;
        match mix {
            Some(mix) => mix.extend(kept, &mut samples),
            None => samples.extend_from_slice(kept),
        }
    }
    if let Some(expected) = announced.filter(|&n| (frames as u64) < n) {
        return Err(SoundError::Truncated {
            path: path.to_path_buf(),
            expected_frames: expected,
            read_frames: frames as u64,
        });
    }
    let (channels, rate) = match &layout {
        Some((spec, _, _)) => (spec.channels.count().min(2), spec.rate),
        // Nothing decoded: Sound::build reports it as empty.
        None => (1, params.sample_rate.unwrap_or(48_000)),
    };
    Ok(Decoded {
        channels,
        rate,
        samples,
    })
}

/// A codec's name for an error message.
fn codec_name(codec: CodecType) -> String {
    match symphonia::default::get_codecs().get_codec(codec) {
        Some(d) => d.short_name.to_string(),
        None if codec == CODEC_TYPE_OPUS => "Opus".into(),
        None => format!("an unknown codec ({codec})"),
    }
}
