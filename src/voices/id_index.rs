//! [`IdIndex`]: live voice id -> slot, in O(1) without allocating.

/// Maps live voice ids to slots: open addressing with linear probing, at
/// most half full, deletion by backward shift (no tombstones, so lookups
/// stay short however long the engine runs). Id 0 marks an empty entry
/// (handles count from 1). Every loop is bounded by the table size.
pub(crate) struct IdIndex {
    entries: Box<[Entry]>,
    len: usize,
    shift: u32,
}

/// One index entry: id and slot side by side (one cache line per probe).
#[derive(Clone, Copy)]
struct Entry {
    id: u64,
    slot: u32,
}

impl IdIndex {
    pub(crate) fn new(voices: usize) -> IdIndex {
        let size = (2 * voices).next_power_of_two().max(2);
        IdIndex {
            entries: crate::prefault::filled(Entry { id: 0, slot: 0 }, size),
            len: 0,
            shift: 64 - size.trailing_zeros(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>()
    }

    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn mask(&self) -> usize {
        self.entries.len() - 1
    }

    /// Fibonacci hashing: consecutive ids land far apart.
    fn home(&self, id: u64) -> usize {
        (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn position(&self, id: u64) -> Option<usize> {
        let mask = self.mask();
        let mut at = self.home(id);
        for _ in 0..self.entries.len() {
            match self.entries[at].id {
                0 => return None,
                x if x == id => return Some(at),
                _ => at = (at + 1) & mask,
            }
        }
        None
    }

    pub(crate) fn get(&self, id: u64) -> Option<u32> {
        self.position(id).map(|at| self.entries[at].slot)
    }

    /// Inserts or updates `id`. Only fails (silently) if the table is full,
    /// which the pool's size rules out (at most `voices` ids in `2 * voices`
    /// entries).
    pub(crate) fn insert(&mut self, id: u64, slot: u32) {
        if id == 0 {
            return;
        }
        let mask = self.mask();
        let mut at = self.home(id);
        for _ in 0..self.entries.len() {
            let e = &mut self.entries[at];
            match e.id {
                0 => {
                    *e = Entry { id, slot };
                    self.len += 1;
                    return;
                }
                x if x == id => {
                    e.slot = slot;
                    return;
                }
                _ => at = (at + 1) & mask,
            }
        }
    }

    pub(crate) fn remove(&mut self, id: u64) {
        let Some(mut hole) = self.position(id) else {
            return;
        };
        let mask = self.mask();
        self.entries[hole].id = 0;
        self.len -= 1;
        // Shift back every later entry of the run whose home is not in
        // (hole, at]: it would no longer be found past the hole.
        let mut at = (hole + 1) & mask;
        for _ in 0..self.entries.len() {
            let e = self.entries[at];
            if e.id == 0 {
                return;
            }
            let dist_home = at.wrapping_sub(self.home(e.id)) & mask;
            let dist_hole = at.wrapping_sub(hole) & mask;
            if dist_home >= dist_hole {
                self.entries[hole] = e;
                self.entries[at].id = 0;
                hole = at;
            }
            at = (at + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn id_index_matches_a_hash_map_under_churn() {
        let mut index = IdIndex::new(37);
        let mut model: HashMap<u64, u32> = HashMap::new();
        let mut next_id = 1u64;
        let mut x = 12345u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if model.len() < 37 && (!x.is_multiple_of(3) || model.is_empty()) {
                index.insert(next_id, (x % 37) as u32);
                model.insert(next_id, (x % 37) as u32);
                next_id += 1 + x % 5;
            } else {
                let keys: Vec<u64> = model.keys().copied().collect();
                let k = keys[(x as usize / 7) % keys.len()];
                index.remove(k);
                model.remove(&k);
            }
            assert_eq!(index.len(), model.len());
        }
        for (&k, &v) in &model {
            assert_eq!(index.get(k), Some(v));
        }
        assert_eq!(index.get(next_id + 1), None);
    }
}
