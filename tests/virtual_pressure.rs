//! Virtual voices under sustained pressure: while short sounds churn
//! through a full pool, a voice far more audible than they are keeps its
//! slot (the newcomers take the least audible of them instead, young as
//! it is), a virtual voice clearly more audible than what plays comes back
//! (it does not wait for a real voice to reach a second of age), and once
//! back it is held for a second, so that no voice trades places more than
//! once a second.

use voicepool_testkit::common;

use common::*;
use voicepool::{Event, PlayParams, VoiceHandle};

/// The frames at which `voice` went virtual and came back.
fn trips(events: &[voicepool::TimedEvent], voice: VoiceHandle) -> (Vec<u64>, Vec<u64>) {
    let of = |want: fn(&Event) -> bool| {
        events
            .iter()
            .filter(|e| want(&e.event) && e.event.voice() == Some(voice))
            .map(|e| e.frame)
            .collect()
    };
    (
        of(|e| matches!(e, Event::Virtualized { .. })),
        of(|e| matches!(e, Event::Resumed { .. })),
    )
}

#[test]
fn a_loud_loop_keeps_its_voice_or_comes_back_during_a_burst_and_trades_places_at_most_once_a_second(
) {
    // (how much louder the loop is than the burst's sounds, in amplitude;
    // whether it is turned down to nothing for the burst's first second;
    // whether it goes virtual; whether it comes back)
    let cases = [
        (10.0, false, false, false),
        (4.0, false, false, false),
        (10.0, true, true, true),
        (1.2, false, true, false),
    ];
    for (louder, turned_down, goes, comes_back) in cases {
        let case = format!("x{louder}, turned down {turned_down}");
        let mut e = virtual_engine(4, 8);
        let hum = sine(220.0, 1.0, 48_000, 0.5);
        let blip = sine(660.0, 0.3, 48_000, 0.5 / louder);
        let lp = e
            .play(&hum, PlayParams::default().looping(true).virtualize(true))
            .unwrap();
        if turned_down {
            e.set_volume(lp, 0.001).unwrap();
        }
        let mut events = Vec::new();
        // A short sound every 5 ms for 4 s: each newcomer finds the pool
        // full, and every voice but the loop younger than the minimum age
        // (30 ms), so the loop is the only voice the minimum age lets go.
        let (blocks, second) = (800, 200);
        let mut real_blocks = 0;
        let mut real = true;
        for block in 0..blocks {
            if turned_down && block == second {
                e.set_volume(lp, 1.0).unwrap();
            }
            e.play(&blip, PlayParams::default()).unwrap();
            e.render(240);
            events.extend(e.drain_timed_events());
            if let Some(last) = events.iter().rev().find(|t| t.event.voice() == Some(lp)) {
                real = !matches!(last.event, Event::Virtualized { .. });
            }
            // (Counted from when it is turned up.)
            real_blocks += usize::from(real && (!turned_down || block >= second));
        }
        let (gone, back) = trips(&events, lp);
        assert_eq!(!gone.is_empty(), goes, "{case}: sent virtual at {gone:?}");
        assert_eq!(!back.is_empty(), comes_back, "{case}: back at {back:?}");
        let counted = if turned_down { blocks - second } else { blocks };
        let share = real_blocks as f32 / counted as f32;
        if !goes {
            assert_eq!(share, 1.0, "{case}: the loop kept its voice throughout");
        }
        if comes_back {
            assert!(
                share > 0.9,
                "{case}: the loop sounds {:.0} % of the burst once turned up",
                share * 100.0
            );
        }
        for w in gone.windows(2) {
            assert!(
                w[1] - w[0] >= 48_000,
                "{case}: sent away twice within a second: {gone:?}"
            );
        }
    }
}
