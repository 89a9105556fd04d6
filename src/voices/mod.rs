//! Who plays: the voice manager. [`VoicePool`] holds a fixed number of voice
//! slots on an intrusive free list ([`free_list`]), finds a voice by its id
//! in O(1) ([`id_index`]), keeps what each voice is worth hearing
//! ([`audibility`]), and chooses the victim when the pool is full
//! ([`victim`]). It decides and never does DSP: the voices it holds are
//! opaque values (`V`, the renderer's per-voice state), and what it knows of
//! them is what the mixer tells it: identity, start, audibility level.
//!
//! Real-time contract: every buffer here is allocated once in
//! [`VoicePool::new`] (on the game side, before the mixer moves to the audio
//! thread); every other method is O(1) (acquire, release, find, set a level)
//! or one pass over flat arrays (victim choice, refreshing levels), allocates
//! nothing and never panics.

pub(crate) mod audibility;
mod choice;
pub(crate) mod free_list;
mod groups;
mod id_index;
pub(crate) mod masking;
mod passes;
mod rank;
pub(crate) mod victim;
pub(crate) mod virtual_pool;

pub(crate) use passes::Ran;
#[cfg(test)]
use passes::RUN_AHEAD;
pub(crate) use rank::Rank;

use crate::protocol::{StealPolicy, ValidGroup, NO_GROUP};
use crate::simd::Isa;
use free_list::FreeList;
#[cfg(any(test, feature = "hooks"))]
use free_list::Slot;
use groups::{Admission, Groups};
use id_index::IdIndex;
#[cfg(test)]
use victim::Victim;
use victim::{Candidates, NOT_A_CANDIDATE};

/// Who a voice is, as the voice manager sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    /// The play's id (never 0; never reused, so it doubles as the slot's
    /// generation: a stale handle matches no slot).
    pub(crate) id: u64,
    pub(crate) priority: u8,
    pub(crate) protected: bool,
    /// Its group's index, or `NO_GROUP`.
    pub(crate) group: u16,
    /// It goes virtual rather than ending when it loses its slot.
    pub(crate) virtualize: bool,
    /// Where it plays from: an entry of the mixer's emitter table, or
    /// [`NO_EMITTER`]. Kept here so that it moves with the voice between
    /// slots, the virtual pool and back.
    pub(crate) emitter: u32,
    /// A second bus it sends to (moves with the voice, as its bus does).
    pub(crate) send: crate::protocol::SendTo,
}

/// [`Identity::emitter`] of a play that is not positioned.
pub(crate) use crate::protocol::NO_EMITTER;

impl Identity {
    const NOBODY: Identity = Identity {
        id: 0,
        priority: 0,
        protected: false,
        group: NO_GROUP,
        virtualize: false,
        emitter: NO_EMITTER,
        send: crate::protocol::SendTo::NONE,
    };

    /// Its victim-choice key: protected voices and free slots (nobody)
    /// are never candidates.
    fn key(&self, level: f32) -> u64 {
        if self.protected || self.id == Identity::NOBODY.id {
            NOT_A_CANDIDATE
        } else {
            victim::key(self.priority, level)
        }
    }
}

/// The voice a steal replaced.
pub(crate) struct Replaced<V> {
    pub(crate) who: Identity,
    pub(crate) voice: V,
    /// The output frame it started at.
    pub(crate) start: u64,
    /// Its start order.
    pub(crate) order: u64,
}

/// Why [`VoicePool::place`] refused a new voice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The pool is full and nothing may be stolen.
    Pool,
    /// Its group is full and no member may be replaced.
    GroupFull,
    /// Sooner than its group's retrigger interval.
    TooSoon,
    /// It asked to virtualize and would be the least audible voice, below
    /// the one it would steal by the start-virtual margin: it starts
    /// virtual rather than interrupt a voice that is heard.
    LeastAudible,
}

