//! Virtual voices under sustained pressure: while short sounds churn
//! through a full pool, a virtual voice clearly more audible than what
//! plays comes back (it does not wait for a real voice to reach a second
//! of age), and once back it is held for a second, so that no voice trades
//! places more than once a second.

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
fn a_loud_loop_comes_back_during_a_burst_and_trades_places_at_most_once_a_second() {
    // (how much louder the loop is than the burst's sounds, in amplitude;
    // whether it must come back)
    let cases = [(10.0, true), (4.0, true), (1.2, false)];
    for (louder, comes_back) in cases {
        let mut e = virtual_engine(4, 8);
        let hum = sine(220.0, 1.0, 48_000, 0.5);
        let blip = sine(660.0, 0.3, 48_000, 0.5 / louder);
        let lp = e
            .play(&hum, PlayParams::default().looping(true).virtualize(true))
            .unwrap();
        let mut events = Vec::new();
        // A short sound every 5 ms for 4 s: each newcomer finds the pool
        // full, and every voice but the loop younger than the minimum age
        // (30 ms), so the loop is stolen (it goes virtual).
        let blocks = 800;
        let mut real_blocks = 0;
        let mut real = true;
        for _ in 0..blocks {
            e.play(&blip, PlayParams::default()).unwrap();
            e.render(240);
            events.extend(e.drain_timed_events());
            if let Some(last) = events.iter().rev().find(|t| t.event.voice() == Some(lp)) {
                real = !matches!(last.event, Event::Virtualized { .. });
            }
            real_blocks += usize::from(real);
        }
        let (gone, back) = trips(&events, lp);
        assert!(
            !gone.is_empty(),
            "x{louder}: the burst sends the loop virtual"
        );
        if comes_back {
            assert!(
                !back.is_empty(),
                "x{louder}: the loop comes back during the burst"
            );
            let share = real_blocks as f32 / blocks as f32;
            assert!(
                share > 0.9,
                "x{louder}: the loop sounds {:.0} % of the burst",
                share * 100.0
            );
        } else {
            assert!(
                back.is_empty(),
                "x{louder}: barely louder, it waits for the burst to end"
            );
        }
        for w in gone.windows(2) {
            assert!(
                w[1] - w[0] >= 48_000,
                "x{louder}: sent away twice within a second: {gone:?}"
            );
        }
    }
}
