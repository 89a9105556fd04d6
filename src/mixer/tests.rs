use super::Voice;
use crate::voices::free_list::Slot;

#[test]
fn a_pool_slot_is_one_cache_line() {
    // The layout the render loop and the pool are tuned for: a slot
    // holding a voice costs nothing over the voice itself.
    use std::mem::{align_of, size_of};
    assert_eq!(size_of::<Slot<Voice>>(), 64);
    assert_eq!(align_of::<Slot<Voice>>(), 64);
}
