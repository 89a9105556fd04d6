//! Files with more than two channels, downmixed to stereo at load: where
//! each channel of 3.0, quad, 5.1 and 7.1 lands (WAV, FLAC, OGG Vorbis), an
//! exact 5.1 mix, and a WAV's channel mask. Files made with sox at test
//! time.

use voicepool_testkit::support;

use support::codecs::{channel, load, rms, s, Gains};
use support::{sox, Scratch};
use voicepool::Sound;

/// Each channel of a 3, 4 (quad), 6 (5.1) and 8 (7.1) channel file alone
/// carries a tone: where it lands in the stereo downmix, as WAV (sox's
/// extensible header with its channel mask), FLAC and OGG Vorbis (the same
/// channels in Vorbis's own order).
#[test]
fn surround_channels_land_where_bs775_puts_them() {
    const H: f64 = std::f64::consts::FRAC_1_SQRT_2;
    let dir = Scratch::new("layouts");
    let tone = dir.path("tone.wav");
    let silence = dir.path("silence.wav");
    sox(&[
        "-D",
        "-r",
        "48000",
        "-n",
        "-b",
        "16",
        "-c",
        "1",
        s(&tone),
        "synth",
        "4800s",
        "sine",
        "1000",
        "gain",
        "-6",
    ]);
    sox(&[
        "-D",
        "-r",
        "48000",
        "-n",
        "-b",
        "16",
        "-c",
        "1",
        s(&silence),
        "trim",
        "0",
        "4800s",
    ]);
    let tone_rms = rms(&channel(
        Sound::from_wav_file(&tone).unwrap().samples(),
        1,
        0,
    ));
    // (layout, (left, right) gain of each channel in WAV order, the
    // channels in Vorbis order as sox remix numbers them)
    let layouts: &[(&str, &[Gains], &str)] = &[
        ("3.0", &[(1.0, 0.0), (0.0, 1.0), (H, H)], "1 3 2"),
        (
            "quad",
            &[(1.0, 0.0), (0.0, 1.0), (H, 0.0), (0.0, H)],
            "1 2 3 4",
        ),
        (
            "5.1",
            &[
                (1.0, 0.0),
                (0.0, 1.0),
                (H, H),
                (0.0, 0.0),
                (H, 0.0),
                (0.0, H),
            ],
            "1 3 2 5 6 4",
        ),
        (
            "7.1",
            &[
                (1.0, 0.0),
                (0.0, 1.0),
                (H, H),
                (0.0, 0.0),
                (H, 0.0),
                (0.0, H),
                (H, 0.0),
                (0.0, H),
            ],
            "1 3 2 7 8 5 6 4",
        ),
    ];
    for &(layout, gains, vorbis_order) in layouts {
        for (k, &(want_l, want_r)) in gains.iter().enumerate() {
            let wav = dir.path(&format!("{layout}-{k}.wav"));
            let mut args = vec!["-D", "-M"];
            for c in 0..gains.len() {
                args.push(if c == k { s(&tone) } else { s(&silence) });
            }
            args.push(s(&wav));
            sox(&args);
            let flac = dir.path(&format!("{layout}-{k}.flac"));
            sox(&[s(&wav), s(&flac)]);
            let ogg = dir.path(&format!("{layout}-{k}.ogg"));
            let mut remix = vec!["-D", s(&wav), "-C", "8", s(&ogg), "remix"];
            remix.extend(vorbis_order.split(' '));
            sox(&remix);
            for (file, tolerance) in [(&wav, 1e-4), (&flac, 1e-4), (&ogg, 0.02)] {
                let sound = load(file).unwrap_or_else(|e| panic!("{e}"));
                let what = format!("{layout}, channel {k} alone, {}", file.display());
                assert_eq!((sound.channels(), sound.frames()), (2, 4_800), "{what}");
                let l = rms(&channel(sound.samples(), 2, 0)) / tone_rms;
                let r = rms(&channel(sound.samples(), 2, 1)) / tone_rms;
                assert!(
                    (l - want_l).abs() < tolerance && (r - want_r).abs() < tolerance,
                    "{what}: left {l:.4}, right {r:.4}, want {want_l:.4}, {want_r:.4}"
                );
            }
        }
    }
}

