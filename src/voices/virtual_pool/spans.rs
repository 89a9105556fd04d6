//! [`Spans`]: the virtual pool's entries in spans of [`SPAN`], each with
//! its most and least deserving entry kept, so that finding either over a
//! million entries reads one summary per span plus the few spans changed
//! since (a span's summary is made again, by one pass over the span, only
//! when one of its keys changed). The least deserving, which a full pool
//! looks for with every newcomer, is also kept per group of [`GROUP`]
//! spans, so that finding it reads one summary per group.
//!
//! Real-time contract: allocated once in [`Spans::new`]; every method
//! allocates nothing, never panics, and reads at most the summaries plus
//! the spans marked changed (and, for a search with a filter that refuses
//! the first [`PICKS`] spans' best entries, the spans whose best could
//! still win).

use crate::prefault::filled;

/// Entries per span.
pub(super) const SPAN: usize = 1024;
/// Spans per group (for the least deserving entry).
const GROUP: usize = 32;
/// Spans a filtered search visits best summary first before it falls back
/// to one pass over every span that could still hold the winner.
const PICKS: usize = 32;

/// One entry as a summary names it: its key (0: none), start order and
/// index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pick {
    key: u64,
    order: u64,
    index: usize,
}

impl Pick {
    const NONE: Pick = Pick {
        key: 0,
        order: 0,
        index: 0,
    };

    /// Deserves a slot more than `other` (a larger key, or the same key and
    /// older); anything beats none.
    fn beats(&self, other: &Pick) -> bool {
        other.key == 0
            || self.key > other.key
            || (self.key == other.key && self.order < other.order)
    }

    /// Deserves one less than `other` (a smaller key, or the same key and
    /// newer); anything is less than none.
    fn below(&self, other: &Pick) -> bool {
        other.key == 0
            || self.key < other.key
            || (self.key == other.key && self.order > other.order)
    }
}

/// Per span of [`SPAN`] entries, its most and least deserving entry, and
/// whether a key in it changed since they were found.
pub(super) struct Spans {
    best: Box<[Pick]>,
    least: Box<[Pick]>,
    changed: Box<[bool]>,
    /// The spans marked changed, each once (so cleaning does not read
    /// every flag).
    pending: Box<[u32]>,
    pending_len: usize,
    /// Per group of spans, its least deserving entry, and whether a span
    /// in it changed since.
    group_least: Box<[Pick]>,
    group_changed: Box<[bool]>,
}

