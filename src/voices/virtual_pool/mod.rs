//! [`VirtualPool`]: the fourth answer to a full pool ("increase the size of
//! the pool"). Voices that lost their slot but asked to keep time wait here,
//! silent and unmixed, until there is room for them again.
//!
//! A virtual voice is kept as it was when it left its slot, with the
//! output frame its state is for ([`Clock`]); it is brought up to date
//! lazily (by the mixer, which knows how a voice moves) only when something
//! needs it: a command, a level refresh, its expiry, its comeback. So the
//! per-block cost does not grow with the number of virtual voices except
//! through a bounded number of refreshes, a bounded expiry scan, and the
//! searches for the most and least deserving voice, which read one
//! summary per span of 1,024 entries plus the spans changed since
//! ([`spans`]).
//!
//! Real-time contract: every buffer is allocated once in [`VirtualPool::new`]
//! (every page faulted in there: a million entries are tens of MB);
//! every method is O(1), bounded as above, or (`check_invariants`) for
//! tests only; none allocates or panics.

mod levels;
mod spans;

use super::free_list::FreeList;
use super::id_index::IdIndex;
use super::{victim, Identity};
use crate::prefault::filled;
use spans::Spans;

/// When a virtual voice's state was last brought up to date.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clock {
    /// The output frame its state is for.
    pub(crate) since: u64,
    /// Its bus's count of held frames (frames its voices were frozen by a
    /// pause) at that frame: frames held since then do not move it.
    pub(crate) held: u64,
}

/// Frame meaning "never" in [`VirtualPool`]'s end times.
pub(crate) const NEVER: u64 = u64::MAX;
/// End frame of a voice its paused bus holds: unknown until the bus
/// resumes, when the expiry scan works it out.
pub(crate) const HELD: u64 = NEVER - 1;

/// A key's bit set for every live entry: a free entry's key is 0.
const LIVE: u64 = 1 << 42;
/// A key's bit set for a protected voice: dropped last, resumed first.
const PROTECTED: u64 = 1 << 41;

/// The ranking key of a virtual voice: the larger, the more it deserves a
/// slot (protected first, then priority, then audibility).
fn key(who: &Identity, level: f32) -> u64 {
    let protected = if who.protected { PROTECTED } else { 0 };
    LIVE | protected | victim::key(who.priority, level)
}

/// A voice entering the virtual pool.
pub(crate) struct Parked<V> {
    pub(crate) who: Identity,
    pub(crate) voice: V,
    pub(crate) level: f32,
    /// The share of it masking leaves audible (1 with masking off).
    pub(crate) heard: f32,
    /// Its start order (kept across trips in and out of the pool).
    pub(crate) order: u64,
    pub(crate) clock: Clock,
    /// The output frame it ends at if nothing changes, or [`NEVER`].
    pub(crate) ends: u64,
}

/// A fixed number of virtual voices `V`, with their identities, levels,
/// clocks and end times.
pub(crate) struct VirtualPool<V> {
    slots: FreeList<V>,
    who: Box<[Identity]>,
    /// Ranking keys ([`key`]); 0 for a free entry.
    keys: Box<[u64]>,
    levels: Box<[f32]>,
    /// The level of each entry's last full estimate, that a re-scaling by
    /// where the listener is now ([`VirtualPool::rescale`]) starts from.
    bases: Box<[f32]>,
    /// The share of each entry's loudness masking left audible at its
    /// last full estimate (1 with masking off).
    heard: Box<[f32]>,
    orders: Box<[u64]>,
    clocks: Box<[Clock]>,
    /// End frames ([`NEVER`] for a free entry or a voice that never ends
    /// by itself).
    ends: Box<[u64]>,
    index: IdIndex,
    /// No entry ends before this frame (a lower bound, made exact by
    /// [`VirtualPool::recompute_next_end`]).
    next_end: u64,
    /// The entry [`VirtualPool::best`] would choose with no filter, kept
    /// as keys change (`None`: to be found again by a pass).
    top: Option<usize>,
    /// Per span of entries, its most and least deserving one.
    spans: Spans,
    refresh_cursor: usize,
    rescale_cursor: usize,
    /// The expiry scan: the entry it looks at next, and the least end
    /// frame seen (or set) since it last passed entry 0; after a full
    /// circle that is the new [`VirtualPool::any_due`] bound.
    scan_cursor: usize,
    circle_min: u64,
    /// `stop_all`s not yet swept: entries started before `below` (start
    /// order) were stopped at `frame`. Oldest first.
    stops: [Stop; STOPS],
    stop_count: usize,
    /// Entries the expiry scan must still look at before every stopped
    /// entry has been ended (0: no sweep under way).
    sweep_left: usize,
    /// Entries the expiry scan must still look at before every voice a
    /// resumed bus held has its end frame again.
    held_left: usize,
}

