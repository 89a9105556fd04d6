//! Where a voice goes: a new voice placed by the stealing rules (a free
//! slot, a victim chosen from the kept levels and checked against fresh
//! ones, or a refusal), and where a virtual voice may come back.
//!
//! Real-time contract: as the pool's: no allocation, bounded (a few passes
//! over the victim arrays, two fresh ranks), no panics.

use super::victim::Victim;
use super::{
    Admission, Comeback, Identity, Newcomer, Placement, Rank, Refusal, StealRules, VoicePool,
};
use crate::protocol::StealPolicy;

/// How much more than its usual margin a virtual voice must outdo a real
/// voice that has only just started, to come back in its place (4: 6 dB
/// more; the extra falls linearly to nothing as that voice reaches the
/// hold, see [`VoicePool::comeback`]). A steal spares a victim that would
/// go virtual and is that much louder than a young voice, see
/// [`VoicePool::spare_loud`].
const YOUNG_MARGIN: f32 = 4.0;

/// Whom a steal is for: the newcomer's priority, the frame, the group it
/// must stay within.
#[derive(Clone, Copy)]
struct Choice {
    priority: u8,
    now: u64,
    within: Option<u16>,
}

impl<V> VoicePool<V> {
    /// Finds a place for a new voice, by the stealing rules: a group that
    /// refuses it (too soon after its last start) rejects it; a full group
    /// replaces one of its own members by its own policy or rejects it;
    /// otherwise a free slot, else a victim chosen by the pool's `rules`,
    /// else it is rejected.
    ///
    /// A victim chosen by audibility is checked against fresh levels
    /// first: kept levels are up to a refresh period old, and a voice
    /// whose sound has run out since (a one-shot's end, a stop's fade) may
    /// still be ranked by the loud moments it had then. `fresh` computes a
    /// voice's rank now; it is asked for the victim and for the eligible
    /// voice that runs out soonest (within `rules.fresh_window`), and the
    /// quieter of the two, fresh, is taken (the choice is made again if
    /// the victim turns out louder than kept).
    pub(crate) fn place(
        &mut self,
        new: Newcomer<V>,
        rules: StealRules,
        fresh: impl FnMut(&Identity, &V) -> Rank,
    ) -> Placement<V> {
        let (who, now) = (new.who, new.now);
        let start = new.fresh.unwrap_or(now);
        let (policy, within, new) = match self.groups.admit(who.group, start, !new.later_layer) {
            Admission::TooSoon => {
                let voice = new.voice;
                return Placement::Rejected {
                    voice,
                    why: Refusal::TooSoon,
                };
            }
            Admission::Full(policy) => (policy, Some(who.group), new),
            Admission::Open => match self.acquire(new) {
                Ok(_) => return Placement::Started,
                Err(new) => (rules.policy, None, new),
            },
        };
        let limited = within.is_some();
        let (min_age, isa) = (rules.min_age, rules.isa);
        let victim = (self.candidates).choose(policy, who.priority, now, min_age, within, isa);
        let victim = match victim {
            Victim::Slot(v) if policy == StealPolicy::Quietest => {
                let to = Choice {
                    priority: who.priority,
                    now,
                    within,
                };
                let v = self.fresh_victim(v, to, rules, fresh);
                Victim::Slot(self.spare_loud(v, to, rules))
            }
            other => other,
        };
        if let Victim::Slot(i) = victim {
            if policy == StealPolicy::Quietest && self.below_by_margin(&new, i, rules) {
                return Placement::Rejected {
                    voice: new.voice,
                    why: Refusal::LeastAudible,
                };
            }
        }
        let result = match victim {
            Victim::Slot(i) => self.replace(i, new),
            Victim::None => Err(new.voice),
        };
        match result {
            Ok(old) => Placement::Stole { old, limited },
            Err(voice) => Placement::Rejected {
                voice,
                why: if limited {
                    Refusal::GroupFull
                } else {
                    Refusal::Pool
                },
            },
        }
    }

    /// The victim `v`, or, if `v` would go virtual (it asked to) and
    /// would at once deserve to come back in place of the least audible
    /// voice that the minimum age passed over, that voice instead: what
    /// the comeback would do a moment later (see [`VoicePool::comeback`],
    /// with its margin for a voice that has just started), without the
    /// louder voice dropping out in between. A voice held after coming
    /// back is not taken.
    fn spare_loud(&mut self, v: usize, to: Choice, rules: StealRules) -> usize {
        let margin = rules.start_virtual_margin * YOUNG_MARGIN;
        if margin <= 0.0 || !self.who.get(v).is_some_and(|w| w.virtualize) {
            return v;
        }
        let Choice {
            priority,
            now,
            within,
        } = to;
        // A young victim: no older candidate existed, so none was passed
        // over (and the scan below would find the victim again).
        let start = self.candidates.starts.get(v).copied().unwrap_or(now);
        if now < start.saturating_add(rules.min_age) {
            return v;
        }
        let least =
            (self.candidates).choose(StealPolicy::Quietest, priority, now, 0, within, rules.isa);
        let Victim::Slot(y) = least else {
            return v;
        };
        if y == v || self.held(y, now, rules.min_age) {
            return v;
        }
        let level = |i: usize| self.levels.get(i).copied().unwrap_or(0.0);
        if level(v) > margin * level(y) {
            y
        } else {
            v
        }
    }

