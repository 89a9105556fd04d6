//! [`VoicePool`]: fixed slots, an intrusive free list, an id index, and
//! victim choice.
//!
//! Real-time contract: every buffer here is allocated once in
//! [`VoicePool::new`] (on the game side, before the mixer moves to the audio
//! thread); every other method is O(1) (acquire, release, find) or one pass
//! over a flat array (victim choice, render), allocates nothing and never
//! panics.
//!
//! Layout: the voices themselves live in `slots` (array of structs: a voice
//! is rendered as a whole, a block at a time). What victim choice reads is
//! kept apart, structure-of-arrays style, in `keys` and `starts`: one
//! 16-byte sort key and one start frame per slot, so choosing among 1024
//! voices is one pass over 24 KiB instead of a walk through every voice and
//! its sound's loudness envelope.

use crate::kernel::Isa;
use crate::settings::StealPolicy;
use crate::voice::Voice;

const NONE: u32 = u32::MAX;

/// A pool slot: either on the free list (storing the next free slot, as the
/// Object Pool pattern's union does) or holding a live voice.
pub(crate) enum Slot {
    Free { next: u32 },
    Live(Voice),
}

/// Victim-choice sort key of a slot; smaller is a better victim. From the
/// most significant bits down: priority (bits 97..105), "young" (bit 96, set
/// during the scan), audible power as `f32` bits (64..96; non-negative
/// floats order like their bits), start order (0..64). A free or protected
/// slot holds [`NOT_A_CANDIDATE`], larger than any real key.
type Key = u128;
const NOT_A_CANDIDATE: Key = Key::MAX;
const PRIORITY_SHIFT: u32 = 97;
const YOUNG_BIT: Key = 1 << 96;
const LEVEL_SHIFT: u32 = 64;
const LEVEL_BITS: Key = (u32::MAX as Key) << LEVEL_SHIFT;

