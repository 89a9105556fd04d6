//! Cues as a game plays them: one handle and one terminal event for a
//! layered play, every handle call reaching every layer, layers stolen one
//! by one, delays to the frame, the ranges measured from the render, and
//! a seeded render that repeats exactly.

use std::time::Duration;

use voicepool_testkit::common::{channel, RATE};

use voicepool::{
    Cue, EngineSettings, Event, Listener, OfflineEngine, Pick, PlayError, PlayParams, Sound,
    VoiceHandle,
};

fn engine(voices: usize) -> OfflineEngine {
    OfflineEngine::new(EngineSettings {
        voices,
        ..EngineSettings::default()
    })
    .expect("engine")
}

/// A mono constant `amp`, `frames` long.
fn level(amp: f32, frames: usize) -> Sound {
    Sound::from_samples(1, RATE, vec![amp; frames]).expect("sound")
}

fn events(e: &mut OfflineEngine) -> Vec<Event> {
    e.drain_events().collect()
}

#[test]
fn a_layered_play_is_one_play_with_one_started_and_one_ended() {
    let mut e = engine(8);
    // Layers end at different times: the play ends with the last.
    let cue = Cue::new([level(0.1, 480)])
        .layer(Cue::new([level(0.1, 4_800)]))
        .layer(Cue::new([level(0.1, 960)]).delay(Duration::from_millis(50)));
    let h = e.play_cue(&cue, PlayParams::default()).expect("play");
    assert!(e.is_playing(h));
    e.render(480);
    // The pool's slots name the play, not its layers.
    let named: Vec<_> = e.slots().iter().filter_map(|s| s.voice).collect();
    assert_eq!(named, [h, h, h], "{named:?}");
    e.render(1_920);
    assert!(e.is_playing(h), "two layers are over, one is not");
    assert_eq!(events(&mut e), [Event::Started { voice: h }]);
    e.render(4_800);
    assert!(!e.is_playing(h));
    assert_eq!(events(&mut e), [Event::Ended { voice: h }]);
    assert_eq!(e.stats().started, 3, "three voices sounded");
}

#[test]
fn a_layer_starts_its_delay_after_the_play_to_the_frame() {
    for delay_frames in [0usize, 1, 480, 2_401] {
        let mut e = engine(8);
        let delay = Duration::from_secs_f64(delay_frames as f64 / f64::from(RATE));
        let cue = Cue::new([level(0.25, 9_600)]).layer(Cue::new([level(0.5, 9_600)]).delay(delay));
        e.render(100); // the clock is not at 0
        e.play_cue(&cue, PlayParams::default()).expect("play");
        let left = channel(e.render(4_800), 0);
        // The first layer alone is a third of both.
        let both = left[4_799];
        assert!(left[0] > 0.0 && both > 0.0);
        let step = left.iter().position(|&x| x > both * 2.0 / 3.0);
        assert_eq!(step, Some(delay_frames), "delay {delay_frames}");
    }
}

#[test]
fn every_handle_call_reaches_every_layer() {
    type Call = fn(&OfflineEngine, VoiceHandle);
    // (what, the call, the left channel's level after it, relative)
    let cases: &[(&str, Call, f32)] = &[
        ("set_volume", |e, h| e.set_volume(h, 0.5).unwrap(), 0.5),
        ("stop", |e, h| e.stop(h).unwrap(), 0.0),
        ("pause", |e, h| e.pause(h).unwrap(), 0.0),
        (
            "fade_volume",
            |e, h| e.fade_volume(h, 0.25, Duration::from_millis(20)).unwrap(),
            0.25,
        ),
        (
            "stop_with_fade",
            |e, h| e.stop_with_fade(h, Duration::from_millis(20)).unwrap(),
            0.0,
        ),
        (
            "set_pan hard left",
            |e, h| e.set_pan(h, -1.0).unwrap(),
            2.0f32.sqrt(),
        ),
    ];
    for &(what, call, want) in cases {
        let mut e = engine(8);
        // Two layers of different levels, one drawn 6 dB down: a call
        // reaching only one of them, or losing the drawn level, would
        // leave the sum off.
        let cue = Cue::new([level(0.1, 48_000)])
            .layer(Cue::new([level(0.3, 48_000)]).volume_range_db(-6.0..=-6.0));
        let h = e.play_cue(&cue, PlayParams::default()).expect("play");
        let before = channel(e.render(480), 0)[479];
        call(&e, h);
        let after = channel(e.render(9_600), 0)[9_599];
        assert!(
            (after - before * want).abs() < 1e-4,
            "{what}: {before} -> {after}, want x{want}"
        );
    }
}