/// One `stop_all`, as the virtual pool keeps it until swept.
#[derive(Clone, Copy, Debug, Default)]
struct Stop {
    below: u64,
    frame: u64,
}

/// How many `stop_all`s a sweep tells apart; more during one sweep share
/// the latest's frame (an `Ended` a little later than the stop, never
/// before the voice's start).
const STOPS: usize = 4;

impl<V> VirtualPool<V> {
    /// Room for `capacity` virtual voices, all free.
    pub(crate) fn new(capacity: usize) -> VirtualPool<V> {
        VirtualPool {
            slots: FreeList::new(capacity),
            who: filled(Identity::NOBODY, capacity),
            keys: filled(0, capacity),
            levels: filled(0.0, capacity),
            bases: filled(0.0, capacity),
            heard: filled(1.0, capacity),
            orders: filled(0, capacity),
            clocks: filled(Clock::default(), capacity),
            ends: filled(NEVER, capacity),
            index: IdIndex::new(capacity),
            next_end: NEVER,
            top: None,
            spans: Spans::new(capacity),
            refresh_cursor: 0,
            rescale_cursor: 0,
            scan_cursor: 0,
            circle_min: NEVER,
            stops: [Stop::default(); STOPS],
            stop_count: 0,
            sweep_left: 0,
            held_left: 0,
        }
    }

