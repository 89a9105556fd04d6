//! [`VoicePool`]: fixed slots, an intrusive free list, an id index, and
//! victim choice.
//!
//! Real-time contract: every buffer here is allocated once in
//! [`VoicePool::new`] (on the game side, before the mixer moves to the audio
//! thread); every other method is O(1) (acquire, release, find) or one pass
//! over a flat array (victim choice, render), allocates nothing and never
//! panics.
//!
//! Layout: the voices themselves live in `slots`, one 64-byte cache line
//! each (a voice is rendered as a whole, a block at a time). What victim
//! choice reads is kept apart, structure-of-arrays style: three `u64`
//! arrays (sort key, start frame, start order), so choosing among 1024
//! voices is a few vectorized passes over 24 KiB instead of a walk through
//! every voice and its sound's loudness envelope.

use crate::kernel::Isa;
use crate::settings::StealPolicy;
use crate::voice::Voice;
#[cfg(test)]
use std::sync::Arc;

const NONE: u32 = u32::MAX;

/// A slot of a [`FreeList`]: either on the free list (storing the next free
/// slot, as the Object Pool pattern's union does) or holding a live object.
pub(crate) enum Slot<T> {
    Free { next: u32 },
    Live(T),
}

/// The Object Pool pattern itself: a fixed array of slots and an intrusive
/// free list threaded through the free ones. Acquire and release are O(1),
/// allocate nothing and never panic.
pub(crate) struct FreeList<T> {
    slots: Box<[Slot<T>]>,
    free_head: u32,
    live: usize,
}

impl<T> FreeList<T> {
    /// `size` slots (at most `u32::MAX - 1`), all free.
    pub(crate) fn new(size: usize) -> FreeList<T> {
        let size = size.min(NONE as usize - 1);
        FreeList {
            slots: (0..size)
                .map(|i| Slot::Free {
                    next: if i + 1 < size { (i + 1) as u32 } else { NONE },
                })
                .collect(),
            free_head: if size > 0 { 0 } else { NONE },
            live: 0,
        }
    }

    /// Puts `value` into the first free slot; gives it back if there is none.
    #[inline]
    pub(crate) fn acquire(&mut self, value: T) -> Result<usize, T> {
        let i = self.free_head as usize;
        match self.slots.get_mut(i) {
            Some(slot) => {
                let Slot::Free { next } = *slot else {
                    return Err(value); // unreachable while the list is intact
                };
                self.free_head = next;
                *slot = Slot::Live(value);
                self.live += 1;
                Ok(i)
            }
            None => Err(value),
        }
    }

    /// Frees slot `i`, returning its value (`None` if it was free).
    #[inline]
    pub(crate) fn release(&mut self, i: usize) -> Option<T> {
        let slot = self.slots.get_mut(i)?;
        if let Slot::Free { .. } = slot {
            return None;
        }
        let old = std::mem::replace(
            slot,
            Slot::Free {
                next: self.free_head,
            },
        );
        self.free_head = i as u32;
        self.live -= 1;
        match old {
            Slot::Live(v) => Some(v),
            Slot::Free { .. } => None,
        }
    }

    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        match self.slots.get_mut(i) {
            Some(Slot::Live(v)) => Some(v),
            _ => None,
        }
    }

    /// Slots in the list.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Slots holding a value.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    pub(crate) fn slots(&self) -> &[Slot<T>] {
        &self.slots
    }

    pub(crate) fn slots_mut(&mut self) -> &mut [Slot<T>] {
        &mut self.slots
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot<T>>()
    }

    /// Checks that the free list and the live slots partition the slots.
    /// (Allocates: tests and soak runs only.)
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut seen = vec![false; self.slots.len()];
        let mut free = 0;
        let mut at = self.free_head;
        while at != NONE {
            let i = at as usize;
            match self.slots.get(i) {
                Some(Slot::Free { next }) if !seen[i] => {
                    seen[i] = true;
                    free += 1;
                    at = *next;
                }
                Some(Slot::Free { .. }) => return Err(format!("free list loops at slot {i}")),
                Some(Slot::Live(_)) => return Err(format!("free list reaches live slot {i}")),
                None => return Err(format!("free list points past the pool ({i})")),
            }
        }
        let live = self
            .slots
            .iter()
            .filter(|s| matches!(s, Slot::Live(_)))
            .count();
        if live != self.live || free + live != self.slots.len() {
            return Err(format!(
                "free {free} + live {live} (counted {}) != pool size {}",
                self.live,
                self.slots.len()
            ));
        }
        Ok(())
    }
}

