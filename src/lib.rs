//! # voicepool
//!
//! A fixed pool of game-audio voices, mixed on the real-time audio thread
//! without allocating, locking or blocking. When the game asks for a new
//! sound while every voice is busy, the voice the player will miss least is
//! stolen: the one that is *actually* quietest right now (its gain times the
//! measured loudness of its sound at its current position), not the one with
//! the lowest set volume.
//!
//! ```
//! use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, StealPolicy};
//!
//! let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
//! let sound = Sound::from_samples(1, 48_000, tone)?;
//! let settings = EngineSettings { voices: 2, steal_policy: StealPolicy::Quietest, ..Default::default() };
//! let mut engine = OfflineEngine::new(settings)?;
//!
//! let loud = engine.play(&sound, PlayParams::default().volume(1.0))?;
//! let faint = engine.play(&sound, PlayParams::default().volume(0.1))?;
//! engine.render(4_800); // 100 ms
//! let new = engine.play(&sound, PlayParams::default())?; // pool full: steal
//! engine.render(480);
//!
//! let stolen: Vec<Event> = engine.drain_events().filter(|e| matches!(e, Event::Stolen { .. })).collect();
//! assert_eq!(stolen, [Event::Stolen { victim: faint, by: new }]);
//! assert!(engine.is_playing(loud) && !engine.is_playing(faint));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## How it fits together
//!
//! - [`Sound`] ([`sound`]): decoded samples plus a loudness envelope, shared.
//! - [`Engine`] / [`Controller`] ([`engine`]): the game side. Calls never block.
//! - [`Mixer`] ([`mixer`]): the audio side, with the real-time contract.
//! - [`OfflineEngine`] ([`output::offline`]): deterministic rendering.
//!
//! See `DESIGN.md` in the repository for the stealing rules in full.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod bench_support;
pub mod command;
pub mod engine;
mod kernel;
pub mod mixer;
pub mod output;
pub mod params;
mod pool;
pub mod settings;
pub mod sound;
pub mod stats;
mod voice;

pub use command::{Event, TimedEvent, VoiceHandle};
pub use engine::{Controller, Engine, EngineError, PlayError};
pub use mixer::Mixer;
pub use output::offline::{OfflineEngine, RenderError};
pub use params::PlayParams;
pub use settings::{EngineSettings, StealPolicy};
pub use sound::{Sound, SoundError};
pub use stats::{SlotView, Stats};
