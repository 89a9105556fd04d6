//! The pool's passes over its voices each block: rendering them in slot
//! order, two at a time where the renderer can, with the voice a few slots
//! on shown early so its data can be fetched ([`VoicePool::run`]); the
//! round-robin level refresh ([`VoicePool::refresh_levels`]), likewise
//! showing the voice it will rank a few slots early; and the passes that
//! change or report every voice.
//!
//! Real-time contract: as the pool's: no allocation, bounded (one pass over
//! the slots, or `count` of them), no panics.

use super::free_list::Slot;
use super::{Identity, Rank, VoicePool};

/// How many slots ahead of the one rendering [`VoicePool::run`] shows a
/// voice to its `ahead` hook: far enough that the data fetched has
/// arrived when its turn comes, near enough that it is still in cache.
pub(crate) const RUN_AHEAD: usize = 4;

/// What [`VoicePool::run`]'s renderer did with the voice (or two) it was
/// shown.
pub(crate) enum Ran {
    /// Rendered the first; `Some(x)` if it ended (`x` frames sounded).
    One(Option<usize>),
    /// Rendered both; neither ended.
    Both,
}

impl<V> VoicePool<V> {
    /// Applies `f` to every live voice; `f` returns its new rank, or
    /// `None` to keep the one it has.
    pub(crate) fn update_all<R: Into<Rank>>(
        &mut self,
        mut f: impl FnMut(&Identity, &mut V) -> Option<R>,
    ) {
        for i in 0..self.slots.len() {
            let who = self.who.get(i).copied().unwrap_or(Identity::NOBODY);
            if let Some(rank) = self.slots.get_mut(i).and_then(|v| f(&who, v)) {
                self.set_rank(i, rank.into());
            }
        }
    }

    /// Recomputes the level of the next `count` slots (round robin over the
    /// pool; free slots are skipped) with `level` (shown the slot, who
    /// plays there, and the voice): the voice manager's own
    /// refresh, on its own schedule, never left to metering. A caller that
    /// passes `count` = slots × block / period refreshes every voice at
    /// least once per `period` frames, at a cost spread evenly over blocks.
    ///
    /// Before slot `i`'s level, `ahead` is shown the live voice in slot
    /// `i + RUN_AHEAD` if it is among the `count` (so the caller can fetch
    /// what its level reads early).
    pub(crate) fn refresh_levels<R: Into<Rank>>(
        &mut self,
        count: usize,
        mut level: impl FnMut(usize, &Identity, &V) -> R,
        mut ahead: impl FnMut(&V),
    ) {
        let len = self.slots.len();
        let count = count.min(len);
        for k in 0..count {
            let i = self.refresh_cursor;
            self.refresh_cursor = if i + 1 >= len { 0 } else { i + 1 };
            if k + RUN_AHEAD < count {
                let j = (i + RUN_AHEAD) % len;
                if let Some(Slot::Live(v)) = self.slots.slots().get(j) {
                    ahead(v);
                }
            }
            if let Some(Slot::Live(v)) = self.slots.slots().get(i) {
                let who = self.who.get(i).copied().unwrap_or(Identity::NOBODY);
                let rank = level(i, &who, v).into();
                self.set_rank(i, rank);
            }
        }
    }

    /// Runs `f` on every live voice, in slot order. Where slots `i` and
    /// `i + 1` both hold a voice, `f` is shown both (`f(a, Some(b))`) and
    /// may run the two ([`Ran::Both`]: neither ended) or only the first;
    /// otherwise `f(v, None)`. A voice for which it returns
    /// `Ran::One(Some(x))` has ended: its slot is freed and `ended(id, x)`
    /// called. Before slot `i` runs, `ahead` is shown the live voice in
    /// slot `i + RUN_AHEAD`, if any (the renderer fetches its data early, so
    /// it is in cache when its turn comes).
    pub(crate) fn run(
        &mut self,
        mut f: impl FnMut(&Identity, &mut V, Option<(&Identity, &mut V)>) -> Ran,
        mut ahead: impl FnMut(&V),
        mut ended: impl FnMut(Identity, usize),
    ) {
        let len = self.slots.len();
        let mut i = 0;
        while i < len {
            if let Some(v) = self.slots.get(i + RUN_AHEAD) {
                ahead(v);
            }
            let nobody = &Identity::NOBODY;
            let who = self.who.get(i).unwrap_or(nobody);
            let next = self.who.get(i + 1).unwrap_or(nobody);
            let ran = match self.slots.pair_mut(i) {
                Some((a, b)) => f(who, a, Some((next, b))),
                None => match self.slots.get_mut(i) {
                    Some(v) => f(who, v, None),
                    None => Ran::One(None),
                },
            };
            match ran {
                Ran::Both => {
                    if let Some(v) = self.slots.get(i + 1 + RUN_AHEAD) {
                        ahead(v);
                    }
                    i += 2;
                }
                Ran::One(done) => {
                    if let Some(x) = done {
                        if let Some((who, _voice)) = self.release(i) {
                            ended(who, x);
                        }
                    }
                    i += 1;
                }
            }
        }
    }

    /// Calls `f(identity, voice)` for every live voice, in slot order.
    pub(crate) fn each_live(&mut self, mut f: impl FnMut(&Identity, &mut V)) {
        for i in 0..self.slots.len() {
            if let (Some(who), Some(v)) = (self.who.get(i), self.slots.get_mut(i)) {
                f(who, v);
            }
        }
    }

    /// Calls `f(slot, id, level)` for every slot (id 0 for a free one).
    pub(crate) fn report(&self, mut f: impl FnMut(usize, u64, f32)) {
        for (i, (who, &level)) in self.who.iter().zip(self.levels.iter()).enumerate() {
            f(i, who.id, level);
        }
    }

    /// The audible window's pass, over the kept levels: returns the
    /// loudest level now, and the slots (at most `most`) whose voice has
    /// been below `floor` for `hold` frames or more by frame `now` (never a
    /// protected one). A voice back at or above `floor` starts over.
    pub(crate) fn outside_window(
        &mut self,
        floor: f32,
        now: u64,
        hold: u64,
        most: usize,
    ) -> (f32, &[u32]) {
        let mut loudest = 0.0f32;
        let mut found = 0;
        let n = self.levels.len().min(self.below.len()).min(self.who.len());
        for i in 0..n {
            let (level, who) = (self.levels[i], &self.who[i]);
            loudest = loudest.max(level);
            let below = &mut self.below[i];
            if who.id == 0 || who.protected || level >= floor {
                *below = u64::MAX;
                continue;
            }
            if *below == u64::MAX {
                *below = now;
            }
            if now - (*below).min(now) >= hold && found < most.min(self.outside.len()) {
                self.outside[found] = i as u32;
                found += 1;
            }
        }
        (loudest, &self.outside[..found])
    }
}
