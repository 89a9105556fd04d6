//! What voicepool's own tests, examples, benches and fuzz targets share,
//! in one place (none of them reaches into another's folder):
//!
//! | module | what | used by |
//! | --- | --- | --- |
//! | [`common`] | test sounds (sines, DC, noise, bursts), rendering and event helpers | the integration tests |
//! | [`support`] | a scratch directory that cleans up, running sox, and scenario builders (codecs, shaped buses, stream churn, virtual sweeps) | the integration tests |
//! | [`k_weighting`] | a reference ITU-R BS.1770 K-weighting with the standard's coefficients | the stealing tests, `examples/steal_regret` |
//! | [`sound_oracle`] | the checks the fuzz targets make on every input | `fuzz/`, the fuzz regression tests |
//! | [`callback_alloc`] | counting allocations inside a live engine's data callback | the live output and JACK tests |
//! | [`jack`] | a `jackd -d dummy` of our own, and the paced spell-burst storm | `examples/jack_soak`, the JACK and live output tests |
//! | [`soak`] | the offline soak session | `examples/soak`, `tests/soak_run.rs` |
//!
//! A binary that counts allocations declares its own global allocator
//! (`voicepool::alloc_check::CountingAllocator`, or
//! [`callback_alloc::CallbackCounter`]); nothing here installs one.

pub mod callback_alloc;
pub mod common;
pub mod jack;
pub mod k_weighting;
pub mod soak;
pub mod sound_oracle;
pub mod support;
