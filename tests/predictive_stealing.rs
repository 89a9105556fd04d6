//! Stealing ranks a voice by what the listener would lose over the next
//! moments, as the voice will play: the cases that fooled a ranking by the
//! level at one instant (pauses, gaps before echoes, gaps between pings,
//! slow swells, pitch, loops about to wrap), and perceptual weighting
//! (BS.1770's K-weighting) rather than plain RMS. Offline, through the
//! public API.

use voicepool_testkit::common;
use voicepool_testkit::k_weighting;

use common::*;
use k_weighting::k_weight;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, StealPolicy};

/// A piece of a test sound: `seconds` of a sine at `freq` Hz whose
/// amplitude goes linearly from `from` to `to` (amplitude 0: silence).
#[derive(Clone, Copy)]
struct Piece {
    seconds: f32,
    freq: f32,
    from: f32,
    to: f32,
}

const fn tone(seconds: f32, freq: f32, amp: f32) -> Piece {
    Piece {
        seconds,
        freq,
        from: amp,
        to: amp,
    }
}

const fn ramp(seconds: f32, freq: f32, from: f32, to: f32) -> Piece {
    Piece {
        seconds,
        freq,
        from,
        to,
    }
}

const fn silence(seconds: f32) -> Piece {
    tone(seconds, 0.0, 0.0)
}

/// The pieces one after another, as a mono sound at 48 kHz.
fn sound(pieces: &[Piece]) -> Sound {
    let mut s = Vec::new();
    for p in pieces {
        let n = (p.seconds * RATE as f32).round() as usize;
        s.extend((0..n).map(|i| {
            let t = i as f32 / RATE as f32;
            let amp = p.from + (p.to - p.from) * i as f32 / n as f32;
            amp * (std::f32::consts::TAU * p.freq * t).sin()
        }));
    }
    Sound::from_samples(1, RATE, s).unwrap()
}

/// `pieces` repeated to fill `seconds`.
fn repeated(pieces: &[Piece], seconds: f32) -> Sound {
    let period: f32 = pieces.iter().map(|p| p.seconds).sum();
    let times = (seconds / period).ceil() as usize;
    let all: Vec<Piece> = (0..times).flat_map(|_| pieces.iter().copied()).collect();
    sound(&all)
}

/// One voice of a case: what it plays, how, and when it starts (seconds,
/// a multiple of 10 ms).
struct Part {
    sound: Sound,
    params: PlayParams,
    start: f32,
}

fn part(sound: Sound, start: f32) -> Part {
    Part {
        sound,
        params: PlayParams::default(),
        start,
    }
}

/// Two voices in a pool of two; at `steal_at` a third sound arrives and
/// one of them must go. `keep` is the one a listener would miss (it is
/// always the one a ranking by the level at the steal instant, or by age,
/// would take), `lose` the one to steal.
struct Case {
    name: &'static str,
    keep: Part,
    lose: Part,
    steal_at: f32,
}

/// Plays the case and returns (the stolen voice is `lose`, what happened).
fn run(case: Case) -> (bool, String) {
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 2,
        steal_policy: StealPolicy::Quietest,
        ..Default::default()
    })
    .unwrap();
    let blocks = |s: f32| (s * 100.0).round() as usize; // 10 ms blocks
    let (mut keep, mut lose) = (None, None);
    for block in 0..blocks(case.steal_at) {
        // The keeper is played first within a block, so it is the older
        // of the two when they start together: a tie would take it.
        if block == blocks(case.keep.start) {
            keep = Some(e.play(&case.keep.sound, case.keep.params).unwrap());
        }
        if block == blocks(case.lose.start) {
            lose = Some(e.play(&case.lose.sound, case.lose.params).unwrap());
        }
        e.render(480);
    }
    let filler = sine(500.0, 1.0, RATE, 0.1);
    let new = e.play(&filler, PlayParams::default()).unwrap();
    e.render(480);
    let steals = steals_and_rejections(e.drain_events());
    let want = [Event::Stolen {
        victim: lose.unwrap(),
        by: new,
    }];
    let what = format!(
        "{}: keep {:?}, lose {:?}: {steals:?}",
        case.name, keep, lose
    );
    (steals == want, what)
}

