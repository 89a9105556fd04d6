//! Groups: instance limits, stealing within a full group only, retrigger
//! intervals, and what they do for a busy scene (rendered offline).

use voicepool_testkit::common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;
use voicepool::{
    EngineSettings, Event, GroupHandle, GroupSettings, OfflineEngine, PlayError, PlayParams, Sound,
    StealPolicy, TimedEvent, VoiceHandle,
};

fn engine(voices: usize) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        ..Default::default()
    })
    .unwrap()
}

/// Live members of `group` per the engine's slots.
fn members(e: &OfflineEngine, group: GroupHandle) -> usize {
    e.slots()
        .iter()
        .filter_map(|s| s.voice)
        .filter(|&v| e.voice_info(v).and_then(|i| i.group) == Some(group))
        .count()
}

#[test]
fn a_group_never_exceeds_its_limit_over_a_burst() {
    for policy in [
        StealPolicy::Quietest,
        StealPolicy::Oldest,
        StealPolicy::Reject,
    ] {
        let mut e = engine(16);
        let guns = e
            .create_group(GroupSettings {
                max_voices: 4,
                policy,
                ..Default::default()
            })
            .unwrap();
        let shot = burst_then_silence(0.05, 0.4);
        let mut most = 0;
        // 40 shots in 2 s, three in some blocks.
        for i in 0..40 {
            for _ in 0..(1 + i % 3) {
                e.play(&shot, PlayParams::default().group(guns).volume(0.3))
                    .unwrap();
            }
            e.render(2_400 / 2);
            most = most.max(members(&e, guns));
            assert!(e.stats().active_voices <= 16);
        }
        assert_eq!(most, 4, "{policy:?}");
        let st = e.stats();
        assert!(st.limited > 30, "{policy:?} {st:?}");
        if policy == StealPolicy::Reject {
            assert_eq!(st.steals, 0, "{st:?}");
        }
        e.check_invariants().unwrap();
    }
}

#[test]
fn a_full_group_steals_only_its_own_members() {
    // A pool with room, and quiet ungrouped voices that pool-wide stealing
    // would take first: the full group must take its own member instead.
    let mut e = engine(8);
    let guns = e
        .create_group(GroupSettings {
            max_voices: 2,
            policy: StealPolicy::Quietest,
            ..Default::default()
        })
        .unwrap();
    let hum = sine(220.0, 2.0, RATE, 0.5);
    let shot = sine(880.0, 2.0, RATE, 0.8);
    let quiet: Vec<VoiceHandle> = (0..5)
        .map(|_| {
            e.play(&hum, PlayParams::default().volume(0.01).looping(true))
                .unwrap()
        })
        .collect();
    let loud = e.play(&shot, PlayParams::default().group(guns)).unwrap();
    let soft = e
        .play(&shot, PlayParams::default().group(guns).volume(0.2))
        .unwrap();
    render_seconds(&mut e, 0.1);
    let new = e.play(&shot, PlayParams::default().group(guns)).unwrap();
    render_seconds(&mut e, 0.02);
    let stolen = steals_and_rejections(e.drain_events());
    assert_eq!(
        stolen,
        [Event::Stolen {
            victim: soft,
            by: new
        }]
    );
    assert!(quiet.iter().all(|&h| e.is_playing(h)) && e.is_playing(loud));
    assert_eq!(e.stats().limited, 1);
}

#[test]
fn a_group_below_its_limit_follows_the_pools_rules() {
    let mut e = engine(3);
    let guns = e
        .create_group(GroupSettings {
            max_voices: 2,
            ..Default::default()
        })
        .unwrap();
    let tone = sine(440.0, 2.0, RATE, 0.5);
    let faint = e.play(&tone, PlayParams::default().volume(0.05)).unwrap();
    e.play(&tone, PlayParams::default()).unwrap();
    e.play(&tone, PlayParams::default()).unwrap();
    render_seconds(&mut e, 0.1);
    let shot = e.play(&tone, PlayParams::default().group(guns)).unwrap();
    render_seconds(&mut e, 0.02);
    assert_eq!(
        steals_and_rejections(e.drain_events()),
        [Event::Stolen {
            victim: faint,
            by: shot
        }]
    );
    assert_eq!(e.stats().limited, 0);
}

#[test]
fn min_interval_counts_from_the_last_accepted_start() {
    // Plays every 30 ms into a group with a 50 ms interval: a play is
    // accepted when 50 ms have passed since the last *accepted* one.
    let mut e = engine(32);
    let steps = e
        .create_group(GroupSettings {
            min_interval: Duration::from_millis(50),
            ..Default::default()
        })
        .unwrap();
    let step = sine(300.0, 0.05, RATE, 0.3);
    let mut plays = Vec::new();
    for i in 0..10u64 {
        plays.push((
            i * 30,
            e.play(&step, PlayParams::default().group(steps)).unwrap(),
        ));
        e.render(1_440); // 30 ms
    }
    let accepted: Vec<u64> = e
        .drain_events()
        .filter_map(|ev| match ev {
            Event::Started { voice } => plays.iter().find(|p| p.1 == voice).map(|p| p.0),
            _ => None,
        })
        .collect();
    assert_eq!(accepted, [0, 60, 120, 180, 240]);
    assert_eq!(e.stats().rejections, 5);
    assert_eq!(e.stats().limited, 5);
}

