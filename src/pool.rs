//! [`VoicePool`]: fixed slots, an intrusive free list, and victim choice.
//!
//! Real-time contract: the slots and the fade-out tails are allocated once in
//! [`VoicePool::new`] (on the game side, before the mixer moves to the audio
//! thread); every other method is O(1) or O(slots), allocates nothing and
//! never panics.

use crate::settings::StealPolicy;
use crate::voice::Voice;

const NONE: u32 = u32::MAX;

/// A pool slot: either on the free list (storing the next free slot, as the
/// Object Pool pattern's union does) or holding a live voice.
pub(crate) enum Slot {
    Free { next: u32 },
    Live(Voice),
}

/// Fixed-size pool of voices plus fade-out tails for stolen voices.
///
/// Handles are checked by id: ids are never reused, so each slot's current id
/// acts as its generation and a handle to a reused slot matches nothing.
pub(crate) struct VoicePool {
    slots: Box<[Slot]>,
    free_head: u32,
    live: usize,
    /// Stolen voices finishing their fade-out, outside the pool proper so the
    /// thief can start in the same block.
    tails: Box<[Option<Voice>]>,
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
            tails: (0..voices).map(|_| None).collect(),
        }
    }

    /// Slots in the pool.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
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
                self.slots[i] = Slot::Live(voice);
                self.live += 1;
                Ok(i)
            }
            _ => Err(voice),
        }
    }

    /// Frees slot `i` in O(1), returning its voice.
    fn release(&mut self, i: usize) -> Option<Voice> {
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

    /// Puts `voice` into live slot `i`, returning the voice it replaces.
    pub(crate) fn replace(&mut self, i: usize, voice: Voice) -> Option<Voice> {
        match self.slots.get_mut(i) {
            Some(Slot::Live(old)) => Some(std::mem::replace(old, voice)),
            _ => None,
        }
    }

    /// The slot holding voice `id`, if it is still live.
    pub(crate) fn find(&self, id: u64) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| matches!(s, Slot::Live(v) if v.id == id))
    }

    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut Voice> {
        match self.slots.get_mut(i) {
            Some(Slot::Live(v)) => Some(v),
            _ => None,
        }
    }

    /// Live voices with their slot index.
    pub(crate) fn live_voices(&self) -> impl Iterator<Item = (usize, &Voice)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| match s {
            Slot::Live(v) => Some((i, v)),
            Slot::Free { .. } => None,
        })
    }

    pub(crate) fn live_voices_mut(&mut self) -> impl Iterator<Item = &mut Voice> {
        self.slots.iter_mut().filter_map(|s| match s {
            Slot::Live(v) => Some(v),
            Slot::Free { .. } => None,
        })
    }

    /// Chooses which voice a new one of `priority` may replace, following
    /// DESIGN.md: protected voices never; only the lowest priority present,
    /// and nothing if the newcomer ranks below all of them; voices younger
    /// than `min_age` frames only if no older candidate exists; then the
    /// quietest (or oldest), ties to the oldest.
    pub(crate) fn choose_victim(
        &self,
        policy: StealPolicy,
        priority: u8,
        now: u64,
        min_age: u64,
    ) -> Victim {
        if policy == StealPolicy::Reject {
            return Victim::None;
        }
        let lowest = self
            .live_voices()
            .filter(|(_, v)| !v.protected)
            .map(|(_, v)| v.priority)
            .min();
        let Some(lowest) = lowest else {
            return Victim::None;
        };
        if priority < lowest {
            return Victim::None;
        }
        // Smaller key = better victim: (young, level, order).
        let key = |v: &Voice| {
            let young = now.saturating_sub(v.start_frame) < min_age;
            let level = match policy {
                StealPolicy::Quietest => v.audible_power(),
                _ => 0.0,
            };
            (young, level, v.order)
        };
        let best = self
            .live_voices()
            .filter(|(_, v)| !v.protected && v.priority == lowest)
            .min_by(|(_, a), (_, b)| {
                let (ka, kb) = (key(a), key(b));
                ka.0.cmp(&kb.0)
                    .then(ka.1.total_cmp(&kb.1))
                    .then(ka.2.cmp(&kb.2))
            });
        match best {
            Some((i, _)) => Victim::Slot(i),
            None => Victim::None,
        }
    }

    /// Keeps a stolen voice fading out. If every tail is busy, the quietest
    /// tail is cut to make room (it is already partway through its fade).
    pub(crate) fn push_tail(&mut self, voice: Voice) {
        let slot = match self.tails.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                let quietest = self.tails.iter().enumerate().min_by(|a, b| {
                    let ga = a.1.as_ref().map_or(0.0, Voice::peak_gain);
                    let gb = b.1.as_ref().map_or(0.0, Voice::peak_gain);
                    ga.total_cmp(&gb)
                });
                match quietest {
                    Some((i, _)) => i,
                    None => return, // a pool with no tails: the voice is cut
                }
            }
        };
        self.tails[slot] = Some(voice);
    }

    /// Renders every live voice and tail into `out`, frees the slots of
    /// voices that end and calls `on_end` with their ids.
    pub(crate) fn render(&mut self, out: &mut [f32], mut on_end: impl FnMut(u64)) {
        for i in 0..self.slots.len() {
            let ended = match &mut self.slots[i] {
                Slot::Live(v) => !v.render(out),
                Slot::Free { .. } => false,
            };
            if ended {
                if let Some(v) = self.release(i) {
                    on_end(v.id);
                }
            }
        }
        for tail in self.tails.iter_mut() {
            if let Some(v) = tail {
                if !v.render(out) {
                    *tail = None;
                }
            }
        }
    }

    /// Checks the pool's invariants: the free list and the live slots
    /// partition the pool, and no id is live twice. For tests and soak runs
    /// (allocates; not for the audio thread).
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
        let live = self.live_voices().count();
        if live != self.live || free + live != self.slots.len() {
            return Err(format!(
                "free {free} + live {live} (counted {}) != pool size {}",
                self.live,
                self.slots.len()
            ));
        }
        let mut ids: Vec<u64> = self.live_voices().map(|(_, v)| v.id).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return Err("a voice id is live in two slots".into());
        }
        Ok(())
    }
}
