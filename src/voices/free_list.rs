//! [`FreeList`]: the Object Pool pattern itself. A fixed array of slots and
//! an intrusive free list threaded through the free ones; acquire and release
//! are O(1), allocate nothing and never panic.

const NONE: u32 = u32::MAX;

/// A slot of a [`FreeList`]: either on the free list (storing the next free
/// slot, as the Object Pool pattern's union does) or holding a live object.
pub(crate) enum Slot<T> {
    Free { next: u32 },
    Live(T),
}

/// The Object Pool pattern itself: a fixed array of slots and an intrusive
/// free list threaded through the free ones. Acquire and release are O(1),
/// allocate nothing and never panic.
pub(crate) struct FreeList<T> {
    slots: Box<[Slot<T>]>,
    free_head: u32,
    live: usize,
}

impl<T> FreeList<T> {
    /// `size` slots (at most `u32::MAX - 1`), all free.
    pub(crate) fn new(size: usize) -> FreeList<T> {
        let size = size.min(NONE as usize - 1);
        FreeList {
            slots: (0..size)
                .map(|i| Slot::Free {
                    next: if i + 1 < size { (i + 1) as u32 } else { NONE },
                })
                .collect(),
            free_head: if size > 0 { 0 } else { NONE },
            live: 0,
        }
    }

    /// Puts `value` into the first free slot; gives it back if there is none.
    #[inline]
    pub(crate) fn acquire(&mut self, value: T) -> Result<usize, T> {
        let i = self.free_head as usize;
        match self.slots.get_mut(i) {
            Some(slot) => {
                let Slot::Free { next } = *slot else {
                    return Err(value); // unreachable while the list is intact
                };
                self.free_head = next;
                *slot = Slot::Live(value);
                self.live += 1;
                Ok(i)
            }
            None => Err(value),
        }
    }

    /// Frees slot `i`, returning its value (`None` if it was free).
    #[inline]
    pub(crate) fn release(&mut self, i: usize) -> Option<T> {
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

    /// The value in slot `i`, if it is live.
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        match self.slots.get(i) {
            Some(Slot::Live(v)) => Some(v),
            _ => None,
        }
    }

    /// The value in slot `i`, if it is live, to change.
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        match self.slots.get_mut(i) {
            Some(Slot::Live(v)) => Some(v),
            _ => None,
        }
    }

    /// The values in slots `i` and `i + 1`, if both hold one.
    pub(crate) fn pair_mut(&mut self, i: usize) -> Option<(&mut T, &mut T)> {
        match self.slots.get_mut(i..i + 2)? {
            [Slot::Live(a), Slot::Live(b)] => Some((a, b)),
            _ => None,
        }
    }

    /// Slots in the list.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Slots holding a value.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    pub(crate) fn slots(&self) -> &[Slot<T>] {
        &self.slots
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot<T>>()
    }

    /// Checks that the free list and the live slots partition the slots.
    /// (Allocates: tests and soak runs only.)
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn check(&self) -> Result<(), String> {
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
        let live = self
            .slots
            .iter()
            .filter(|s| matches!(s, Slot::Live(_)))
            .count();
        if live != self.live || free + live != self.slots.len() {
            return Err(format!(
                "free {free} + live {live} (counted {}) != pool size {}",
                self.live,
                self.slots.len()
            ));
        }
        Ok(())
    }
}
