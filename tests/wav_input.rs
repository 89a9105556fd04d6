//! WAV input from the real world: a corpus made at test time by real tools
//! (sox, hound) plus hand-made hostile files. Each file either loads with the
//! content it is known to hold, or fails with the right `SoundError` naming
//! it. Needs sox (`bash scripts/setup.sh` installs it).

use voicepool_testkit::support;

use std::path::Path;

use support::{sox, sox_samples, Rng, Scratch};
use voicepool::sound::MAX_SAMPLE_MAGNITUDE;
use voicepool::{Sound, SoundError};

// ---------------------------------------------------------------- helpers

/// Loads `path` both from the file and from its bytes; both must agree.
fn load(path: &Path) -> Result<Sound, SoundError> {
    let from_file = Sound::from_wav_file(path);
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if let Some(bytes) = regular.then(|| std::fs::read(path).unwrap()) {
        let from_bytes = Sound::from_wav_bytes(&bytes);
        match (&from_file, &from_bytes) {
            (Ok(a), Ok(b)) => {
                assert_eq!(
                    a.samples(),
                    b.samples(),
                    "{}: file vs bytes",
                    path.display()
                )
            }
            (Err(a), Err(b)) => assert_eq!(
                std::mem::discriminant(a),
                std::mem::discriminant(b),
                "{}: file says {a}, bytes say {b}",
                path.display()
            ),
            (a, b) => panic!("{}: file gives {a:?}, bytes give {b:?}", path.display()),
        }
        if let Err(e) = &from_bytes {
            assert_eq!(e.path(), Path::new("<bytes>"));
        }
    }
    from_file
}

/// Loads `path`, expects an error naming it, and returns it.
fn load_err(path: &Path) -> SoundError {
    match load(path) {
        Ok(s) => panic!("{} loaded ({s:?}) but should fail", path.display()),
        Err(e) => {
            assert_eq!(e.path(), path, "the error names the file");
            let shown = e.to_string();
            assert!(
                shown.contains(&path.display().to_string()),
                "Display names the file: {shown}"
            );
            e
        }
    }
}

/// Loads `path`, expects `SoundError::Truncated` naming it, and returns
/// (frames the header announces, whole frames read).
fn truncated(path: &Path) -> (u64, u64) {
    match load_err(path) {
        SoundError::Truncated {
            expected_frames,
            read_frames,
            ..
        } => (expected_frames, read_frames),
        e => panic!("expected Truncated, got {e:?}"),
    }
}

fn assert_samples(sound: &Sound, expected: &[f32], what: &str) {
    let got = sound.samples();
    assert_eq!(got.len(), expected.len(), "{what}: sample count");
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        let e = e.clamp(-MAX_SAMPLE_MAGNITUDE, MAX_SAMPLE_MAGNITUDE);
        assert!(
            (g - e).abs() <= 1e-6,
            "{what}: sample {i} is {g}, expected {e}"
        );
    }
}

fn format_tag(bytes: &[u8]) -> u16 {
    u16::from_le_bytes([bytes[20], bytes[21]])
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).expect("write test file");
}

/// A hand-made `fmt ` chunk description.
struct Fmt {
    tag: u16,
    channels: u16,
    rate: u32,
    /// Bytes per sample container.
    container: u16,
    /// `WAVE_FORMAT_EXTENSIBLE`: (valid bits, sub-format tag).
    ext: Option<(u16, u16)>,
}