#[test]
fn the_play_is_stolen_when_its_last_layer_is_taken() {
    let mut e = engine(2);
    let quiet = Cue::new([level(0.01, 96_000)]).layer(Cue::new([level(0.02, 96_000)]));
    let h = e.play_cue(&quiet, PlayParams::default()).expect("play");
    e.render(4_800);
    events(&mut e);
    // Each newcomer takes the quietest voice: a layer of the cue.
    let a = e
        .play(&level(0.5, 96_000), PlayParams::default())
        .expect("a");
    e.render(480);
    assert_eq!(
        events(&mut e),
        [Event::Started { voice: a }],
        "one layer left"
    );
    assert!(e.is_playing(h));
    e.render(4_800);
    let b = e
        .play(&level(0.5, 96_000), PlayParams::default())
        .expect("b");
    e.render(480);
    assert_eq!(
        events(&mut e),
        [
            Event::Stolen { victim: h, by: b },
            Event::Started { voice: b }
        ]
    );
    assert!(!e.is_playing(h));
}

#[test]
fn a_layered_play_that_steals_is_named_as_the_thief() {
    let mut e = engine(1);
    let old = e
        .play(&level(0.01, 96_000), PlayParams::default())
        .expect("old");
    e.render(4_800);
    events(&mut e);
    // Two layers into one voice: the first steals `old`, the second the
    // first (the play lives on in it).
    let cue = Cue::new([level(0.3, 96_000)]).layer(Cue::new([level(0.5, 96_000)]));
    let h = e.play_cue(&cue, PlayParams::default()).expect("play");
    e.render(480);
    let got = events(&mut e);
    assert_eq!(
        got.first(),
        Some(&Event::Stolen { victim: old, by: h }),
        "{got:?}"
    );
    assert_eq!(
        got.iter().filter(|ev| ev.is_terminal()).count(),
        1,
        "{got:?}"
    );
    assert!(e.is_playing(h));
}

#[test]
fn a_move_reaches_every_layer_even_after_the_first_ended() {
    // Few cells (voices + virtual voices + queue + 1 = 25), so that cells
    // given back come round again soon.
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 8,
        virtual_voices: 0,
        command_capacity: 16,
        ..EngineSettings::default()
    })
    .expect("engine");
    e.set_listener(Listener::default()).expect("listener");
    // The first layer is short; the second goes on.
    let cue = Cue::new([level(0.5, 240)]).layer(Cue::new([level(0.5, 9_600)]).looping(true));
    let near = PlayParams::default().position([1.0, 0.0, 0.0]);
    let h = e.play_cue(&cue, near).expect("play");
    e.render(4_800);
    let close = channel(e.render(480), 1)[479];
    // Fill every other cell's place: cells given back must not be the
    // play's while it sounds.
    for _ in 0..200 {
        let x = e.play(
            &level(0.1, 240),
            PlayParams::default().position([0.0, 0.0, 5.0]),
        );
        x.expect("another positioned play");
        e.render(480);
    }
    e.set_position(h, [40.0, 0.0, 0.0], [0.0; 3]).expect("move");
    e.render(4_800);
    let far = channel(e.render(480), 1)[479];
    assert!(far < close * 0.2, "close {close}, far {far}");
    assert!(e.is_playing(h));
}

#[test]
fn seek_moves_every_layer_in_its_own_sound() {
    let mut e = engine(8);
    // Each layer: silent, then a level from its own second half on.
    let half = |amp: f32, frames: usize| {
        let mut s = vec![0.0; frames / 2];
        s.resize(frames, amp);
        Sound::from_samples(1, RATE, s).expect("sound")
    };
    let cue = Cue::new([half(0.1, 9_600)]).layer(Cue::new([half(0.2, 19_200)]));
    let h = e.play_cue(&cue, PlayParams::default()).expect("play");
    assert!(channel(e.render(480), 0).iter().all(|&x| x == 0.0));
    e.seek(h, Duration::from_millis(150)).expect("seek"); // frame 7,200: only the first's second half
    let level_a = channel(e.render(1_200), 0)[1_199];
    e.seek(h, Duration::from_millis(195)).expect("seek"); // frame 9,360: the first near its end, the second silent
    let level_b = channel(e.render(120), 0)[119];
    assert!(
        level_a > 0.0 && (level_b - level_a).abs() < 1e-6,
        "{level_a} {level_b}"
    );
}