#[test]
fn voices_are_ranked_by_what_they_will_play_next() {
    let cases = [
        Case {
            // A line of dialogue 70 ms into a 150 ms pause, against a sound
            // in the last 80 ms of its fade-out.
            name: "speech pause vs fading tail",
            keep: part(
                sound(&[
                    tone(0.3, 1_000.0, 0.5),
                    silence(0.15),
                    tone(0.5, 1_000.0, 0.5),
                ]),
                0.05,
            ),
            lose: part(
                sound(&[tone(0.4, 1_000.0, 0.5), ramp(0.1, 1_000.0, 0.5, 0.0)]),
                0.0,
            ),
            steal_at: 0.42,
        },
        Case {
            // A gunshot 50 ms into the 300 ms before its echo, against a
            // faint steady hum.
            name: "gunshot gap before its echo vs faint hum",
            keep: part(
                sound(&[
                    tone(0.05, 1_000.0, 0.9),
                    silence(0.3),
                    tone(0.2, 1_000.0, 0.3),
                ]),
                0.0,
            ),
            lose: part(sine(120.0, 3.0, RATE, 0.05), 0.0),
            steal_at: 0.1,
        },
        Case {
            // Sparkle pings every 90 ms, caught 50 ms after one, against a
            // quiet steady tone.
            name: "pings every 90 ms vs quiet tone",
            keep: part(
                repeated(&[tone(0.01, 3_000.0, 0.5), silence(0.08)], 2.0),
                0.0,
            ),
            lose: part(sine(1_000.0, 3.0, RATE, 0.1), 0.0),
            steal_at: 0.95,
        },
        Case {
            // A swell in its quiet first 200 ms, against a quiet tone.
            name: "slow swell vs quiet tone",
            keep: part(
                sound(&[
                    tone(0.2, 1_000.0, 0.01),
                    ramp(0.2, 1_000.0, 0.01, 0.6),
                    tone(0.6, 1_000.0, 0.6),
                ]),
                0.0,
            ),
            lose: part(sine(1_000.0, 3.0, RATE, 0.1), 0.0),
            steal_at: 0.05,
        },
        Case {
            // The same sound (400 ms of silence, then loud) at pitch 2 and
            // pitch 1: at double speed the loud part is 40 ms away, at
            // normal speed 280 ms.
            name: "pitch 2 reaches the loud part sooner",
            keep: Part {
                params: PlayParams::default().pitch(2.0),
                ..part(sound(&[silence(0.4), tone(1.0, 1_000.0, 0.5)]), 0.0)
            },
            lose: part(sound(&[silence(0.4), tone(1.0, 1_000.0, 0.5)]), 0.0),
            steal_at: 0.12,
        },
        Case {
            // A loop (100 ms loud, 400 ms silent) 30 ms before it wraps into
            // its loud start, against a quiet one-shot tone.
            name: "loop about to wrap into its loud start",
            keep: Part {
                params: PlayParams::default().looping(true),
                ..part(sound(&[tone(0.1, 1_000.0, 0.5), silence(0.4)]), 0.0)
            },
            lose: part(sine(1_000.0, 3.0, RATE, 0.1), 0.0),
            steal_at: 0.47,
        },
        Case {
            // A voice fading in over 1 s (nearly silent now, loud soon)
            // against a quiet steady tone: the fade counts as it will be.
            name: "fade-in counts as it will rise",
            keep: Part {
                params: PlayParams::default().fade_in(1.0),
                ..part(sine(1_000.0, 3.0, RATE, 0.8), 0.0)
            },
            lose: part(sine(1_000.0, 3.0, RATE, 0.1), 0.0),
            steal_at: 0.05,
        },
        Case {
            // Ties go to the oldest: the same sound, started in the same
            // block, the loser played first.
            name: "a tie takes the oldest",
            keep: part(sine(1_000.0, 3.0, RATE, 0.3), 0.01),
            lose: part(sine(1_000.0, 3.0, RATE, 0.3), 0.0),
            steal_at: 0.2,
        },
    ];
    let failures: Vec<String> = cases
        .into_iter()
        .map(run)
        .filter(|(ok, _)| !ok)
        .map(|(_, what)| what)
        .collect();
    assert!(
        failures.is_empty(),
        "wrong victims:\n{}",
        failures.join("\n")
    );
}

