//! Which voice gets stolen, through the public API, rendered offline.

use voicepool_testkit::common;

use std::time::Duration;

use common::*;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, StealPolicy};

fn engine(voices: usize, policy: StealPolicy) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        steal_policy: policy,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn loud_sound_in_its_silent_tail_is_stolen_before_a_quieter_sound_still_sounding() {
    let mut e = engine(2, StealPolicy::Quietest);
    let quiet = sine(330.0, 2.0, RATE, 0.2);
    let boom = burst_then_silence(0.05, 2.0);
    // The quiet one is older, so "oldest" or "lowest set volume" would both
    // pick it; only measuring what is audible picks the boom.
    let quiet_h = e.play(&quiet, PlayParams::default()).unwrap();
    let boom_h = e.play(&boom, PlayParams::default().volume(1.0)).unwrap();
    render_seconds(&mut e, 0.3); // the boom is 250 ms into its silence
    let new = e.play(&quiet, PlayParams::default()).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: boom_h,
            by: new
        }]
    );
    assert!(e.is_playing(quiet_h));
    assert!(!e.is_playing(boom_h));
}

#[test]
fn while_the_loud_sound_is_still_loud_the_quiet_one_goes() {
    let mut e = engine(2, StealPolicy::Quietest);
    let quiet = sine(330.0, 2.0, RATE, 0.2);
    let boom = burst_then_silence(0.5, 2.0);
    let quiet_h = e.play(&quiet, PlayParams::default()).unwrap();
    let boom_h = e.play(&boom, PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.1); // boom still blaring
    let new = e.play(&quiet, PlayParams::default()).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: quiet_h,
            by: new
        }]
    );
    assert!(e.is_playing(boom_h));
}

#[test]
fn low_volume_voice_is_stolen_before_a_high_volume_one_of_the_same_sound() {
    let mut e = engine(2, StealPolicy::Quietest);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let high = e.play(&s, PlayParams::default().volume(1.0)).unwrap(); // older
    let low = e.play(&s, PlayParams::default().volume(0.3)).unwrap();
    render_seconds(&mut e, 0.1);
    let new = e.play(&s, PlayParams::default()).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: low,
            by: new
        }]
    );
    assert!(e.is_playing(high));
}

#[test]
fn priority_beats_loudness_and_a_lower_priority_newcomer_is_rejected() {
    let mut e = engine(2, StealPolicy::Quietest);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let important_faint = e
        .play(&s, PlayParams::default().priority(200).volume(0.05))
        .unwrap();
    let common_loud = e
        .play(&s, PlayParams::default().priority(100).volume(1.0))
        .unwrap();
    render_seconds(&mut e, 0.1);
    // A newcomer below every playing priority gets nothing.
    let lowly = e.play(&s, PlayParams::default().priority(50)).unwrap();
    // One at least as important as the lowest takes from the lowest tier,
    // even though the faint voice is far quieter.
    let mid = e.play(&s, PlayParams::default().priority(150)).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [
            Event::Rejected { voice: lowly },
            Event::Stolen {
                victim: common_loud,
                by: mid
            }
        ]
    );
    assert!(e.is_playing(important_faint));
    assert!(!e.is_playing(lowly));
}

#[test]
fn protected_voices_survive_and_a_pool_of_only_protected_voices_rejects() {
    let mut e = engine(2, StealPolicy::Quietest);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let music = e
        .play(&s, PlayParams::default().protected(true).volume(0.01))
        .unwrap();
    let sfx = e.play(&s, PlayParams::default().volume(1.0)).unwrap();
    render_seconds(&mut e, 0.1);
    let a = e.play(&s, PlayParams::default().protected(true)).unwrap();
    e.render(480);
    // The faint music is protected; the loud effect goes.
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen { victim: sfx, by: a }]
    );
    render_seconds(&mut e, 0.1);
    // Now both voices are protected: nothing may be stolen, whatever the priority.
    let b = e.play(&s, PlayParams::default().priority(255)).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Rejected { voice: b }]
    );
    assert!(e.is_playing(music) && e.is_playing(a));
    assert_eq!(e.stats().rejections, 1);
    assert_eq!(e.stats().steals, 1);
}

#[test]
fn oldest_policy_steals_the_oldest_whatever_its_level() {
    let mut e = engine(2, StealPolicy::Oldest);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let old_loud = e.play(&s, PlayParams::default().volume(1.0)).unwrap();
    render_seconds(&mut e, 0.05);
    let young_faint = e.play(&s, PlayParams::default().volume(0.05)).unwrap();
    render_seconds(&mut e, 0.1);
    let new = e.play(&s, PlayParams::default()).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: old_loud,
            by: new
        }]
    );
    assert!(e.is_playing(young_faint));
}

#[test]
fn reject_policy_never_steals() {
    let mut e = engine(2, StealPolicy::Reject);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let a = e.play(&s, PlayParams::default()).unwrap();
    let b = e.play(&s, PlayParams::default().volume(0.01)).unwrap();
    render_seconds(&mut e, 0.1);
    let c = e.play(&s, PlayParams::default().priority(255)).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Rejected { voice: c }]
    );
    assert!(e.is_playing(a) && e.is_playing(b) && !e.is_playing(c));
    // Once a voice ends, there is room again.
    e.stop(a).unwrap();
    render_seconds(&mut e, 0.05);
    let d = e.play(&s, PlayParams::default()).unwrap();
    e.render(480);
    let events: Vec<Event> = e.drain_events().collect();
    assert!(events.contains(&Event::Ended { voice: a }));
    assert!(events.contains(&Event::Started { voice: d }));
}