/// Measures each play of `cue`, alone, from the render: the left channel
/// at frame `at`, against the same sound played plainly.
fn measured(cue: &Cue, plain: &Sound, plays: usize, at: usize) -> Vec<f32> {
    let mut e = engine(4);
    e.play(plain, PlayParams::default()).expect("plain");
    let reference = channel(e.render(at + 1), 0)[at];
    e.render(48_000);
    (0..plays)
        .map(|_| {
            e.drain_events().for_each(drop);
            e.play_cue(cue, PlayParams::default()).expect("play");
            let x = channel(e.render(at + 1), 0)[at];
            e.render(2_048 - at - 1); // the rest of the sound
            x / reference
        })
        .collect()
}

#[test]
fn pitch_and_volume_stay_in_their_ranges_over_ten_thousand_plays() {
    // Volume: a constant, so the level is the gain.
    let flat = level(0.5, 1_024);
    let loud = Cue::new([flat.clone()]).volume_range_db(-6.0..=0.0);
    let gains = measured(&loud, &flat, 10_000, 64);
    let db: Vec<f32> = gains.iter().map(|g| 20.0 * g.log10()).collect();
    let (lo, hi) = db
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(lo >= -6.0 - 1e-3 && hi <= 1e-3, "dB from {lo} to {hi}");
    assert!(
        lo < -5.9 && hi > -0.1,
        "the whole range is used: {lo} to {hi}"
    );
    // Pitch: a ramp, so the level at a frame is how far the play got.
    let ramp = Sound::from_samples(1, RATE, (0..1_024).map(|i| i as f32 / 2_048.0).collect())
        .expect("ramp");
    let bent = Cue::new([ramp.clone()]).pitch_range(0.95..=1.05);
    let pitches = measured(&bent, &ramp, 10_000, 64);
    let (lo, hi) = pitches
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(
        lo >= 0.95 - 1e-3 && hi <= 1.05 + 1e-3,
        "pitch from {lo} to {hi}"
    );
    assert!(
        lo < 0.955 && hi > 1.045,
        "the whole range is used: {lo} to {hi}"
    );
    // Uniform in cents: as many plays below 1 as above.
    let below = pitches.iter().filter(|&&p| p < 1.0).count();
    assert!(
        (4_700..=5_300).contains(&below),
        "{below} of 10,000 below 1"
    );
}

/// The same cue script, rendered.
fn script(seed: u64) -> Vec<f32> {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 4,
        seed,
        ..EngineSettings::default()
    })
    .expect("engine");
    let takes: Vec<Sound> = (1..=5).map(|i| level(0.05 * i as f32, 700)).collect();
    let step = Cue::new(takes.clone())
        .pick(Pick::Random)
        .pitch_range(0.9..=1.1)
        .volume_range_db(-4.0..=0.0)
        .layer(Cue::new(takes).delay(Duration::from_millis(3)));
    let mut out = Vec::new();
    for _ in 0..200 {
        e.play_cue(&step, PlayParams::default()).expect("play");
        out.extend_from_slice(e.render(300));
    }
    out
}

#[test]
fn a_seeded_script_renders_bit_identically_and_another_seed_differently() {
    assert_eq!(script(11), script(11));
    assert_ne!(script(11), script(12));
}

#[test]
fn a_bad_cue_sends_nothing_and_a_foreign_handle_does_nothing() {
    let mut e = engine(4);
    let bad = Cue::new([level(0.1, 480), level(0.1, 480)]).weights([1.0]);
    let err = e.play_cue(&bad, PlayParams::default());
    assert!(
        matches!(
            err,
            Err(PlayError::Invalid {
                name: "weights",
                ..
            })
        ),
        "{err:?}"
    );
    let err = e.play_cue(
        &Cue::new([level(0.1, 480)]),
        PlayParams::default().volume(f32::NAN),
    );
    assert!(
        matches!(err, Err(PlayError::InvalidParameter { name: "volume", .. })),
        "{err:?}"
    );
    e.render(480);
    assert!(events(&mut e).is_empty());
    assert_eq!(e.stats().started, 0);
    // A layered handle from another engine names nothing here.
    let mut other = engine(4);
    let cue = Cue::new([level(0.1, 48_000)]).layer(Cue::new([level(0.1, 48_000)]));
    let foreign = other.play_cue(&cue, PlayParams::default()).expect("play");
    let mine = e.play_cue(&cue, PlayParams::default()).expect("play");
    e.stop(foreign).expect("nothing");
    e.render(4_800);
    assert!(e.is_playing(mine));
    other.render(480);
}