/// Where a virtual voice may come back ([`VoicePool::comeback`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Comeback {
    /// Into a free slot.
    Free,
    /// In place of the voice in this slot.
    Replace(usize),
}

/// The pool-wide stealing rules a placement follows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StealRules {
    pub(crate) policy: StealPolicy,
    /// Voices younger than this many frames are passed over while an older
    /// candidate exists.
    pub(crate) min_age: u64,
    /// A steal re-ranks, fresh, the eligible voice whose sound runs out
    /// within this many frames of now (soonest first) beside the victim
    /// chosen from the kept levels (see [`VoicePool::place`]); 0: never.
    pub(crate) fresh_window: u64,
    /// A `virtualize` newcomer less audible than the voice it would
    /// steal by more than this (a power ratio) is refused a slot, to
    /// start virtual instead; 0: never (an engine without virtual voices).
    pub(crate) start_virtual_margin: f32,
    pub(crate) isa: Isa,
}

/// What [`VoicePool::place`] did with a new voice.
pub(crate) enum Placement<V> {
    /// It took a free slot.
    Started,
    /// It took the slot of the voice returned (`limited`: a voice of its
    /// own full group).
    Stole { old: Replaced<V>, limited: bool },
    /// It was refused, and is given back.
    Rejected { voice: V, why: Refusal },
}

/// A new voice for [`VoicePool::place`]: who it is, how audible, when.
pub(crate) struct Newcomer<V> {
    pub(crate) who: Identity,
    pub(crate) voice: V,
    pub(crate) level: f32,
    /// The output frame its sound runs out at, as [`Rank::ends`].
    pub(crate) ends: u64,
    /// Frames beyond `now` during which it counts as just started, past
    /// the usual `min_age` (0 for a new play): a voice coming back is held
    /// so, against stealing's preference for older voices and against
    /// other voices coming back, so that it does not trade places again
    /// at once.
    pub(crate) held: u64,
    /// Its start order (unique, increasing).
    pub(crate) order: u64,
    /// The output frame it starts at.
    pub(crate) now: u64,
    /// For a new play, the output frame its first sample sounds at (a
    /// group's retrigger interval counts from it); `None` for a virtual
    /// voice coming back.
    pub(crate) fresh: Option<u64>,
    /// A later voice of a play whose first one was admitted (a cue's
    /// layer): its group's retrigger interval does not apply to it (it
    /// counts against the group's limit as any voice does).
    pub(crate) later_layer: bool,
}

/// A fixed-size pool of voices `V`, with their identities, audibility
/// levels and victim-choice keys.
pub(crate) struct VoicePool<V> {
    slots: FreeList<V>,
    who: Box<[Identity]>,
    /// Per slot, the audibility level (what stealing ranks by, and what
    /// the meters show), 0 for a free slot.
    levels: Box<[f32]>,
    /// Per slot, the share of its voice left audible by masking (1 with
    /// masking off), and the level it was estimated at: every level set in
    /// the slot is taken times that share, followed to the new level as
    /// one band would be (see [`heard_at`]).
    heard: Box<[f32]>,
    heard_level: Box<[f32]>,
    candidates: Candidates,
    index: IdIndex,
    groups: Groups,
    /// The next slot [`VoicePool::refresh_levels`] refreshes.
    refresh_cursor: usize,
    /// Per slot, the frame since which its voice has been below the
    /// audible window (`u64::MAX`: it is not), and the slots
    /// [`VoicePool::outside_window`] found (scratch).
    below: Box<[u64]>,
    outside: Box<[u32]>,
}

impl<V> VoicePool<V> {
    /// `voices` slots, all free, and room for `groups` groups.
    pub(crate) fn new(voices: usize, groups: usize) -> VoicePool<V> {
        VoicePool {
            slots: FreeList::new(voices),
            who: vec![Identity::NOBODY; voices].into_boxed_slice(),
            levels: vec![0.0; voices].into_boxed_slice(),
            heard: vec![1.0; voices].into_boxed_slice(),
            heard_level: vec![0.0; voices].into_boxed_slice(),
            candidates: Candidates::new(voices),
            index: IdIndex::new(voices),
            groups: Groups::new(groups),
            refresh_cursor: 0,
            below: vec![u64::MAX; voices].into_boxed_slice(),
            outside: vec![0; voices].into_boxed_slice(),
        }
    }