/// Victim-choice sort key of a slot; smaller is a better victim (ties go to
/// the smaller start order, kept beside it). From the most significant bits
/// down: priority (bits 32..40), "young" (bit 31, set during the scan),
/// audible power as `f32` bits (0..31: a non-negative float orders like its
/// bits). A free or protected slot holds [`NOT_A_CANDIDATE`], which stays
/// above every real key (bits 40.. set) whatever the scan masks or sets.
const NOT_A_CANDIDATE: u64 = u64::MAX;
const PRIORITY_SHIFT: u32 = 32;
const YOUNG_BIT: u64 = 1 << 31;
const LEVEL_BITS: u64 = YOUNG_BIT - 1;
const CANDIDATE_BITS: u32 = 40;

/// Fixed-size pool of voices plus fade-out tails for stolen voices.
///
/// Handles are checked by id: ids are never reused, so each slot's current id
/// acts as its generation and a handle to a reused slot matches nothing.
pub(crate) struct VoicePool {
    slots: FreeList<Voice>,
    /// Per slot, what victim choice reads: sort key, start frame, start
    /// order; and scratch space for the scan.
    keys: Box<[u64]>,
    starts: Box<[u64]>,
    orders: Box<[u64]>,
    scratch: Box<[u64]>,
    /// Live voice id -> slot.
    index: IdIndex,
    /// Stolen voices finishing their fade-out, outside the pool proper so the
    /// thief can start in the same block. Capacity fixed at `new`; pushes
    /// check it first, so the vector never reallocates.
    tails: Vec<Voice>,
}

/// The outcome of victim choice.
pub(crate) enum Victim {
    /// Steal the voice in this slot.
    Slot(usize),
    /// Nothing may be stolen: reject the new voice.
    None,
}

impl VoicePool {
    /// `voices` slots, all free, and as many fade-out tails.
    pub(crate) fn new(voices: usize) -> VoicePool {
        VoicePool {
            slots: FreeList::new(voices),
            keys: vec![NOT_A_CANDIDATE; voices].into_boxed_slice(),
            starts: vec![0; voices].into_boxed_slice(),
            orders: vec![0; voices].into_boxed_slice(),
            scratch: vec![0; voices].into_boxed_slice(),
            index: IdIndex::new(voices),
            tails: Vec::with_capacity(voices),
        }
    }

