//! Virtual voices: a voice that loses its slot keeps time silently and comes
//! back at exactly the sample it would have reached (rendered offline and
//! compared sample for sample with an engine that had room).

use voicepool_testkit::common;

use std::collections::HashMap;

use voicepool::{Event, PlayParams, Sound, VoiceHandle};

const BLOCK: usize = 480;

/// A loop that never repeats within a block: two detuned partials and a
/// slow swell, at a source rate other than the output's.
fn ambience(rate: u32, seconds: f32) -> Sound {
    let n = (rate as f32 * seconds) as usize;
    let samples: Vec<f32> = (0..n)
        .flat_map(|i| {
            let t = i as f32 / rate as f32;
            let swell = 0.5 + 0.5 * (t * 3.0).sin();
            let l = 0.3 * swell * (t * 2.0 * std::f32::consts::PI * 220.0).sin();
            let r = 0.3 * (t * 2.0 * std::f32::consts::PI * 331.0).sin();
            [l, r]
        })
        .collect();
    Sound::from_samples(2, rate, samples).unwrap()
}

fn loud(seconds: f32) -> Sound {
    common::sine(880.0, seconds, 48_000, 0.8)
}

use common::{end_of, frame_of, render_blocks, virtual_engine as engine};

#[test]
fn a_stolen_ambience_comes_back_sample_for_sample() {
    // (source rate, pitch): the comeback is exact at any step.
    for (rate, pitch) in [(48_000, 1.0), (44_100, 1.0), (44_100, 1.37), (22_050, 0.61)] {
        let amb = ambience(rate, 0.73);
        let params = PlayParams::default()
            .looping(true)
            .virtualize(true)
            .pitch(pitch)
            .priority(100)
            .volume(0.9);

        // With room: the ambience alone, never interrupted.
        let mut reference = engine(64, 16);
        let (mut want, mut ignored) = (Vec::new(), Vec::new());
        reference.play(&amb, params).unwrap();
        want.extend(render_blocks(&mut reference, 400, &mut ignored));

        // Four voices, and a burst of eight higher-priority effects 0.5 s
        // in: the ambience loses its slot, then comes back.
        let mut e = engine(4, 16);
        let (mut got, mut events) = (Vec::new(), Vec::new());
        let h = e.play(&amb, params).unwrap();
        got.extend(render_blocks(&mut e, 50, &mut events));
        let boom = loud(1.0);
        let mut effects = Vec::new();
        for _ in 0..8 {
            effects.push(e.play(&boom, PlayParams::default().priority(200)).unwrap());
            got.extend(render_blocks(&mut e, 2, &mut events));
        }
        got.extend(render_blocks(&mut e, 400 - 50 - 16, &mut events));

        let gone = frame_of(&events, Event::Virtualized { voice: h }).expect("virtualized");
        let back = frame_of(&events, Event::Resumed { voice: h }).expect("resumed");
        assert!(
            gone < back,
            "{rate} Hz x{pitch}: virtual at {gone}, back at {back}"
        );
        assert!(e.is_playing(h));
        let last_effect = effects
            .iter()
            .map(|&v| end_of(&events, v).expect("every effect ends"))
            .max()
            .unwrap();
        // After the fade-in (5 ms) and once every effect and its tail is
        // over, the output is the uninterrupted ambience, bit for bit.
        let from = back.max(last_effect) as usize + 240 + 240;
        assert!(
            from < want.len() / 2 - 4_800,
            "{rate} Hz x{pitch}: nothing left to compare"
        );
        let first_diff =
            (from..want.len() / 2).find(|&f| got[2 * f..2 * f + 2] != want[2 * f..2 * f + 2]);
        assert_eq!(
            first_diff, None,
            "{rate} Hz x{pitch}: differs from frame {first_diff:?}"
        );
        // And while virtual it was silent: the burst alone was heard.
        assert_ne!(got[..2 * gone as usize], [0.0; 0][..]);
    }
}

