//! WAV decoding: RIFF chunks walked by hand where hound is too strict or
//! too trusting, samples read through hound, every failure a
//! [`SoundError`] naming the file.

use std::io::{self, Read, Seek};
use std::path::Path;

use super::downmix::{self, Downmix};
use super::{Sound, SoundError, MAX_FRAMES, SAMPLE_RATE_RANGE};

/// No more than this many samples are reserved up front when a WAV header
/// announces its length; a header that lies about its size cannot make the
/// loader allocate more than the data actually read.
const MAX_UP_FRONT_SAMPLES: usize = 1 << 20;

pub(crate) fn decode<R: Read + Seek>(
    mut reader: R,
    path: &Path,
    name: String,
) -> Result<Sound, SoundError> {
    let rewind = |r: &mut R, at: u64| {
        r.seek(io::SeekFrom::Start(at))
            .map(drop)
            .map_err(|source| SoundError::Io {
                path: path.to_path_buf(),
                source,
            })
    };
    // Name formats hound refuses (or misreports) before handing over.
    let walk = walk_chunks(&mut reader, false);
    rewind(&mut reader, 0)?;
    let fmt = walk.fmt.map(|(f, _)| f);
    if let Some(reason) = fmt.as_ref().and_then(FmtInfo::unsupported) {
        return Err(unsupported(path, reason));
    }
    let first_error = match hound::WavReader::new(&mut reader) {
        Ok(wav) => return decode_samples(wav, fmt, path, name),
        Err(e) => e,
    };
    // hound skips chunks without RIFF's pad byte after an odd-sized one,
    // reads only 4 bytes of a `fact` chunk and 40 of a longer extensible
    // `fmt `. Files that trip on that get one more try: the chunks walked
    // as RIFF says, and hound handed a minimal header (fmt + data) in
    // front of the data.
    rewind(&mut reader, 0)?;
    let walk = walk_chunks(&mut reader, true);
    if let (Some((fmt, raw)), Some((data_len, data_at))) = (walk.fmt, walk.data) {
        if let Some(reason) = fmt.unsupported() {
            return Err(unsupported(path, reason));
        }
        if let Some(header) = minimal_header(&fmt, &raw, data_len) {
            rewind(&mut reader, data_at)?;
            let chained = io::Cursor::new(header).chain(&mut reader);
            if let Ok(wav) = hound::WavReader::new(chained) {
                return decode_samples(wav, Some(fmt), path, name);
            }
        }
    } else if walk.too_many_chunks {
        return Err(SoundError::NotWav {
            path: path.to_path_buf(),
            reason: format!(
                "more than {MAX_CHUNKS_BEFORE_DATA} chunks before the data chunk \
                 (a limit against hostile files)"
            ),
        });
    }
    Err(header_error(first_error, path))
}