/// A WAV file built byte by byte; `claim` overrides the data chunk length.
fn craft(fmt: &Fmt, data: &[u8], claim: Option<u32>) -> Vec<u8> {
    let align = fmt.container * fmt.channels;
    let mut f = Vec::new();
    let tag = if fmt.ext.is_some() { 0xFFFE } else { fmt.tag };
    f.extend(tag.to_le_bytes());
    f.extend(fmt.channels.to_le_bytes());
    f.extend(fmt.rate.to_le_bytes());
    f.extend((u32::from(align) * fmt.rate).to_le_bytes());
    f.extend(align.to_le_bytes());
    f.extend((fmt.container * 8).to_le_bytes());
    if let Some((valid, sub)) = fmt.ext {
        f.extend(22u16.to_le_bytes());
        f.extend(valid.to_le_bytes());
        f.extend(0u32.to_le_bytes());
        f.extend(u32::from(sub).to_le_bytes());
        f.extend([
            0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
        ]);
    }
    let mut out = Vec::new();
    out.extend(b"RIFF");
    out.extend(((4 + 8 + f.len() + 8 + data.len()) as u32).to_le_bytes());
    out.extend(b"WAVE");
    out.extend(b"fmt ");
    out.extend((f.len() as u32).to_le_bytes());
    out.extend(f);
    out.extend(b"data");
    out.extend(claim.unwrap_or(data.len() as u32).to_le_bytes());
    out.extend(data);
    out
}

fn hound_file<S: hound::Sample + Copy>(
    path: &Path,
    spec: hound::WavSpec,
    samples: &[S],
) -> Vec<u8> {
    let mut w = hound::WavWriter::create(path, spec).expect("hound create");
    for &s in samples {
        w.write_sample(s).expect("hound write");
    }
    w.finalize().expect("hound finalize");
    std::fs::read(path).expect("read back")
}

fn spec(channels: u16, rate: u32, bits: u16, float: bool) -> hound::WavSpec {
    hound::WavSpec {
        channels,
        sample_rate: rate,
        bits_per_sample: bits,
        sample_format: if float {
            hound::SampleFormat::Float
        } else {
            hound::SampleFormat::Int
        },
    }
}

// ------------------------------------------------------ files that load

/// Files sox writes in every PCM and float flavour, plain and extensible
/// headers, 8 kHz to 192 kHz, mono and stereo, load with exactly the samples
/// sox itself decodes from them.
#[test]
fn sox_made_files_load_with_the_samples_sox_reads() {
    let dir = Scratch::new("sox-corpus");
    // (name, rate, channels, bits, encoding, sox type, expected format tag)
    let cases: &[(&str, &str, &str, &str, &str, &str, u16)] = &[
        ("u8", "8000", "1", "8", "unsigned-integer", "wavpcm", 1),
        ("u8st", "192000", "2", "8", "unsigned-integer", "wavpcm", 1),
        ("s16", "11025", "1", "16", "signed-integer", "wavpcm", 1),
        ("s16st", "44100", "2", "16", "signed-integer", "wav", 1),
        ("s24", "22050", "1", "24", "signed-integer", "wavpcm", 1),
        (
            "s24ext",
            "48000",
            "2",
            "24",
            "signed-integer",
            "wav",
            0xFFFE,
        ),
        ("s32", "96000", "1", "32", "signed-integer", "wavpcm", 1),
        (
            "s32ext",
            "192000",
            "2",
            "32",
            "signed-integer",
            "wav",
            0xFFFE,
        ),
        ("f32", "16000", "1", "32", "floating-point", "wav", 3),
        ("f32st", "32000", "2", "32", "floating-point", "wavpcm", 3),
    ];
    for &(name, rate, ch, bits, enc, ty, tag) in cases {
        let path = dir.path(&format!("{name}.wav"));
        let p = path.to_str().unwrap();
        let mut args = vec![
            "-n", "-r", rate, "-c", ch, "-b", bits, "-e", enc, "-t", ty, p,
        ];
        args.extend(["synth", "0.03", "sine", "440", "square", "97", "vol", "0.9"]);
        sox(&args);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            format_tag(&bytes),
            tag,
            "{name}: the corpus has the header kind it claims"
        );
        let sound = load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sound.sample_rate(), rate.parse::<u32>().unwrap(), "{name}");
        assert_eq!(sound.channels(), ch.parse::<u16>().unwrap(), "{name}");
        assert_eq!(sound.name(), name);
        let expected = sox_samples(&path);
        assert!(!expected.is_empty());
        assert_samples(&sound, &expected, name);
        // Real content, not silence: the test would be vacuous otherwise.
        assert!(sound.samples().iter().any(|s| s.abs() > 0.5), "{name}");
    }
}