    /// Heap bytes held, all allocated by [`VoicePool::new`].
    pub(crate) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.memory_bytes()
            + (self.keys.len() + self.starts.len() + self.orders.len() + self.scratch.len())
                * size_of::<u64>()
            + self.index.memory_bytes()
            + self.tails.capacity() * size_of::<Voice>()
    }

    /// Slots holding a voice.
    pub(crate) fn live(&self) -> usize {
        self.slots.live()
    }

    /// Puts `voice`, started as number `order` at output frame `start`, into
    /// a free slot in O(1); gives it back if there is none.
    pub(crate) fn acquire(&mut self, voice: Voice, order: u64, start: u64) -> Result<usize, Voice> {
        let key = key_of(&voice);
        let id = voice.id;
        let i = self.slots.acquire(voice)?;
        self.set_meta(i, key, start, order);
        self.index.insert(id, i as u32);
        Ok(i)
    }

    /// Frees slot `i` in O(1), returning its voice.
    pub(crate) fn release(&mut self, i: usize) -> Option<Voice> {
        let v = self.slots.release(i)?;
        self.set_meta(i, NOT_A_CANDIDATE, 0, 0);
        self.index.remove(v.id);
        Some(v)
    }

    /// Puts `voice` (started as number `order` at frame `start`) into live
    /// slot `i`, returning the voice it replaces and that voice's start frame.
    pub(crate) fn replace(
        &mut self,
        i: usize,
        voice: Voice,
        order: u64,
        start: u64,
    ) -> Option<(Voice, u64)> {
        let old_start = *self.starts.get(i)?;
        let key = key_of(&voice);
        let old = self.slots.get_mut(i)?;
        let (old_id, new_id) = (old.id, voice.id);
        let old = std::mem::replace(old, voice);
        self.set_meta(i, key, start, order);
        self.index.remove(old_id);
        self.index.insert(new_id, i as u32);
        Some((old, old_start))
    }

    /// The slot holding voice `id`, if it is still live. O(1).
    pub(crate) fn find(&self, id: u64) -> Option<usize> {
        self.index.get(id).map(|i| i as usize)
    }

    /// Applies `f` to live voice `id` (if it is live) and refreshes its
    /// victim-choice key. O(1).
    pub(crate) fn with_voice(&mut self, id: u64, f: impl FnOnce(&mut Voice)) {
        let Some(i) = self.find(id) else { return };
        if let (Some(v), Some(key)) = (self.slots.get_mut(i), self.keys.get_mut(i)) {
            f(v);
            *key = key_of(v);
        }
    }

    /// Applies `f` to every voice that still sounds: the live ones (whose
    /// keys it refreshes) and the stolen ones fading out in the tails.
    pub(crate) fn for_each_sounding(&mut self, mut f: impl FnMut(&mut Voice)) {
        for (slot, key) in self.slots.slots_mut().iter_mut().zip(self.keys.iter_mut()) {
            if let Slot::Live(v) = slot {
                f(v);
                *key = key_of(v);
            }
        }
        self.tails.iter_mut().for_each(f);
    }

    /// Recomputes every live voice's audible level (which moves as its
    /// position and gain do) into its key, and reports each slot:
    /// `(slot, id, audible power)`, id 0 and power 0 for a free slot.
    pub(crate) fn update_levels(&mut self, mut report: impl FnMut(usize, u64, f32)) {
        for (i, (slot, key)) in self
            .slots
            .slots()
            .iter()
            .zip(self.keys.iter_mut())
            .enumerate()
        {
            match slot {
                Slot::Live(v) => {
                    let power = v.audible_power();
                    if *key != NOT_A_CANDIDATE {
                        *key = (*key & !LEVEL_BITS) | level_bits(power);
                    }
                    report(i, v.id, power);
                }
                Slot::Free { .. } => report(i, 0, 0.0),
            }
        }
    }

    fn set_meta(&mut self, i: usize, key: u64, start: u64, order: u64) {
        if let (Some(k), Some(s), Some(o)) = (
            self.keys.get_mut(i),
            self.starts.get_mut(i),
            self.orders.get_mut(i),
        ) {
            (*k, *s, *o) = (key, start, order);
        }
    }

    /// Chooses which voice a new one of `priority` may replace, following
    /// DESIGN.md: protected voices never; only the lowest priority present,
    /// and nothing if the newcomer ranks below all of them; voices younger
    /// than `min_age` frames only if no older candidate exists; then the
    /// quietest (or oldest), ties to the oldest.
    ///
    /// The smallest key is the lowest priority, then not young, then the
    /// quietest; among equal keys the smallest start order wins. Three
    /// branch-free passes over the key arrays (see [`scan`]), which the
    /// compiler vectorizes (with AVX2 where the CPU has it).
    pub(crate) fn choose_victim(
        &mut self,
        policy: StealPolicy,
        priority: u8,
        now: u64,
        min_age: u64,
        isa: Isa,
    ) -> Victim {
        let mask = match policy {
            StealPolicy::Reject => return Victim::None,
            StealPolicy::Quietest => u64::MAX,
            StealPolicy::Oldest => !LEVEL_BITS,
        };
        let Scan { key, slot } = match isa {
            // SAFETY: `Isa::Avx2` exists only when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe {
                scan_avx2(
                    &self.keys,
                    &self.starts,
                    &self.orders,
                    &mut self.scratch,
                    mask,
                    now,
                    min_age,
                )
            },
            _ => scan(
                &self.keys,
                &self.starts,
                &self.orders,
                &mut self.scratch,
                mask,
                now,
                min_age,
            ),
        };
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

    /// Keeps a stolen voice fading out. If every tail is busy (more steals
    /// within one fade time than the pool has voices), the quietest tail is
    /// cut to make room (it is already partway through its fade).
    pub(crate) fn push_tail(&mut self, voice: Voice) {
        if self.tails.len() < self.tails.capacity() {
            // Within capacity: `Vec::push` does not reallocate.
            self.tails.push(voice);
            return;
        }
        let quietest = self
            .tails
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.peak_gain().total_cmp(&b.1.peak_gain()))
            .map(|(i, _)| i);
        if let Some(i) = quietest {
            self.tails[i] = voice;
        } // else a pool with no tails: the voice is cut
    }

    /// Renders every live voice and tail into the planar bus `l`, `r`, frees
    /// the slots of voices that end and calls `on_end` with each one's id
    /// and the number of frames it sounded in this call.
    pub(crate) fn render(
        &mut self,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
        mut on_end: impl FnMut(u64, usize),
    ) {
        for i in 0..self.slots.len() {
            let ended = match self.slots.get_mut(i) {
                Some(v) => v.render(l, r, isa),
                None => None,
            };
            if let Some(sounded) = ended {
                if let Some(v) = self.release(i) {
                    on_end(v.id, sounded);
                }
            }
        }
        let mut t = 0;
        while t < self.tails.len() {
            if self.tails[t].render(l, r, isa).is_none() {
                t += 1;
            } else {
                self.tails.swap_remove(t);
            }
        }
    }

    /// Checks the pool's invariants: the free list and the live slots
    /// partition the pool, no id is live twice, the id index and the
    /// victim-choice keys agree with the slots, the tails never outgrew their
    /// capacity. For tests and soak runs (allocates; not for the audio thread).
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        self.slots.check()?;
        let live: Vec<(usize, &Voice)> = self
            .slots
            .slots()
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Slot::Live(v) => Some((i, v)),
                Slot::Free { .. } => None,
            })
            .collect();
        let mut ids: Vec<u64> = live.iter().map(|(_, v)| v.id).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return Err("a voice id is live in two slots".into());
        }
        if self.index.len() != live.len() {
            return Err(format!(
                "id index holds {} ids for {} live voices",
                self.index.len(),
                live.len()
            ));
        }
        for &(i, v) in &live {
            if self.find(v.id) != Some(i) {
                return Err(format!("id index does not map voice {} to slot {i}", v.id));
            }
            if key_of(v) & !LEVEL_BITS != self.keys[i] & !LEVEL_BITS {
                return Err(format!("victim key of slot {i} is stale"));
            }
        }
        for (i, s) in self.slots.slots().iter().enumerate() {
            if matches!(s, Slot::Free { .. }) && self.keys[i] != NOT_A_CANDIDATE {
                return Err(format!("free slot {i} is a stealing candidate"));
            }
        }
        if self.tails.len() > self.slots.len() {
            return Err(format!(
                "{} tails for {} slots",
                self.tails.len(),
                self.slots.len()
            ));
        }
        Ok(())
    }
}