/// Reads the samples of a WAV whose header hound has accepted.
fn decode_samples<R: Read>(
    mut wav: hound::WavReader<R>,
    fmt: Option<FmtInfo>,
    path: &Path,
    name: String,
) -> Result<Sound, SoundError> {
    let not_wav = |reason: String| SoundError::NotWav {
        path: path.to_path_buf(),
        reason,
    };
    let unsupported = |reason: String| unsupported(path, reason);
    let spec = wav.spec();
    let channels = spec.channels as usize;
    // More than two channels are downmixed to stereo by the extensible
    // header's channel mask (if it is for these channels), else by the
    // standard order.
    let mask = fmt
        .as_ref()
        .filter(|f| f.channels == spec.channels)
        .and_then(|f| f.channel_mask);
    let build = |mut samples: Vec<f32>| {
        let mut channels = channels;
        if channels > 2 {
            Downmix::new(&downmix::positions(channels, mask)).in_place(&mut samples);
            channels = 2;
        }
        Sound::build(path, name, channels, spec.sample_rate, samples)
    };
    if !SAMPLE_RATE_RANGE.contains(&spec.sample_rate) {
        return Err(SoundError::BadSampleRate {
            path: path.to_path_buf(),
            sample_rate: spec.sample_rate,
        });
    }
    let expected_frames = u64::from(wav.duration());
    // Refused from the header, before a sample is read or a byte
    // reserved: a header may claim far more than the file holds.
    if expected_frames > MAX_FRAMES as u64 {
        return Err(SoundError::TooLong {
            path: path.to_path_buf(),
            frames: expected_frames,
        });
    }
    let claimed = wav.len() as usize;
    let mut samples = Vec::with_capacity(claimed.min(MAX_UP_FRONT_SAMPLES));
    let truncated = |got: usize| SoundError::Truncated {
        path: path.to_path_buf(),
        expected_frames,
        read_frames: (got / channels.max(1)) as u64,
    };
    let encoding = |bits: u16| {
        let container = fmt
            .as_ref()
            .filter(|f| f.channels > 0)
            .map(|f| f.block_align / f.channels);
        match container {
            Some(bytes) => format!("{bits}-bit samples in {bytes}-byte containers"),
            None => format!("{bits}-bit samples"),
        }
    };
    let map_read = |e: hound::Error, got: usize| match e {
        hound::Error::IoError(source) if is_os_error(&source) => SoundError::Io {
            path: path.to_path_buf(),
            source,
        },
        hound::Error::IoError(_) => truncated(got),
        hound::Error::Unsupported | hound::Error::TooWide | hound::Error::InvalidSampleFormat => {
            unsupported(encoding(spec.bits_per_sample))
        }
        other => not_wav(other.to_string()),
    };
    // Integer samples with fewer valid bits than their container holds
    // (WAVE_FORMAT_EXTENSIBLE: 12 bits in 2 bytes, 20 in 3, 24 in 4) are
    // decoded here: hound reads only 24-in-4, and that one from the low
    // three bytes, while the format puts the valid bits at the top.
    let padded = fmt
        .as_ref()
        .filter(|f| f.channels == spec.channels && f.valid_bits == Some(spec.bits_per_sample))
        .map(|f| f.block_align / f.channels)
        .filter(|&bytes| {
            spec.sample_format == hound::SampleFormat::Int
                && (1..=4).contains(&bytes)
                && u32::from(spec.bits_per_sample) < u32::from(bytes) * 8
        });
    if let Some(bytes) = padded {
        let mut data = wav.into_inner();
        let ints = read_container_ints(&mut data, bytes, claimed).map_err(|(e, got)| {
            if is_os_error(&e) {
                SoundError::Io {
                    path: path.to_path_buf(),
                    source: e,
                }
            } else {
                truncated(got)
            }
        })?;
        // Some writers (hound among them) put 24 valid bits in the *low*
        // three bytes of a 4-byte container, with a zero or sign-extended
        // top byte. Data placed as the format says has zero low bytes;
        // such data has non-zero ones and a top byte that carries nothing.
        let right_justified = bytes == 4
            && spec.bits_per_sample == 24
            && ints.iter().any(|&v| v & 0xFF != 0)
            && (ints.iter().all(|&v| v >> 24 == 0) || ints.iter().all(|&v| (v << 8) >> 8 == v));
        if right_justified {
            let scale = 1.0 / f64::from(1u32 << 23);
            samples.extend(
                ints.iter()
                    .map(|&v| (f64::from((v << 8) >> 8) * scale) as f32),
            );
        } else {
            let scale = 1.0 / f64::from(1u32 << 31);
            samples.extend(ints.iter().map(|&v| (f64::from(v) * scale) as f32));
        }
        return build(samples);
    }
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
        (hound::SampleFormat::Float, bits) => {
            return Err(unsupported(format!(
                "{bits}-bit float samples (only 32-bit float is read)"
            )))
        }
        (hound::SampleFormat::Int, bits) => {
            return Err(unsupported(format!(
                "{bits}-bit integer samples (8 to 32 bits are read)"
            )))
        }
    }
    if samples.len() < claimed {
        return Err(truncated(samples.len()));
    }
    build(samples)
}

/// The parts of a WAV `fmt ` chunk needed to name a format, read without
/// hound (which reports every encoding it does not read as the same error).
#[derive(Debug)]
pub(crate) struct FmtInfo {
    pub(crate) tag: u16,
    pub(crate) channels: u16,
    pub(crate) block_align: u16,
    pub(crate) bits: u16,
    /// For `WAVE_FORMAT_EXTENSIBLE`: the valid bits per sample (as hound
    /// reads them: 0 means "same as the container"); otherwise `bits`.
    pub(crate) valid_bits: Option<u16>,
    /// For `WAVE_FORMAT_EXTENSIBLE`: the format code inside the sub-format
    /// GUID, when it is one of the standard `KSDATAFORMAT_SUBTYPE_*` GUIDs.
    pub(crate) sub_tag: Option<u16>,
    /// For `WAVE_FORMAT_EXTENSIBLE`: the speaker positions of the channels
    /// (`dwChannelMask`).
    pub(crate) channel_mask: Option<u32>,
}