    /// Whether slot `i` came back less than its hold ago (it is not sent
    /// away: see [`Newcomer::held`]).
    fn held(&self, i: usize, now: u64, min_age: u64) -> bool {
        let (start, begun) = (self.candidates.starts.get(i), self.candidates.begun.get(i));
        matches!((start, begun), (Some(&s), Some(&b)) if s > b && now < s.saturating_add(min_age))
    }

    /// Whether `new` asked to virtualize and would be the least audible
    /// voice: the one it would steal (the least audible candidate, ranked
    /// fresh where the steal re-ranked it) is of no lower priority than it and
    /// louder than it by more than `rules.start_virtual_margin`. A voice so
    /// far below would not come back in that voice's place either (the
    /// comeback asks as much), so starting virtual is where the comeback
    /// rule would put it: no voice is interrupted, not even for a block.
    fn below_by_margin(&self, new: &Newcomer<V>, i: usize, rules: StealRules) -> bool {
        let margin = rules.start_virtual_margin;
        if !new.who.virtualize || margin <= 0.0 {
            return false;
        }
        let (Some(old), Some(&level)) = (self.who.get(i), self.levels.get(i)) else {
            return false;
        };
        old.priority >= new.who.priority && new.level * margin < level
    }

    /// The victim `v` chosen from kept levels, or the eligible voice that
    /// runs out soonest if, ranked fresh, it is quieter (see
    /// [`VoicePool::place`]).
    fn fresh_victim(
        &mut self,
        v: usize,
        to: Choice,
        rules: StealRules,
        mut fresh: impl FnMut(&Identity, &V) -> Rank,
    ) -> usize {
        let Choice {
            priority,
            now,
            within,
        } = to;
        let before = now.saturating_add(rules.fresh_window);
        let found =
            (self.candidates).soonest_ending(v, (now, before), rules.min_age, within, rules.isa);
        let Some((e, _)) = found else {
            return v;
        };
        let kept = self.levels.get(v).copied().unwrap_or(0.0);
        let (Some(ve), Some(vv)) = (self.slots.get(e), self.slots.get(v)) else {
            return v;
        };
        let (re, rv) = (fresh(&self.who(e), ve), fresh(&self.who(v), vv));
        self.set_rank(e, re);
        self.set_rank(v, rv);
        // (The levels as kept: with what masking leaves of each.)
        let level = |i: usize| self.levels.get(i).copied().unwrap_or(0.0);
        let (le, lv) = (level(e), level(v));
        if le < lv {
            return e;
        }
        if lv <= kept {
            return v;
        }
        // The victim is louder than it was kept: choose again.
        let isa = rules.isa;
        let again = (self.candidates).choose(
            StealPolicy::Quietest,
            priority,
            now,
            rules.min_age,
            within,
            isa,
        );
        match again {
            Victim::Slot(i) => i,
            Victim::None => v,
        }
    }

    /// Where a virtual voice of identity `who`, as audible as `level`,
    /// may come back now, if anywhere: a free slot if its group has room;
    /// otherwise in place of the least audible voice of the lowest
    /// priority present, whatever its age (within its group if the group
    /// is full; the group's or pool's policy must steal, never under
    /// `Reject`), provided that voice is of lower priority or `level` is
    /// above a margin times its level: `margin` for a voice that has
    /// sounded for `hold` frames or more, up to [`YOUNG_MARGIN`] times that
    /// for one that has just started (linearly in between). A voice that
    /// came back less than `hold` ago is never sent away (see
    /// [`Newcomer::held`]). The margin and the holds are the hysteresis
    /// that keeps voices of similar or changing audibility from trading
    /// places back and forth, while a voice clearly more audible than
    /// what plays comes back even while short sounds churn.
    pub(crate) fn comeback(
        &mut self,
        who: Identity,
        level: f32,
        now: u64,
        rules: StealRules,
        (margin, hold): (f32, u64),
    ) -> Option<Comeback> {
        let room = self.groups.has_room(who.group);
        if room && self.live() < self.len() {
            return Some(Comeback::Free);
        }
        let (policy, within) = if room {
            (rules.policy, None)
        } else {
            (self.groups.policy(who.group)?, Some(who.group))
        };
        if policy == StealPolicy::Reject {
            return None;
        }
        // The least audible voice, whatever its age (the margin grows for
        // a young one instead); if that one came back less than `hold`
        // ago (it is not sent away), the least audible of those that have
        // sounded `min_age` (which one came back is not, until its hold
        // ends).
        let mut victim = None;
        for min_age in [0, rules.min_age] {
            let choice = (self.candidates).choose(
                StealPolicy::Quietest,
                who.priority,
                now,
                min_age,
                within,
                rules.isa,
            );
            match choice {
                Victim::Slot(i) if !self.held(i, now, rules.min_age) => {
                    victim = Some(i);
                    break;
                }
                Victim::Slot(_) => continue,
                Victim::None => return None,
            }
        }
        let i = victim?;
        let (old, &old_level) = (self.who.get(i)?, self.levels.get(i)?);
        let begun = *self.candidates.begun.get(i)?;
        // How long it has sounded (since it started, or came back).
        let age = now.saturating_sub(begun).min(hold);
        let young = if hold == 0 {
            0.0
        } else {
            1.0 - age as f32 / hold as f32
        };
        let margin = margin * (1.0 + (YOUNG_MARGIN - 1.0) * young);
        let deserves = old.priority < who.priority || level > margin * old_level;
        deserves.then_some(Comeback::Replace(i))
    }
}
