//! [`Groups`]: per-kind instance limits ("concurrency" in Unreal, "max
//! instances" in FMOD). Each group counts its sounding members and remembers
//! its last accepted start; a new member is admitted, handled by the group's
//! own policy among its own members, or refused for coming too soon.
//!
//! Real-time contract: the tables are allocated once in [`Groups::new`];
//! every method is O(1), allocates nothing and never panics (an index out of
//! range, including [`NO_GROUP`], is simply "no group").

use crate::command::{StealPolicy, ValidGroup, NO_GROUP};

/// What a group says to a new member starting at a given frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Below its limit (or no group): the pool's own rules apply.
    Open,
    /// At its limit: the newcomer replaces a member chosen by this policy
    /// among the group's members, or is rejected.
    Full(StealPolicy),
    /// Sooner than `min_interval` after the group's last accepted start.
    TooSoon,
}

/// One group's settings and state.
#[derive(Clone, Copy, Debug)]
struct Group {
    settings: ValidGroup,
    members: u32,
    /// The output frame of the last accepted start, if any.
    last_start: Option<u64>,
}

/// Every group an engine can have, allocated up front.
pub(crate) struct Groups {
    groups: Box<[Group]>,
}

impl Groups {
    /// Room for `count` groups, each unlimited until configured.
    pub(crate) fn new(count: usize) -> Groups {
        let open = Group {
            settings: ValidGroup {
                max_voices: u32::MAX,
                policy: StealPolicy::Quietest,
                min_interval: 0,
            },
            members: 0,
            last_start: None,
        };
        Groups {
            groups: vec![open; count.min(usize::from(NO_GROUP))].into_boxed_slice(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.groups.len() * std::mem::size_of::<Group>()
    }

    /// Sets group `index`'s limit, policy and interval (its members and
    /// last start are kept).
    pub(crate) fn configure(&mut self, index: u16, settings: ValidGroup) {
        if let Some(g) = self.groups.get_mut(usize::from(index)) {
            g.settings = settings;
        }
    }

    /// What group `index` says to a member starting at frame `now`.
    pub(crate) fn admit(&self, index: u16, now: u64) -> Admission {
        let Some(g) = self.groups.get(usize::from(index)) else {
            return Admission::Open;
        };
        let interval = u64::from(g.settings.min_interval);
        if let Some(last) = g.last_start {
            if interval > 0 && now.saturating_sub(last) < interval {
                return Admission::TooSoon;
            }
        }
        if g.members >= g.settings.max_voices {
            Admission::Full(g.settings.policy)
        } else {
            Admission::Open
        }
    }

    /// A member of group `index` started at frame `now` (`fresh`: a new
    /// play, which the retrigger interval counts from; otherwise a virtual
    /// voice coming back, which it does not).
    pub(crate) fn joined(&mut self, index: u16, now: u64, fresh: bool) {
        if let Some(g) = self.groups.get_mut(usize::from(index)) {
            g.members = g.members.saturating_add(1);
            if fresh {
                g.last_start = Some(now);
            }
        }
    }

    /// A play of group `index` was accepted at frame `now` without a slot
    /// (it went virtual): the retrigger interval counts from it as from a
    /// start.
    pub(crate) fn accepted(&mut self, index: u16, now: u64) {
        if let Some(g) = self.groups.get_mut(usize::from(index)) {
            g.last_start = Some(now);
        }
    }

    /// Whether group `index` has room for one more member (no group
    /// always has). The retrigger interval is not asked: it applies to
    /// new plays, not to virtual voices coming back.
    pub(crate) fn has_room(&self, index: u16) -> bool {
        self.groups
            .get(usize::from(index))
            .is_none_or(|g| g.members < g.settings.max_voices)
    }

    /// Group `index`'s policy for a full group.
    pub(crate) fn policy(&self, index: u16) -> Option<StealPolicy> {
        self.groups
            .get(usize::from(index))
            .map(|g| g.settings.policy)
    }

    /// A member of group `index` stopped sounding (ended or was replaced).
    pub(crate) fn left(&mut self, index: u16) {
        if let Some(g) = self.groups.get_mut(usize::from(index)) {
            g.members = g.members.saturating_sub(1);
        }
    }

    /// Members of group `index` sounding now.
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn members(&self, index: u16) -> u32 {
        self.groups.get(usize::from(index)).map_or(0, |g| g.members)
    }

    /// Groups there is room for.
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn len(&self) -> usize {
        self.groups.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_and_interval() {
        let mut g = Groups::new(2);
        g.configure(
            1,
            ValidGroup {
                max_voices: 2,
                policy: StealPolicy::Oldest,
                min_interval: 100,
            },
        );
        assert_eq!(g.admit(1, 0), Admission::Open);
        g.joined(1, 0, true);
        assert_eq!(g.admit(1, 99), Admission::TooSoon);
        assert_eq!(g.admit(1, 100), Admission::Open);
        g.joined(1, 100, true);
        assert_eq!(g.admit(1, 500), Admission::Full(StealPolicy::Oldest));
        g.left(1);
        assert_eq!(g.admit(1, 500), Admission::Open);
        // No group, or one out of range: always open.
        assert_eq!(g.admit(NO_GROUP, 0), Admission::Open);
        assert_eq!(g.admit(7, 0), Admission::Open);
        assert_eq!(g.admit(0, 0), Admission::Open);
    }
}
