//! Victim choice: which voice a new one replaces when the pool is full.
//!
//! What the choice reads is kept apart from the voices, structure-of-arrays
//! style: per slot a sort key, a start frame and a start order (`u64` each),
//! so that choosing among 1024 voices is a few vectorized passes over 24 KiB
//! instead of a walk through every voice. The key holds the voice's priority
//! and its audibility level ([`super::audibility`]), refreshed by the voice
//! manager itself, never by metering.

use crate::protocol::{StealPolicy, NO_GROUP};
use crate::simd::Isa;

/// Victim-choice sort key of a slot; smaller is a better victim (ties go to
/// the smaller start order, kept beside it). From the most significant bits
/// down: priority (bits 32..40), "young" (bit 31, set during the scan),
/// audibility level as `f32` bits (0..31: a non-negative float orders like
/// its bits). A free or protected slot holds [`NOT_A_CANDIDATE`], which stays
/// above every real key (bits 40.. set) whatever the scan masks or sets.
pub(crate) const NOT_A_CANDIDATE: u64 = u64::MAX;
const PRIORITY_SHIFT: u32 = 32;
const YOUNG_BIT: u64 = 1 << 31;
const LEVEL_BITS: u64 = YOUNG_BIT - 1;
const CANDIDATE_BITS: u32 = 40;

/// The key of a voice of `priority` (unprotected) at audibility `level`.
pub(crate) fn key(priority: u8, level: f32) -> u64 {
    (u64::from(priority) << PRIORITY_SHIFT) | level_bits(level)
}

/// `key` with its level replaced (a non-candidate stays one).
pub(crate) fn with_level(key: u64, level: f32) -> u64 {
    if key == NOT_A_CANDIDATE {
        key
    } else {
        (key & !LEVEL_BITS) | level_bits(level)
    }
}

/// A level in its place in a key: its `f32` bits, which order like the
/// values for non-negative floats (anything else, `-0.0` and NaN included,
/// counts as silent).
fn level_bits(level: f32) -> u64 {
    if level > 0.0 {
        u64::from(level.to_bits()) & LEVEL_BITS
    } else {
        0
    }
}

/// A slot's entries in [`Candidates`].
#[derive(Clone, Copy)]
pub(crate) struct Meta {
    pub(crate) key: u64,
    pub(crate) start: u64,
    pub(crate) begun: u64,
    pub(crate) order: u64,
    pub(crate) group: u16,
    pub(crate) end: u64,
}

/// The outcome of victim choice.
pub(crate) enum Victim {
    /// Steal the voice in this slot.
    Slot(usize),
    /// Nothing may be stolen: reject the new voice.
    None,
}

/// Per slot: sort key, start frame, start order, group; and scratch space
/// for the scan. Allocated once; every method is allocation-free.
pub(crate) struct Candidates {
    pub(crate) keys: Box<[u64]>,
    /// The frame each slot's voice counts its age from, for the age rule:
    /// when it started, or for a voice that came back, later (it is held
    /// as just started for a while: see `Newcomer::held`).
    pub(crate) starts: Box<[u64]>,
    /// The frame each slot's voice started sounding (the first frame it
    /// rendered, or came back at).
    pub(crate) begun: Box<[u64]>,
    pub(crate) orders: Box<[u64]>,
    /// The output frame each slot's sound runs out at (`Rank::ends`).
    pub(crate) ends: Box<[u64]>,
    /// Each slot's group (`NO_GROUP` for none), for choosing within a group.
    pub(crate) groups: Box<[u16]>,
    scratch: Box<[u64]>,
}

