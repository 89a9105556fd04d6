//! Sounds keep their length and pitch through rate conversion; pan places them.

use voicepool_testkit::common;

use common::*;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, TimedEvent};

fn engine() -> OfflineEngine {
    OfflineEngine::new(EngineSettings::default()).unwrap()
}

/// Frames from the start until the voice's `Ended` event, and the rendered
/// left channel.
fn play_to_end(sound: &Sound, params: PlayParams) -> (u64, Vec<f32>) {
    let mut e = engine();
    let h = e.play(sound, params).unwrap();
    let out = render_seconds(&mut e, 3.0);
    let ended: Vec<TimedEvent> = e
        .drain_timed_events()
        .into_iter()
        .filter(|t| t.event == Event::Ended { voice: h })
        .collect();
    assert_eq!(ended.len(), 1, "voice never ended");
    (ended[0].frame, out.chunks(2).map(|f| f[0]).collect())
}

fn last_nonzero(left: &[f32]) -> usize {
    left.iter().rposition(|&s| s != 0.0).map_or(0, |i| i + 1)
}

/// Upward zero crossings per second over `left[from..to]`.
fn frequency(left: &[f32], from: usize, to: usize) -> f32 {
    let ups = left[from..to]
        .windows(2)
        .filter(|w| w[0] < 0.0 && w[1] >= 0.0)
        .count();
    ups as f32 * RATE as f32 / (to - from) as f32
}

#[test]
fn a_one_second_44k1_sound_lasts_one_second_at_48k() {
    let s = dc(1.0, 44_100, 0.5);
    let (end_block, left) = play_to_end(&s, PlayParams::default());
    let audible = last_nonzero(&left);
    assert!(
        (47_998..=48_002).contains(&audible),
        "lasted {audible} frames at 48 kHz"
    );
    // Ended is reported in the block where it happened (480-frame blocks).
    assert!(
        (48_000..=48_480).contains(&end_block),
        "ended at {end_block}"
    );
}

#[test]
fn pitch_two_halves_the_length_and_doubles_the_frequency() {
    let s = sine(441.0, 1.0, 44_100, 0.5);
    let (_, normal) = play_to_end(&s, PlayParams::default());
    let (_, fast) = play_to_end(&s, PlayParams::default().pitch(2.0));
    let (n_len, f_len) = (last_nonzero(&normal), last_nonzero(&fast));
    assert!((47_990..=48_002).contains(&n_len), "normal length {n_len}");
    assert!((23_990..=24_002).contains(&f_len), "pitch-2 length {f_len}");
    let f1 = frequency(&normal, 0, 47_000);
    let f2 = frequency(&fast, 0, 23_500);
    assert!((f1 - 441.0).abs() < 2.0, "pitch 1.0 plays {f1} Hz");
    assert!((f2 - 882.0).abs() < 4.0, "pitch 2.0 plays {f2} Hz");
}

#[test]
fn pitch_changed_while_playing_takes_effect() {
    let s = sine(441.0, 2.0, 44_100, 0.5);
    let mut e = engine();
    let h = e.play(&s, PlayParams::default()).unwrap();
    let before: Vec<f32> = render_seconds(&mut e, 0.5)
        .chunks(2)
        .map(|f| f[0])
        .collect();
    e.set_pitch(h, 0.5).unwrap();
    let after: Vec<f32> = render_seconds(&mut e, 0.5)
        .chunks(2)
        .map(|f| f[0])
        .collect();
    let (f1, f2) = (frequency(&before, 0, 24_000), frequency(&after, 0, 24_000));
    assert!((f1 - 441.0).abs() < 3.0, "{f1}");
    assert!((f2 - 220.5).abs() < 3.0, "{f2}");
}

#[test]
fn pan_hard_left_leaves_the_right_channel_silent_and_vice_versa() {
    let s = sine(440.0, 0.5, RATE, 0.8);
    for (pan, silent, loud) in [(-1.0, 1, 0), (1.0, 0, 1)] {
        let mut e = engine();
        e.play(&s, PlayParams::default().pan(pan)).unwrap();
        let out = render_seconds(&mut e, 0.3);
        assert!(out.chunks(2).all(|f| f[silent] == 0.0), "pan {pan}");
        let peak = out.chunks(2).fold(0.0f32, |m, f| m.max(f[loud].abs()));
        assert!((peak - 0.8).abs() < 0.01, "pan {pan}: peak {peak}");
    }
}

#[test]
fn centre_pan_is_constant_power() {
    let s = dc(0.2, RATE, 0.5);
    let mut e = engine();
    e.play(&s, PlayParams::default()).unwrap();
    let out = e.render(480).to_vec();
    let (l, r) = (out[200], out[201]);
    assert_eq!(l, r);
    assert!(((l * l + r * r).sqrt() - 0.5).abs() < 1e-5);
}

#[test]
fn a_stereo_sound_keeps_its_channels() {
    let frames = 4_800;
    let mut s = Vec::with_capacity(frames * 2);
    for _ in 0..frames {
        s.extend([0.5, -0.25]);
    }
    let sound = Sound::from_samples(2, RATE, s).unwrap();
    let mut e = engine();
    e.play(&sound, PlayParams::default()).unwrap();
    let out = e.render(480).to_vec();
    assert_eq!((out[100], out[101]), (0.5, -0.25));
}

#[test]
fn a_looping_sound_plays_on_until_stopped_then_fades_and_ends() {
    let s = sine(441.0, 0.1, 44_100, 0.5);
    let mut e = engine();
    let h = e.play(&s, PlayParams::default().looping(true)).unwrap();
    let out: Vec<f32> = render_seconds(&mut e, 1.0)
        .chunks(2)
        .map(|f| f[0])
        .collect();
    assert!(e.is_playing(h));
    // Still sounding at the end of a second, at the same frequency.
    let f = frequency(&out, 0, out.len());
    assert!((f - 441.0).abs() < 3.0, "looped frequency {f}");
    let tail_peak = out[out.len() - 480..]
        .iter()
        .fold(0.0f32, |m, s| m.max(s.abs()));
    assert!(tail_peak > 0.3);
    e.stop(h).unwrap();
    let faded: Vec<f32> = render_seconds(&mut e, 0.05)
        .chunks(2)
        .map(|f| f[0])
        .collect();
    assert!(!e.is_playing(h));
    // The 10 ms stop fade: no sound after it, no jump into it.
    assert!(faded[480..].iter().all(|&s| s == 0.0));
    let jump = faded
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max);
    assert!(jump < 0.05, "stop jumped by {jump}");
}

#[test]
fn volume_changes_ramp_instead_of_jumping() {
    let s = dc(1.0, RATE, 0.5);
    let mut e = engine();
    let h = e.play(&s, PlayParams::default().pan(-1.0)).unwrap();
    e.render(480);
    e.set_volume(h, 0.0).unwrap();
    let out: Vec<f32> = e.render(960).chunks(2).map(|f| f[0]).collect();
    // 10 ms ramp from 0.5 to 0 over 480 frames.
    let jump = out
        .windows(2)
        .map(|w| (w[0] - w[1]).abs())
        .fold(0.0, f32::max);
    assert!(jump < 0.01, "volume change jumped by {jump}");
    assert!(out[0] > 0.49 && out[479].abs() < 0.01 && out[500] == 0.0);
}