#[test]
fn a_virtual_one_shot_ends_at_its_natural_end() {
    for (rate, pitch) in [(48_000, 1.0), (44_100, 1.5), (32_000, 0.7)] {
        let line = common::sine(300.0, 1.0, rate, 0.3);
        let params = PlayParams::default()
            .virtualize(true)
            .pitch(pitch)
            .priority(10);
        let natural = {
            let mut reference = engine(4, 4);
            let h = reference.play(&line, params).unwrap();
            let (mut out, mut events) = (Vec::new(), Vec::new());
            out.extend(render_blocks(&mut reference, 300, &mut events));
            frame_of(&events, Event::Ended { voice: h }).unwrap()
        };
        let mut e = engine(1, 4);
        let h = e.play(&line, params).unwrap();
        let (mut out, mut events) = (Vec::new(), Vec::new());
        out.extend(render_blocks(&mut e, 10, &mut events));
        let hum = loud(10.0);
        e.play(&hum, PlayParams::default().priority(200).looping(true))
            .unwrap();
        out.extend(render_blocks(&mut e, 300, &mut events));
        assert!(frame_of(&events, Event::Virtualized { voice: h }).is_some());
        assert_eq!(frame_of(&events, Event::Resumed { voice: h }), None);
        assert_eq!(
            frame_of(&events, Event::Ended { voice: h }),
            Some(natural),
            "{rate} Hz x{pitch}"
        );
        let terminal = events
            .iter()
            .filter(|t| t.event.is_terminal() && t.event.voice() == Some(h));
        assert_eq!(terminal.count(), 1);
        assert!(!e.is_playing(h));
    }
}

#[test]
fn a_full_virtual_pool_drops_the_least_audible() {
    let mut e = engine(1, 2);
    let hum = common::sine(200.0, 2.0, 48_000, 0.5);
    e.play(
        &loud(10.0),
        PlayParams::default().priority(255).looping(true),
    )
    .unwrap();
    e.render(BLOCK);
    let low = |v: f32| {
        PlayParams::default()
            .looping(true)
            .virtualize(true)
            .priority(10)
            .volume(v)
    };
    let a = e.play(&hum, low(0.3)).unwrap();
    let b = e.play(&hum, low(0.1)).unwrap();
    e.render(BLOCK);
    let c = e.play(&hum, low(0.5)).unwrap();
    e.render(BLOCK);
    let d = e.play(&hum, low(0.05)).unwrap();
    e.render(BLOCK);
    let events: Vec<Event> = e.drain_events().collect();
    for v in [a, b, c] {
        assert!(events.contains(&Event::Virtualized { voice: v }), "{v:?}");
    }
    assert!(events.contains(&Event::Stolen { victim: b, by: c }));
    assert!(events.contains(&Event::Rejected { voice: d }));
    assert!(!events.contains(&Event::Virtualized { voice: d }));
    assert!(e.is_playing(a) && e.is_playing(c));
    assert!(!e.is_playing(b) && !e.is_playing(d));
    let s = e.stats();
    assert_eq!(
        (s.virtual_voices, s.peak_virtual_voices, s.virtualized),
        (2, 2, 3)
    );
    let mut virtual_now: Vec<VoiceHandle> =
        e.virtual_slots().iter().filter_map(|s| s.voice).collect();
    virtual_now.sort();
    assert_eq!(virtual_now, [a, c]);
}

