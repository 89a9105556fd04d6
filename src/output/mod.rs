//! Outputs that drive a [`crate::Mixer`]: offline (deterministic, on the
//! calling thread) and live (a cpal device).

pub mod cpal;
pub mod offline;
mod recorder;