/// Fixed-size pool of voices plus fade-out tails for stolen voices.
///
/// Handles are checked by id: ids are never reused, so each slot's current id
/// acts as its generation and a handle to a reused slot matches nothing.
pub(crate) struct VoicePool {
    slots: Box<[Slot]>,
    free_head: u32,
    live: usize,
    /// Per slot: victim-choice key (see [`Key`]) and start frame.
    keys: Box<[Key]>,
    starts: Box<[u64]>,
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
        let slots = (0..voices)
            .map(|i| Slot::Free {
                next: if i + 1 < voices { (i + 1) as u32 } else { NONE },
            })
            .collect();
        VoicePool {
            slots,
            free_head: if voices > 0 { 0 } else { NONE },
            live: 0,
            keys: vec![NOT_A_CANDIDATE; voices].into_boxed_slice(),
            starts: vec![0; voices].into_boxed_slice(),
            index: IdIndex::new(voices),
            tails: Vec::with_capacity(voices),
        }
    }

    /// Heap bytes held, all allocated by [`VoicePool::new`].
    pub(crate) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.len() * size_of::<Slot>()
            + self.keys.len() * size_of::<Key>()
            + self.starts.len() * size_of::<u64>()
            + self.index.memory_bytes()
            + self.tails.capacity() * size_of::<Voice>()
    }

    /// Slots holding a voice.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Puts `voice` into a free slot in O(1); gives it back if there is none.
    pub(crate) fn acquire(&mut self, voice: Voice) -> Result<usize, Voice> {
        let i = self.free_head as usize;
        match self.slots.get(i) {
            Some(Slot::Free { next }) => {
                self.free_head = *next;
                self.index.insert(voice.id, i as u32);
                self.set_key(i, &voice);
                self.slots[i] = Slot::Live(voice);
                self.live += 1;
                Ok(i)
            }
            _ => Err(voice),
        }
    }

    /// Frees slot `i` in O(1), returning its voice.
    pub(crate) fn release(&mut self, i: usize) -> Option<Voice> {
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
        self.keys[i] = NOT_A_CANDIDATE;
        match old {
            Slot::Live(v) => {
                self.index.remove(v.id);
                Some(v)
            }
            Slot::Free { .. } => None,
        }
    }

    /// Puts `voice` into live slot `i`, returning the voice it replaces.
    pub(crate) fn replace(&mut self, i: usize, voice: Voice) -> Option<Voice> {
        let Some(Slot::Live(old)) = self.slots.get_mut(i) else {
            return None;
        };
        let (old_id, new_id) = (old.id, voice.id);
        let old = std::mem::replace(old, voice);
        self.index.remove(old_id);
        self.index.insert(new_id, i as u32);
        if let Some(Slot::Live(v)) = self.slots.get(i) {
            let (key, start) = key_of(v);
            self.keys[i] = key;
            self.starts[i] = start;
        }
        Some(old)
    }

    /// The slot holding voice `id`, if it is still live. O(1).
    pub(crate) fn find(&self, id: u64) -> Option<usize> {
        self.index.get(id).map(|i| i as usize)
    }

    /// Applies `f` to live voice `id` (if it is live) and refreshes its
    /// victim-choice key. O(1).
    pub(crate) fn with_voice(&mut self, id: u64, f: impl FnOnce(&mut Voice)) {
        let Some(i) = self.find(id) else { return };
        if let Some(Slot::Live(v)) = self.slots.get_mut(i) {
            f(v);
            let (key, start) = key_of(v);
            self.keys[i] = key;
            self.starts[i] = start;
        }
    }

    /// Applies `f` to every live voice and refreshes the keys.
    pub(crate) fn for_each_live(&mut self, mut f: impl FnMut(&mut Voice)) {
        for (slot, (key, start)) in self
            .slots
            .iter_mut()
            .zip(self.keys.iter_mut().zip(self.starts.iter_mut()))
        {
            if let Slot::Live(v) = slot {
                f(v);
                (*key, *start) = key_of(v);
            }
        }
    }

    /// Recomputes every live voice's audible level (which moves as its
    /// position and gain do) into its key, and reports each slot:
    /// `(slot, id, audible power)`, id 0 and power 0 for a free slot.
    pub(crate) fn update_levels(&mut self, mut report: impl FnMut(usize, u64, f32)) {
        for (i, (slot, key)) in self.slots.iter().zip(self.keys.iter_mut()).enumerate() {
            match slot {
                Slot::Live(v) => {
                    let power = v.audible_power();
                    if *key != NOT_A_CANDIDATE {
                        *key = (*key & !LEVEL_BITS) | (Key::from(power.to_bits()) << LEVEL_SHIFT);
                    }
                    report(i, v.id, power);
                }
                Slot::Free { .. } => report(i, 0, 0.0),
            }
        }
    }

    fn set_key(&mut self, i: usize, voice: &Voice) {
        let (key, start) = key_of(voice);
        if let (Some(k), Some(s)) = (self.keys.get_mut(i), self.starts.get_mut(i)) {
            *k = key;
            *s = start;
        }
    }

    /// Chooses which voice a new one of `priority` may replace, following
    /// DESIGN.md: protected voices never; only the lowest priority present,
    /// and nothing if the newcomer ranks below all of them; voices younger
    /// than `min_age` frames only if no older candidate exists; then the
    /// quietest (or oldest), ties to the oldest.
    ///
    /// One pass over the keys: the smallest key is the lowest priority, then
    /// not young, then quietest, then oldest.
    pub(crate) fn choose_victim(
        &self,
        policy: StealPolicy,
        priority: u8,
        now: u64,
        min_age: u64,
    ) -> Victim {
        let mask = match policy {
            StealPolicy::Reject => return Victim::None,
            StealPolicy::Quietest => Key::MAX,
            StealPolicy::Oldest => !LEVEL_BITS,
        };
        let mut best = NOT_A_CANDIDATE;
        let mut best_slot = 0;
        for (i, (&key, &start)) in self.keys.iter().zip(self.starts.iter()).enumerate() {
            let young = if now.saturating_sub(start) < min_age {
                YOUNG_BIT
            } else {
                0
            };
            // A non-candidate keeps its top bits set whatever the mask: it
            // stays above every real key (whose bits 105.. are 0).
            let k = (key & mask) | young;
            if k < best {
                best = k;
                best_slot = i;
            }
        }
        if best >> 105 != 0 {
            return Victim::None; // no candidate at all
        }
        let lowest = (best >> PRIORITY_SHIFT) as u8;
        if priority < lowest {
            return Victim::None;
        }
        Victim::Slot(best_slot)
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
    /// the slots of voices that end and calls `on_end` with their ids.
    pub(crate) fn render(
        &mut self,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
        mut on_end: impl FnMut(u64),
    ) {
        for i in 0..self.slots.len() {
            let ended = match &mut self.slots[i] {
                Slot::Live(v) => !v.render(l, r, isa),
                Slot::Free { .. } => false,
            };
            if ended {
                if let Some(v) = self.release(i) {
                    on_end(v.id);
                }
            }
        }
        let mut t = 0;
        while t < self.tails.len() {
            if self.tails[t].render(l, r, isa) {
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
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
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
        let live: Vec<(usize, &Voice)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Slot::Live(v) => Some((i, v)),
                Slot::Free { .. } => None,
            })
            .collect();
        if live.len() != self.live || free + live.len() != self.slots.len() {
            return Err(format!(
                "free {free} + live {} (counted {}) != pool size {}",
                live.len(),
                self.live,
                self.slots.len()
            ));
        }
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
            let (key, start) = key_of(v);
            if (key & !LEVEL_BITS, start) != (self.keys[i] & !LEVEL_BITS, self.starts[i]) {
                return Err(format!("victim key of slot {i} is stale"));
            }
        }
        for (i, s) in self.slots.iter().enumerate() {
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

/// The victim-choice key (young bit clear) and start frame of `v`.
fn key_of(v: &Voice) -> (Key, u64) {
    if v.protected {
        return (NOT_A_CANDIDATE, v.start_frame);
    }
    let key = (Key::from(v.priority) << PRIORITY_SHIFT)
        | (Key::from(v.audible_power().to_bits()) << LEVEL_SHIFT)
        | Key::from(v.order);
    (key, v.start_frame)
}

/// Maps live voice ids to slots: open addressing with linear probing, at
/// most half full, deletion by backward shift (no tombstones, so lookups
/// stay short however long the engine runs). Id 0 marks an empty entry
/// (handles count from 1). Every loop is bounded by the table size.
struct IdIndex {
    ids: Box<[u64]>,
    slots: Box<[u32]>,
    len: usize,
    shift: u32,
}

impl IdIndex {
    fn new(voices: usize) -> IdIndex {
        let size = (2 * voices).next_power_of_two().max(2);
        IdIndex {
            ids: vec![0; size].into_boxed_slice(),
            slots: vec![0; size].into_boxed_slice(),
            len: 0,
            shift: 64 - size.trailing_zeros(),
        }
    }

    fn memory_bytes(&self) -> usize {
        self.ids.len() * 12
    }

    fn len(&self) -> usize {
        self.len
    }

    fn mask(&self) -> usize {
        self.ids.len() - 1
    }

    /// Fibonacci hashing: consecutive ids land far apart.
    fn home(&self, id: u64) -> usize {
        (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn position(&self, id: u64) -> Option<usize> {
        let mask = self.mask();
        let mut at = self.home(id);
        for _ in 0..self.ids.len() {
            match self.ids[at] {
                0 => return None,
                x if x == id => return Some(at),
                _ => at = (at + 1) & mask,
            }
        }
        None
    }

    fn get(&self, id: u64) -> Option<u32> {
        self.position(id).map(|at| self.slots[at])
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
        for _ in 0..self.ids.len() {
            match self.ids[at] {
                0 => {
                    self.ids[at] = id;
                    self.slots[at] = slot;
                    self.len += 1;
                    return;
                }
                x if x == id => {
                    self.slots[at] = slot;
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
        self.ids[hole] = 0;
        self.len -= 1;
        // Shift back every later entry of the run whose home is not in
        // (hole, at]: it would no longer be found past the hole.
        let mut at = (hole + 1) & mask;
        for _ in 0..self.ids.len() {
            let x = self.ids[at];
            if x == 0 {
                return;
            }
            let home = self.home(x);
            let dist_home = at.wrapping_sub(home) & mask;
            let dist_hole = at.wrapping_sub(hole) & mask;
            if dist_home >= dist_hole {
                self.ids[hole] = x;
                self.slots[hole] = self.slots[at];
                self.ids[at] = 0;
                hole = at;
            }
            at = (at + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::IdIndex;
    use std::collections::HashMap;

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
