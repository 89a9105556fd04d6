//! A global allocator that counts the allocations and frees made inside a
//! live engine's data callback, and the callbacks: the engine's hook
//! ([`hook`], given to `AudioEngine::start_with_hook`) marks the audio
//! thread as in the callback between `Enter` and `Exit`. A binary that
//! tests live output installs it:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: voicepool_testkit::callback_alloc::CallbackCounter =
//!     voicepool_testkit::callback_alloc::CallbackCounter;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use voicepool::output::cpal::CallbackPhase;

thread_local! {
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Allocations and frees inside the callback so far.
pub static CALLBACK_ALLOCS: AtomicUsize = AtomicUsize::new(0);
/// Callbacks entered so far.
pub static CALLBACKS: AtomicUsize = AtomicUsize::new(0);

/// The engine's callback hook.
pub fn hook(phase: CallbackPhase) {
    match phase {
        CallbackPhase::Enter => {
            CALLBACKS.fetch_add(1, Relaxed);
            IN_CALLBACK.with(|c| c.set(true));
        }
        CallbackPhase::Exit => IN_CALLBACK.with(|c| c.set(false)),
    }
}

/// Runs `f` on this thread as if inside the callback (to prove the counter
/// counts).
pub fn as_if_in_callback(f: impl FnOnce()) {
    IN_CALLBACK.with(|c| c.set(true));
    f();
    IN_CALLBACK.with(|c| c.set(false));
}

fn note_if_in_callback() {
    if IN_CALLBACK.try_with(Cell::get).unwrap_or(false) {
        CALLBACK_ALLOCS.fetch_add(1, Relaxed);
    }
}

/// The allocator: the system's, counting what happens inside the callback.
pub struct CallbackCounter;

// SAFETY: every call is passed on to the system allocator unchanged; the
// counting touches only an atomic and a const-initialized thread-local
// (which never allocates).
unsafe impl GlobalAlloc for CallbackCounter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_if_in_callback();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_if_in_callback();
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_if_in_callback();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_if_in_callback();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
