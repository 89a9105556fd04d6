//! Virtual voices at the edges (each found by a review and failing before
//! its fix): the settle time before a comeback, exact end frames after
//! `stop_all`, retrigger intervals of plays accepted as virtual, a virtual
//! voice that cannot come back not blocking others, held voices not
//! displacing audible ones, comebacks retried when the event queue was
//! short.

use voicepool_testkit::common;

use std::time::Duration;

use voicepool::{
    EngineSettings, Event, GroupHandle, GroupSettings, OfflineEngine, PlayParams, Sound,
    StealPolicy,
};

const BLOCK: usize = 480;

use common::{frame_of, render_blocks as run, virtual_engine as engine};

/// A group of one voice that refuses newcomers, filled by a protected,
/// top-priority loop of `hum`.
fn full_reject_group(e: &mut OfflineEngine, hum: &Sound) -> GroupHandle {
    let g = e
        .create_group(GroupSettings {
            max_voices: 1,
            policy: StealPolicy::Reject,
            ..Default::default()
        })
        .unwrap();
    let p = PlayParams::default()
        .looping(true)
        .group(g)
        .priority(255)
        .protected(true);
    e.play(hum, p).unwrap();
    g
}

/// COMEBACK_SETTLE_MS (50 ms = 2,400 frames) should hold a comeback into a
/// slot that just freed; the swap tick brings the top voice back as `Free`.
#[test]
fn a_comeback_waits_for_the_slot_to_stay_free() {
    let mut e = engine(1, 4);
    let hum = common::sine(200.0, 1.0, 48_000, 0.3);
    let amb = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .virtualize(true)
                .priority(10),
        )
        .unwrap();
    let mut ev = Vec::new();
    run(&mut e, 10, &mut ev);
    let boom = common::sine(880.0, 0.1, 48_000, 0.8);
    let b = e.play(&boom, PlayParams::default().priority(200)).unwrap();
    run(&mut e, 100, &mut ev);
    let ended = frame_of(&ev, Event::Ended { voice: b }).unwrap();
    let back = frame_of(&ev, Event::Resumed { voice: amb }).unwrap();
    assert!(
        back - ended >= 2_400,
        "came back {} frames after the slot freed",
        back - ended
    );
}

