//! The built-in bus effects ([`crate::Effect`]): filters and a reverb, each
//! a [`CustomEffect`] like a game's own, built on the game side by
//! [`build`] and run by [`super::mix::Buses`] on the audio thread.

mod filter;
pub(crate) mod guard;
mod reverb;

use crate::bus::{CustomEffect, Effect};

pub(crate) use filter::{Filter, Pass};
pub(crate) use reverb::Reverb;

/// `effect`'s processor at output rate `rate` (game side: it allocates).
pub(crate) fn build(effect: Effect, rate: u32) -> Box<dyn CustomEffect> {
    match effect {
        Effect::LowPass { cutoff_hz } => Box::new(Filter::new(Pass::Low, cutoff_hz, rate)),
        Effect::HighPass { cutoff_hz } => Box::new(Filter::new(Pass::High, cutoff_hz, rate)),
        Effect::Reverb { room, damping, wet } => Box::new(Reverb::new(room, damping, wet, rate)),
        Effect::Custom(mut custom) => {
            custom.prepare(rate);
            custom
        }
    }
}
