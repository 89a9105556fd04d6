//! # voicepool
//!
//! A fixed pool of game-audio voices, mixed on the real-time audio thread
//! without allocating, locking or blocking. When the game asks for a new
//! sound while every voice is busy, the voice the player will miss least is
//! stolen: the one with the least perceived loudness (BS.1770 K-weighted)
//! over the next 100 ms to 1 s as it will actually play (its position,
//! pitch, loop and fades, times its volume), not the one with the lowest set
//! volume.
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
//! - [`Sound`]: decoded samples plus their loudness analysis,
//!   shared ([`Sound::from_file`]: WAV, OGG Vorbis, FLAC, MP3), or a file
//!   whose plays stream from disk ([`Sound::stream_file`]: music, long
//!   dialogue; [`EngineSettings::streams`], [`Controller::seek`],
//!   [`Event::StreamUnderrun`]).
//! - [`Engine`] / [`Controller`]: the game side. Calls never wait for the
//!   audio thread.
//!   Besides play / stop / set_*: groups with instance limits and retrigger
//!   intervals ([`Controller::create_group`], [`GroupSettings`]), buses with
//!   volume fades and pause ([`Controller::create_bus`],
//!   [`Controller::set_bus_volume`], [`Controller::pause_bus`]), the master
//!   volume at run time, one voice's pause, resume and fades, what a
//!   handle plays ([`Controller::voice_info`]), virtual voices that keep
//!   time without a slot and come back sample-exactly
//!   ([`PlayParams::virtualize`], [`Event::Virtualized`],
//!   [`Event::Resumed`], [`Controller::virtual_slots`]), and starts scheduled
//!   to the frame on the engine's clock ([`PlayParams::start_at`],
//!   [`Controller::clock`]).
//! - [`Mixer`]: the audio side, with the real-time contract.
//! - [`AudioEngine`]: live output on a cpal device.
//! - [`OfflineEngine`]: deterministic rendering.
//!
//! `docs/ARCHITECTURE.md` in the repository has the layers, the data flow,
//! the real-time rules and the stealing rules in full.
//!
//! ## Output level
//!
//! Every sample a device gets is finite and within `-1.0..=1.0`, whatever is
//! played. Sample data is clamped to ±[`limits::MAX_SAMPLE_MAGNITUDE`] (4.0)
//! at load and volumes to [`limits::MAX_VOLUME`] (4.0), so one voice adds at
//! most 16 to a sample and even 65 536 voices through the largest master gain
//! (16) sum to about 1.7e7: no `f32` overflow, no NaN. The sum is multiplied
//! by `EngineSettings::master_gain` (default 1.0) and passed through a soft
//! limiter: exactly transparent up to [`limits::LIMITER_THRESHOLD`] (0.9,
//! about -0.9 dBFS), above it a smooth, rising knee (monotonic to within one
//! unit in the last place of `f32` rounding) that approaches 1.0 and never
//! passes it. It is a per-sample curve (no look-ahead, no latency,
//! no pumping): a mix that only occasionally peaks above 0.9 is bent, not
//! clipped. Games that regularly sum many loud voices should lower
//! `master_gain` (or voice volumes) so the knee is the exception.
//!
//! ## Reliability
//!
//! Bad input never reaches the audio thread: play parameters are validated
//! and clamped at the call (see [`PlayParams`]), engine settings are checked when
//! the engine is made (see [`EngineSettings`]), and WAV files are checked while
//! loading (see [`Sound::from_wav_file`]). The game side never blocks: a full
//! command queue is [`PlayError::QueueFull`], counted in
//! [`Stats::dropped_commands`]. The audio side never drops an event, so every
//! accepted `play` ends in exactly one terminal event, also when the audio
//! side goes away (a dropped [`Mixer`]: every play still in flight then ends
//! with [`Event::Ended`]); only a game that does not read its events loses
//! the oldest ones beyond `EngineSettings::event_capacity`, counted in
//! [`Stats::lost_events`]. A handle is only ever valid on the engine that
//! issued it: on another engine it is stale (never playing, commands with it
//! do nothing).

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod alloc_check;
pub mod limits;
mod math;

