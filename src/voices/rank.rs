//! What the pool keeps of each voice's future and how it is set: the
//! [`Rank`] a level estimate gives, the share of it masking leaves heard
//! (kept per slot and followed to each new level), and the victim-choice
//! key both make. Real-time safe: plain arithmetic on the pool's arrays.

use super::victim;
use super::{Identity, VoicePool};

/// What the pool keeps of a voice's future: its audibility level (what
/// stealing ranks by) and the output frame its sound runs out at (the end
/// of a one-shot, or of a stop's fade; [`Rank::NEVER`] for a loop, a
/// stream, a paused voice), both as of when they were computed. A voice
/// near its end may have gone quiet since its level was computed: the
/// steal re-ranks the one that ends soonest (see [`VoicePool::place`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rank {
    pub(crate) level: f32,
    pub(crate) ends: u64,
    /// The share of the voice the rest of the mix leaves audible
    /// ([`super::masking`]), kept per slot and applied to every level set there
    /// until the next; `None` keeps the slot's (a new voice starts at 1).
    pub(crate) heard: Option<f32>,
}

impl Rank {
    /// `ends` of a voice that does not run out by itself.
    pub(crate) const NEVER: u64 = u64::MAX;

    /// A level and an end, the slot's heard share kept (`heard: None`).
    pub(crate) fn new(level: f32, ends: u64) -> Rank {
        Rank {
            level,
            ends,
            heard: None,
        }
    }
}

/// A level alone: a voice not known to end.
impl From<f32> for Rank {
    fn from(level: f32) -> Rank {
        Rank::new(level, Rank::NEVER)
    }
}

/// The share of a voice heard at `level`, given that `heard` of it was at
/// `was`: masking's threshold taken as unchanged, as one band would be
/// (a share `h = P / (P + T)` at power `P` is `r h / (r h + 1 - h)` at
/// `r P`). So between two estimates of the share a fade, a move or a stop
/// changes what is heard of the voice, not only its loudness.
#[inline]
pub(super) fn heard_at(heard: f32, was: f32, level: f32) -> f32 {
    if heard >= 1.0 || was <= 0.0 {
        return heard;
    }
    let rh = level / was * heard;
    let share = rh / (rh + 1.0 - heard);
    if share.is_nan() {
        heard
    } else {
        share
    }
}

impl<V> VoicePool<V> {
    /// Sets slot `i`'s identity, rank and order; `(begun, held)`: the
    /// frame it starts sounding, and how long past it it counts as just
    /// started (see [`super::Newcomer::held`]).
    pub(super) fn set_meta(
        &mut self,
        i: usize,
        who: Identity,
        rank: Rank,
        order: u64,
        (begun, held): (u64, u64),
    ) {
        let heard = rank.heard.unwrap_or(1.0);
        let level = rank.level * heard;
        if let (Some(w), Some(l), Some(h), Some(hl)) = (
            self.who.get_mut(i),
            self.levels.get_mut(i),
            self.heard.get_mut(i),
            self.heard_level.get_mut(i),
        ) {
            (*w, *l, *h, *hl) = (who, level, heard, rank.level);
        }
        let meta = victim::Meta {
            key: who.key(level),
            start: begun.saturating_add(held),
            begun,
            order,
            group: who.group,
            end: rank.ends,
        };
        self.candidates.set(i, meta);
        if let Some(b) = self.below.get_mut(i) {
            *b = u64::MAX; // a new voice (or none) in the slot
        }
    }

    /// The slot holding voice `id`, if it is still live. O(1).
    pub(crate) fn find(&self, id: u64) -> Option<usize> {
        self.index.get(id).map(|i| i as usize)
    }

    /// Applies `f` to live voice `id` (if it is live); `f` returns the
    /// voice's new rank. O(1).
    pub(crate) fn update<R: Into<Rank>>(&mut self, id: u64, f: impl FnOnce(&mut V) -> R) {
        let Some(i) = self.find(id) else { return };
        if let Some(v) = self.slots.get_mut(i) {
            let rank = f(v).into();
            self.set_rank(i, rank);
        }
    }

    pub(super) fn set_rank(&mut self, i: usize, rank: Rank) {
        if let (Some(l), Some(h), Some(hl), Some(k), Some(e)) = (
            self.levels.get_mut(i),
            self.heard.get_mut(i),
            self.heard_level.get_mut(i),
            self.candidates.keys.get_mut(i),
            self.candidates.ends.get_mut(i),
        ) {
            let share = match rank.heard {
                Some(heard) => {
                    (*h, *hl) = (heard, rank.level);
                    heard
                }
                None => heard_at(*h, *hl, rank.level),
            };
            let level = rank.level * share;
            *l = level;
            *k = victim::with_level(*k, level);
            *e = rank.ends;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::heard_at;

    #[test]
    fn a_heard_share_follows_the_level_as_one_band_would() {
        // Half heard at 1: at 10 times the power, 10/11 of it; at a tenth,
        // 1/11; none at silence; a voice heard whole stays whole.
        assert!((heard_at(0.5, 1.0, 10.0) - 10.0 / 11.0).abs() < 1e-6);
        assert!((heard_at(0.5, 1.0, 0.1) - 1.0 / 11.0).abs() < 1e-6);
        assert_eq!(heard_at(0.5, 1.0, 0.0), 0.0);
        assert_eq!(heard_at(1.0, 1.0, 0.01), 1.0);
        // No estimate yet (nothing it was at): the share as it is.
        assert_eq!(heard_at(0.3, 0.0, 5.0), 0.3);
    }
}
