//! How it sounds: each voice's DSP state and its rendering into the mix bus
//! ([`voice`]), the mixing kernels ([`kernel`]), stolen voices fading out
//! ([`tails`]), the output stage ([`limiter`]), and fetching voices' data
//! ahead of their turn ([`prefetch`]); the buses voices play on and their
//! effects are in `crate::bus`, a streamed voice's ring in `crate::stream`.
//! Rendering renders what it is told; it never decides who plays (that is
//! the voice manager, `crate::voices`, which this layer does not import).
//!
//! Real-time contract: everything here runs on the audio thread, allocates
//! nothing, takes no lock and indexes only within bounds it has checked.

pub(crate) mod direct;
pub(crate) mod glide;
pub(crate) mod kernel;
pub(crate) mod limiter;
pub(crate) mod prefetch;
pub(crate) mod ramp;
pub(crate) mod tails;
pub(crate) mod voice;