    /// Heap bytes held, all allocated by [`VirtualPool::new`].
    pub(crate) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let n = self.who.len();
        self.slots.memory_bytes()
            + n * (size_of::<Identity>()
                + 3 * size_of::<u64>()
                + 3 * size_of::<f32>()
                + size_of::<Clock>())
            + self.index.memory_bytes()
            + self.spans.memory_bytes()
    }

    /// Entries in the pool.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Virtual voices now.
    pub(crate) fn live(&self) -> usize {
        self.slots.live()
    }

    /// Adds a voice; gives it back if the pool is full.
    pub(crate) fn insert(&mut self, p: Parked<V>) -> Result<usize, Parked<V>> {
        let Parked {
            who,
            voice,
            level,
            heard,
            order,
            clock,
            ends,
        } = p;
        let i = match self.slots.acquire(voice) {
            Ok(i) => i,
            Err(voice) => {
                return Err(Parked {
                    who,
                    voice,
                    level,
                    heard,
                    order,
                    clock,
                    ends,
                })
            }
        };
        if let (Some(w), Some(o), Some(c)) = (
            self.who.get_mut(i),
            self.orders.get_mut(i),
            self.clocks.get_mut(i),
        ) {
            (*w, *o, *c) = (who, order, clock);
        }
        self.set_heard_level(i, level, heard);
        self.set_ends(i, ends);
        self.index.insert(who.id, i as u32);
        Ok(i)
    }

    /// Takes voice `i` out of the pool: its identity, the voice, its
    /// order and clock.
    pub(crate) fn remove(&mut self, i: usize) -> Option<(Identity, V, u64, Clock)> {
        let voice = self.slots.release(i)?;
        let who = std::mem::replace(self.who.get_mut(i)?, Identity::NOBODY);
        self.index.remove(who.id);
        if let (Some(k), Some(l), Some(e)) = (
            self.keys.get_mut(i),
            self.levels.get_mut(i),
            self.ends.get_mut(i),
        ) {
            (*k, *l, *e) = (0, 0.0, NEVER);
        }
        self.spans.touch(i);
        if self.top == Some(i) {
            self.top = None;
        }
        let order = self.orders.get(i).copied().unwrap_or(0);
        let clock = self.clocks.get(i).copied().unwrap_or_default();
        Some((who, voice, order, clock))
    }

    /// The entry holding virtual voice `id`. O(1).
    pub(crate) fn find(&self, id: u64) -> Option<usize> {
        self.index.get(id).map(|i| i as usize)
    }

    /// Voice `i`, its clock and its bus's identity, to bring up to date
    /// or change.
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<(&mut V, &mut Clock)> {
        let clock = self.clocks.get_mut(i)?;
        Some((self.slots.get_mut(i)?, clock))
    }

    /// Who voice `i` is (`Identity::NOBODY` for a free entry).
    pub(crate) fn who(&self, i: usize) -> Identity {
        self.who.get(i).copied().unwrap_or(Identity::NOBODY)
    }

    /// Voice `i`, to look at.
    pub(crate) fn voice(&self, i: usize) -> Option<&V> {
        match self.slots.slots().get(i) {
            Some(super::free_list::Slot::Live(v)) => Some(v),
            _ => None,
        }
    }

    /// Voice `i`'s audibility level.
    pub(crate) fn level(&self, i: usize) -> f32 {
        self.levels.get(i).copied().unwrap_or(0.0)
    }

    /// Voice `i`'s end frame.
    pub(crate) fn ends(&self, i: usize) -> u64 {
        self.ends.get(i).copied().unwrap_or(NEVER)
    }

    /// Makes the span summaries [`VirtualPool::best`] and
    /// [`VirtualPool::least`] read true again (one pass over each span
    /// changed since): call before them, where the pool may be changed.
    pub(crate) fn clean(&mut self) {
        self.spans.clean(&self.keys, &self.orders);
    }

    /// Sets voice `i`'s end frame.
    pub(crate) fn set_ends(&mut self, i: usize, ends: u64) {
        if let Some(e) = self.ends.get_mut(i) {
            *e = ends;
            self.next_end = self.next_end.min(ends);
            self.circle_min = self.circle_min.min(ends);
        }
    }

    /// Whether some voice may end by frame `now`, or a `stop_all` is
    /// still to be swept: the expiry scan has work.
    pub(crate) fn any_due(&self, now: u64) -> bool {
        self.next_end <= now || self.sweep_left > 0 || self.held_left > 0
    }

    /// A bus was resumed: the voices it held ([`HELD`]) get their end
    /// frames from the expiry scan, a bounded number per block.
    pub(crate) fn recheck_held(&mut self) {
        self.held_left = self.slots.len();
    }

    /// Whether held voices are still to be looked at after a resume.
    pub(crate) fn rechecking_held(&self) -> bool {
        self.held_left > 0
    }

    /// The entry the expiry scan looks at next; the caller ends it or
    /// not, then calls [`VirtualPool::scanned`].
    pub(crate) fn scan_next(&self) -> usize {
        self.scan_cursor
    }

    /// The expiry scan is done with entry `scan_next()`: its end frame
    /// counts toward the next bound, and the scan moves on. After a full
    /// circle, the earliest end frame is exact again (a lower bound, as
    /// ends set since are counted too), and a `stop_all` sweep that has
    /// seen every entry is over.
    pub(crate) fn scanned(&mut self) {
        let i = self.scan_cursor;
        self.circle_min = self.circle_min.min(self.ends(i));
        self.sweep_left = self.sweep_left.saturating_sub(1);
        self.held_left = self.held_left.saturating_sub(1);
        if self.sweep_left == 0 {
            self.stop_count = 0;
        }
        if i + 1 >= self.slots.len() {
            self.scan_cursor = 0;
            self.next_end = self.circle_min;
            self.circle_min = NEVER;
        } else {
            self.scan_cursor = i + 1;
        }
    }

    /// `stop_all` at `frame`: every voice started before start order
    /// `below` is stopped. O(1): [`VirtualPool::stopped_at`] tells a
    /// stopped entry until the expiry scan has ended it.
    pub(crate) fn stop_all(&mut self, below: u64, frame: u64) {
        if self.slots.live() == 0 {
            return;
        }
        let stop = Stop { below, frame };
        match self.stops.get_mut(self.stop_count) {
            Some(s) => {
                *s = stop;
                self.stop_count += 1;
            }
            // The latest takes the last place: the voices between the two
            // end at the later frame.
            None => {
                if let Some(s) = self.stops.last_mut() {
                    *s = stop;
                }
            }
        }
        self.sweep_left = self.slots.len();
        self.top = None;
    }

    /// Whether a `stop_all` is still being swept.
    pub(crate) fn sweeping(&self) -> bool {
        self.sweep_left > 0
    }

    /// The frame virtual voice `i` was stopped at by a `stop_all`, if it
    /// was (and is not ended yet).
    pub(crate) fn stopped_at(&self, i: usize) -> Option<u64> {
        if self.stop_count == 0 {
            return None;
        }
        let order = *self.orders.get(i)?;
        self.who.get(i).filter(|w| w.id != Identity::NOBODY.id)?;
        let stops = self.stops.get(..self.stop_count)?;
        stops.iter().find(|s| order < s.below).map(|s| s.frame)
    }

    /// A stopped entry at or after the expiry scan's place, among the
    /// next `limit`: to end it and make room in a full pool.
    pub(crate) fn find_stopped(&self, limit: usize) -> Option<usize> {
        if self.stop_count == 0 {
            return None;
        }
        let len = self.slots.len();
        (0..limit.min(len))
            .map(|k| (self.scan_cursor + k) % len)
            .find(|&i| self.stopped_at(i).is_some())
    }

    /// The voice that most deserves a slot (protected first, then the
    /// highest priority, then the most audible; ties to the oldest) among
    /// those `eligible` accepts. Reads the span summaries (see
    /// [`VirtualPool::clean`]) and the spans that could hold the winner.
    pub(crate) fn best(&self, mut eligible: impl FnMut(usize, &Identity) -> bool) -> Option<usize> {
        let who = &self.who;
        self.spans.best(&self.keys, &self.orders, |i| {
            who.get(i).is_some_and(|w| eligible(i, w))
        })
    }

    /// The voice that least deserves one (the first to drop when the pool
    /// is full), with its key; ties to the newest. Reads the span summaries
    /// (see [`VirtualPool::clean`]).
    pub(crate) fn least(&self) -> Option<(usize, u64)> {
        self.spans.least(&self.keys, &self.orders)
    }

    /// The key a voice of identity `who` at `level` would have here.
    pub(crate) fn key_of(who: &Identity, level: f32) -> u64 {
        key(who, level)
    }

    /// Checks the pool's invariants (tests and soak runs; allocates).
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        use super::free_list::Slot;
        self.slots.check()?;
        self.spans.check(&self.keys, &self.orders)?;
        if self.index.len() != self.slots.live() {
            return Err(format!(
                "virtual id index holds {} ids for {} virtual voices",
                self.index.len(),
                self.slots.live()
            ));
        }
        for (i, s) in self.slots.slots().iter().enumerate() {
            let live = matches!(s, Slot::Live(_));
            let who = self.who[i];
            if live != (who.id != 0) || live != (self.keys[i] != 0) {
                return Err(format!("virtual entry {i}: identity and key disagree"));
            }
            if live && self.find(who.id) != Some(i) {
                return Err(format!("virtual id index does not map {} to {i}", who.id));
            }
            if self.ends[i] < self.next_end {
                return Err(format!("virtual entry {i} ends before the earliest end"));
            }
        }
        Ok(())
    }
}
