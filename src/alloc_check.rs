//! Catching allocations on the audio thread: a global allocator that
//! counts, per thread, every allocation, reallocation and free, passing
//! each on to the system allocator.
//!
//! Install it in a game's debug builds, and the engine watches the game's
//! own bus effects ([`crate::CustomEffect`]) with it: an effect that
//! allocates or frees memory while it runs on the audio thread is reported
//! once, as [`crate::Event::EffectFault`] with
//! [`crate::EffectFault::Allocated`], naming its bus. voicepool's own tests
//! count the mixer's allocations with it the same way. It cannot see locks
//! or system calls: the `rtsan` feature (LLVM's RealtimeSanitizer, see the
//! repository's `docs/RTSAN.md`) catches those, and everything else the
//! audio thread must not do.
//!
//! ```
//! // In the game's main.rs (here only where debug assertions are on):
//! #[cfg(debug_assertions)]
//! #[global_allocator]
//! static ALLOCATOR: voicepool::alloc_check::CountingAllocator =
//!     voicepool::alloc_check::CountingAllocator;
//!
//! # fn main() {
//! let before = voicepool::alloc_check::allocations();
//! let v = std::hint::black_box(vec![0u8; 64]);
//! # let _ = v;
//! if voicepool::alloc_check::active() {
//!     assert!(voicepool::alloc_check::allocations() > before);
//! }
//! # }
//! ```
//!
//! Cost: one thread-local increment per allocation, and where installed,
//! two thread-local reads around each call into a game's effect.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The system allocator, counting per thread. Install it with
/// `#[global_allocator]` (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingAllocator;

thread_local! {
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

static ACTIVE: AtomicBool = AtomicBool::new(false);

fn bump() {
    // `try_with`: during a thread's teardown the counter may be gone.
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    if !ACTIVE.load(Relaxed) {
        ACTIVE.store(true, Relaxed);
    }
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counting touches only a const-initialized thread-local (which never
// allocates) and an atomic flag.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        bump();
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations, reallocations and frees made on the calling thread so far
/// (0 if [`CountingAllocator`] is not the global allocator). Compare it
/// before and after the code under watch.
///
/// ```
/// let before = voicepool::alloc_check::allocations();
/// let sum: u32 = (0..10).sum(); // no allocation
/// assert_eq!(voicepool::alloc_check::allocations(), before);
/// # let _ = sum;
/// ```
pub fn allocations() -> u64 {
    COUNT.try_with(Cell::get).unwrap_or(0)
}

/// Whether [`CountingAllocator`] is the global allocator (it has counted
/// an allocation).
///
/// ```
/// // A program that never installed it:
/// # if false {
/// assert!(!voicepool::alloc_check::active());
/// # }
/// ```
pub fn active() -> bool {
    ACTIVE.load(Relaxed)
}

/// The calling thread's count, where the counter is installed.
#[inline]
pub(crate) fn watch() -> Option<u64> {
    active().then(allocations)
}