#[cfg(feature = "bank")]
mod bank;
#[cfg(feature = "hooks")]
#[doc(hidden)]
pub mod bench_support;
mod bus;
mod control;
mod cue;
#[doc(hidden)]
pub mod error;
mod handle;
#[doc(hidden)]
pub mod mixer;
#[doc(hidden)]
pub mod output;
mod param;
mod prefault;
mod protocol;
mod render;
mod simd;
mod snapshot;
#[doc(hidden)]
pub mod sound;
#[doc(hidden)]
pub mod space;
mod stream;
mod voices;

#[cfg(feature = "rtsan-selftest")]
#[doc(hidden)]
pub mod rtsan_selftest;

mod compat;
#[doc(hidden)]
pub use compat::{command, effect, engine, params, settings, stats};

#[cfg(feature = "bank")]
pub use bank::{Bank, BankError, BankProblem, BankSource};
#[doc(hidden)]
pub use limits::DEVICE_NAME_BYTES;

/// The vector type positions and velocities are given in (`[f32; 3]`,
/// glam, nalgebra, cgmath and kira convert to it), re-exported so a game
/// need not depend on it to name it.
pub use mint;

pub use bus::{
    BusSettings, CustomEffect, CustomEffectHandle, Duck, Effect, EffectParam, FilterHandle,
    ReverbHandle,
};
pub use control::params::{PlayParams, Seconds};
pub use control::settings::{EngineSettings, GroupSettings};
pub use control::{Controller, Engine, VoiceInfo};
pub use cue::{Cue, Pick};
pub use error::{EngineError, PlayError, RenderError, SoundError};
pub use handle::{BusHandle, GroupHandle, VoiceHandle};
pub use mixer::Mixer;
pub use output::cpal::{AudioEngine, DeviceSampleFormat, OutputState, StreamInfo};
pub use output::offline::{OfflineEngine, Recording, WavFormat};
pub use param::{Curve, ParamHandle, Target};
pub use protocol::device_name::DeviceName;
pub use protocol::stats::{BusMeter, SlotView, Stats};
pub use protocol::{EffectFault, Event, StealPolicy, StreamErrorKind, TimedEvent};
pub use snapshot::{Snapshot, SnapshotHandle};
pub use sound::Sound;
pub use space::{Cone, DistanceModel, Listener, Occlusion, Spatial};

/// The README's code examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The guide's code, compiled and run as doc tests (`docs/guide/`).
#[cfg(doctest)]
pub mod guide {
    #[doc = include_str!("../docs/guide/introduction.md")]
    pub struct Introduction;
    #[doc = include_str!("../docs/guide/first-sound.md")]
    pub struct FirstSound;
    #[doc = include_str!("../docs/guide/handles-and-events.md")]
    pub struct HandlesAndEvents;
    #[doc = include_str!("../docs/guide/stealing.md")]
    pub struct Stealing;
    #[doc = include_str!("../docs/guide/groups-and-buses.md")]
    pub struct GroupsAndBuses;
    #[doc = include_str!("../docs/guide/virtual-voices.md")]
    pub struct VirtualVoices;
    #[doc = include_str!("../docs/guide/space.md")]
    pub struct Space;
    #[doc = include_str!("../docs/guide/cues.md")]
    pub struct Cues;
    #[cfg(feature = "bank")]
    #[doc = include_str!("../docs/guide/banks.md")]
    pub struct Banks;
    #[doc = include_str!("../docs/guide/streaming.md")]
    pub struct Streaming;
    #[doc = include_str!("../docs/guide/output.md")]
    pub struct Output;
    #[doc = include_str!("../docs/guide/web.md")]
    pub struct Web;
    #[doc = include_str!("../docs/guide/testing.md")]
    pub struct Testing;
    #[doc = include_str!("../docs/guide/sizing.md")]
    pub struct Sizing;
    #[doc = include_str!("../docs/guide/realtime.md")]
    pub struct Realtime;
}
