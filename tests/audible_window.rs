//! The audible window (`EngineSettings::audible_window`): what stays far
//! below the loudest voice is let go before the pool is full (sent virtual
//! if it asked to be, else ended); what is well inside stays; a voice let
//! go virtual comes back once the loud sound is gone.

use voicepool_testkit::common;

use common::*;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, TimedEvent};

fn engine(window: Option<f32>) -> OfflineEngine {
    engine_hearing(window, true)
}

fn engine_hearing(window: Option<f32>, masking: bool) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices: 8,
        virtual_voices: 8,
        audible_window: window,
        masking,
        ..Default::default()
    })
    .unwrap()
}

fn what_happened(events: &[TimedEvent], voice: voicepool::VoiceHandle) -> Vec<Event> {
    events
        .iter()
        .filter(|e| e.event.voice() == Some(voice) && !matches!(e.event, Event::Started { .. }))
        .map(|e| e.event)
        .collect()
}

#[test]
fn the_window_lets_go_of_what_is_far_under_and_keeps_what_is_near() {
    let hum = sine(220.0, 1.0, 48_000, 0.5);
    let looped = PlayParams::default().looping(true);
    // (window, dB under the loudest, asks to virtualize, what becomes of it)
    let ended = |v| vec![Event::Ended { voice: v }];
    let gone_virtual = |v| vec![Event::Virtualized { voice: v }];
    let kept = |_| vec![];
    type Fate = fn(voicepool::VoiceHandle) -> Vec<Event>;
    let cases: [(Option<f32>, f32, bool, Fate); 6] = [
        (Some(50.0), 60.0, false, ended),
        (Some(50.0), 60.0, true, gone_virtual),
        (Some(50.0), 20.0, false, kept),
        (Some(50.0), 20.0, true, kept),
        (None, 60.0, false, kept),
        (Some(80.0), 60.0, false, kept),
    ];
    for (window, under, virtualize, fate) in cases {
        // (Loudness alone: a copy 60 dB under is also masked, which the
        // next test hears.)
        let mut e = engine_hearing(window, false);
        let loud = e.play(&hum, looped).unwrap();
        let quiet = e
            .play(
                &hum,
                looped
                    .volume(10f32.powf(-under / 20.0))
                    .virtualize(virtualize),
            )
            .unwrap();
        let mut events = Vec::new();
        render_blocks(&mut e, 30, &mut events); // 300 ms
        assert_eq!(
            what_happened(&events, quiet),
            fate(quiet),
            "window {window:?}, {under} dB under, virtualize {virtualize}"
        );
        assert!(e.is_playing(loud));
        let let_go = u64::from(!fate(quiet).is_empty());
        assert_eq!(e.stats().outside_window, let_go);
    }
}

#[test]
fn with_masking_the_window_hears_what_the_loud_voice_hides() {
    // 60 dB under a loud hum, inside an 80 dB window: in the hum's band it
    // is masked, let go; as loud in a band of its own, it is kept.
    let hum = sine(220.0, 1.0, 48_000, 0.5);
    let looped = PlayParams::default().looping(true);
    for (quiet_hz, let_go) in [(220.0, true), (5_000.0, false)] {
        for masking in [false, true] {
            let mut e = engine_hearing(Some(80.0), masking);
            e.play(&hum, looped).unwrap();
            let quiet = e
                .play(&sine(quiet_hz, 1.0, 48_000, 0.0005), looped)
                .unwrap();
            let mut events = Vec::new();
            render_blocks(&mut e, 30, &mut events);
            let expected = if let_go && masking {
                vec![Event::Ended { voice: quiet }]
            } else {
                vec![]
            };
            assert_eq!(
                what_happened(&events, quiet),
                expected,
                "{quiet_hz} Hz, masking {masking}"
            );
        }
    }
}

#[test]
fn a_voice_let_go_virtual_comes_back_when_the_loud_sound_ends() {
    let mut e = engine(Some(40.0));
    let boom = sine(110.0, 0.3, 48_000, 0.9);
    let hum = sine(220.0, 1.0, 48_000, 0.5);
    e.play(&boom, PlayParams::default()).unwrap();
    // 50 dB under the boom: let go while it sounds.
    let quiet = PlayParams::default()
        .looping(true)
        .volume(0.0057)
        .virtualize(true);
    let amb = e.play(&hum, quiet).unwrap();
    let mut events = Vec::new();
    render_blocks(&mut e, 100, &mut events); // 1 s
    let fate = what_happened(&events, amb);
    assert_eq!(
        fate,
        [
            Event::Virtualized { voice: amb },
            Event::Resumed { voice: amb }
        ],
        "virtual under the boom, back after it"
    );
    let back = frame_of(&events, Event::Resumed { voice: amb }).unwrap();
    assert!(
        back >= 14_400,
        "not back before the boom ended: frame {back}"
    );
}

#[test]
fn bad_windows_are_refused_and_large_ones_clamped() {
    for bad in [f32::NAN, f32::INFINITY, 0.0, -10.0] {
        let err = OfflineEngine::new(EngineSettings {
            audible_window: Some(bad),
            ..Default::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("audible_window"), "{err}");
    }
    // 1,000 dB is clamped to 140: a voice 60 dB under stays.
    let mut e = engine(Some(1_000.0));
    let hum = sine(220.0, 1.0, 48_000, 0.5);
    e.play(&hum, PlayParams::default().looping(true)).unwrap();
    let quiet = e
        .play(&hum, PlayParams::default().looping(true).volume(0.001))
        .unwrap();
    e.render(48_000);
    assert!(e.is_playing(quiet));
}

#[test]
fn a_faint_virtual_voice_of_higher_priority_does_not_keep_a_loud_one_out() {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 2,
        virtual_voices: 8,
        audible_window: Some(40.0),
        ..Default::default()
    })
    .unwrap();
    let hum = sine(220.0, 1.0, 48_000, 0.5);
    let looped = PlayParams::default().looping(true);
    e.play(&hum, looped).unwrap();
    e.play(&hum, looped).unwrap();
    // Of lower priority than both: refused a voice, it starts virtual.
    let loud = e.play(&hum, looped.priority(100).virtualize(true)).unwrap();
    // Of higher priority, 60 dB down: takes a voice, then the window lets
    // it go, virtual, and a voice is free.
    let faint = e
        .play(&hum, looped.priority(200).volume(0.001).virtualize(true))
        .unwrap();
    let mut events = Vec::new();
    render_blocks(&mut e, 100, &mut events);
    assert!(
        what_happened(&events, faint).contains(&Event::Virtualized { voice: faint }),
        "the faint one is let go"
    );
    assert!(
        events
            .iter()
            .any(|t| t.event == Event::Resumed { voice: loud }),
        "the loud one comes back into the free voice: {:?}",
        what_happened(&events, loud)
    );
}
