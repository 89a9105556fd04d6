//! [`Groups`]: per-kind instance limits ("concurrency" in Unreal, "max
//! instances" in FMOD). Each group counts its sounding members and remembers
//! the frames its last accepted members start at; a new member is admitted,
//! handled by the group's own policy among its own members, or refused for
//! starting too close to one of them.
//!
//! Real-time contract: the tables are allocated once in [`Groups::new`];
//! every method is O(1), allocates nothing and never panics (an index out of
//! range, including [`NO_GROUP`], is simply "no group").

use crate::protocol::{StealPolicy, ValidGroup, NO_GROUP};

/// What a group says to a new member starting at a given frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Below its limit (or no group): the pool's own rules apply.
    Open,
    /// At its limit: the newcomer replaces a member chosen by this policy
    /// among the group's members, or is rejected.
    Full(StealPolicy),
    /// Starting closer than `min_interval` to an accepted start.
    TooSoon,
}

/// How many accepted start frames a group remembers. Starts scheduled with
/// `start_at` may be taken out of order (a hit scheduled for later, then
/// one for sooner): the retrigger interval is kept against each of these,
/// on both sides.
const RECENT_STARTS: usize = 4;

/// One group's settings and state.
#[derive(Clone, Copy, Debug)]
struct Group {
    settings: ValidGroup,
    members: u32,
    /// The output frames the last [`RECENT_STARTS`] accepted members
    /// start at, the latest accepted at `next - 1` (round robin).
    starts: [Option<u64>; RECENT_STARTS],
    next: usize,
}

impl Group {
    fn accept(&mut self, start: u64) {
        if let Some(s) = self.starts.get_mut(self.next) {
            *s = Some(start);
        }
        self.next = (self.next + 1) % RECENT_STARTS;
    }
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
            starts: [None; RECENT_STARTS],
            next: 0,
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

    /// What group `index` says to a member whose first sample sounds at
    /// output frame `start` (`retrigger`: subject to the group's retrigger
    /// interval; a cue's later layers are not).
    pub(crate) fn admit(&self, index: u16, start: u64, retrigger: bool) -> Admission {
        let Some(g) = self.groups.get(usize::from(index)) else {
            return Admission::Open;
        };
        let interval = u64::from(g.settings.min_interval);
        if retrigger
            && interval > 0
            && g.starts
                .iter()
                .flatten()
                .any(|&s| s.abs_diff(start) < interval)
        {
            return Admission::TooSoon;
        }
        if g.members >= g.settings.max_voices {
            Admission::Full(g.settings.policy)
        } else {
            Admission::Open
        }
    }

    /// A member of group `index` took a slot: a new play whose first
    /// sample sounds at frame `fresh` (the retrigger interval counts from
    /// it), or (`None`) a virtual voice coming back, which it does not.
    pub(crate) fn joined(&mut self, index: u16, fresh: Option<u64>) {
        if let Some(g) = self.groups.get_mut(usize::from(index)) {
            g.members = g.members.saturating_add(1);
            if let Some(start) = fresh {
                g.accept(start);
            }
        }
    }

    /// A play of group `index` starting at frame `start` was accepted
    /// without a slot (it went virtual): the retrigger interval counts
    /// from it as from a start.
    pub(crate) fn accepted(&mut self, index: u16, start: u64) {
        if let Some(g) = self.groups.get_mut(usize::from(index)) {
            g.accept(start);
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
        assert_eq!(g.admit(1, 0, true), Admission::Open);
        g.joined(1, Some(0));
        assert_eq!(g.admit(1, 99, true), Admission::TooSoon);
        assert_eq!(g.admit(1, 100, true), Admission::Open);
        g.joined(1, Some(100));
        assert_eq!(g.admit(1, 500, true), Admission::Full(StealPolicy::Oldest));
        g.left(1);
        assert_eq!(g.admit(1, 500, true), Admission::Open);
        // No group, or one out of range: always open.
        assert_eq!(g.admit(NO_GROUP, 0, true), Admission::Open);
        assert_eq!(g.admit(7, 0, true), Admission::Open);
        assert_eq!(g.admit(0, 0, true), Admission::Open);
    }
}