impl Spans {
    /// Summaries for `capacity` entries, all free.
    pub(super) fn new(capacity: usize) -> Spans {
        let n = capacity.div_ceil(SPAN);
        let groups = n.div_ceil(GROUP);
        Spans {
            best: filled(Pick::NONE, n),
            least: filled(Pick::NONE, n),
            changed: filled(false, n),
            pending: filled(0, n),
            pending_len: 0,
            group_least: filled(Pick::NONE, groups),
            group_changed: filled(false, groups),
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.best.len() * (2 * size_of::<Pick>() + 1 + size_of::<u32>())
            + self.group_least.len() * (size_of::<Pick>() + 1)
    }

    /// Entry `i`'s key or order changed.
    pub(super) fn touch(&mut self, i: usize) {
        let s = i / SPAN;
        if let Some(c) = self.changed.get_mut(s) {
            if !*c {
                *c = true;
                if let Some(p) = self.pending.get_mut(self.pending_len) {
                    *p = s as u32;
                    self.pending_len += 1;
                }
            }
        }
        if let Some(g) = self.group_changed.get_mut(s / GROUP) {
            *g = true;
        }
    }

    /// Makes the summaries of changed spans true again (one pass over
    /// each), and those of their groups (one read per span of the group).
    pub(super) fn clean(&mut self, keys: &[u64], orders: &[u64]) {
        for k in 0..self.pending_len {
            let s = self.pending.get(k).map_or(usize::MAX, |&s| s as usize);
            let (best, least) = summarize(keys, orders, s);
            if let (Some(b), Some(l), Some(c)) = (
                self.best.get_mut(s),
                self.least.get_mut(s),
                self.changed.get_mut(s),
            ) {
                (*b, *l, *c) = (best, least, false);
            }
        }
        self.pending_len = 0;
        for g in 0..self.group_changed.len() {
            if !self.group_changed.get(g).copied().unwrap_or(false) {
                continue;
            }
            let mut least = Pick::NONE;
            for s in g * GROUP..((g + 1) * GROUP).min(self.least.len()) {
                if let Some(l) = self.least.get(s).filter(|l| l.key != 0) {
                    if l.below(&least) {
                        least = *l;
                    }
                }
            }
            if let (Some(l), Some(c)) = (self.group_least.get_mut(g), self.group_changed.get_mut(g))
            {
                (*l, *c) = (least, false);
            }
        }
    }

    fn is_changed(&self, s: usize) -> bool {
        self.changed.get(s).copied().unwrap_or(true)
    }

    /// The most deserving entry `eligible` accepts: changed spans are read
    /// whole; of the others, the best summary first, and a span whose best
    /// cannot beat what was found is skipped.
    pub(super) fn best(
        &self,
        keys: &[u64],
        orders: &[u64],
        mut eligible: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let mut found = Pick::NONE;
        let mut read = |s: usize, found: &mut Pick| {
            for p in picks(keys, orders, s) {
                if p.beats(found) && eligible(p.index) {
                    *found = p;
                }
            }
        };
        let spans = self.best.len();
        for s in (0..spans).filter(|&s| self.is_changed(s)) {
            read(s, &mut found);
        }
        let could_win = |s: usize, found: &Pick| {
            !self.is_changed(s)
                && self
                    .best
                    .get(s)
                    .is_some_and(|b| b.key != 0 && b.beats(found))
        };
        let mut visited = [usize::MAX; PICKS];
        for slot in visited.iter_mut() {
            let mut pick: Option<(usize, Pick)> = None;
            for s in (0..spans).filter(|&s| could_win(s, &found)) {
                let b = self.best.get(s).copied().unwrap_or(Pick::NONE);
                if pick.is_none_or(|(_, q)| b.beats(&q)) {
                    pick = Some((s, b));
                }
            }
            let Some((s, _)) = pick else {
                return (found.key != 0).then_some(found.index);
            };
            *slot = s;
            read(s, &mut found);
            if found.index == self.best.get(s).map_or(usize::MAX, |b| b.index) && found.key != 0 {
                // The span's own best was eligible: nothing else can win.
                return Some(found.index);
            }
        }
        // Many best entries refused: one pass over what could still win.
        for s in 0..spans {
            if !visited.contains(&s) && could_win(s, &found) {
                read(s, &mut found);
            }
        }
        (found.key != 0).then_some(found.index)
    }

    /// The least deserving entry, with its key: one summary per group,
    /// and for a group changed since the last clean, its spans' summaries
    /// (changed spans read whole).
    pub(super) fn least(&self, keys: &[u64], orders: &[u64]) -> Option<(usize, u64)> {
        let mut found = Pick::NONE;
        for g in 0..self.group_least.len() {
            if !self.group_changed.get(g).copied().unwrap_or(true) {
                if let Some(l) = self.group_least.get(g).filter(|l| l.key != 0) {
                    if l.below(&found) {
                        found = *l;
                    }
                }
                continue;
            }
            for s in g * GROUP..((g + 1) * GROUP).min(self.least.len()) {
                if self.is_changed(s) {
                    for p in picks(keys, orders, s) {
                        if p.below(&found) {
                            found = p;
                        }
                    }
                } else if let Some(l) = self.least.get(s).filter(|l| l.key != 0) {
                    if l.below(&found) {
                        found = *l;
                    }
                }
            }
        }
        (found.key != 0).then_some((found.index, found.key))
    }

    /// Checks the summaries of unchanged spans (tests and soak runs).
    #[cfg(any(test, feature = "hooks"))]
    pub(super) fn check(&self, keys: &[u64], orders: &[u64]) -> Result<(), String> {
        for s in (0..self.best.len()).filter(|&s| !self.is_changed(s)) {
            let (best, least) = summarize(keys, orders, s);
            if best != self.best[s] || least != self.least[s] {
                return Err(format!("virtual span {s}: its summary is stale"));
            }
        }
        for g in (0..self.group_least.len()).filter(|&g| !self.group_changed[g]) {
            let spans = g * GROUP..((g + 1) * GROUP).min(self.least.len());
            let least = spans
                .map(|s| self.least[s])
                .filter(|l| l.key != 0)
                .fold(Pick::NONE, |m, l| if l.below(&m) { l } else { m });
            if least != self.group_least[g] {
                return Err(format!("virtual span group {g}: its summary is stale"));
            }
        }
        Ok(())
    }
}

/// Span `s`'s most and least deserving live entries: one pass.
fn summarize(keys: &[u64], orders: &[u64], s: usize) -> (Pick, Pick) {
    let (mut best, mut least) = (Pick::NONE, Pick::NONE);
    for p in picks(keys, orders, s) {
        if p.beats(&best) {
            best = p;
        }
        if p.below(&least) {
            least = p;
        }
    }
    (best, least)
}

/// The live entries of span `s`.
fn picks<'a>(keys: &'a [u64], orders: &'a [u64], s: usize) -> impl Iterator<Item = Pick> + 'a {
    let start = (s * SPAN).min(keys.len());
    let end = (start + SPAN).min(keys.len());
    keys.get(start..end)
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter(|(_, &k)| k != 0)
        .map(move |(j, &key)| Pick {
            key,
            order: orders.get(start + j).copied().unwrap_or(0),
            index: start + j,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a plain pass, over random keys, orders and filters, with
    /// spans changed and cleaned in between.
    #[test]
    fn summaries_find_what_a_pass_finds() {
        let n = (GROUP + 5) * SPAN + 17;
        let mut seed = 12345u64;
        let mut rnd = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let mut keys = vec![0u64; n];
        let orders: Vec<u64> = (0..n as u64).map(|i| (i * 7919) % 100_003).collect();
        let mut spans = Spans::new(n);
        for round in 0..40 {
            for _ in 0..(1 + rnd(300)) {
                let i = rnd(n as u64) as usize;
                // Few distinct keys, so ties by order matter.
                keys[i] = if rnd(4) == 0 { 0 } else { 1 + rnd(6) };
                spans.touch(i);
            }
            if round % 3 != 0 {
                spans.clean(&keys, &orders);
            }
            let live = |i: usize| keys[i] != 0;
            let m = 1 + rnd(5);
            let eligible = |i: usize| !(i as u64).is_multiple_of(m);
            let plain_best = (0..n)
                .filter(|&i| live(i) && eligible(i))
                .min_by(|&a, &b| keys[b].cmp(&keys[a]).then(orders[a].cmp(&orders[b])));
            let plain_least = (0..n)
                .filter(|&i| live(i))
                .min_by(|&a, &b| keys[a].cmp(&keys[b]).then(orders[b].cmp(&orders[a])));
            assert_eq!(
                spans.best(&keys, &orders, eligible),
                plain_best,
                "round {round}"
            );
            assert_eq!(
                spans.least(&keys, &orders),
                plain_least.map(|i| (i, keys[i])),
                "round {round}"
            );
            spans.check(&keys, &orders).unwrap();
        }
    }
}