impl Candidates {
    pub(crate) fn new(slots: usize) -> Candidates {
        Candidates {
            keys: vec![NOT_A_CANDIDATE; slots].into_boxed_slice(),
            starts: vec![0; slots].into_boxed_slice(),
            begun: vec![0; slots].into_boxed_slice(),
            orders: vec![0; slots].into_boxed_slice(),
            ends: vec![u64::MAX; slots].into_boxed_slice(),
            groups: vec![NO_GROUP; slots].into_boxed_slice(),
            scratch: vec![0; slots].into_boxed_slice(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        (self.keys.len()
            + self.starts.len()
            + self.begun.len()
            + self.orders.len()
            + self.ends.len()
            + self.scratch.len())
            * std::mem::size_of::<u64>()
            + self.groups.len() * std::mem::size_of::<u16>()
    }

    /// Sets slot `i`'s entries.
    pub(crate) fn set(&mut self, i: usize, m: Meta) {
        if let (Some(k), Some(s), Some(b), Some(o), Some(g), Some(e)) = (
            self.keys.get_mut(i),
            self.starts.get_mut(i),
            self.begun.get_mut(i),
            self.orders.get_mut(i),
            self.groups.get_mut(i),
            self.ends.get_mut(i),
        ) {
            (*k, *s, *b, *o, *g, *e) = (m.key, m.start, m.begun, m.order, m.group, m.end);
        }
    }

    /// Among the voices as eligible as the one in slot `victim` (the same
    /// priority, as old by `min_age`, in group `within` if set), the one
    /// whose sound runs out soonest, if that is before frame `before` and
    /// it is not `victim` itself. One branch-free pass over the arrays
    /// (vectorized, with AVX2 where the CPU has it); a second, short one
    /// finds the slot only when there is one to find.
    pub(crate) fn soonest_ending(
        &self,
        victim: usize,
        (now, before): (u64, u64),
        min_age: u64,
        within: Option<u16>,
        isa: Isa,
    ) -> Option<(usize, u64)> {
        let (&vk, &vs) = (self.keys.get(victim)?, self.starts.get(victim)?);
        let like = Like {
            class: vk >> PRIORITY_SHIFT,
            // Only a young victim lets young voices compete with it.
            any_age: now.saturating_sub(vs) < min_age,
            now,
            min_age,
            within,
        };
        let (keys, starts, ends, groups) = (&*self.keys, &*self.starts, &*self.ends, &*self.groups);
        // First, cheaply: does any voice of the victim's priority run out
        // soon at all? (Usually not: then one pass over two arrays.)
        #[cfg(target_arch = "x86_64")]
        let first = if let Isa::Avx2(_) = isa {
            // SAFETY: an `Avx2` token exists only on a CPU with AVX2.
            unsafe { soonest_of_class_avx2(keys, ends, like.class) }
        } else {
            soonest_of_class(keys, ends, like.class)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let first = {
            let _ = isa;
            soonest_of_class(keys, ends, like.class)
        };
        if first >= before {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        let soonest = if let Isa::Avx2(_) = isa {
            // SAFETY: as above.
            unsafe { soonest_avx2(keys, starts, ends, groups, like) }
        } else {
            soonest(keys, starts, ends, groups, like)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let soonest = soonest(keys, starts, ends, groups, like);
        if soonest >= before {
            return None;
        }
        let eligible = |i: usize| {
            keys.get(i)
                .zip(starts.get(i))
                .zip(groups.get(i))
                .is_some_and(|((&k, &s), &g)| like.eligible(k, s, g) == u64::MAX)
        };
        // Ends are frames: usually one voice has this one.
        let i = match ends.iter().position(|&e| e == soonest) {
            Some(i) if eligible(i) => i,
            _ => (0..ends.len()).find(|&i| ends[i] == soonest && eligible(i))?,
        };
        (i != victim).then_some((i, soonest))
    }

    /// Chooses which voice a new one of `priority` may replace, following
    /// the stealing rules: protected voices never; only the lowest priority
    /// present, and nothing if the newcomer ranks below all of them; voices
    /// younger than `min_age` frames only if no older candidate exists; then
    /// the least audible (or oldest), ties to the oldest. With `within`
    /// set, only members of that group are candidates (a full group steals
    /// only from itself).
    ///
    /// The smallest key is the lowest priority, then not young, then the
    /// least audible; among equal keys the smallest start order wins. Three
    /// branch-free passes over the key arrays (see [`scan`]), which the
    /// compiler vectorizes (with AVX2 where the CPU has it).
    pub(crate) fn choose(
        &mut self,
        policy: StealPolicy,
        priority: u8,
        now: u64,
        min_age: u64,
        within: Option<u16>,
        isa: Isa,
    ) -> Victim {
        let mask = match policy {
            StealPolicy::Reject => return Victim::None,
            StealPolicy::Quietest => u64::MAX,
            StealPolicy::Oldest => !LEVEL_BITS,
        };
        let Candidates {
            keys,
            starts,
            orders,
            groups,
            scratch,
            ..
        } = self;
        let rules = Rules {
            mask,
            now,
            min_age,
            within,
        };
        #[cfg(target_arch = "x86_64")]
        let found = if let Isa::Avx2(_) = isa {
            // SAFETY: an `Avx2` token exists only on a CPU with AVX2.
            unsafe { scan_avx2(keys, starts, orders, groups, scratch, rules) }
        } else {
            scan(keys, starts, orders, groups, scratch, rules)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let found = {
            let _ = isa;
            scan(keys, starts, orders, groups, scratch, rules)
        };
        let Scan { key, slot } = found;
        if key >> CANDIDATE_BITS != 0 {
            return Victim::None; // no candidate at all
        }
        if priority < (key >> PRIORITY_SHIFT) as u8 {
            return Victim::None; // the newcomer ranks below every candidate
        }
        match slot {
            Some(i) => Victim::Slot(i),
            None => Victim::None,
        }
    }
}

/// What a scan applies to each key: the policy's mask, the age rule, and
/// an optional group to stay within.
#[derive(Clone, Copy)]
struct Rules {
    mask: u64,
    now: u64,
    min_age: u64,
    within: Option<u16>,
}

/// The result of a victim scan: the smallest key seen (with the young bit
/// set as it applied) and the slot holding it with the smallest order.
struct Scan {
    key: u64,
    slot: Option<usize>,
}

/// Victim scan: (1) each slot's key, masked by policy and marked young,
/// into `scratch`, and their minimum; (2) the smallest order among the
/// slots with that key; (3) the slot with that order. The first two passes
/// are branch-free loops over flat arrays (vectorized), the third stops at
/// the match. Orders are unique among live voices; a slot that is not a
/// candidate never has the minimum key (unless nothing is a candidate,
/// which the caller checks on the key).
#[inline(always)]
fn scan(
    keys: &[u64],
    starts: &[u64],
    orders: &[u64],
    groups: &[u16],
    scratch: &mut [u64],
    rules: Rules,
) -> Scan {
    let Rules {
        mask,
        now,
        min_age,
        within,
    } = rules;
    let n = keys
        .len()
        .min(starts.len())
        .min(orders.len())
        .min(groups.len())
        .min(scratch.len());
    let (keys, starts, orders, groups, scratch) = (
        &keys[..n],
        &starts[..n],
        &orders[..n],
        &groups[..n],
        &mut scratch[..n],
    );
    let mut min_key = u64::MAX;
    match within {
        None => {
            for ((s, &k), &start) in scratch.iter_mut().zip(keys).zip(starts) {
                let young = if now.saturating_sub(start) < min_age {
                    YOUNG_BIT
                } else {
                    0
                };
                *s = (k & mask) | young;
                min_key = min_key.min(*s);
            }
        }
        Some(group) => {
            // Outside the group: all ones, never a candidate.
            for (((s, &k), &start), &g) in scratch.iter_mut().zip(keys).zip(starts).zip(groups) {
                let young = if now.saturating_sub(start) < min_age {
                    YOUNG_BIT
                } else {
                    0
                };
                let outside = u64::from(g != group).wrapping_neg();
                *s = (k & mask) | young | outside;
                min_key = min_key.min(*s);
            }
        }
    }
    // Pass 2: each slot's order if its key is the smallest, else MAX.
    let mut min_order = u64::MAX;
    for (s, &o) in scratch.iter_mut().zip(orders) {
        let not_min = u64::from(*s != min_key).wrapping_neg(); // 0 or MAX
        *s = o | not_min;
        min_order = min_order.min(*s);
    }
    // Pass 3: where it is (orders are unique among live voices).
    let slot = match min_order {
        u64::MAX => None,
        o => scratch.iter().position(|&s| s == o),
    };
    Scan { key: min_key, slot }
}

/// [`scan`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (an [`crate::simd::Avx2`] token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2(
    keys: &[u64],
    starts: &[u64],
    orders: &[u64],
    groups: &[u16],
    scratch: &mut [u64],
    rules: Rules,
) -> Scan {
    scan(keys, starts, orders, groups, scratch, rules)
}

/// Which voices [`Candidates::soonest_ending`] compares with a victim.
#[derive(Clone, Copy)]
struct Like {
    /// The victim's key above its young bit and level: its priority (and
    /// all ones for a non-candidate).
    class: u64,
    any_age: bool,
    now: u64,
    min_age: u64,
    within: Option<u16>,
}

impl Like {
    /// All ones if a voice of key `k`, started at `start`, in group `g`
    /// is as eligible as the victim; else 0. Branch-free.
    #[inline(always)]
    fn eligible(&self, k: u64, start: u64, g: u16) -> u64 {
        let same = u64::from(k >> PRIORITY_SHIFT == self.class);
        let old =
            u64::from(self.any_age) | u64::from(self.now.saturating_sub(start) >= self.min_age);
        let member = self.within.map_or(1, |w| u64::from(g == w));
        (same & old & member).wrapping_neg()
    }
}

/// The soonest end among the voices `like` admits (`u64::MAX`: none).
/// Branch-free (one loop per case of `within`, as [`scan`]).
#[inline(always)]
fn soonest(keys: &[u64], starts: &[u64], ends: &[u64], groups: &[u16], like: Like) -> u64 {
    let n = keys
        .len()
        .min(starts.len())
        .min(ends.len())
        .min(groups.len());
    let (keys, starts, ends, groups) = (&keys[..n], &starts[..n], &ends[..n], &groups[..n]);
    // Old enough: started at or before this frame (or any age).
    let latest = if like.any_age {
        u64::MAX
    } else {
        like.now.saturating_sub(like.min_age)
    };
    let mut soonest = u64::MAX;
    match like.within {
        None => {
            for ((&k, &s), &e) in keys.iter().zip(starts).zip(ends) {
                let ok = u64::from(k >> PRIORITY_SHIFT == like.class) & u64::from(s <= latest);
                soonest = soonest.min(e | ok.wrapping_sub(1));
            }
        }
        Some(w) => {
            for (((&k, &s), &e), &g) in keys.iter().zip(starts).zip(ends).zip(groups) {
                let ok = u64::from(k >> PRIORITY_SHIFT == like.class)
                    & u64::from(s <= latest)
                    & u64::from(g == w);
                soonest = soonest.min(e | ok.wrapping_sub(1));
            }
        }
    }
    soonest
}

/// [`soonest`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (an [`crate::simd::Avx2`] token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn soonest_avx2(
    keys: &[u64],
    starts: &[u64],
    ends: &[u64],
    groups: &[u16],
    like: Like,
) -> u64 {
    soonest(keys, starts, ends, groups, like)
}

/// The soonest end among the voices whose key is of priority class
/// `class` (`u64::MAX`: none). Branch-free over two arrays.
#[inline(always)]
fn soonest_of_class(keys: &[u64], ends: &[u64], class: u64) -> u64 {
    let n = keys.len().min(ends.len());
    let mut soonest = u64::MAX;
    for (&k, &e) in keys[..n].iter().zip(&ends[..n]) {
        soonest = soonest.min(e | u64::from(k >> PRIORITY_SHIFT != class).wrapping_neg());
    }
    soonest
}

/// [`soonest_of_class`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (an [`crate::simd::Avx2`] token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn soonest_of_class_avx2(keys: &[u64], ends: &[u64], class: u64) -> u64 {
    soonest_of_class(keys, ends, class)
}