/// After stop_all, every virtual voice's Ended is at the stop's frame
/// (ENDS_PER_BLOCK = 64 spreads them over blocks, the frame must stay).
#[test]
fn stop_all_ends_every_virtual_voice_at_its_frame() {
    let mut e = engine(2, 1000);
    let hum = common::sine(200.0, 1.0, 48_000, 0.3);
    let boom = common::sine(880.0, 1.0, 48_000, 0.8);
    let mut ev = Vec::new();
    for _ in 0..2 {
        e.play(&boom, PlayParams::default().priority(200).looping(true))
            .unwrap();
    }
    run(&mut e, 1, &mut ev);
    let mut virt = Vec::new();
    for batch in 0..6 {
        for i in 0..50 {
            let v = 0.05 + 0.001 * (batch * 50 + i) as f32;
            virt.push(
                e.play(
                    &hum,
                    PlayParams::default()
                        .looping(true)
                        .virtualize(true)
                        .priority(10)
                        .volume(v),
                )
                .unwrap(),
            );
        }
        run(&mut e, 1, &mut ev);
    }
    run(&mut e, 37, &mut ev);
    assert_eq!(e.stats().virtual_voices, 300);
    ev.clear();
    e.stop_all().unwrap();
    let at = e.clock();
    run(&mut e, 20, &mut ev);
    let mut wrong = Vec::new();
    for &h in &virt {
        let f = frame_of(&ev, Event::Ended { voice: h });
        if f != Some(at) {
            wrong.push(f);
        }
    }
    println!(
        "stop at {at}; {} of 300 virtual voices end elsewhere: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
    assert!(wrong.is_empty());
}

/// min_interval counts from the group's last accepted start; a play
/// accepted as virtual is an accepted start (Started is reported).
#[test]
fn a_play_accepted_as_virtual_counts_for_the_retrigger_interval() {
    let hum = common::sine(200.0, 1.0, 48_000, 0.3);
    for max in [10usize, 1] {
        let mut e = engine(4, 16);
        let g = e
            .create_group(GroupSettings {
                max_voices: max,
                policy: StealPolicy::Reject,
                min_interval: Duration::from_millis(40),
            })
            .unwrap();
        let p = PlayParams::default().looping(true).group(g);
        let mut ev = Vec::new();
        e.play(&hum, p).unwrap();
        run(&mut e, 5, &mut ev);
        let _b1 = e.play(&hum, p.virtualize(true)).unwrap();
        run(&mut e, 1, &mut ev);
        let b2 = e.play(&hum, p.virtualize(true)).unwrap();
        run(&mut e, 1, &mut ev);
        let _of = |h| {
            ev.iter()
                .filter(|t| t.event.voice() == Some(h))
                .map(|t| format!("{:?}@{}", t.event, t.frame))
                .collect::<Vec<_>>()
        };
        assert!(
            ev.iter().any(|t| t.event == Event::Rejected { voice: b2 }),
            "max_voices {max}: b2, 480 frames after b1's accepted start, was not refused"
        );
    }
}

/// The swap path only ever tries `top()`; a top that cannot come back
/// (its group full under Reject) blocks every other virtual voice.
#[test]
fn a_virtual_voice_that_cannot_come_back_does_not_block_others() {
    let hum = common::sine(200.0, 1.0, 48_000, 0.3);
    let mut results = Vec::new();
    for with_x in [false, true] {
        let mut e = engine(2, 8);
        let g = full_reject_group(&mut e, &hum);
        let mut ev = Vec::new();
        let w = e
            .play(
                &hum,
                PlayParams::default()
                    .looping(true)
                    .virtualize(true)
                    .priority(10)
                    .volume(0.1),
            )
            .unwrap();
        run(&mut e, 100, &mut ev);
        e.play(
            &hum,
            PlayParams::default().looping(true).priority(10).volume(0.5),
        )
        .unwrap();
        run(&mut e, 10, &mut ev);
        assert!(frame_of(&ev, Event::Virtualized { voice: w }).is_some());
        if with_x {
            e.play(
                &hum,
                PlayParams::default()
                    .looping(true)
                    .group(g)
                    .virtualize(true)
                    .priority(200),
            )
            .unwrap();
        }
        e.set_volume(w, 1.0).unwrap();
        run(&mut e, 400, &mut ev);
        results.push((with_x, frame_of(&ev, Event::Resumed { voice: w })));
    }
    assert_eq!(
        results[0].1.is_some(),
        results[1].1.is_some(),
        "{results:?}"
    );
}

/// A paused virtual voice ranks by what it will play and swaps in for an
/// audible real voice: the slot then holds a silent voice.
#[test]
fn a_paused_virtual_voice_does_not_take_an_audible_voices_slot() {
    let hum = common::sine(200.0, 1.0, 48_000, 0.3);
    let mut e = engine(1, 4);
    let mut ev = Vec::new();
    let v = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .virtualize(true)
                .priority(10)
                .volume(0.2),
        )
        .unwrap();
    run(&mut e, 100, &mut ev);
    let r = e
        .play(
            &hum,
            PlayParams::default()
                .looping(true)
                .virtualize(true)
                .priority(10)
                .volume(0.8),
        )
        .unwrap();
    run(&mut e, 10, &mut ev);
    e.pause(v).unwrap();
    e.set_volume(r, 0.05).unwrap();
    let out = run(&mut e, 400, &mut ev);
    let tail = &out[out.len() - 2 * 48_000..];
    let peak = tail.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    assert!(peak > 0.0, "an audible voice lost its slot to a paused one");
}