const WAVE_FORMAT_EXTENSIBLE: u16 = 0xFFFE;
/// Bytes 4..16 of every standard `KSDATAFORMAT_SUBTYPE_*` GUID; bytes 0..4
/// are the classic format tag.
const KSDATAFORMAT_GUID_TAIL: [u8; 12] = [
    0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
];
/// Chunks walked before `data` at the most. Real files carry a handful (a
/// few dozen with heavy metadata); a file with more is refused with a
/// [`SoundError::NotWav`] that names this limit, so that a hostile file of
/// millions of tiny chunks cannot keep the loader walking.
pub const MAX_CHUNKS_BEFORE_DATA: usize = 1 << 20;

impl FmtInfo {
    /// Why this format is not played, or `None` if hound should read it.
    pub(crate) fn unsupported(&self) -> Option<String> {
        let tag = if self.tag == WAVE_FORMAT_EXTENSIBLE {
            self.sub_tag?
        } else {
            self.tag
        };
        match tag {
            0x0001 => None,
            0x0003 if self.bits == 32 => None,
            0x0003 => Some(format!(
                "{}-bit float samples (only 32-bit float is read)",
                self.bits
            )),
            other => Some(format!(
                "{} data (only PCM and 32-bit float are read)",
                format_name(other)
            )),
        }
    }
}

/// A human name for a WAV format tag.
fn format_name(tag: u16) -> String {
    match tag {
        0x0002 => "Microsoft ADPCM".into(),
        0x0006 => "A-law".into(),
        0x0007 => "\u{b5}-law".into(),
        0x0011 => "IMA ADPCM".into(),
        0x0031 => "GSM 6.10".into(),
        0x0050 => "MPEG audio".into(),
        0x0055 => "MP3".into(),
        0x0000 => "format-tag-0 (unknown)".into(),
        other => format!("format tag 0x{other:04X}"),
    }
}

/// Reads `count` little-endian integer samples of `bytes` (1 to 4) each, as
/// stored (8-bit unsigned, wider signed), shifted to the top of an `i32` so
/// that full scale is `i32` full scale. On a short read, gives the error
/// and how many whole samples came before it.
fn read_container_ints<R: Read>(
    r: &mut R,
    bytes: u16,
    count: usize,
) -> Result<Vec<i32>, (io::Error, usize)> {
    let bytes = usize::from(bytes);
    let mut r = io::BufReader::new(r);
    let mut out = Vec::with_capacity(count.min(MAX_UP_FRONT_SAMPLES));
    for _ in 0..count {
        // Little-endian bytes go to the top of the word: buf[4 - bytes..].
        let mut buf = [0u8; 4];
        r.read_exact(&mut buf[4 - bytes..])
            .map_err(|e| (e, out.len()))?;
        let mut v = i32::from_le_bytes(buf);
        if bytes == 1 {
            v = v.wrapping_sub(i32::MIN); // 8-bit WAV is unsigned
        }
        out.push(v);
    }
    Ok(out)
}

/// An I/O error the operating system reported is an I/O error; any other
/// (end of data, hound's "failed to read enough bytes") means the data
/// stopped early.
fn is_os_error(e: &io::Error) -> bool {
    e.raw_os_error().is_some()
}

pub(crate) fn unsupported(path: &Path, reason: String) -> SoundError {
    SoundError::Unsupported {
        path: path.to_path_buf(),
        reason,
    }
}

/// What a header hound refused means for the caller.
pub(crate) fn header_error(e: hound::Error, path: &Path) -> SoundError {
    let not_wav = |reason: String| SoundError::NotWav {
        path: path.to_path_buf(),
        reason,
    };
    match e {
        hound::Error::IoError(source) if is_os_error(&source) => SoundError::Io {
            path: path.to_path_buf(),
            source,
        },
        hound::Error::IoError(_) => not_wav("the header ends early".into()),
        hound::Error::Unsupported => unsupported(
            path,
            "compressed or unknown sample encoding (only PCM and 32-bit float are read)".into(),
        ),
        hound::Error::FormatError(reason) => not_wav(reason.to_string()),
        other => not_wav(other.to_string()),
    }
}