    /// Sets group `index`'s limit, policy and retrigger interval.
    pub(crate) fn configure_group(&mut self, index: u16, settings: ValidGroup) {
        self.groups.configure(index, settings);
    }

    /// Heap bytes held, all allocated by [`VoicePool::new`].
    pub(crate) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.slots.memory_bytes()
            + self.who.len() * size_of::<Identity>()
            + self.levels.len() * size_of::<f32>()
            + (self.heard.len() + self.heard_level.len()) * size_of::<f32>()
            + self.candidates.memory_bytes()
            + self.index.memory_bytes()
            + self.groups.memory_bytes()
            + self.below.len() * size_of::<u64>()
            + self.outside.len() * size_of::<u32>()
    }

    /// Slots in the pool.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether group `group` has room for one more member (no group
    /// always has).
    pub(crate) fn has_room(&self, group: u16) -> bool {
        self.groups.has_room(group)
    }

    /// A play of group `group` starting at frame `start` was accepted as
    /// a virtual voice: the group's retrigger interval counts from it.
    pub(crate) fn accepted_virtual(&mut self, group: u16, start: u64) {
        self.groups.accepted(group, start);
    }

    /// Whether a virtual voice of group `group` could ever come back in
    /// place of another: its group has room, or a policy that replaces.
    pub(crate) fn may_replace_for(&self, group: u16) -> bool {
        self.groups.has_room(group)
            || self
                .groups
                .policy(group)
                .is_some_and(|p| p != StealPolicy::Reject)
    }

    /// Slots holding a voice.
    pub(crate) fn live(&self) -> usize {
        self.slots.live()
    }

    /// Puts a new voice into a free slot in O(1); gives it back if there
    /// is none.
    pub(crate) fn acquire(&mut self, new: Newcomer<V>) -> Result<usize, Newcomer<V>> {
        let Newcomer {
            who,
            voice,
            level,
            ends,
            held,
            order,
            now,
            fresh,
            later_layer,
        } = new;
        let i = match self.slots.acquire(voice) {
            Ok(i) => i,
            Err(voice) => {
                return Err(Newcomer {
                    who,
                    voice,
                    level,
                    ends,
                    held,
                    order,
                    now,
                    fresh,
                    later_layer,
                })
            }
        };
        self.set_meta(i, who, Rank::new(level, ends), order, (now, held));
        self.index.insert(who.id, i as u32);
        self.groups.joined(who.group, fresh);
        Ok(i)
    }

    /// Puts a new voice into live slot `i` in place of the voice there,
    /// which it returns (or gives the new voice back if slot `i` is not
    /// live).
    pub(crate) fn replace(&mut self, i: usize, new: Newcomer<V>) -> Result<Replaced<V>, V> {
        let Newcomer {
            who,
            voice,
            level,
            ends,
            held,
            order,
            now: start,
            fresh,
            later_layer: _,
        } = new;
        let (Some(&old_start), Some(&old_order), Some(&old_who)) = (
            self.candidates.begun.get(i),
            self.candidates.orders.get(i),
            self.who.get(i),
        ) else {
            return Err(voice);
        };
        let Some(slot) = self.slots.get_mut(i) else {
            return Err(voice);
        };
        let old = std::mem::replace(slot, voice);
        self.set_meta(i, who, Rank::new(level, ends), order, (start, held));
        self.index.remove(old_who.id);
        self.index.insert(who.id, i as u32);
        self.groups.left(old_who.group);
        self.groups.joined(who.group, fresh);
        Ok(Replaced {
            who: old_who,
            voice: old,
            start: old_start,
            order: old_order,
        })
    }

    /// Frees slot `i` in O(1), returning who played there and the voice.
    pub(crate) fn release(&mut self, i: usize) -> Option<(Identity, V)> {
        let v = self.slots.release(i)?;
        let who = *self.who.get(i)?;
        self.set_meta(i, Identity::NOBODY, Rank::from(0.0), 0, (0, 0));
        self.index.remove(who.id);
        self.groups.left(who.group);
        Some((who, v))
    }

    /// As [`VoicePool::release`], with the frame the voice began sounding
    /// and its start order.
    pub(crate) fn release_with_start(&mut self, i: usize) -> Option<(Identity, V, u64, u64)> {
        let begun = *self.candidates.begun.get(i)?;
        let order = *self.candidates.orders.get(i)?;
        let (who, v) = self.release(i)?;
        Some((who, v, begun, order))
    }

    /// The `k`th slot [`VoicePool::outside_window`] found last.
    pub(crate) fn outside_slot(&self, k: usize) -> Option<usize> {
        self.outside.get(k).map(|&i| i as usize)
    }

    /// Whether slot `i` holds a voice.
    pub(crate) fn is_live(&self, i: usize) -> bool {
        self.who.get(i).is_some_and(|w| w.id != Identity::NOBODY.id)
    }

    /// Who plays in slot `i` (`Identity::NOBODY` for a free slot).
    pub(crate) fn who(&self, i: usize) -> Identity {
        self.who.get(i).copied().unwrap_or(Identity::NOBODY)
    }

    /// Chooses the voice a new one of `priority` replaces (see
    /// [`Candidates::choose`] for the rules), within group `within` if set.
    #[cfg(test)]
    pub(crate) fn choose_victim(
        &mut self,
        policy: StealPolicy,
        priority: u8,
        now: u64,
        min_age: u64,
        within: Option<u16>,
        isa: Isa,
    ) -> Victim {
        (self.candidates).choose(policy, priority, now, min_age, within, isa)
    }

    /// Checks the pool's invariants: the free list and the live slots
    /// partition the pool, no id is live twice, the id index, identities and
    /// victim-choice keys agree with the slots. For tests and soak runs
    /// (allocates; not for the audio thread).
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        self.slots.check()?;
        let live: Vec<usize> = (0..self.slots.len())
            .filter(|&i| matches!(self.slots.slots()[i], Slot::Live(_)))
            .collect();
        let mut ids: Vec<u64> = live.iter().map(|&i| self.who[i].id).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) || ids.first() == Some(&0) {
            return Err("a voice id is live in two slots, or is 0".into());
        }
        if self.index.len() != live.len() {
            return Err(format!(
                "id index holds {} ids for {} live voices",
                self.index.len(),
                live.len()
            ));
        }
        for &i in &live {
            let who = self.who[i];
            if self.find(who.id) != Some(i) {
                return Err(format!(
                    "id index does not map voice {} to slot {i}",
                    who.id
                ));
            }
            let key = who.key(self.levels[i]);
            if key != self.candidates.keys[i] {
                return Err(format!("victim key of slot {i} is stale"));
            }
        }
        for g in 0..self.groups.len() {
            let g = g as u16;
            let members = live.iter().filter(|&&i| self.who[i].group == g).count();
            if members != self.groups.members(g) as usize {
                return Err(format!(
                    "group {g} counts {} members, {members} are live",
                    self.groups.members(g)
                ));
            }
            if live
                .iter()
                .any(|&i| self.candidates.groups[i] != self.who[i].group)
            {
                return Err("a slot's group in the victim arrays is stale".into());
            }
        }
        for (i, s) in self.slots.slots().iter().enumerate() {
            let free = matches!(s, Slot::Free { .. });
            if free && (self.candidates.keys[i] != NOT_A_CANDIDATE || self.who[i].id != 0) {
                return Err(format!("free slot {i} is a stealing candidate"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