/// `room_changed` is cleared before `resume_one(false)` runs; a refusal
/// for lack of event room (game not reading events for a moment) is never
/// retried, and only the swap tick (top only) can recover.
#[test]
fn a_comeback_held_back_by_a_full_event_queue_happens_later() {
    let hum = common::sine(200.0, 1.0, 48_000, 0.3);
    let boom = common::sine(880.0, 0.1, 48_000, 0.8);
    let mut results = Vec::new();
    for pump in [true, false] {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 2,
            virtual_voices: 4,
            event_capacity: 1,
            ..Default::default()
        })
        .unwrap();
        let g = full_reject_group(&mut e, &hum);
        let mut ev = Vec::new();
        run(&mut e, 2, &mut ev);
        let x = e
            .play(
                &hum,
                PlayParams::default()
                    .looping(true)
                    .group(g)
                    .virtualize(true)
                    .priority(200),
            )
            .unwrap();
        run(&mut e, 2, &mut ev);
        let c = e
            .play(
                &hum,
                PlayParams::default()
                    .looping(true)
                    .virtualize(true)
                    .priority(10),
            )
            .unwrap();
        run(&mut e, 20, &mut ev);
        e.play(&boom, PlayParams::default().priority(100)).unwrap();
        for _ in 0..40 {
            if pump {
                e.render(BLOCK);
            } else {
                let mut buf = [0.0f32; 2 * BLOCK];
                e.mixer_mut().process(&mut buf);
            }
        }
        ev.extend(e.drain_timed_events());
        run(&mut e, 500, &mut ev);
        assert!(frame_of(&ev, Event::Virtualized { voice: x }).is_some());
        results.push((
            pump,
            frame_of(&ev, Event::Virtualized { voice: c }),
            frame_of(&ev, Event::Resumed { voice: c }),
            e.stats().active_voices,
            e.stats().lost_events,
        ));
    }
    assert!(results.iter().all(|r| r.2.is_some()), "{results:?}");
}

/// `stop_all` then, in the same drain, a play that goes virtual into the
/// full virtual pool: the room is made by a stopped voice, which ends as
/// stopped (`Ended`), never as `Stolen`.
#[test]
fn a_stopped_virtual_voice_makes_room_by_ending() {
    let hum = common::sine(200.0, 1.0, 48_000, 0.3);
    let mut e = engine(1, 2);
    let loud = common::sine(880.0, 5.0, 48_000, 0.8);
    let p = PlayParams::default()
        .looping(true)
        .virtualize(true)
        .priority(10);
    e.play(&loud, PlayParams::default().priority(255).looping(true))
        .unwrap();
    let parked = [e.play(&hum, p).unwrap(), e.play(&hum, p).unwrap()];
    let mut ev = Vec::new();
    run(&mut e, 2, &mut ev);
    assert_eq!(e.stats().virtual_voices, 2);
    e.stop_all().unwrap();
    let newcomer = e.play(&hum, p.priority(200)).unwrap();
    run(&mut e, 4, &mut ev);
    for v in parked {
        let terminal: Vec<Event> = ev
            .iter()
            .map(|t| t.event)
            .filter(|e| e.is_terminal() && e.voice() == Some(v))
            .collect();
        assert_eq!(terminal, [Event::Ended { voice: v }]);
    }
    assert!(ev
        .iter()
        .any(|t| t.event == Event::Started { voice: newcomer }));
}

/// An engine of 4 voices, each playing a protected loop of the returned
/// sound, and `virtual_voices` virtual ones: every other play goes
/// virtual.
fn behind_four_loops(virtual_voices: usize) -> (OfflineEngine, Sound) {
    let e = OfflineEngine::new(EngineSettings {
        voices: 4,
        virtual_voices,
        command_capacity: 8_192,
        ..Default::default()
    })
    .unwrap();
    let hum = Sound::from_samples(1, 48_000, vec![0.2; 48_000]).unwrap();
    for _ in 0..4 {
        e.play(&hum, PlayParams::default().looping(true).protected(true))
            .unwrap();
    }
    (e, hum)
}