/// What a walk over the RIFF chunks found.
#[derive(Default)]
pub(crate) struct Walk {
    /// The last `fmt ` chunk before `data`: parsed, and its first 40 bytes.
    pub(crate) fmt: Option<(FmtInfo, [u8; 40])>,
    /// The `data` chunk: its declared length and where its bytes start.
    data: Option<(u32, u64)>,
    /// The walk stopped at [`MAX_CHUNKS_BEFORE_DATA`] without reaching `data`.
    too_many_chunks: bool,
}

/// Walks the RIFF chunks up to `data`, seeking over the others (nothing is
/// allocated), looking at no more than [`MAX_CHUNKS_BEFORE_DATA`]. With `padded`,
/// odd-sized chunks are followed by a pad byte, as RIFF says; without, as
/// hound reads them. Stops quietly at anything it cannot make sense of.
pub(crate) fn walk_chunks<R: Read + Seek>(r: &mut R, padded: bool) -> Walk {
    let mut walk = Walk::default();
    let mut head = [0u8; 12];
    if r.read_exact(&mut head).is_err() || &head[0..4] != b"RIFF" || &head[8..12] != b"WAVE" {
        return walk;
    }
    for _ in 0..MAX_CHUNKS_BEFORE_DATA {
        let mut chunk = [0u8; 8];
        if r.read_exact(&mut chunk).is_err() {
            return walk;
        }
        let len = u32::from_le_bytes([chunk[4], chunk[5], chunk[6], chunk[7]]);
        let mut skip = i64::from(len);
        match &chunk[0..4] {
            b"fmt " => {
                let mut f = [0u8; 40];
                let n = (len as usize).min(f.len());
                if n < 16 || r.read_exact(&mut f[..n]).is_err() {
                    return walk;
                }
                if let Some(info) = parse_fmt(&f[..n]) {
                    walk.fmt = Some((info, f));
                }
                skip -= n as i64;
            }
            b"data" => {
                if let Ok(at) = r.stream_position() {
                    walk.data = Some((len, at));
                }
                return walk;
            }
            _ => {}
        }
        if padded && len % 2 == 1 {
            skip += 1;
        }
        if r.seek(io::SeekFrom::Current(skip)).is_err() {
            return walk;
        }
    }
    walk.too_many_chunks = true;
    walk
}

/// Reads a `fmt ` chunk's bytes (at least 16).
fn parse_fmt(f: &[u8]) -> Option<FmtInfo> {
    let u16_at = |i: usize| f.get(i..i + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let tag = u16_at(0)?;
    let bits = u16_at(14)?;
    let extensible = tag == WAVE_FORMAT_EXTENSIBLE;
    let sub_tag = f
        .get(24..40)
        .filter(|g| extensible && g[2..4] == [0, 0] && g[4..] == KSDATAFORMAT_GUID_TAIL)
        .map(|g| u16::from_le_bytes([g[0], g[1]]));
    let valid_bits = if !extensible {
        Some(bits)
    } else {
        u16_at(18).map(|v| if v == 0 { bits } else { v })
    };
    let channel_mask = f
        .get(20..24)
        .filter(|_| extensible)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    Some(FmtInfo {
        channel_mask,
        tag,
        channels: u16_at(2)?,
        block_align: u16_at(12)?,
        bits,
        valid_bits,
        sub_tag,
    })
}

/// A header hound reads: RIFF, the `fmt ` chunk trimmed to the size hound
/// expects for its format, and the `data` chunk header.
fn minimal_header(fmt: &FmtInfo, raw: &[u8; 40], data_len: u32) -> Option<Vec<u8>> {
    let fmt_len: usize = match fmt.tag {
        0x0001 | 0x0003 => 16,
        WAVE_FORMAT_EXTENSIBLE => 40,
        _ => return None,
    };
    let mut h = Vec::with_capacity(12 + 8 + fmt_len + 8);
    h.extend_from_slice(b"RIFF");
    h.extend_from_slice(
        &(4 + 8 + fmt_len as u32 + 8)
            .saturating_add(data_len)
            .to_le_bytes(),
    );
    h.extend_from_slice(b"WAVEfmt ");
    h.extend_from_slice(&(fmt_len as u32).to_le_bytes());
    h.extend_from_slice(&raw[..fmt_len]);
    h.extend_from_slice(b"data");
    h.extend_from_slice(&data_len.to_le_bytes());
    Some(h)
}
