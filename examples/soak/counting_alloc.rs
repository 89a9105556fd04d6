//! The crate's own allocation counter ([`voicepool::alloc_check`]) as the
//! global allocator: compare [`allocations`] before and after the code under
//! watch. Shared by the soak example and the allocation tests.

#[global_allocator]
static ALLOCATOR: voicepool::alloc_check::CountingAllocator =
    voicepool::alloc_check::CountingAllocator;

pub use voicepool::alloc_check::allocations;