/// A large virtual pool, `count` looping virtual plays in it behind 4
/// protected real loops; returns the engine and the virtual plays.
fn large_virtual_pool(count: usize) -> (OfflineEngine, Vec<voicepool::VoiceHandle>) {
    let (mut e, hum) = behind_four_loops(count);
    let quiet = PlayParams::default()
        .looping(true)
        .virtualize(true)
        .volume(0.01);
    let mut plays = Vec::new();
    while plays.len() < count {
        for _ in 0..1_000.min(count - plays.len()) {
            plays.push(e.play(&hum, quiet).unwrap());
        }
        e.render(BLOCK);
        e.drain_events().for_each(drop);
    }
    e.render(BLOCK);
    e.drain_events().for_each(drop);
    assert_eq!(e.stats().virtual_voices, count);
    (e, plays)
}

/// `stop_all` over many virtual voices: not playing for the game at once,
/// every one ends with one `Ended` at the frame of the stop, as fast as the
/// event queue takes them (not a fixed few per block), none comes back in
/// the meantime, and a play made after the stop is not stopped by it.
#[test]
fn stop_all_over_a_large_virtual_pool_is_prompt() {
    let count = 20_000;
    let (mut e, plays) = large_virtual_pool(count);
    let stop = e.clock();
    e.stop_all().unwrap();
    assert!(plays.iter().all(|&h| !e.is_playing(h)));
    let hum = Sound::from_samples(1, 48_000, vec![0.2; 48_000]).unwrap();
    let after = e
        .play(&hum, PlayParams::default().looping(true).virtualize(true))
        .unwrap();
    let mut events = Vec::new();
    let mut blocks = 0;
    while e.stats().virtual_voices > 0 || e.stats().ended < (count + 4) as u64 {
        run(&mut e, 1, &mut events);
        blocks += 1;
        assert!(blocks < 1_000, "still ending after {blocks} blocks");
    }
    // The default event queue (4,096) takes about 2,000 ends a block.
    assert!(
        blocks <= 15,
        "{count} stopped virtual voices took {blocks} blocks"
    );
    for &h in &plays {
        let ends: Vec<_> = events
            .iter()
            .filter(|t| t.event.is_terminal() && t.event.voice() == Some(h))
            .collect();
        assert_eq!(ends.len(), 1, "{h:?}: {ends:?}");
        assert_eq!(ends[0].event, Event::Ended { voice: h });
        assert_eq!(ends[0].frame, stop, "{h:?}");
    }
    assert!(
        !events
            .iter()
            .any(|t| matches!(t.event, Event::Resumed { voice } if voice != after)),
        "a stopped voice came back"
    );
    assert!(
        e.is_playing(after),
        "a play after stop_all was stopped by it"
    );
    e.check_invariants().unwrap();
}

/// Many virtual one-shots due on the same frame end in the block that
/// frame falls in, each at that frame.
#[test]
fn virtual_one_shots_due_together_end_together() {
    let (mut e, _) = behind_four_loops(2_000);
    let shot = Sound::from_samples(1, 48_000, vec![0.1; 4_800]).unwrap();
    let due = 2 * BLOCK as u64 + 4_800;
    let shots: Vec<_> = (0..1_000)
        .map(|_| {
            e.play(
                &shot,
                PlayParams::default()
                    .virtualize(true)
                    .volume(0.01)
                    .start_at(2 * BLOCK as u64),
            )
            .unwrap()
        })
        .collect();
    let mut events = Vec::new();
    run(&mut e, (due as usize).div_ceil(BLOCK), &mut events);
    let ended = |events: &[voicepool::TimedEvent]| {
        events
            .iter()
            .filter(|t| matches!(t.event, Event::Ended { .. }))
            .count()
    };
    assert_eq!(ended(&events), 1_000, "ended by the block of their end");
    for &h in &shots {
        assert_eq!(common::end_of(&events, h), Some(due), "{h:?}");
        assert!(!e.is_playing(h));
    }
}
