//! Memory the audio thread will touch, faulted in where it is allocated (on
//! the game side). A large zeroed allocation is mapped lazily by the
//! kernel: its first touch on the audio thread would be a page fault per
//! 4 KiB, milliseconds for a pool of a million virtual voices. A leaf:
//! imports nothing of the crate.

/// Bytes in the smallest page a fault maps.
const PAGE: usize = 4096;

/// Writes one element on each page of `items` with its own value, so that
/// every page is mapped (and private) before the audio thread reads it.
fn touch<T: Copy>(items: &mut [T]) {
    let stride = (PAGE / std::mem::size_of::<T>().max(1)).max(1);
    for item in items.iter_mut().step_by(stride) {
        let value = *item;
        // SAFETY: `item` is a valid, aligned, exclusive reference to an
        // initialized `T`; a volatile write of its own value changes
        // nothing but cannot be left out by the compiler.
        unsafe { std::ptr::write_volatile(item, value) };
    }
}

/// `n` copies of `value`, every page faulted in.
pub(crate) fn filled<T: Copy>(value: T, n: usize) -> Box<[T]> {
    let mut items = vec![value; n].into_boxed_slice();
    touch(&mut items);
    items
}

#[cfg(test)]
mod tests {
    #[test]
    fn filled_holds_its_value_everywhere() {
        let items = super::filled(7u64, 10_000);
        assert_eq!(items.len(), 10_000);
        assert!(items.iter().all(|&x| x == 7));
        assert!(super::filled(0.0f32, 0).is_empty());
    }
}