#[test]
fn voices_do_not_flap_under_a_steady_load() {
    // Four voices, ten looping sounds of spread volumes, some pulsing (so
    // their near-future loudness moves), all virtualizing: after the first
    // second, count how often each goes virtual or comes back.
    let mut e = engine(4, 16);
    let steady = common::sine(330.0, 0.5, 48_000, 0.5);
    let pulsing = common::burst_then_silence(0.2, 0.5);
    let mut voices = Vec::new();
    for i in 0..10 {
        let sound = if i % 2 == 0 { &steady } else { &pulsing };
        let volume = 0.2 + 0.07 * i as f32;
        voices.push(
            e.play(
                sound,
                PlayParams::default()
                    .looping(true)
                    .virtualize(true)
                    .volume(volume),
            )
            .unwrap(),
        );
        e.render(BLOCK);
    }
    let (mut out, mut events) = (Vec::new(), Vec::new());
    out.extend(render_blocks(&mut e, 100, &mut events));
    events.clear();
    let seconds = 10;
    out.extend(render_blocks(&mut e, seconds * 100, &mut events));
    let mut moves: HashMap<VoiceHandle, usize> = HashMap::new();
    for t in &events {
        if let Event::Virtualized { voice } | Event::Resumed { voice } = t.event {
            *moves.entry(voice).or_default() += 1;
        }
        assert!(!t.event.is_terminal(), "a looping voice ended: {t:?}");
    }
    let worst = moves.values().copied().max().unwrap_or(0);
    println!("moves per voice over {seconds} s: {moves:?}");
    assert!(
        worst <= 2 * seconds,
        "a voice moved {worst} times in {seconds} s"
    );
    for v in voices {
        assert!(e.is_playing(v));
    }
}

#[test]
fn commands_reach_a_virtual_voice() {
    // stop ends it (Ended, at once); set_volume applies and is heard when
    // it comes back; pause holds it.
    let hum = common::sine(200.0, 1.0, 48_000, 0.4);
    let boom = loud(0.5);
    let setup = || {
        let mut e = engine(1, 4);
        let h = e
            .play(
                &hum,
                PlayParams::default()
                    .looping(true)
                    .virtualize(true)
                    .priority(10),
            )
            .unwrap();
        e.render(4_800);
        e.play(&boom, PlayParams::default().priority(200)).unwrap();
        e.render(BLOCK);
        assert_eq!(e.stats().virtual_voices, 1);
        (e, h)
    };

    let (mut e, h) = setup();
    e.stop(h).unwrap();
    let at = e.clock();
    e.render(BLOCK);
    let events = e.drain_timed_events();
    assert_eq!(frame_of(&events, Event::Ended { voice: h }), Some(at));
    assert!(!e.is_playing(h));
    assert_eq!(e.stats().virtual_voices, 0);

    let (mut e, h) = setup();
    e.set_volume(h, 0.0).unwrap();
    let out = common::render_seconds(&mut e, 1.0);
    assert!(e.drain_events().any(|ev| ev == Event::Resumed { voice: h }));
    let tail = &out[out.len() - 2 * 4_800..];
    assert!(
        tail.iter().all(|&s| s == 0.0),
        "the volume set while virtual applies"
    );
    assert!(e.is_playing(h));
}

#[test]
fn a_virtual_voice_on_a_paused_bus_holds_its_place() {
    // The same ambience, paused on its bus for the same 0.3 s, in an engine
    // with room and in one where it is virtual meanwhile: after it comes
    // back, the two are the same sample for sample.
    let amb = ambience(44_100, 0.61);
    let render = |steal: bool| {
        let mut e = engine(1, 4);
        let bus = e.create_bus().unwrap();
        let p = PlayParams::default()
            .looping(true)
            .virtualize(true)
            .priority(10)
            .bus(bus);
        e.play(&amb, p).unwrap();
        let (mut out, mut events) = (Vec::new(), Vec::new());
        out.extend(render_blocks(&mut e, 20, &mut events));
        if steal {
            let short = loud(0.2);
            e.play(&short, PlayParams::default().priority(200)).unwrap();
        }
        out.extend(render_blocks(&mut e, 10, &mut events));
        e.pause_bus(bus).unwrap();
        out.extend(render_blocks(&mut e, 30, &mut events));
        e.resume_bus(bus).unwrap();
        out.extend(render_blocks(&mut e, 100, &mut events));
        (out, events)
    };
    let (want, _) = render(false);
    let (got, events) = render(true);
    assert!(events
        .iter()
        .any(|t| matches!(t.event, Event::Resumed { .. })));
    let resumed = events
        .iter()
        .find(|t| matches!(t.event, Event::Resumed { .. }))
        .unwrap()
        .frame as usize;
    let from = resumed.max(60 * BLOCK) + 240;
    assert!(from < got.len() / 2 - 9_600);
    let first_diff =
        (from..got.len() / 2).find(|&f| got[2 * f..2 * f + 2] != want[2 * f..2 * f + 2]);
    assert_eq!(first_diff, None, "events {events:?}");
}

