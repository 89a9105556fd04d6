//! Deliberate real-time violations, compiled only with the `rtsan-selftest`
//! feature, so the RealtimeSanitizer job (`scripts/rtsan.sh`) can prove it
//! catches them. Never part of a normal build.

/// Allocates inside a non-blocking context: RTSan must abort.
#[rtsan_standalone::nonblocking]
pub fn allocate_in_realtime() -> usize {
    std::hint::black_box(vec![0u8; 256]).len()
}

/// Locks a pthread mutex inside a non-blocking context: RTSan must abort.
#[rtsan_standalone::nonblocking]
pub fn lock_in_realtime() {
    static mut MUTEX: libc::pthread_mutex_t = libc::PTHREAD_MUTEX_INITIALIZER;
    // SAFETY: a process-wide static mutex, initialised statically, locked
    // and unlocked on the same thread; nothing else refers to it.
    unsafe {
        libc::pthread_mutex_lock(&raw mut MUTEX);
        libc::pthread_mutex_unlock(&raw mut MUTEX);
    }
}