/// Mean K-weighted power of 48 kHz `samples`, after the filters settle:
/// the reference the ranking must agree with.
fn k_weighted_power(samples: &[f32]) -> f64 {
    let mut x: Vec<f64> = samples.iter().map(|&s| f64::from(s)).collect();
    k_weight(&mut x);
    // Skip the first 100 ms (the filters settling).
    let tail = &x[4_800..];
    tail.iter().map(|y| y * y).sum::<f64>() / tail.len() as f64
}

#[test]
fn rumble_and_presence_are_ranked_as_bs1770_weighs_them() {
    // Sines from rumble to presence, the rumble a little louder by RMS:
    // an RMS ranking would keep the rumble, the ear (and BS.1770) would
    // keep the presence-range tones.
    let tones: Vec<(f32, f32)> = vec![
        (40.0, 0.5),
        (50.0, 0.48),
        (60.0, 0.46),
        (2_000.0, 0.44),
        (3_500.0, 0.42),
        (5_000.0, 0.40),
    ];
    let sounds: Vec<Sound> = tones.iter().map(|&(f, a)| sine(f, 4.0, RATE, a)).collect();
    let reference: Vec<f64> = sounds
        .iter()
        .map(|s| k_weighted_power(s.samples()))
        .collect();
    let mut by_k: Vec<usize> = (0..tones.len()).collect();
    by_k.sort_by(|&a, &b| reference[a].total_cmp(&reference[b]));
    let by_rms: Vec<usize> = (0..tones.len()).rev().collect();
    assert_ne!(by_k, by_rms, "the test needs the two rankings to differ");

    // Play them all (priority 0), let them settle, then steal one at a
    // time with newcomers of higher priority, which are never candidates
    // while a priority-0 voice is left: each steal takes the quietest of
    // the tones left.
    let mut e = OfflineEngine::new(EngineSettings {
        voices: tones.len(),
        steal_policy: StealPolicy::Quietest,
        ..Default::default()
    })
    .unwrap();
    let handles: Vec<_> = sounds
        .iter()
        .map(|s| e.play(s, PlayParams::default().priority(0)).unwrap())
        .collect();
    render_seconds(&mut e, 0.2);
    let filler = sine(500.0, 4.0, RATE, 0.1);
    let mut order = Vec::new();
    for _ in 0..tones.len() {
        e.play(&filler, PlayParams::default().priority(200))
            .unwrap();
        e.render(480);
        for ev in e.drain_events() {
            if let Event::Stolen { victim, .. } = ev {
                order.push(handles.iter().position(|&h| h == victim).unwrap());
            }
        }
    }
    assert_eq!(order, by_k, "steal order (K-weighted power {reference:?})");
}

/// A voice whose sound has just run out (its file's last frames silent) is
/// taken before an audible one, though its level was last computed while
/// it was still loud: a steal ranks the voice that runs out soonest again,
/// fresh. Notes of 200 to 240 ms, stolen 5 ms after their tone ends, so
/// that the level kept is of every age the refresh leaves (up to 40 ms).
#[test]
fn a_voice_that_has_just_run_out_is_taken_before_an_audible_one() {
    let hum = sound(&[tone(1.0, 330.0, 1.0)]);
    for tone_ms in (200..=240).step_by(5) {
        let note = sound(&[tone(tone_ms as f32 / 1000.0, 440.0, 1.0), silence(0.15)]);
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 4,
            steal_policy: StealPolicy::Quietest,
            ..Default::default()
        })
        .unwrap();
        let ending = e.play(&note, PlayParams::default()).unwrap();
        for volume in [0.2, 0.3, 0.4] {
            e.play(&hum, PlayParams::default().looping(true).volume(volume))
                .unwrap();
        }
        let mut left = (tone_ms + 5) * RATE as usize / 1000;
        while left > 0 {
            left -= e.render(left.min(480)).len() / 2;
        }
        let newcomer = e.play(&hum, PlayParams::default().looping(true)).unwrap();
        e.render(480);
        let stolen: Vec<Event> = e
            .drain_events()
            .filter(|ev| matches!(ev, Event::Stolen { .. }))
            .collect();
        assert_eq!(
            stolen,
            [Event::Stolen {
                victim: ending,
                by: newcomer
            }],
            "a note of {tone_ms} ms"
        );
    }
}
