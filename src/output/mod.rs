//! Outputs that drive a [`crate::Mixer`]: offline (deterministic, on the
//! calling thread) and live (a cpal device natively, Web Audio in a
//! browser).

pub mod cpal;
pub mod offline;
mod recorder;
mod state;
#[cfg(web)]
mod web;
