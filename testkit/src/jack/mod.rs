//! Live output under real-time pacing: a JACK server of our own
//! ([`jackd`]) and the spell-burst storm played into it ([`storm`]).

pub mod jackd;
pub mod storm;