/// hound writes known integer and float values; they come back scaled
/// exactly (full scale = 1.0), 8-bit as unsigned, floats clamped to
/// `MAX_SAMPLE_MAGNITUDE`, stereo interleaved left first.
#[test]
fn hound_made_files_load_known_values_exactly() {
    let dir = Scratch::new("hound-corpus");

    let p = dir.path("u8.wav");
    let b = hound_file(&p, spec(1, 8_000, 8, false), &[-128i8, 0, 127, 1]);
    assert_eq!(format_tag(&b), 1);
    assert_eq!(
        b[44..48],
        [0, 128, 255, 129],
        "8-bit WAV is unsigned on disk"
    );
    assert_eq!(
        load(&p).unwrap().samples(),
        [-1.0, 0.0, 127.0 / 128.0, 1.0 / 128.0]
    );

    let p = dir.path("s16st.wav");
    hound_file(
        &p,
        spec(2, 44_100, 16, false),
        &[i16::MIN, i16::MAX, -1, 1, 0, 16_384],
    );
    let s = load(&p).unwrap();
    assert_eq!((s.channels(), s.frames()), (2, 3));
    assert_eq!(
        s.samples(),
        [
            -1.0,
            32_767.0 / 32_768.0,
            -1.0 / 32_768.0,
            1.0 / 32_768.0,
            0.0,
            0.5
        ]
    );

    let p = dir.path("s24.wav");
    let b = hound_file(
        &p,
        spec(1, 96_000, 24, false),
        &[-8_388_608i32, 8_388_607, 12_345],
    );
    assert_eq!(
        format_tag(&b),
        0xFFFE,
        "hound writes 24-bit as WAVE_FORMAT_EXTENSIBLE"
    );
    let s = load(&p).unwrap();
    assert_eq!(s.samples()[0], -1.0);
    assert_eq!(s.samples()[2], 12_345.0 / 8_388_608.0);
    assert!((s.samples()[1] - 1.0).abs() < 1e-6);

    let p = dir.path("s32.wav");
    hound_file(
        &p,
        spec(1, 192_000, 32, false),
        &[i32::MIN, 1 << 20, -(1 << 30)],
    );
    assert_eq!(load(&p).unwrap().samples(), [-1.0, 1.0 / 2048.0, -0.5]);

    let p = dir.path("f32.wav");
    let b = hound_file(
        &p,
        spec(2, 48_000, 32, true),
        &[-1.0f32, 0.25, 10.0, -1e-30],
    );
    assert_eq!(
        format_tag(&b),
        0xFFFE,
        "hound writes float as WAVE_FORMAT_EXTENSIBLE"
    );
    // Out-of-range floats are clamped to +-4.0; tiny values become exact 0.
    assert_eq!(
        load(&p).unwrap().samples(),
        [-1.0, 0.25, MAX_SAMPLE_MAGNITUDE, 0.0]
    );
}

/// A hand-made plain-header 32-bit float file (format tag 3), with an
/// unknown chunk before `fmt ` that must be skipped.
#[test]
fn plain_float_header_and_unknown_chunks_load() {
    let dir = Scratch::new("plain-float");
    let data: Vec<u8> = [0.5f32, -0.75]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let fmt = Fmt {
        tag: 3,
        channels: 1,
        rate: 48_000,
        container: 4,
        ext: None,
    };
    let mut bytes = craft(&fmt, &data, None);
    // Insert a 6-byte "junk" chunk after "WAVE" and fix the RIFF length.
    let junk = [b'j', b'u', b'n', b'k', 6, 0, 0, 0, 1, 2, 3, 4, 5, 6];
    bytes.splice(12..12, junk);
    let riff = (bytes.len() - 8) as u32;
    bytes[4..8].copy_from_slice(&riff.to_le_bytes());
    let p = dir.path("plain_float.wav");
    write(&p, &bytes);
    assert_eq!(load(&p).unwrap().samples(), [0.5, -0.75]);
}