#[test]
fn a_voice_started_a_moment_ago_is_passed_over_while_an_older_one_exists() {
    let mut e = engine(2, StealPolicy::Quietest);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let old_loud = e.play(&s, PlayParams::default().volume(1.0)).unwrap();
    render_seconds(&mut e, 0.2);
    let just_started = e.play(&s, PlayParams::default().volume(0.05)).unwrap();
    e.render(480); // 10 ms old: younger than the 30 ms minimum age
    let new = e.play(&s, PlayParams::default()).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: old_loud,
            by: new
        }]
    );
    // Both voices now young: the quietest of them goes after all.
    let newer = e.play(&s, PlayParams::default()).unwrap();
    e.render(480);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: just_started,
            by: newer
        }]
    );
}

#[test]
fn stolen_event_comes_before_the_new_voice_starts_and_every_play_ends_once() {
    let mut e = engine(1, StealPolicy::Quietest);
    let s = sine(440.0, 0.05, RATE, 0.5);
    let a = e.play(&s, PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.01);
    let b = e.play(&s, PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.2);
    let events: Vec<Event> = e.drain_events().collect();
    assert_eq!(
        events,
        [
            Event::Started { voice: a },
            Event::Stolen { victim: a, by: b },
            Event::Started { voice: b },
            Event::Ended { voice: b },
        ]
    );
}

#[test]
fn a_stale_handle_does_not_touch_the_new_occupant_of_its_slot() {
    let mut e = engine(1, StealPolicy::Quietest);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let old = e.play(&s, PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.1);
    let new = e.play(&s, PlayParams::default()).unwrap(); // takes old's slot
    render_seconds(&mut e, 0.1);
    assert!(!e.is_playing(old));
    e.stop(old).unwrap();
    e.set_volume(old, 0.0).unwrap();
    e.set_pitch(old, 4.0).unwrap();
    let out = render_seconds(&mut e, 0.2);
    assert!(e.is_playing(new));
    let peak = out.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    assert!(
        peak > 0.3,
        "new voice silenced by a stale handle: peak {peak}"
    );
    assert!(!e.drain_events().any(|ev| ev == Event::Ended { voice: new }));
}

/// Largest sample-to-sample step in the left channel around a steal of a
/// full-scale voice by a silent one, with the given steal fade.
fn step_at_steal(steal_fade: Duration) -> f32 {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 1,
        steal_fade,
        ..Default::default()
    })
    .unwrap();
    // 100 Hz at 0.8 (below the limiter): the wave itself never steps more
    // than 0.8 * 2 * pi * 100 / 48000 = 0.0105 per sample.
    let loud = sine(100.0, 2.0, RATE, 0.8);
    let silence = dc(1.0, RATE, 0.0);
    e.play(&loud, PlayParams::default().pan(-1.0)).unwrap();
    let mut out = e.render(4_920).to_vec(); // 102.5 ms: the wave is at a peak
    e.play(&silence, PlayParams::default()).unwrap();
    out.extend_from_slice(e.render(960));
    assert_eq!(e.stats().steals, 1);
    out.chunks(2)
        .map(|f| f[0])
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max)
}

#[test]
fn stealing_a_full_scale_voice_does_not_click() {
    let faded = step_at_steal(Duration::from_millis(5));
    let hard_cut = step_at_steal(Duration::ZERO);
    assert!(
        hard_cut > 0.5,
        "the reference hard cut should click: {hard_cut}"
    );
    assert!(faded < 0.02, "steal produced a step of {faded}");
}

fn busy_script() -> Vec<f32> {
    let mut e = engine(6, StealPolicy::Quietest);
    let sounds = [
        sine(440.0, 0.3, 44_100, 0.7),
        burst_then_silence(0.02, 0.4),
        sine(660.0, 1.0, 22_050, 0.3),
    ];
    let mut out = Vec::new();
    for i in 0..200u32 {
        let s = &sounds[(i % 3) as usize];
        let h = e
            .play(
                s,
                PlayParams::default()
                    .volume(0.2 + (i % 5) as f32 * 0.2)
                    .pan((i % 7) as f32 / 3.0 - 1.0)
                    .pitch(0.5 + (i % 4) as f32 * 0.4)
                    .priority((i % 3) as u8 * 60)
                    .looping(i % 11 == 0),
            )
            .unwrap();
        if i % 4 == 0 {
            e.set_volume(h, 0.5).unwrap();
        }
        if i % 13 == 0 {
            e.stop(h).unwrap();
        }
        out.extend_from_slice(e.render(97 + (i as usize * 37) % 500));
    }
    out
}

#[test]
fn the_same_script_renders_bit_identically() {
    let a = busy_script();
    let b = busy_script();
    assert!(a.iter().any(|&s| s != 0.0));
    assert_eq!(a.len(), b.len());
    assert!(
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
        "two renders of one script differ"
    );
}

#[test]
fn a_burst_in_one_block_does_not_steal_its_own_new_voices_while_older_ones_exist() {
    let mut e = engine(4, StealPolicy::Quietest);
    let s = sine(440.0, 2.0, RATE, 0.5);
    let old: Vec<_> = (0..4)
        .map(|i| {
            e.play(&s, PlayParams::default().volume(0.2 + 0.2 * i as f32))
                .unwrap()
        })
        .collect();
    render_seconds(&mut e, 0.2);
    // Three plays land in the same block: each must take an old voice.
    let burst: Vec<_> = (0..3)
        .map(|_| e.play(&s, PlayParams::default().volume(0.05)).unwrap())
        .collect();
    e.render(480);
    let victims: Vec<_> = steals_and_rejections(e.drain_events())
        .into_iter()
        .map(|ev| match ev {
            Event::Stolen { victim, .. } => victim,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    // The quietest three of the old voices, quietest first.
    assert_eq!(victims, old[..3]);
    assert!(burst.iter().all(|h| e.is_playing(*h)));
}