#[test]
fn a_full_queue_refuses_the_whole_play() {
    let mut e = OfflineEngine::new(EngineSettings {
        command_capacity: 4,
        ..EngineSettings::default()
    })
    .expect("engine");
    let three = Cue::new([level(0.1, 480)])
        .layer(Cue::new([level(0.1, 480)]))
        .layer(Cue::new([level(0.1, 480)]));
    e.play(&level(0.1, 480), PlayParams::default())
        .expect("one");
    e.play(&level(0.1, 480), PlayParams::default())
        .expect("two");
    // Two places left, three voices: nothing is sent.
    assert_eq!(
        e.play_cue(&three, PlayParams::default()),
        Err(PlayError::QueueFull)
    );
    e.render(480);
    assert_eq!(e.stats().started, 2);
    assert!(e.play_cue(&three, PlayParams::default()).is_ok());
}

#[test]
fn set_pitch_multiplies_a_cues_drawn_pitch() {
    // A second of sound at pitch 2 (drawn) ends after half a second, and
    // still at 2 after set_pitch(1): 2 x 1.
    let mut e = engine(4);
    let cue = Cue::new([level(0.2, 48_000)]).pitch_range(2.0..=2.0);
    let h = e.play_cue(&cue, PlayParams::default()).expect("play");
    e.render(480);
    e.set_pitch(h, 1.0).expect("pitch");
    e.render(24_000);
    assert!(!e.is_playing(h), "it ran at pitch 1");
}

#[test]
fn short_layers_give_their_cells_back_while_the_play_goes_on() {
    // 16 voices, a queue of 16: 33 cells. Each play: a long body and 7
    // layers of 48 frames, positioned. Once the short layers are over,
    // only the body (the first layer's cell) holds a cell.
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 16,
        virtual_voices: 0,
        command_capacity: 16,
        ..EngineSettings::default()
    })
    .expect("engine");
    let short = Cue::new([level(0.1, 48)]);
    let cue = (0..7).fold(Cue::new([level(0.1, 480_000)]), |c, _| {
        c.layer(short.clone())
    });
    let mut plays = Vec::new();
    for _ in 0..12 {
        let h = e.play_cue(&cue, PlayParams::default().position([1.0, 0.0, 0.0]));
        plays.push(h.expect("room: the short layers' cells came back"));
        e.render(480);
    }
    // Every body still moves with its play.
    for &h in &plays {
        e.set_position(h, [30.0, 0.0, 0.0], [0.0; 3]).expect("move");
    }
    e.render(4_800);
    let right = channel(e.render(480), 1)[479];
    assert!(
        right < 12.0 * 0.1 * 0.05,
        "{right}: not every body moved away"
    );
}

#[test]
fn a_groups_retrigger_interval_applies_to_the_play_not_its_layers() {
    let mut e = engine(8);
    let steps = e
        .create_group(voicepool::GroupSettings {
            max_voices: 8,
            min_interval: Duration::from_millis(50),
            ..Default::default()
        })
        .expect("group");
    let cue = Cue::new([level(0.1, 48_000)]).layer(Cue::new([level(0.2, 48_000)]));
    let first = e
        .play_cue(&cue, PlayParams::default().group(steps))
        .expect("first");
    e.render(480);
    let both = channel(e.render(480), 0)[479];
    let early = e
        .play_cue(&cue, PlayParams::default().group(steps))
        .expect("early");
    e.render(480);
    let events: Vec<Event> = e.drain_events().collect();
    assert_eq!(
        events,
        [
            Event::Started { voice: first },
            Event::Rejected { voice: early }
        ],
        "both layers of the first sound; the early play is refused whole"
    );
    assert_eq!(e.stats().started, 2);
    assert!((channel(e.render(480), 0)[479] - both).abs() < 1e-6);
}
