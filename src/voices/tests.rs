//! The voice manager's rules, checked against a direct reading of them.

use super::*;

/// The victim rules of the design written out directly, over
/// (slot, identity, level, order, start).
fn reference_victim(
    voices: &[(usize, Identity, f32, u64, u64)],
    policy: StealPolicy,
    priority: u8,
    now: u64,
    min_age: u64,
    within: Option<u16>,
) -> Option<usize> {
    if policy == StealPolicy::Reject {
        return None;
    }
    let open = || {
        voices
            .iter()
            .filter(|v| !v.1.protected && within.is_none_or(|g| v.1.group == g))
    };
    let lowest = open().map(|v| v.1.priority).min()?;
    if priority < lowest {
        return None;
    }
    open()
        .filter(|v| v.1.priority == lowest)
        .min_by(|a, b| {
            let key = |&(_, _, level, order, start): &(usize, Identity, f32, u64, u64)| {
                let young = now.saturating_sub(start) < min_age;
                let level = if policy == StealPolicy::Quietest {
                    level
                } else {
                    0.0
                };
                (young, level, order)
            };
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0)
                .then(ka.1.total_cmp(&kb.1))
                .then(ka.2.cmp(&kb.2))
        })
        .map(|v| v.0)
}

#[test]
fn victim_scan_follows_the_design_rules() {
    let mut x = 99u64;
    let mut rnd = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for round in 0..300 {
        let size = 1 + rnd(70) as usize;
        let mut pool: VoicePool<()> = VoicePool::new(size, 3);
        let mut live = Vec::new();
        for id in 1..=size as u64 {
            if rnd(5) == 0 {
                continue; // leave some slots free
            }
            let who = Identity {
                id,
                priority: [10, 128, 200][rnd(3) as usize],
                protected: rnd(6) == 0,
                group: [0, 1, 2, NO_GROUP][rnd(4) as usize],
                virtualize: false,
                emitter: crate::voices::NO_EMITTER,
                send: crate::protocol::SendTo::NONE,
            };
            let level = [0.0, 1e-6, 0.25, 0.5, 1.0][rnd(5) as usize];
            let (order, start) = (id * 3 + rnd(2), rnd(3_000));
            let new = Newcomer {
                who,
                voice: (),
                level,
                ends: Rank::NEVER,
                held: 0,
                order,
                now: start,
                fresh: Some(start),
                later_layer: false,
            };
            let Ok(slot) = pool.acquire(new) else {
                panic!("the pool has room")
            };
            live.push((slot, who, level, order, start));
        }
        // A few levels refreshed, as the mixer does every block.
        pool.refresh_levels(size, |_, _, _| 0.5, |_| {});
        for v in live.iter_mut() {
            v.2 = 0.5;
        }
        pool.update(live.first().map_or(0, |v| v.1.id), |_| 0.125);
        if let Some(v) = live.first_mut() {
            v.2 = 0.125;
        }
        pool.check_invariants().unwrap();
        for policy in [
            StealPolicy::Quietest,
            StealPolicy::Oldest,
            StealPolicy::Reject,
        ] {
            for priority in [0u8, 128, 255] {
                let (now, min_age) = (rnd(4_000), [0, 1_440][rnd(2) as usize]);
                let within = [None, Some(0), Some(1), Some(NO_GROUP)][rnd(4) as usize];
                let want = reference_victim(&live, policy, priority, now, min_age, within);
                for isa in [Isa::Scalar, Isa::detect()] {
                    let v = pool.choose_victim(policy, priority, now, min_age, within, isa);
                    let got = match v {
                        Victim::Slot(i) => Some(i),
                        Victim::None => None,
                    };
                    assert_eq!(
                        got, want,
                        "round {round} {policy:?} priority {priority} now {now} {within:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn release_and_replace_keep_the_index_and_keys_true() {
    let mut pool: VoicePool<&str> = VoicePool::new(2, 1);
    let who = |id| Identity {
        id,
        priority: 128,
        protected: false,
        group: if id == 3 { 0 } else { NO_GROUP },
        virtualize: false,
        emitter: crate::voices::NO_EMITTER,
        send: crate::protocol::SendTo::NONE,
    };
    let new = |id, voice, level, now| Newcomer {
        who: who(id),
        voice,
        level,
        ends: Rank::NEVER,
        held: 0,
        order: id,
        now,
        fresh: Some(now),
        later_layer: false,
    };
    let (Ok(a), Ok(b)) = (
        pool.acquire(new(1, "a", 0.5, 0)),
        pool.acquire(new(2, "b", 0.25, 0)),
    ) else {
        panic!("the pool has room")
    };
    assert!(pool.acquire(new(3, "c", 1.0, 0)).is_err());
    let Ok(old) = pool.replace(b, new(3, "c", 1.0, 10)) else {
        panic!("slot {b} is live")
    };
    assert_eq!((old.who.id, old.voice, old.start), (2, "b", 0));
    assert_eq!(pool.find(2), None);
    assert_eq!(pool.find(3), Some(b));
    assert_eq!(pool.release(a).map(|(who, v)| (who.id, v)), Some((1, "a")));
    assert_eq!(pool.find(1), None);
    pool.check_invariants().unwrap();
    let mut seen = Vec::new();
    pool.report(|i, id, level| seen.push((i, id, level)));
    assert_eq!(seen, [(a, 0, 0.0), (b, 3, 1.0)]);
    assert_eq!(pool.groups.members(0), 1);
}

#[test]
fn a_full_group_replaces_its_own_members_only() {
    let mut pool: VoicePool<u64> = VoicePool::new(4, 1);
    pool.configure_group(
        0,
        ValidGroup {
            max_voices: 2,
            policy: StealPolicy::Quietest,
            min_interval: 0,
        },
    );
    let rules = StealRules {
        policy: StealPolicy::Quietest,
        min_age: 0,
        fresh_window: 0,
        start_virtual_margin: 0.0,
        isa: Isa::Scalar,
    };
    let place = |pool: &mut VoicePool<u64>, id: u64, group: u16, level: f32| {
        let who = Identity {
            id,
            priority: 128,
            protected: false,
            group,
            virtualize: false,
            emitter: crate::voices::NO_EMITTER,
            send: crate::protocol::SendTo::NONE,
        };
        let new = Newcomer {
            who,
            voice: id,
            level,
            ends: Rank::NEVER,
            held: 0,
            order: id,
            now: id * 100,
            fresh: Some(id * 100),
            later_layer: false,
        };
        match pool.place(new, rules, |_, _| Rank::from(0.0)) {
            Placement::Started => "started".to_string(),
            Placement::Stole { old, limited } => format!("stole {} {limited}", old.who.id),
            Placement::Rejected { why, .. } => {
                format!("rejected {}", why != crate::voices::Refusal::Pool)
            }
        }
    };
    // An ungrouped quiet voice, then two group members.
    assert_eq!(place(&mut pool, 1, NO_GROUP, 0.01), "started");
    assert_eq!(place(&mut pool, 2, 0, 0.5), "started");
    assert_eq!(place(&mut pool, 3, 0, 0.3), "started");
    // The group is full: its quieter member goes, not the quieter
    // ungrouped voice, although the pool has a free slot.
    assert_eq!(place(&mut pool, 4, 0, 0.9), "stole 3 true");
    // An ungrouped voice takes the free slot; the next steals pool-wide.
    assert_eq!(place(&mut pool, 5, NO_GROUP, 0.9), "started");
    assert_eq!(place(&mut pool, 6, NO_GROUP, 0.9), "stole 1 false");
    pool.check_invariants().unwrap();
    assert_eq!(pool.groups.members(0), 2);
}

/// The level refresh shows `ahead` each voice it is about to rank,
/// [`RUN_AHEAD`] slots early, within the block's share only (free slots
/// shown nothing).
#[test]
fn the_level_refresh_shows_voices_ahead_of_their_turn() {
    let size = 16;
    let mut pool: VoicePool<u64> = VoicePool::new(size, 1);
    for id in 1..=size as u64 {
        let new = Newcomer {
            who: Identity {
                id,
                priority: 128,
                protected: false,
                group: NO_GROUP,
                virtualize: false,
                emitter: crate::voices::NO_EMITTER,
                send: crate::protocol::SendTo::NONE,
            },
            voice: id,
            level: 0.5,
            ends: Rank::NEVER,
            held: 0,
            order: id,
            now: 0,
            fresh: Some(0),
            later_layer: false,
        };
        assert!(pool.acquire(new).is_ok());
    }
    for id in [3, 4, 9] {
        let slot = pool.find(id).expect("live");
        assert!(pool.release(slot).is_some());
    }
    // Three blocks of 7 slots each: the third wraps round the pool.
    for _ in 0..3 {
        let (mut ranked, mut shown) = (Vec::new(), Vec::new());
        let start = pool.refresh_cursor;
        pool.refresh_levels(
            7,
            |_, _, &v| {
                ranked.push(v);
                0.25
            },
            |&v| shown.push(v),
        );
        // The voices in the batch's slots after its first RUN_AHEAD.
        let late: Vec<u64> = (RUN_AHEAD..7)
            .filter_map(|k| match pool.slots.slots().get((start + k) % size) {
                Some(Slot::Live(v)) => Some(*v),
                _ => None,
            })
            .collect();
        assert!(!late.is_empty());
        assert_eq!(shown, late);
        assert!(ranked.ends_with(&late), "{ranked:?} {late:?}");
    }
}

/// The voice a steal re-ranks beside its victim: the soonest to run out
/// among those as eligible as the victim (same priority; old enough if the
/// victim is; in the group, within a group), never the victim itself.
#[test]
fn soonest_ending_keeps_to_the_victims_peers() {
    // Per slot: (priority, start frame, end frame, group).
    let slots = [
        (128, 0, 900, 0),      // 0: the victim
        (128, 0, 700, 1),      // 1: another group
        (200, 0, 100, 0),      // 2: higher priority
        (128, 950, 200, 0),    // 3: young (started 50 frames ago)
        (128, 0, 800, 0),      // 4
        (128, 0, u64::MAX, 0), // 5: never ends
    ];
    let mut c = victim::Candidates::new(slots.len());
    for (i, &(priority, start, end, group)) in slots.iter().enumerate() {
        let meta = victim::Meta {
            key: victim::key(priority, 0.5),
            start,
            begun: start,
            order: i as u64,
            group,
            end,
        };
        c.set(i, meta);
    }
    let (now, min_age) = (1_000, 100);
    // (victim, group to stay within, expected)
    let cases = [
        (0, None, Some((1, 700))),
        (0, Some(0), Some((4, 800))), // the young voice 3, ending sooner, is not a peer
        (4, Some(0), None),           // the soonest of its peers is itself: nothing else
        (3, Some(0), None), // a young victim competes with young voices: it ends soonest itself
        (2, None, None),
    ];
    for (victim, within, expected) in cases {
        assert_eq!(
            c.soonest_ending(victim, (now, u64::MAX), min_age, within, Isa::detect()),
            expected,
            "victim {victim} within {within:?}"
        );
    }
}
