//! A newcomer that would be the least audible voice of a full pool: a
//! `virtualize` play starts virtual and takes no slot (a far emitter never
//! interrupts a near one, not even for a block), and comes back by the
//! comeback rule once it deserves to; a play that does not virtualize
//! keeps the steal rule. Every play still ends in one terminal event.

use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, TimedEvent, VoiceHandle};
use voicepool_testkit::common::{render_blocks, sine};

const RATE: u32 = 48_000;

fn engine(voices: usize) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        virtual_voices: 16,
        ..Default::default()
    })
    .unwrap()
}

fn hum() -> Sound {
    sine(220.0, 1.0, RATE, 0.5)
}

fn events_of(events: &[TimedEvent], h: VoiceHandle) -> Vec<Event> {
    events
        .iter()
        .map(|e| e.event)
        .filter(|e| e.voice() == Some(h) || matches!(e, Event::Stolen { by, .. } if *by == h))
        .collect()
}

/// A full pool of `voices` near loops (1 m to the front), then a loop
/// started `far` metres away: what each play went through in 2 s.
fn scene(voices: usize, far: f32, virtualize: bool) -> (Vec<Vec<Event>>, Vec<Event>) {
    let mut e = engine(voices);
    let near: Vec<VoiceHandle> = (0..voices)
        .map(|k| {
            let at = [0.3 * k as f32, 0.0, -1.0];
            e.play(
                &hum(),
                PlayParams::default()
                    .looping(true)
                    .virtualize(true)
                    .position(at),
            )
            .unwrap()
        })
        .collect();
    let mut events = Vec::new();
    render_blocks(&mut e, 20, &mut events);
    let newcomer = e
        .play(
            &hum(),
            PlayParams::default()
                .looping(true)
                .virtualize(virtualize)
                .position([far, 0.0, 0.0]),
        )
        .unwrap();
    render_blocks(&mut e, 200, &mut events);
    let near_events = near.iter().map(|&h| events_of(&events, h)).collect();
    (near_events, events_of(&events, newcomer))
}

#[test]
fn a_far_virtualizing_newcomer_starts_virtual_and_interrupts_no_one() {
    // (voices in the pool, how far the newcomer is; at 2 m it is 6 dB
    // under the near voice, more than the comeback's 3 dB margin)
    for (voices, far) in [(1, 300.0), (4, 300.0), (4, 40.0), (8, 1_000.0), (1, 2.0)] {
        let (near, newcomer) = scene(voices, far, true);
        for (k, n) in near.iter().enumerate() {
            assert_eq!(
                n,
                &[Event::Started {
                    voice: n[0].voice().unwrap()
                }],
                "{voices} voices, {far} m: near voice {k} was disturbed: {n:?}"
            );
        }
        assert!(
            matches!(
                newcomer.as_slice(),
                [Event::Started { .. }, Event::Virtualized { .. }]
            ),
            "{voices} voices, {far} m: the newcomer did {newcomer:?}"
        );
    }
}

#[test]
fn a_far_newcomer_that_does_not_virtualize_still_steals() {
    let (near, newcomer) = scene(1, 300.0, false);
    // It takes the slot at once, by the steal rule: the near voice goes
    // virtual (it asked to) as the newcomer starts...
    assert_eq!(
        newcomer.first(),
        Some(&Event::Started {
            voice: newcomer[0].voice().unwrap()
        })
    );
    assert!(
        matches!(
            near[0].as_slice(),
            [Event::Started { .. }, Event::Virtualized { .. }, ..]
        ),
        "{:?}",
        near[0]
    );
    // ...and comes back in its place by the comeback rule, which ends the
    // newcomer (it did not ask to virtualize): one terminal event.
    assert!(
        near[0].contains(&Event::Resumed {
            voice: near[0][0].voice().unwrap()
        }),
        "{:?}",
        near[0]
    );
    assert_eq!(
        newcomer.iter().filter(|e| e.is_terminal()).count(),
        1,
        "{newcomer:?}"
    );
}

#[test]
fn a_near_newcomer_still_takes_its_place_by_the_steal_rule() {
    // As loud as what plays (or louder): it steals, as before.
    let (near, newcomer) = scene(1, 0.5, true);
    assert!(
        newcomer.iter().any(|e| matches!(e, Event::Started { .. }))
            && !newcomer
                .iter()
                .any(|e| matches!(e, Event::Virtualized { .. })),
        "{newcomer:?}"
    );
    assert!(
        near[0]
            .iter()
            .any(|e| matches!(e, Event::Virtualized { .. })),
        "{:?}",
        near[0]
    );
}

#[test]
fn a_newcomer_that_started_virtual_comes_back_when_room_is_made_and_ends_once() {
    let mut e = engine(2);
    let near: Vec<VoiceHandle> = (0..2)
        .map(|k| {
            e.play(
                &hum(),
                PlayParams::default()
                    .looping(true)
                    .position([k as f32, 0.0, -1.0]),
            )
            .unwrap()
        })
        .collect();
    let mut events = Vec::new();
    render_blocks(&mut e, 20, &mut events);
    let far = e
        .play(
            &hum(),
            PlayParams::default()
                .looping(true)
                .virtualize(true)
                .position([200.0, 0.0, 0.0]),
        )
        .unwrap();
    render_blocks(&mut e, 20, &mut events);
    assert!(e.is_playing(far));
    e.stop(near[0]).unwrap();
    render_blocks(&mut e, 100, &mut events); // 1 s: the settle time and more
    assert!(
        events_of(&events, far).contains(&Event::Resumed { voice: far }),
        "{:?}",
        events_of(&events, far)
    );
    e.stop(far).unwrap();
    e.stop(near[1]).unwrap();
    render_blocks(&mut e, 20, &mut events);
    for h in [near[0], near[1], far] {
        let terminal = events_of(&events, h)
            .iter()
            .filter(|ev| ev.is_terminal() && ev.voice() == Some(h))
            .count();
        assert_eq!(terminal, 1, "{h:?}: {:?}", events_of(&events, h));
    }
}