/// A 5.1 file with a different signal in every channel: the downmix is
/// exactly `L = FL + 0.7071 C + 0.7071 Ls`, `R = FR + 0.7071 C + 0.7071 Rs`
/// (LFE dropped), and the FLAC of it gives the same samples as the WAV.
#[test]
fn a_five_one_mix_is_exact() {
    let dir = Scratch::new("five-one");
    let wav = dir.path("mix.wav");
    sox(&[
        "-r",
        "44100",
        "-n",
        "-b",
        "16",
        "-c",
        "6",
        s(&wav),
        "synth",
        "0.2",
        "sine",
        "300:3000",
        "sine",
        "3000:300",
        "sine",
        "440",
        "sine",
        "50",
        "square",
        "220",
        "triangle",
        "330",
        "gain",
        "-3",
    ]);
    let flac = dir.path("mix.flac");
    sox(&[s(&wav), s(&flac)]);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let expected: Vec<f32> = support::sox_samples(&wav)
        .chunks_exact(6)
        .flat_map(|f| [f[0] + h * f[2] + h * f[4], f[1] + h * f[2] + h * f[5]])
        .collect();
    let from_wav = load(&wav).unwrap();
    let from_flac = load(&flac).unwrap();
    assert_eq!(from_wav.samples(), from_flac.samples());
    assert_eq!(from_wav.samples().len(), expected.len());
    for (i, (got, want)) in from_wav.samples().iter().zip(&expected).enumerate() {
        assert!((got - want).abs() < 1e-6, "sample {i}: {got} vs {want}");
    }
}

/// A WAV's extensible channel mask decides where each channel goes: its
/// set bits name the channels in order; channels past them alternate left
/// and right; no mask means the standard order.
#[test]
fn the_wav_channel_mask_is_honoured() {
    const H: f64 = std::f64::consts::FRAC_1_SQRT_2;
    let dir = Scratch::new("mask");
    let base = dir.path("base.wav");
    // A tone in channel 0 of 6, silence in channels 1 to 5, mask 0x3F.
    sox(&[
        "-D",
        "-r",
        "48000",
        "-n",
        "-b",
        "16",
        "-c",
        "6",
        s(&base),
        "synth",
        "4800s",
        "sine",
        "1000",
        "sine",
        "0",
        "sine",
        "0",
        "sine",
        "0",
        "sine",
        "0",
        "sine",
        "0",
        "gain",
        "-6",
    ]);
    let bytes = std::fs::read(&base).unwrap();
    assert_eq!(
        &bytes[40..44],
        &0x3Fu32.to_le_bytes(),
        "sox's mask, at its place"
    );
    let reference = load(&base).unwrap();
    let level = rms(&channel(reference.samples(), 2, 0));
    // (mask, where channel 0 lands)
    let rows: &[(u32, Gains)] = &[
        (0x3F, (1.0, 0.0)), // front left
        (0x7E, (0.0, 1.0)), // front right first: FR FC LFE BL BR FLC
        (0x3C, (H, H)),     // front centre first: FC LFE BL BR + 2 unknown
        (0x38, (0.0, 0.0)), // LFE first: dropped
        (0x0, (1.0, 0.0)),  // no mask: the standard order
        (0x600, (H, 0.0)),  // only SL SR named: channel 0 is SL
    ];
    for &(mask, (want_l, want_r)) in rows {
        let mut m = bytes.clone();
        m[40..44].copy_from_slice(&mask.to_le_bytes());
        let path = dir.path(&format!("mask-{mask:x}.wav"));
        std::fs::write(&path, &m).unwrap();
        let sound = load(&path).unwrap();
        let l = rms(&channel(sound.samples(), 2, 0)) / level;
        let r = rms(&channel(sound.samples(), 2, 1)) / level;
        assert!(
            (l - want_l).abs() < 1e-4 && (r - want_r).abs() < 1e-4,
            "mask {mask:#x}: left {l:.4} right {r:.4}"
        );
    }
}