/// Where the first non-zero sample of the left channel is.
fn onset(out: &[f32]) -> Option<u64> {
    out.chunks(2).position(|f| f[0] != 0.0).map(|i| i as u64)
}

#[test]
fn start_at_sounds_at_the_exact_frame() {
    let click = Sound::from_samples(1, 48_000, vec![0.5; 8]).unwrap();
    // (frames rendered before, frames ahead of the clock): mid-block, on a
    // block boundary, several blocks ahead, one frame ahead, in the past.
    for (before, ahead) in [(480, 123), (480, 480), (960, 2_000), (480, 1), (960, -300)] {
        let mut e = engine(8, 0);
        e.render(before);
        let at = (e.clock() as i64 + ahead) as u64;
        let h = e.play(&click, PlayParams::default().start_at(at)).unwrap();
        let now = e.clock();
        let out = e.render(4_800).to_vec();
        let expected = if ahead > 0 { at } else { now };
        assert_eq!(
            onset(&out).map(|f| f + before as u64),
            Some(expected),
            "ahead {ahead}"
        );
        let events = e.drain_timed_events();
        assert_eq!(
            frame_of(&events, Event::Started { voice: h }),
            Some(expected)
        );
        assert_eq!(
            frame_of(&events, Event::Ended { voice: h }),
            Some(expected + 8)
        );
    }
}

#[test]
fn plays_scheduled_one_frame_apart_start_one_frame_apart() {
    let impulse = Sound::from_samples(1, 48_000, vec![0.25]).unwrap();
    let mut e = engine(8, 0);
    e.render(480);
    let base = e.clock() + 700;
    for k in 0..4 {
        e.play(&impulse, PlayParams::default().start_at(base + k).pan(-1.0))
            .unwrap();
    }
    let out = e.render(2_400).to_vec();
    let hits: Vec<u64> = out
        .chunks(2)
        .enumerate()
        .filter(|(_, f)| f[0] != 0.0)
        .map(|(i, _)| 480 + i as u64)
        .collect();
    assert_eq!(hits, (0..4).map(|k| base + k).collect::<Vec<_>>());
}

#[test]
fn a_scheduled_voice_is_a_voice_while_it_waits() {
    let tone = common::sine(440.0, 1.0, 48_000, 0.5);
    let mut e = engine(4, 0);
    let at = e.clock() + 24_000;
    let h = e.play(&tone, PlayParams::default().start_at(at)).unwrap();
    e.render(4_800);
    assert!(e.is_playing(h));
    e.stop(h).unwrap();
    let out = e.render(48_000);
    assert!(
        out.iter().all(|&s| s == 0.0),
        "stopped before its start: never heard"
    );
    let events = e.drain_timed_events();
    assert_eq!(frame_of(&events, Event::Ended { voice: h }), Some(4_800));

    // The setters apply before the start: it starts at the volume set.
    let mut e = engine(4, 0);
    let at = e.clock() + 9_600;
    let h = e
        .play(&tone, PlayParams::default().start_at(at).pan(-1.0))
        .unwrap();
    e.render(480);
    e.set_volume(h, 0.25).unwrap();
    let out = e.render(48_000);
    let peak = out[2 * 12_000..]
        .chunks(2)
        .fold(0.0f32, |m, f| m.max(f[0].abs()));
    assert!((peak - 0.125).abs() < 0.01, "peak {peak}");
}