/// Inserts raw chunk bytes just before the `data` chunk of a crafted file
/// and fixes the RIFF length.
fn insert_before_data(mut bytes: Vec<u8>, chunk: &[u8]) -> Vec<u8> {
    let at = bytes.windows(4).position(|w| w == b"data").unwrap();
    bytes.splice(at..at, chunk.iter().copied());
    let riff = (bytes.len() - 8) as u32;
    bytes[4..8].copy_from_slice(&riff.to_le_bytes());
    bytes
}

/// Chunk layouts real writers produce that hound alone misreads: an
/// odd-sized chunk followed by its RIFF pad byte, a `fact` chunk longer than
/// 4 bytes, an extensible `fmt ` chunk with extra bytes. And one writers get
/// wrong (an odd chunk without the pad byte), which still loads.
#[test]
fn riff_padding_long_fact_and_long_fmt_chunks_load() {
    let dir = Scratch::new("chunks");
    let data: Vec<u8> = [1000i16, -2000, 3000]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let expected = [1000.0 / 32_768.0, -2000.0 / 32_768.0, 3000.0 / 32_768.0];
    let pcm = Fmt {
        tag: 1,
        channels: 1,
        rate: 44_100,
        container: 2,
        ext: None,
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "odd_list_padded",
            insert_before_data(craft(&pcm, &data, None), b"LIST\x05\0\0\0INFOx\0"),
        ),
        (
            "odd_list_unpadded",
            insert_before_data(craft(&pcm, &data, None), b"LIST\x05\0\0\0INFOx"),
        ),
        (
            "long_fact",
            insert_before_data(
                craft(&pcm, &data, None),
                b"fact\x08\0\0\0\x03\0\0\0\0\0\0\0",
            ),
        ),
        ("long_ext_fmt", {
            let ext = Fmt {
                tag: 1,
                channels: 1,
                rate: 44_100,
                container: 2,
                ext: Some((16, 1)),
            };
            let mut b = craft(&ext, &data, None);
            // fmt chunk length 40 -> 48, with 8 extra bytes after it.
            b[16..20].copy_from_slice(&48u32.to_le_bytes());
            b.splice(60..60, [0xEEu8; 8]);
            let riff = (b.len() - 8) as u32;
            b[4..8].copy_from_slice(&riff.to_le_bytes());
            b
        }),
    ];
    for (name, bytes) in cases {
        let p = dir.path(&format!("{name}.wav"));
        write(&p, &bytes);
        let s = load(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.samples(), expected, "{name}");
        assert_eq!(s.sample_rate(), 44_100, "{name}");
    }
}

// ------------------------------------------ valid files in other formats

