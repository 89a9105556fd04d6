//! Masking-aware stealing (`EngineSettings::masking`): a voice is worth
//! what of it stays audible above what the *other* voices mask, per
//! critical band. A quiet voice under a loud one in its band goes before an
//! equally quiet voice in a band of its own; a voice never masks itself;
//! and a render with masking on is the same every time.

use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, VoiceHandle};
use voicepool_testkit::common::{noise, render_blocks, sine};

fn engine(voices: usize, masking: bool) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        masking,
        ..Default::default()
    })
    .unwrap()
}

/// The voice stolen when `newcomer`'s play comes into the full pool.
fn stolen(e: &mut OfflineEngine, newcomer: &voicepool::Sound) -> VoiceHandle {
    let mut events = Vec::new();
    render_blocks(e, 20, &mut events); // 200 ms: every level refreshed
    let new = e.play(newcomer, PlayParams::default()).unwrap();
    render_blocks(e, 2, &mut events);
    events
        .iter()
        .find_map(|t| match t.event {
            Event::Stolen { victim, by } if by == new => Some(victim),
            _ => None,
        })
        .expect("a steal")
}

#[test]
fn a_quiet_voice_under_a_loud_one_in_its_band_goes_before_one_in_a_free_band() {
    let looped = PlayParams::default().looping(true);
    let loud = sine(1_000.0, 1.0, 48_000, 0.5);
    // 20 dB under the loud tone, in its critical band (920 to 1080 Hz).
    let under = sine(1_050.0, 1.0, 48_000, 0.05);
    // In a band of its own (6 kHz), a little quieter than `under` as
    // loudness goes (K-weighting hears 6 kHz about 4 dB up).
    let apart = sine(6_000.0, 1.0, 48_000, 0.028);
    let click = noise(2_400, 48_000, 0.3);
    // (masking, which is stolen)
    for (masking, expect_under) in [(true, true), (false, false)] {
        let mut e = engine(3, masking);
        e.play(&loud, looped).unwrap();
        let u = e.play(&under, looped).unwrap();
        let a = e.play(&apart, looped).unwrap();
        let victim = stolen(&mut e, &click);
        let expected = if expect_under { u } else { a };
        assert_eq!(victim, expected, "masking {masking}");
    }
}

/// A mono 16-bit WAV of a tone, in memory.
fn wav_tone(hz: f32, seconds: f32, amp: f32) -> Vec<u8> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 48_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut cur = std::io::Cursor::new(Vec::new());
    let mut w = hound::WavWriter::new(&mut cur, spec).unwrap();
    for i in 0..(seconds * 48_000.0) as usize {
        let x = amp * (i as f32 * hz * std::f32::consts::TAU / 48_000.0).sin();
        w.write_sample((x * 32_767.0) as i16).unwrap();
    }
    w.finalize().unwrap();
    cur.into_inner()
}

#[test]
fn a_streamed_masker_masks_in_its_own_band() {
    // The loud tone streamed (music is): it is heard as spread the way its
    // first second is, so the quiet voice in its band goes first, not the
    // one up high (which an even spread would mask as much).
    let looped = PlayParams::default().looping(true);
    let loud = Sound::stream_bytes(wav_tone(1_000.0, 2.0, 0.5)).unwrap();
    let under = sine(1_050.0, 1.0, 48_000, 0.05);
    let apart = sine(6_000.0, 1.0, 48_000, 0.028);
    let click = noise(2_400, 48_000, 0.3);
    let mut e = engine(3, true);
    e.play(&loud, looped).unwrap();
    let u = e.play(&under, looped).unwrap();
    e.play(&apart, looped).unwrap();
    assert_eq!(stolen(&mut e, &click), u);
}

#[test]
fn a_voice_does_not_mask_itself() {
    let looped = PlayParams::default().looping(true);
    let hiss = noise(48_000, 48_000, 0.3);
    let click = sine(3_000.0, 0.05, 48_000, 0.3);
    // Two copies of one sound, the second 2 dB quieter: it goes first,
    // and the louder is not heard as masked by itself (both would rank
    // near nothing).
    let mut e = engine(2, true);
    let louder = e.play(&hiss, looped).unwrap();
    let quieter = e.play(&hiss, looped.volume(0.8)).unwrap();
    let mut events = Vec::new();
    render_blocks(&mut e, 20, &mut events);
    let level = |h: VoiceHandle| {
        e.slots()
            .iter()
            .find(|s| s.voice == Some(h))
            .map(|s| s.level)
            .unwrap()
    };
    let (l, q) = (level(louder), level(quieter));
    // Alone, the louder would rank at its loudness: as a noise masked by
    // a copy 2 dB under it, it keeps most of it (it masks the copy more).
    let mut alone = engine(2, true);
    let only = alone.play(&hiss, looped).unwrap();
    render_blocks(&mut alone, 20, &mut events);
    let l_alone = alone
        .slots()
        .iter()
        .find(|s| s.voice == Some(only))
        .map(|s| s.level)
        .unwrap();
    assert!(l > 0.5 * l_alone, "louder {l} against {l_alone} alone");
    assert!(q < 0.9 * l, "quieter {q}, louder {l}");
    assert_eq!(stolen(&mut e, &click), quieter);
}

#[test]
fn a_render_with_masking_is_the_same_every_time() {
    let run = || {
        let mut e = engine(8, true);
        let mut out = Vec::new();
        let (mut events, mut plays) = (Vec::new(), Vec::new());
        for k in 0..40u32 {
            let hz = 200.0 + 37.0 * (k % 11) as f32;
            let s = sine(
                hz,
                0.3 + 0.05 * (k % 5) as f32,
                48_000,
                0.1 + 0.02 * (k % 7) as f32,
            );
            plays.push(
                e.play(&s, PlayParams::default().pan((k % 3) as f32 * 0.5 - 0.5))
                    .unwrap(),
            );
            out.extend(render_blocks(&mut e, 3, &mut events));
        }
        // (Two engines number their handles apart: plays by index.)
        let index = |h: VoiceHandle| plays.iter().position(|&p| p == h);
        let steals: Vec<_> = events
            .iter()
            .filter_map(|t| match t.event {
                Event::Stolen { victim, by } => Some((t.frame, index(victim), index(by))),
                _ => None,
            })
            .collect();
        (out, steals)
    };
    let (a, b) = (run(), run());
    assert!(a.1.len() > 10, "{:?}", a.1);
    assert_eq!(a.1, b.1);
    assert!(a
        .0
        .iter()
        .zip(&b.0)
        .all(|(x, y)| x.to_bits() == y.to_bits()));
}