/// The victim-choice key of `v` (young bit clear).
fn key_of(v: &Voice) -> u64 {
    if v.protected {
        NOT_A_CANDIDATE
    } else {
        (u64::from(v.priority) << PRIORITY_SHIFT) | level_bits(v.audible_power())
    }
}

/// An audible power in its place in a key: its `f32` bits, which order like
/// the values for non-negative floats (anything else, `-0.0` included,
/// counts as silent).
fn level_bits(power: f32) -> u64 {
    if power > 0.0 {
        u64::from(power.to_bits()) & LEVEL_BITS
    } else {
        0
    }
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
    scratch: &mut [u64],
    mask: u64,
    now: u64,
    min_age: u64,
) -> Scan {
    let n = keys
        .len()
        .min(starts.len())
        .min(orders.len())
        .min(scratch.len());
    let (keys, starts, orders, scratch) =
        (&keys[..n], &starts[..n], &orders[..n], &mut scratch[..n]);
    let mut min_key = u64::MAX;
    for ((s, &k), &start) in scratch.iter_mut().zip(keys).zip(starts) {
        let young = if now.saturating_sub(start) < min_age {
            YOUNG_BIT
        } else {
            0
        };
        *s = (k & mask) | young;
        min_key = min_key.min(*s);
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
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2(
    keys: &[u64],
    starts: &[u64],
    orders: &[u64],
    scratch: &mut [u64],
    mask: u64,
    now: u64,
    min_age: u64,
) -> Scan {
    scan(keys, starts, orders, scratch, mask, now, min_age)
}

/// Maps live voice ids to slots: open addressing with linear probing, at
/// most half full, deletion by backward shift (no tombstones, so lookups
/// stay short however long the engine runs). Id 0 marks an empty entry
/// (handles count from 1). Every loop is bounded by the table size.
struct IdIndex {
    entries: Box<[Entry]>,
    len: usize,
    shift: u32,
}

/// One index entry: id and slot side by side (one cache line per probe).
#[derive(Clone, Copy)]
struct Entry {
    id: u64,
    slot: u32,
}

impl IdIndex {
    fn new(voices: usize) -> IdIndex {
        let size = (2 * voices).next_power_of_two().max(2);
        IdIndex {
            entries: vec![Entry { id: 0, slot: 0 }; size].into_boxed_slice(),
            len: 0,
            shift: 64 - size.trailing_zeros(),
        }
    }

    fn memory_bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>()
    }

    #[cfg(any(test, feature = "hooks"))]
    fn len(&self) -> usize {
        self.len
    }

    fn mask(&self) -> usize {
        self.entries.len() - 1
    }

    /// Fibonacci hashing: consecutive ids land far apart.
    fn home(&self, id: u64) -> usize {
        (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn position(&self, id: u64) -> Option<usize> {
        let mask = self.mask();
        let mut at = self.home(id);
        for _ in 0..self.entries.len() {
            match self.entries[at].id {
                0 => return None,
                x if x == id => return Some(at),
                _ => at = (at + 1) & mask,
            }
        }
        None
    }

    fn get(&self, id: u64) -> Option<u32> {
        self.position(id).map(|at| self.entries[at].slot)
    }

    /// Inserts or updates `id`. Only fails (silently) if the table is full,
    /// which the pool's size rules out (at most `voices` ids in `2 * voices`
    /// entries).
    fn insert(&mut self, id: u64, slot: u32) {
        if id == 0 {
            return;
        }
        let mask = self.mask();
        let mut at = self.home(id);
        for _ in 0..self.entries.len() {
            let e = &mut self.entries[at];
            match e.id {
                0 => {
                    *e = Entry { id, slot };
                    self.len += 1;
                    return;
                }
                x if x == id => {
                    e.slot = slot;
                    return;
                }
                _ => at = (at + 1) & mask,
            }
        }
    }

    fn remove(&mut self, id: u64) {
        let Some(mut hole) = self.position(id) else {
            return;
        };
        let mask = self.mask();
        self.entries[hole].id = 0;
        self.len -= 1;
        // Shift back every later entry of the run whose home is not in
        // (hole, at]: it would no longer be found past the hole.
        let mut at = (hole + 1) & mask;
        for _ in 0..self.entries.len() {
            let e = self.entries[at];
            if e.id == 0 {
                return;
            }
            let dist_home = at.wrapping_sub(self.home(e.id)) & mask;
            let dist_hole = at.wrapping_sub(hole) & mask;
            if dist_home >= dist_hole {
                self.entries[hole] = e;
                self.entries[at].id = 0;
                hole = at;
            }
            at = (at + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::PlayParams;
    use crate::sound::Sound;
    use std::collections::HashMap;

    /// The victim rules of DESIGN.md written out directly, over the voices.
    fn reference_victim(
        voices: &[(usize, &Voice, u64, u64)],
        policy: StealPolicy,
        priority: u8,
        now: u64,
        min_age: u64,
    ) -> Option<usize> {
        if policy == StealPolicy::Reject {
            return None;
        }
        let lowest = voices
            .iter()
            .filter(|v| !v.1.protected)
            .map(|v| v.1.priority)
            .min()?;
        if priority < lowest {
            return None;
        }
        voices
            .iter()
            .filter(|v| !v.1.protected && v.1.priority == lowest)
            .min_by(|a, b| {
                let key = |(_, v, order, start): &(usize, &Voice, u64, u64)| {
                    let young = now.saturating_sub(*start) < min_age;
                    let level = if policy == StealPolicy::Quietest {
                        v.audible_power()
                    } else {
                        0.0
                    };
                    (young, level, *order)
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
        let tone: Vec<f32> = (0..4_800).map(|i| (i as f32 * 0.05).sin() * 0.5).collect();
        let sound = Sound::from_samples(1, 48_000, tone).unwrap();
        let mut x = 99u64;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..300 {
            let size = 1 + rnd(70) as usize;
            let mut pool = VoicePool::new(size);
            let mut meta = HashMap::new();
            for id in 1..=size as u64 {
                if rnd(5) == 0 {
                    continue; // leave some slots free
                }
                let params = PlayParams::default()
                    .volume([0.0, 0.25, 0.5, 1.0][rnd(4) as usize])
                    .pan([-1.0, 0.0, 0.5][rnd(3) as usize])
                    .priority([10, 128, 200][rnd(3) as usize])
                    .protected(rnd(6) == 0)
                    .validate()
                    .unwrap();
                let v = Voice::new(Arc::clone(&sound.data), id, &params, 48_000, 0);
                let (order, start) = (id * 3 + rnd(2), rnd(3_000));
                let slot = pool.acquire(v, order, start).ok().unwrap();
                meta.insert(slot, (order, start));
            }
            pool.check_invariants().unwrap();
            // Work out every expected answer first (borrowing the voices),
            // then ask the pool (whose scan needs its scratch space).
            let mut cases = Vec::new();
            {
                let live: Vec<(usize, &Voice, u64, u64)> = pool
                    .slots
                    .slots()
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| match s {
                        Slot::Live(v) => Some((i, v, meta[&i].0, meta[&i].1)),
                        Slot::Free { .. } => None,
                    })
                    .collect();
                for policy in [
                    StealPolicy::Quietest,
                    StealPolicy::Oldest,
                    StealPolicy::Reject,
                ] {
                    for priority in [0u8, 128, 255] {
                        let (now, min_age) = (rnd(4_000), [0, 1_440][rnd(2) as usize]);
                        let want = reference_victim(&live, policy, priority, now, min_age);
                        cases.push((policy, priority, now, min_age, want));
                    }
                }
            }
            for (policy, priority, now, min_age, want) in cases {
                for isa in [Isa::Scalar, Isa::detect()] {
                    let got = match pool.choose_victim(policy, priority, now, min_age, isa) {
                        Victim::Slot(i) => Some(i),
                        Victim::None => None,
                    };
                    assert_eq!(
                        got, want,
                        "round {round} {policy:?} priority {priority} now {now}"
                    );
                }
            }
        }
    }

    #[test]
    fn id_index_matches_a_hash_map_under_churn() {
        let mut index = IdIndex::new(37);
        let mut model: HashMap<u64, u32> = HashMap::new();
        let mut next_id = 1u64;
        let mut x = 12345u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if model.len() < 37 && (!x.is_multiple_of(3) || model.is_empty()) {
                index.insert(next_id, (x % 37) as u32);
                model.insert(next_id, (x % 37) as u32);
                next_id += 1 + x % 5;
            } else {
                let keys: Vec<u64> = model.keys().copied().collect();
                let k = keys[(x as usize / 7) % keys.len()];
                index.remove(k);
                model.remove(&k);
            }
            assert_eq!(index.len(), model.len());
        }
        for (&k, &v) in &model {
            assert_eq!(index.get(k), Some(v));
        }
        assert_eq!(index.get(next_id + 1), None);
    }
}