#[test]
fn float64_is_unsupported_and_named() {
    let dir = Scratch::new("f64");
    // sox writes a plain header (format tag 3, 64 bits), which hound itself
    // reports as a malformed file; voicepool names the format instead.
    let p = dir.path("f64.wav");
    sox(&[
        "-n",
        "-r",
        "48000",
        "-b",
        "64",
        "-e",
        "floating-point",
        "-t",
        "wav",
        p.to_str().unwrap(),
        "synth",
        "0.01",
        "sine",
        "440",
    ]);
    let e = load_err(&p);
    assert!(matches!(e, SoundError::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().contains("64-bit float"), "{e}");

    // The same as WAVE_FORMAT_EXTENSIBLE with the IEEE-float sub-format.
    let fmt = Fmt {
        tag: 3,
        channels: 2,
        rate: 48_000,
        container: 8,
        ext: Some((64, 3)),
    };
    let p = dir.path("f64ext.wav");
    write(&p, &craft(&fmt, &[0; 32], None));
    let e = load_err(&p);
    assert!(matches!(e, SoundError::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().contains("64-bit float"), "{e}");
}

#[test]
fn compressed_and_companded_formats_are_unsupported_and_named() {
    let dir = Scratch::new("codecs");
    for (enc, name) in [
        ("a-law", "A-law"),
        ("u-law", "\u{b5}-law"),
        ("ima-adpcm", "IMA ADPCM"),
        ("ms-adpcm", "Microsoft ADPCM"),
    ] {
        let p = dir.path(&format!("{enc}.wav"));
        sox(&[
            "-n",
            "-r",
            "8000",
            "-e",
            enc,
            "-t",
            "wav",
            p.to_str().unwrap(),
            "synth",
            "0.02",
            "sine",
            "440",
        ]);
        let e = load_err(&p);
        assert!(matches!(e, SoundError::Unsupported { .. }), "{enc}: {e:?}");
        assert!(e.to_string().contains(name), "{enc}: {e}");
    }
    // A-law inside WAVE_FORMAT_EXTENSIBLE, and a made-up format tag.
    let p = dir.path("alaw_ext.wav");
    let fmt = Fmt {
        tag: 6,
        channels: 1,
        rate: 8_000,
        container: 1,
        ext: Some((8, 6)),
    };
    write(&p, &craft(&fmt, &[0xD5; 16], None));
    assert!(load_err(&p).to_string().contains("A-law"));
    let p = dir.path("tag1234.wav");
    let fmt = Fmt {
        tag: 0x1234,
        channels: 1,
        rate: 8_000,
        container: 2,
        ext: None,
    };
    write(&p, &craft(&fmt, &[0; 16], None));
    let e = load_err(&p);
    assert!(matches!(e, SoundError::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().contains("0x1234"), "{e}");
}

/// More than two channels are downmixed to stereo (ITU-R BS.775 for 5.1:
/// centre and surrounds at 0.7071, LFE dropped), by the channel mask sox
/// writes in its extensible header (0x3F: L R C LFE Lb Rb).
#[test]
fn six_channels_are_downmixed_to_stereo() {
    let dir = Scratch::new("ch6");
    let p = dir.path("ch6.wav");
    sox(&[
        "-n",
        "-r",
        "48000",
        "-c",
        "6",
        "-b",
        "16",
        "-t",
        "wav",
        p.to_str().unwrap(),
        "synth",
        "0.01",
        "sine",
        "440",
        "sine",
        "550",
        "sine",
        "660",
        "sine",
        "50",
        "sine",
        "880",
        "sine",
        "990",
    ]);
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(format_tag(&bytes), 0xFFFE);
    assert_eq!(&bytes[40..44], &0x3Fu32.to_le_bytes(), "sox's channel mask");
    let sound = load(&p).unwrap();
    assert_eq!((sound.channels(), sound.frames()), (2, 480));
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let expected: Vec<f32> = sox_samples(&p)
        .chunks_exact(6)
        .flat_map(|f| [f[0] + h * f[2] + h * f[4], f[1] + h * f[2] + h * f[5]])
        .collect();
    for (i, (got, want)) in sound.samples().iter().zip(&expected).enumerate() {
        assert!((got - want).abs() < 1e-6, "sample {i}: {got} vs {want}");
    }
}

/// WAVE_FORMAT_EXTENSIBLE integer samples with fewer valid bits than their
/// container (12 in 2 bytes, 20 in 3, 24 in 4) are stored left-justified:
/// the container read as a whole integer is the sample. hound itself writes
/// 24-in-4 right-justified (sign-extended low three bytes); both load.
#[test]
fn padded_integer_containers_load() {
    let dir = Scratch::new("padded");
    let le = |vals: &[i32], bytes: usize| -> Vec<u8> {
        vals.iter()
            .flat_map(|v| v.to_le_bytes()[..bytes].to_vec())
            .collect()
    };
    // 12 valid bits in 2 bytes: values are multiples of 16.
    let p = dir.path("s12in16.wav");
    let fmt = Fmt {
        tag: 1,
        channels: 1,
        rate: 48_000,
        container: 2,
        ext: Some((12, 1)),
    };
    write(
        &p,
        &craft(&fmt, &le(&[0x7FF0, -0x8000, 0x0010, 0], 2), None),
    );
    let s = load(&p).unwrap();
    assert_eq!(
        s.samples(),
        [0x7FF0 as f32 / 32_768.0, -1.0, 16.0 / 32_768.0, 0.0]
    );

    // 20 valid bits in 3 bytes, stereo.
    let p = dir.path("s20in24.wav");
    let fmt = Fmt {
        tag: 1,
        channels: 2,
        rate: 96_000,
        container: 3,
        ext: Some((20, 1)),
    };
    let vals = [0x40_0000, -0x40_0000, 0x00_0010, -0x80_0000];
    write(&p, &craft(&fmt, &le(&vals, 3), None));
    assert_eq!(
        load(&p).unwrap().samples(),
        [0.5, -0.5, 16.0 / 8_388_608.0, -1.0]
    );

    // 24 valid bits in 4 bytes, left-justified as the format says.
    let p = dir.path("s24in32_left.wav");
    let fmt = Fmt {
        tag: 1,
        channels: 1,
        rate: 48_000,
        container: 4,
        ext: Some((24, 1)),
    };
    let vals: Vec<i32> = [0x40_0000, -0x40_0000, 0x12_3456, -1]
        .iter()
        .map(|v| v << 8)
        .collect();
    write(&p, &craft(&fmt, &le(&vals, 4), None));
    let s = load(&p).unwrap();
    assert_eq!(s.samples()[..2], [0.5, -0.5]);
    assert_eq!(s.samples()[2], 0x12_3456 as f32 / 8_388_608.0);
    assert_eq!(s.samples()[3], -1.0 / 8_388_608.0);

    // The same values as hound writes them (right-justified).
    let p = dir.path("s24in32_hound.wav");
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 48_000,
        bits_per_sample: 24,
        sample_format: hound::SampleFormat::Int,
    };
    let bytes = {
        let mut cur = std::io::Cursor::new(Vec::new());
        let mut w = hound::WavWriter::new_with_spec_ex(
            &mut cur,
            hound::WavSpecEx {
                spec,
                bytes_per_sample: 4,
            },
        )
        .unwrap();
        for v in [0x40_0000, -0x40_0000, 0x12_3456, -1] {
            w.write_sample(v).unwrap();
        }
        w.finalize().unwrap();
        cur.into_inner()
    };
    write(&p, &bytes);
    let s = load(&p).unwrap();
    assert_eq!(s.samples()[..2], [0.5, -0.5]);
    assert_eq!(s.samples()[2], 0x12_3456 as f32 / 8_388_608.0);
    assert_eq!(s.samples()[3], -1.0 / 8_388_608.0);

    // Cut mid-sample: truncated, whole frames counted.
    let cut = dir.path("s24in32_cut.wav");
    write(&cut, &bytes[..bytes.len() - 2]);
    assert_eq!(truncated(&cut), (4, 3));
}

/// More valid bits than the container holds is a container voicepool does
/// not read: unsupported, saying what it is.
#[test]
fn valid_bits_beyond_the_container_are_unsupported() {
    let dir = Scratch::new("bits32in16");
    let p = dir.path("s32in16.wav");
    let fmt = Fmt {
        tag: 1,
        channels: 1,
        rate: 48_000,
        container: 2,
        ext: Some((32, 1)),
    };
    write(&p, &craft(&fmt, &[0x10, 0x00, 0xF0, 0xFF], None));
    let e = load_err(&p);
    assert!(matches!(e, SoundError::Unsupported { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("32-bit samples in 2-byte containers"),
        "{e}"
    );
}

#[test]
fn sample_rates_outside_the_range_are_refused() {
    let dir = Scratch::new("rates");
    for rate in [0u32, 500, 999, 768_001, u32::MAX / 8] {
        let p = dir.path(&format!("r{rate}.wav"));
        let fmt = Fmt {
            tag: 1,
            channels: 1,
            rate,
            container: 2,
            ext: None,
        };
        write(&p, &craft(&fmt, &[0; 8], None));
        match load_err(&p) {
            SoundError::BadSampleRate { sample_rate, .. } => assert_eq!(sample_rate, rate),
            e => panic!("rate {rate}: {e:?}"),
        }
    }
    // The ends of the range load.
    for rate in [1_000u32, 768_000] {
        let p = dir.path(&format!("ok{rate}.wav"));
        let fmt = Fmt {
            tag: 1,
            channels: 1,
            rate,
            container: 2,
            ext: None,
        };
        write(&p, &craft(&fmt, &[0; 8], None));
        assert_eq!(load(&p).unwrap().sample_rate(), rate);
    }
}

#[test]
fn nan_and_infinite_float_samples_are_refused() {
    let dir = Scratch::new("nan");
    for (bad, label) in [
        (f32::NAN, "nan"),
        (f32::INFINITY, "inf"),
        (f32::NEG_INFINITY, "-inf"),
    ] {
        let p = dir.path(&format!("{label}.wav"));
        hound_file(
            &p,
            spec(1, 48_000, 32, true),
            &[0.0f32, 0.5, 0.25, bad, 0.0],
        );
        match load_err(&p) {
            SoundError::NonFiniteSample { index, .. } => assert_eq!(index, 3),
            e => panic!("{label}: {e:?}"),
        }
    }
}

// ------------------------------------------------------- broken files

#[test]
fn zero_length_data_is_empty() {
    let dir = Scratch::new("empty-data");
    let p = dir.path("sox_zero.wav");
    sox(&[
        "-n",
        "-r",
        "8000",
        "-b",
        "16",
        "-t",
        "wav",
        p.to_str().unwrap(),
        "trim",
        "0",
        "0",
    ]);
    assert!(matches!(load_err(&p), SoundError::Empty { .. }));
    let p = dir.path("hound_zero.wav");
    hound_file::<i16>(&p, spec(2, 44_100, 16, false), &[]);
    assert!(matches!(load_err(&p), SoundError::Empty { .. }));
}

/// A header that claims far more data than the file holds (here about 2 GB)
/// is reported as truncated, with what was there.
#[test]
fn header_claiming_more_data_than_present_is_truncated() {
    let dir = Scratch::new("claims");
    let data: Vec<u8> = (0..100i16).flat_map(|v| (v * 100).to_le_bytes()).collect();
    let fmt = Fmt {
        tag: 1,
        channels: 1,
        rate: 48_000,
        container: 2,
        ext: None,
    };
    let p = dir.path("claims_2gb.wav");
    write(&p, &craft(&fmt, &data, Some(0x7FFF_FFFE)));
    assert_eq!(truncated(&p), (0x3FFF_FFFF, 100));
    // sox writing to a pipe cannot go back to fix its header lengths.
    let piped = sox(&[
        "-n", "-r", "8000", "-b", "16", "-t", "wav", "-", "synth", "0.01", "sine", "440",
    ]);
    let p = dir.path("sox_pipe.wav");
    write(&p, &piped);
    assert_eq!(truncated(&p).1, 80);
}

/// A file cut in the middle of a sample: the whole frames before the cut are
/// counted, the error says how many the header promised.
#[test]
fn file_cut_mid_sample_is_truncated() {
    let dir = Scratch::new("cut");
    let samples: Vec<i16> = (0..200).map(|i| (i * 50) as i16).collect();
    let p = dir.path("full.wav");
    let bytes = hound_file(&p, spec(2, 48_000, 16, false), &samples);
    let cut = dir.path("cut.wav");
    write(&cut, &bytes[..bytes.len() - 3]); // 1 byte into the last sample
    assert_eq!(truncated(&cut), (100, 99));
    let samples: Vec<i32> = (0..90).map(|i| i * 1000).collect();
    let bytes = hound_file(&p, spec(1, 48_000, 24, false), &samples);
    write(&cut, &bytes[..bytes.len() - 2]);
    assert_eq!(truncated(&cut), (90, 89));
}

/// A file cut inside its header, at every length up to the data.
#[test]
fn file_cut_inside_the_header_is_not_wav() {
    let dir = Scratch::new("cut-header");
    let p = dir.path("full.wav");
    let bytes = hound_file(&p, spec(2, 48_000, 24, false), &[1i32, 2, 3, 4]);
    let data_at = bytes.len() - 4 * 3;
    for len in 1..data_at {
        let cut = dir.path(&format!("cut{len}.wav"));
        write(&cut, &bytes[..len]);
        let e = load_err(&cut);
        assert!(
            matches!(e, SoundError::NotWav { .. }),
            "cut at {len}: {e:?}"
        );
    }
}

/// An unknown chunk whose length runs past the end of the file is a broken
/// file (`NotWav`), not an I/O error.
#[test]
fn chunk_running_past_the_end_is_not_wav() {
    let dir = Scratch::new("long-chunk");
    let mut bytes = b"RIFF\0\0\0\0WAVEjunk".to_vec();
    bytes.extend(0xFFFF_FF00u32.to_le_bytes());
    bytes.extend([0u8; 64]);
    let p = dir.path("long_chunk.wav");
    write(&p, &bytes);
    let e = load_err(&p);
    assert!(matches!(e, SoundError::NotWav { .. }), "{e:?}");
}

#[test]
fn random_bytes_are_not_wav() {
    let dir = Scratch::new("random");
    let mut rng = Rng(0x5EED_0FBA_DF11_E000);
    for i in 0..200 {
        let len = 1 + (rng.next_u64() % 4096) as usize;
        let p = dir.path(&format!("random{i}.wav"));
        write(&p, &rng.bytes(len));
        let e = load_err(&p);
        assert!(matches!(e, SoundError::NotWav { .. }), "{e:?}");
    }
    // Random bytes behind a real RIFF/WAVE header: any error, no panic.
    for i in 0..200 {
        let len = (rng.next_u64() % 512) as usize;
        let mut bytes = b"RIFF\xff\xff\xff\x7fWAVE".to_vec();
        if i % 2 == 0 {
            bytes.extend(b"fmt ");
        }
        bytes.extend(rng.bytes(len));
        let p = dir.path(&format!("riff{i}.wav"));
        write(&p, &bytes);
        let _ = load(&p);
    }
}

#[test]
fn empty_file_is_not_wav() {
    let dir = Scratch::new("empty");
    let p = dir.path("empty.wav");
    write(&p, &[]);
    let e = load_err(&p);
    assert!(matches!(e, SoundError::NotWav { .. }), "{e:?}");
    assert!(e.to_string().contains("empty"), "{e}");
    assert!(matches!(
        Sound::from_wav_bytes(&[]),
        Err(SoundError::NotWav { .. })
    ));
}

#[test]
fn directory_missing_file_and_non_regular_files_are_io_errors() {
    let dir = Scratch::new("paths");
    let e = load_err(dir.dir());
    assert!(matches!(e, SoundError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("directory"), "{e}");

    let missing = dir.path("no_such.wav");
    match load_err(&missing) {
        SoundError::Io { source, .. } => assert_eq!(source.kind(), std::io::ErrorKind::NotFound),
        e => panic!("{e:?}"),
    }

    // A device: refused without reading it.
    let e = load_err(Path::new("/dev/zero"));
    assert!(matches!(e, SoundError::Io { .. }), "{e:?}");

    // A FIFO with no writer: opening it would block forever; it must not.
    let fifo = dir.path("fifo.wav");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.map(|s| s.success()).unwrap_or(false), "mkfifo failed");
    let e = load_err(&fifo);
    assert!(matches!(e, SoundError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("not a regular file"), "{e}");
}
