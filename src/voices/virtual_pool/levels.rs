//! The virtual pool's levels and ranking keys: set from a full estimate,
//! re-scaled for a moved listener, refreshed round robin, and the most
//! deserving entry kept known as keys change.

use super::*;
use crate::voices::rank::heard_at;

impl<V> VirtualPool<V> {
    /// Sets voice `i`'s level from a full estimate of its loudness,
    /// `level`, of which masking leaves the share `heard` audible (1 with
    /// masking off): it ranks at their product (a free entry stays free).
    pub(crate) fn set_heard_level(&mut self, i: usize, level: f32, heard: f32) {
        if let (Some(b), Some(h)) = (self.bases.get_mut(i), self.heard.get_mut(i)) {
            (*b, *h) = (level, heard);
        }
        self.rank_at(i, level * heard);
    }

    /// Re-scales the next `count` entries' levels, round robin (free ones
    /// skipped): `factor` gives, for a voice whose audibility depends on
    /// where the listener is (a positioned one), the power factor between
    /// its hearing now and its last full estimate; its level becomes its
    /// last full estimate's times that, given to `rescaled` with the
    /// entry's index (to publish it). Of a voice masking hid in part, the
    /// share heard is re-scaled too, as a voice `factor` times as loud
    /// against the same masking would be heard (exact for one band). A few operations each, so that a
    /// pool of thousands keeps up with a moving listener between the
    /// (costlier, fewer) full estimates.
    pub(crate) fn rescale(
        &mut self,
        count: usize,
        mut factor: impl FnMut(&Identity) -> Option<f32>,
        mut rescaled: impl FnMut(usize, f32),
    ) {
        let len = self.slots.len();
        for _ in 0..count.min(len) {
            let i = self.rescale_cursor;
            self.rescale_cursor = if i + 1 >= len { 0 } else { i + 1 };
            let who = self.who(i);
            if who.id == Identity::NOBODY.id {
                continue;
            }
            if let (Some(f), Some(&base), Some(&h)) =
                (factor(&who), self.bases.get(i), self.heard.get(i))
            {
                // (Its share at `f` times the power of its estimate.)
                let level = base * f * heard_at(h, 1.0, f);
                self.rank_at(i, level);
                rescaled(i, level);
            }
        }
    }

    /// Ranks voice `i` at `level`, keeping the top entry and the spans.
    fn rank_at(&mut self, i: usize, level: f32) {
        let who = self.who(i);
        if who.id == Identity::NOBODY.id {
            return;
        }
        let new = key(&who, level);
        if let (Some(k), Some(l)) = (self.keys.get_mut(i), self.levels.get_mut(i)) {
            let old = *k;
            (*k, *l) = (new, level);
            self.spans.touch(i);
            // Keep the top entry known without a pass where that is cheap:
            // a key above the top's takes its place; the top's own key
            // falling means another may lead now.
            match self.top {
                Some(t) if t == i && new < old => self.top = None,
                Some(t) if t != i && self.beats(i, t) => self.top = Some(i),
                _ => {}
            }
        }
    }

    /// Whether entry `a` deserves a slot more than entry `b` (a larger
    /// key, or the same key and older).
    fn beats(&self, a: usize, b: usize) -> bool {
        let key = |i: usize| self.keys.get(i).copied().unwrap_or(0);
        let order = |i: usize| self.orders.get(i).copied().unwrap_or(u64::MAX);
        key(a) > key(b) || (key(a) == key(b) && order(a) < order(b))
    }

    /// The voice that most deserves a slot, with no filter: as
    /// [`VirtualPool::best`], but kept as keys change, so usually O(1).
    pub(crate) fn top(&mut self) -> Option<usize> {
        if self.top.is_none() && self.live() > 0 {
            self.clean();
            self.top = self.best(|_, _| true);
        }
        self.top
    }

    /// Calls `f` on the next `count` entries, round robin (free ones
    /// skipped), with each one's end frame; `f` brings the voice up to
    /// date and returns its new level and end frame.
    pub(crate) fn refresh(
        &mut self,
        count: usize,
        mut f: impl FnMut(usize, &Identity, &mut V, &mut Clock, u64) -> (f32, f32, u64),
    ) {
        let len = self.slots.len();
        for _ in 0..count.min(len) {
            let i = self.refresh_cursor;
            self.refresh_cursor = if i + 1 >= len { 0 } else { i + 1 };
            let old_end = self.ends(i);
            let who = self.who(i);
            if let Some((v, clock)) = self.get_mut(i) {
                let (level, heard, ends) = f(i, &who, v, clock, old_end);
                self.set_heard_level(i, level, heard);
                self.set_ends(i, ends);
            }
        }
    }
}
