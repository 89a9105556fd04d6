//! One voice: pause and resume at the exact position, stop with a fade of
//! its own, volume fades that reach their target on time and smoothly, and
//! paused voices ranked for stealing by what they will play.

use voicepool_testkit::common;

use std::time::Duration;

use common::*;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, TimedEvent};

fn engine(voices: usize) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        ..Default::default()
    })
    .unwrap()
}

fn largest_step(x: &[f32]) -> f32 {
    x.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max)
}

fn ended_at(events: &[TimedEvent]) -> Vec<u64> {
    events
        .iter()
        .filter(|e| matches!(e.event, Event::Ended { .. }))
        .map(|e| e.frame)
        .collect()
}

#[test]
fn a_paused_voice_resumes_at_the_exact_sample_and_ends_on_time() {
    let fade = 240; // EngineSettings::pause_fade, 5 ms
    let frames = 48_000;
    let saw: Vec<f32> = (0..frames)
        .map(|k| k as f32 / frames as f32 * 0.8)
        .collect();
    let sound = Sound::from_samples(1, RATE, saw.clone()).unwrap();
    let mut e = engine(4);
    let h = e.play(&sound, PlayParams::default().pan(-1.0)).unwrap();
    let p = 9_600;
    let mut out = e.render(p).to_vec();
    e.pause(h).unwrap();
    out.extend(render_seconds(&mut e, 2.0)); // far past the sound's length
    assert!(e.is_playing(h));
    let r = out.len() / 2;
    e.resume(h).unwrap();
    out.extend(render_seconds(&mut e, 1.0));
    let l = channel(&out, 0);
    assert!(l[p + fade..r].iter().all(|&x| x == 0.0));
    assert!(largest_step(&l[p - 1..p + fade + 1]) < 0.8 / fade as f32);
    // Held after one fade; one more fade in, then the sound exactly.
    let from = p + 2 * fade;
    assert!(l[r + fade..r + fade + (frames - from)] == saw[from..]);
    // It ends when what was left of it has played.
    let events = e.drain_timed_events();
    assert_eq!(
        ended_at(&events),
        [(r + fade + frames - from) as u64],
        "{events:?}"
    );
}

#[test]
fn stop_with_fade_ends_on_time_and_falls_smoothly() {
    for ms in [0u64, 20, 500] {
        let mut e = engine(4);
        let h = e
            .play(
                &dc(2.0, RATE, 0.5),
                PlayParams::default().looping(true).pan(-1.0),
            )
            .unwrap();
        render_seconds(&mut e, 0.1);
        e.stop_with_fade(h, Duration::from_millis(ms)).unwrap();
        let l = channel(&render_seconds(&mut e, 0.6), 0);
        let fade = (ms * 48) as usize;
        assert!(
            largest_step(&l) <= 0.5 / fade.max(1) as f32 + 1e-6,
            "{ms} ms"
        );
        assert!(l[fade..].iter().all(|&x| x == 0.0), "{ms} ms");
        let events = e.drain_timed_events();
        assert_eq!(ended_at(&events), [4_800 + fade as u64], "{ms} ms");
    }
}

#[test]
fn fade_volume_reaches_its_target_on_time_and_smoothly() {
    // (from, to, fade): down, up, and a fade that replaces a slower one.
    for (from, to, ms) in [(1.0f32, 0.2f32, 1_000u64), (0.1, 0.9, 300), (1.0, 0.0, 50)] {
        let mut e = engine(4);
        let h = e
            .play(
                &dc(3.0, RATE, 0.5),
                PlayParams::default().volume(from).pan(-1.0),
            )
            .unwrap();
        render_seconds(&mut e, 0.1);
        e.fade_volume(h, 0.7, Duration::from_secs(10)).unwrap();
        e.fade_volume(h, to, Duration::from_millis(ms)).unwrap();
        let l = channel(&render_seconds(&mut e, 1.5), 0);
        let fade = (ms * 48) as usize;
        let step = 0.5 * (to - from).abs() / fade as f32;
        assert!((l[0] - 0.5 * from).abs() < 1e-6, "{from}->{to}");
        assert!(largest_step(&l) <= step * 1.01 + 1e-7, "{from}->{to}");
        assert!(
            l[fade..].iter().all(|&x| (x - 0.5 * to).abs() < 1e-6),
            "{from}->{to}"
        );
        assert!((l[fade / 2] - 0.25 * (from + to)).abs() < 0.01);
    }
}

#[test]
fn a_paused_voice_ranks_by_what_it_will_play_when_resumed() {
    let mut e = engine(2);
    let tone = sine(440.0, 3.0, RATE, 0.5);
    let paused = e.play(&tone, PlayParams::default()).unwrap();
    let faint = e.play(&tone, PlayParams::default().volume(0.05)).unwrap();
    render_seconds(&mut e, 0.1);
    e.pause(paused).unwrap();
    render_seconds(&mut e, 0.5);
    let new = e.play(&tone, PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.01);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: faint,
            by: new
        }]
    );
    assert!(e.is_playing(paused));
}

#[test]
fn stopping_a_paused_voice_ends_it_at_once_and_setters_wait_for_the_resume() {
    let mut e = engine(2);
    let a = e
        .play(&dc(2.0, RATE, 0.5), PlayParams::default().pan(-1.0))
        .unwrap();
    let b = e
        .play(&dc(2.0, RATE, 0.5), PlayParams::default().pan(-1.0))
        .unwrap();
    render_seconds(&mut e, 0.1);
    e.pause(a).unwrap();
    e.pause(b).unwrap();
    render_seconds(&mut e, 0.1);
    e.stop(a).unwrap();
    e.set_volume(b, 0.5).unwrap();
    e.render(480);
    let events = e.drain_timed_events();
    assert_eq!(ended_at(&events), [9_600]);
    // Resumed, b heads for its new volume.
    e.resume(b).unwrap();
    let l = channel(&render_seconds(&mut e, 0.1), 0);
    assert!(l[480..].iter().all(|&x| (x - 0.25).abs() < 1e-6));
    // A second resume, or a pause of a stale handle, changes nothing.
    e.resume(b).unwrap();
    e.pause(a).unwrap();
    let l = channel(&render_seconds(&mut e, 0.05), 0);
    assert!(l.iter().all(|&x| (x - 0.25).abs() < 1e-6));
}

#[test]
fn a_voice_paused_before_it_is_heard_holds_its_start() {
    // Paused in the block it starts, still silent in its fade-in: it must
    // not move on unheard; resumed, it plays from its first sample (the
    // rest of the fade-in first).
    let frames = 48_000;
    let saw: Vec<f32> = (0..frames)
        .map(|k| k as f32 / frames as f32 * 0.8)
        .collect();
    let sound = Sound::from_samples(1, RATE, saw.clone()).unwrap();
    let mut e = engine(2);
    let h = e
        .play(&sound, PlayParams::default().pan(-1.0).fade_in(0.1))
        .unwrap();
    e.pause(h).unwrap();
    let held = channel(&render_seconds(&mut e, 0.5), 0);
    assert!(held.iter().all(|&x| x == 0.0));
    e.resume(h).unwrap();
    let l = channel(&render_seconds(&mut e, 0.5), 0);
    assert!(l[4_800..20_000] == saw[4_800..20_000]);
}