#[test]
fn group_settings_are_checked_and_the_number_of_groups_is_fixed() {
    let e = OfflineEngine::new(EngineSettings {
        groups: 2,
        ..Default::default()
    })
    .unwrap();
    assert!(matches!(
        e.create_group(GroupSettings {
            max_voices: 0,
            ..Default::default()
        }),
        Err(PlayError::Invalid {
            name: "max_voices",
            ..
        })
    ));
    let a = e.create_group(GroupSettings::default()).unwrap();
    let b = e.create_group(GroupSettings::default()).unwrap();
    assert_ne!(a, b);
    assert_eq!(
        e.create_group(GroupSettings::default()),
        Err(PlayError::TooManyGroups { max: 2 })
    );
    // Another engine's group is refused by play, and uses no handle.
    let other = engine(4);
    let tone = sine(440.0, 0.1, RATE, 0.5);
    assert_eq!(
        other.play(&tone, PlayParams::default().group(a)),
        Err(PlayError::ForeignHandle)
    );
}

/// The new user's shooter scene: music, footsteps every 300 ms, a 40-shot
/// machine-gun burst in 2 s and explosions, into 8 voices.
fn shooter_scene(with_groups: bool) -> (Vec<TimedEvent>, HashMap<VoiceHandle, &'static str>) {
    let mut e = engine(8);
    let (guns, steps) = if with_groups {
        let guns = e
            .create_group(GroupSettings {
                max_voices: 4,
                policy: StealPolicy::Oldest,
                ..Default::default()
            })
            .unwrap();
        let steps = e
            .create_group(GroupSettings {
                max_voices: 2,
                min_interval: Duration::from_millis(50),
                ..Default::default()
            })
            .unwrap();
        (Some(guns), Some(steps))
    } else {
        (None, None)
    };
    let with = |p: PlayParams, g: Option<GroupHandle>| match g {
        Some(g) => p.group(g),
        None => p,
    };
    let music = sine(110.0, 4.0, RATE, 0.3);
    let step: Sound = burst_then_silence(0.08, 0.25);
    let shot: Sound = burst_then_silence(0.04, 0.6);
    let boom: Sound = burst_then_silence(0.3, 1.5);
    let mut names = HashMap::new();
    let h = e
        .play(&music, PlayParams::default().looping(true).protected(true))
        .unwrap();
    names.insert(h, "music");
    for block in 0..300u32 {
        let ms = block * 10;
        if ms % 300 == 0 {
            let p = with(PlayParams::default().volume(0.5), steps);
            names.insert(e.play(&step, p).unwrap(), "step");
        }
        if (500..2_500).contains(&ms) && ms % 50 == 0 {
            let p = with(PlayParams::default(), guns);
            names.insert(e.play(&shot, p).unwrap(), "shot");
        }
        if ms == 800 || ms == 1_900 {
            names.insert(e.play(&boom, PlayParams::default()).unwrap(), "boom");
        }
        e.render(480);
    }
    e.check_invariants().unwrap();
    (e.drain_timed_events(), names)
}

#[test]
fn a_grouped_burst_no_longer_starves_ungrouped_footsteps() {
    let outcome = |with_groups| {
        let (events, names) = shooter_scene(with_groups);
        let mut lost_steps = 0;
        let mut shot_by_shot = 0;
        for ev in &events {
            match ev.event {
                Event::Rejected { voice } if names[&voice] == "step" => lost_steps += 1,
                Event::Stolen { victim, by } => {
                    if names[&victim] == "step" {
                        lost_steps += 1;
                    }
                    if names[&victim] == "shot" && names[&by] == "shot" {
                        shot_by_shot += 1;
                    }
                }
                _ => {}
            }
        }
        (lost_steps, shot_by_shot)
    };
    let (lost_without, _) = outcome(false);
    let (lost_with, shots_with) = outcome(true);
    // Without groups the burst fills the pool and footsteps go; with the
    // guns limited to 4 voices, every footstep plays out.
    assert!(
        lost_without > 0,
        "the scene must starve footsteps without groups"
    );
    assert_eq!(lost_with, 0);
    assert!(
        shots_with > 0,
        "the gun group limits itself by stealing its own shots"
    );
}

/// `min_interval` is measured between the frames members start at, not
/// the frames their commands were taken: scheduled starts count where they
/// are scheduled.
#[test]
fn min_interval_counts_in_start_frames() {
    let interval = Duration::from_millis(50); // 2,400 frames
                                              // (start frames of each play, sent in this order before one block; and
                                              // which are accepted)
    let cases: [(&[u64], &[bool]); 4] = [
        // A second apart, sent together: both sound.
        (&[48_000, 96_000], &[true, true]),
        // Scheduled for 48,480, then one for 48,000: 480 frames apart.
        (&[48_480, 48_000], &[true, false]),
        // Scheduled in reverse, 3,000 apart: both.
        (&[51_000, 48_000], &[true, true]),
        // Three at 100 frames apart: only the first.
        (&[48_000, 48_100, 48_200], &[true, false, false]),
    ];
    for (starts, accepted) in cases {
        let mut e = engine(8);
        let hits = e
            .create_group(GroupSettings {
                min_interval: interval,
                ..Default::default()
            })
            .unwrap();
        e.render(48_000 - 480);
        let step = sine(300.0, 0.02, RATE, 0.3);
        let plays: Vec<VoiceHandle> = starts
            .iter()
            .map(|&at| {
                e.play(&step, PlayParams::default().group(hits).start_at(at))
                    .unwrap()
            })
            .collect();
        e.render(48_000 * 2);
        let events: Vec<Event> = e.drain_events().collect();
        let got: Vec<bool> = plays
            .iter()
            .map(|&h| events.contains(&Event::Started { voice: h }))
            .collect();
        assert_eq!(got, accepted, "starts {starts:?}: {events:?}");
    }
}
