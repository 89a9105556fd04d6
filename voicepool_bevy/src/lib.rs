//! # voicepool_bevy
//!
//! [voicepool](https://docs.rs/voicepool) in Bevy: a fixed pool of voices
//! mixed without allocating on the audio thread, where a new sound in a
//! full pool steals the voice the player will miss least (by how loud each
//! voice will be over the next moments, where it is, and what its bus does
//! to it), not the oldest or the one with the lowest set volume.
//!
//! ```no_run
//! use std::time::Duration;
//! use bevy_app::{App, AppExit, ScheduleRunnerPlugin, Startup, TaskPoolPlugin, Update};
//! use bevy_asset::{AssetPlugin, AssetServer};
//! use bevy_ecs::prelude::*;
//! use bevy_time::TimePlugin;
//! use voicepool_bevy::prelude::*;
//!
//! fn main() -> AppExit {
//!     App::new()
//!         // A headless game loop at 60 updates a second (a windowed game
//!         // has all of these in `DefaultPlugins`).
//!         .add_plugins((
//!             TaskPoolPlugin::default(),
//!             TimePlugin,
//!             ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(1.0 / 60.0)),
//!         ))
//!         .add_plugins((AssetPlugin::default(), VoicepoolPlugin::default()))
//!         // `assets/swish.wav`, out loud on the default sound device (with
//!         // none, on a silent output that keeps time).
//!         .add_systems(Startup, |mut commands: Commands, assets: Res<AssetServer>| {
//!             commands.spawn(SoundPlayer::new(assets.load("swish.wav")));
//!         })
//!         // It ends when the sound does (`Ended`), or could not play
//!         // (`Rejected`: the file is missing, say; the log says why).
//!         .add_systems(Update, |mut sounds: MessageReader<SoundEvent>, mut exit: MessageWriter<AppExit>| {
//!             for event in sounds.read() {
//!                 if matches!(event, SoundEvent::Ended { .. } | SoundEvent::Rejected { .. }) {
//!                     exit.write(AppExit::Success);
//!                 }
//!             }
//!         })
//!         .run()
//! }
//! ```
//!
//! - [`VoicepoolPlugin`]: the engine's settings, live or offline output,
//!   labelled buses and groups.
//! - [`SoundAsset`]: WAV, OGG Vorbis, FLAC and MP3 files, decoded at load
//!   or streamed from disk ([`SoundLoaderSettings::stream`]).
//! - [`SoundPlayer`]: a component that plays; removing it or despawning
//!   the entity stops the voice; [`OnEnd`] says what happens after.
//! - [`SoundListener`]: the ears; every playing entity with a
//!   `GlobalTransform` is an emitter, moved each update, with doppler.
//! - [`SoundEvent`]: started, stolen (and by which entity), ended,
//!   virtualized, resumed, rejected.
//! - [`Voicepool`]: the system parameter for run-time control: voices by
//!   entity, buses and groups by label, master volume, stats.
//! - [`AudioOutput::Offline`]: renders a fixed number of frames per update
//!   into [`RenderedAudio`], the same every run: Bevy apps tested headless
//!   and deterministically.
//!
//! The plugin runs no code on the audio thread of its own: it drives
//! voicepool's game side, whose calls never block, from Bevy systems.
//! Names do not clash with `bevy_audio`'s, so both can be compiled in.

#![warn(missing_docs)]

pub mod asset;
pub mod bank;
mod control;
mod events;
mod label;
mod output;
mod player;
mod plugin;
mod space;

pub use asset::{SoundAsset, SoundLoadError, SoundLoadErrorKind, SoundLoader, SoundLoaderSettings};
pub use bank::{BankAsset, BankLoadError, BankLoader, SoundBanks};
pub use control::{ControlError, Voicepool, VoicepoolEngine};
pub use events::{
    RejectReason, SoundEnded, SoundEvent, SoundRejected, SoundResumed, SoundStarted, SoundStolen,
    SoundVirtualized, VoicepoolEvent,
};
pub use label::{AsLabel, SoundLabel};
pub use output::{AudioOutput, OfflineOutput, RenderedAudio};
pub use player::{OnEnd, PlayingVoice, SoundPlayer};
pub use plugin::{VoicepoolPlugin, VoicepoolSystems};
pub use space::{SoundListener, SoundOcclusion, SoundVelocity};

/// voicepool itself (play parameters, bus and group settings, effects,
/// spatial settings), so that a game need not depend on it separately.
pub use voicepool;

/// What a Bevy game using voicepool names most: `use voicepool_bevy::prelude::*;`.
///
/// ```
/// use voicepool_bevy::prelude::*;
/// let player = SoundPlayer::new(Default::default()).params(PlayParams::default().volume(0.5));
/// assert_eq!(player.params.get_priority(), 128);
/// ```
pub mod prelude {
    pub use crate::{
        AsLabel, AudioOutput, BankAsset, ControlError, OfflineOutput, OnEnd, PlayingVoice,
        RejectReason, RenderedAudio, SoundAsset, SoundBanks, SoundEnded, SoundEvent, SoundLabel,
        SoundListener, SoundLoaderSettings, SoundOcclusion, SoundPlayer, SoundRejected,
        SoundResumed, SoundStarted, SoundStolen, SoundVelocity, SoundVirtualized, Voicepool,
        VoicepoolEngine, VoicepoolEvent, VoicepoolPlugin, VoicepoolSystems,
    };
    pub use voicepool::{
        Bank, BusSettings, Cone, Cue, Curve, DistanceModel, Duck, Effect, EngineSettings,
        GroupSettings, Occlusion, Pick, PlayParams, Snapshot, Sound, Spatial, StealPolicy, Target,
    };
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
