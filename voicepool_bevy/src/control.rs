//! What a game does at run time: [`Voicepool`], the system parameter, and
//! [`VoicepoolEngine`], the resource behind it.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bevy_ecs::entity::Entity;
use bevy_ecs::query::Without;
use bevy_ecs::resource::Resource;
use bevy_ecs::system::{ParallelCommands, Query, Res, SystemParam};
use voicepool::{
    AudioEngine, BusHandle, BusMeter, BusSettings, Controller, EngineError, GroupHandle,
    GroupSettings, OutputState, PlayError, Stats, VoiceHandle, VoiceInfo,
};

use crate::label::AsLabel;
use crate::output::Backend;
use crate::player::{PlayingVoice, SoundPlayer};

/// Why a call on [`Voicepool`] did nothing.
///
/// ```
/// # use voicepool_bevy::ControlError;
/// let e = ControlError::UnknownBus("music".into());
/// assert_eq!(e.to_string(), "no bus is labelled `music`");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ControlError {
    /// No bus has this label.
    UnknownBus(String),
    /// No group has this label.
    UnknownGroup(String),
    /// A bus or group of this label already exists.
    LabelTaken(String),
    /// voicepool refused the call (a full command queue, a bad parameter).
    Play(PlayError),
}

impl std::fmt::Display for ControlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ControlError::UnknownBus(label) => write!(f, "no bus is labelled `{label}`"),
            ControlError::UnknownGroup(label) => write!(f, "no group is labelled `{label}`"),
            ControlError::LabelTaken(label) => write!(f, "the label `{label}` is taken"),
            ControlError::Play(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ControlError {}

impl From<PlayError> for ControlError {
    fn from(e: PlayError) -> ControlError {
        ControlError::Play(e)
    }
}

/// Buses and groups by label.
#[derive(Default)]
pub(crate) struct Labels {
    pub(crate) buses: HashMap<String, BusHandle>,
    pub(crate) groups: HashMap<String, GroupHandle>,
}

/// The entity a play belongs to, and whether it still does: a play whose
/// entity was despawned (or whose [`crate::SoundPlayer`] was removed or
/// replaced) is detached, and its end changes nothing on the entity.
#[derive(Clone, Copy)]
pub(crate) struct Owner {
    pub(crate) entity: Entity,
    pub(crate) attached: bool,
    pub(crate) on_end: crate::OnEnd,
}

/// voicepool's engine as a Bevy resource, made by
/// [`crate::VoicepoolPlugin`]. Systems normally use the [`Voicepool`]
/// system parameter instead; this resource gives the engine's
/// [`Controller`] for everything else (it is `Deref<Target = Controller>`).
///
/// ```
/// # use bevy_ecs::system::Res;
/// # use voicepool_bevy::VoicepoolEngine;
/// fn report(engine: Res<VoicepoolEngine>) {
///     let stats = engine.stats(); // any Controller method
///     println!("{} voices sounding, {} stolen", stats.active_voices, stats.steals);
/// }
/// ```
#[derive(Resource)]
pub struct VoicepoolEngine {
    pub(crate) backend: Backend,
    labels: Mutex<Labels>,
    pub(crate) owners: HashMap<VoiceHandle, Owner>,
}

impl VoicepoolEngine {
    pub(crate) fn new(backend: Backend) -> VoicepoolEngine {
        VoicepoolEngine {
            backend,
            labels: Mutex::new(Labels::default()),
            owners: HashMap::new(),
        }
    }

    pub(crate) fn labels(&self) -> MutexGuard<'_, Labels> {
        self.labels.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the live output is making sound: voicepool's
    /// `AudioEngine::output_state`. In a browser the page's audio is
    /// `Suspended` until the player's first click, key press or touch on the
    /// page, which starts it by itself: a game may show "click to start"
    /// meanwhile. `None` where the plugin renders offline (an offline
    /// output, or the silent fallback when there is no sound device).
    ///
    /// ```
    /// # use bevy_ecs::system::Res;
    /// # use voicepool_bevy::VoicepoolEngine;
    /// use voicepool_bevy::voicepool::OutputState;
    /// fn waiting_for_a_click(engine: Res<VoicepoolEngine>) -> bool {
    ///     engine.output_state() == Some(OutputState::Suspended)
    /// }
    /// ```
    pub fn output_state(&self) -> Option<OutputState> {
        self.backend.live().map(AudioEngine::output_state)
    }

    /// Asks the live output to play: voicepool's
    /// `AudioEngine::resume_output` (in a browser, after a gesture; the
    /// engine already resumes by itself on each). Does nothing offline.
    ///
    /// ```
    /// # use bevy_ecs::system::Res;
    /// # use voicepool_bevy::VoicepoolEngine;
    /// fn on_unpause(engine: Res<VoicepoolEngine>) {
    ///     if let Err(e) = engine.resume_output() {
    ///         eprintln!("no sound: {e}");
    ///     }
    /// }
    /// ```
    pub fn resume_output(&self) -> Result<(), EngineError> {
        self.backend
            .live()
            .map_or(Ok(()), AudioEngine::resume_output)
    }

    /// The engine's output rate in Hz.
    ///
    /// ```
    /// # use bevy_ecs::system::Res;
    /// # use voicepool_bevy::VoicepoolEngine;
    /// fn one_second_from_now(engine: Res<VoicepoolEngine>) -> u64 {
    ///     engine.clock() + u64::from(engine.sample_rate())
    /// }
    /// ```
    pub fn sample_rate(&self) -> u32 {
        self.backend.sample_rate()
    }

    /// The bus of this label.
    ///
    /// ```
    /// # use bevy_ecs::system::Res;
    /// # use voicepool_bevy::VoicepoolEngine;
    /// fn music_level(engine: Res<VoicepoolEngine>) -> Option<f32> {
    ///     engine.bus("music").and_then(|bus| engine.bus_meter(bus)).map(|m| m.peak)
    /// }
    /// ```
    pub fn bus(&self, label: impl AsLabel) -> Option<BusHandle> {
        self.labels().buses.get(label.as_label().as_ref()).copied()
    }

    /// The group of this label.
    ///
    /// ```
    /// # use bevy_ecs::system::Res;
    /// # use voicepool_bevy::VoicepoolEngine;
    /// fn has_footsteps(engine: Res<VoicepoolEngine>) -> bool {
    ///     engine.group("footsteps").is_some()
    /// }
    /// ```
    pub fn group(&self, label: impl AsLabel) -> Option<GroupHandle> {
        self.labels().groups.get(label.as_label().as_ref()).copied()
    }

    /// Makes a bus and labels it. A label already used is
    /// [`ControlError::LabelTaken`] (and no bus is made).
    ///
    /// ```
    /// # use bevy_ecs::system::Res;
    /// use voicepool_bevy::voicepool::{BusSettings, Effect};
    /// # use voicepool_bevy::{ControlError, VoicepoolEngine};
    /// fn make_reverb(engine: Res<VoicepoolEngine>) -> Result<(), ControlError> {
    ///     let effects = vec![Effect::Reverb { room: 0.8, damping: 0.3, wet: 1.0 }];
    ///     engine.create_labelled_bus("cave", BusSettings { effects, ..Default::default() })?;
    ///     Ok(())
    /// }
    /// ```
    pub fn create_labelled_bus(
        &self,
        label: impl AsLabel,
        settings: BusSettings,
    ) -> Result<BusHandle, ControlError> {
        let label = label.as_label();
        let label = label.as_ref();
        let mut labels = self.labels();
        if labels.buses.contains_key(label) {
            return Err(ControlError::LabelTaken(label.to_owned()));
        }
        let bus = self.backend.create_bus_with(settings)?;
        labels.buses.insert(label.to_owned(), bus);
        Ok(bus)
    }

    /// Makes a group (instance limit, retrigger interval) and labels it. A
    /// label already used is [`ControlError::LabelTaken`].
    ///
    /// ```
    /// # use bevy_ecs::system::Res;
    /// use voicepool_bevy::voicepool::GroupSettings;
    /// # use voicepool_bevy::{ControlError, VoicepoolEngine};
    /// fn limit_footsteps(engine: Res<VoicepoolEngine>) -> Result<(), ControlError> {
    ///     engine.create_labelled_group("footsteps", GroupSettings { max_voices: 4, ..Default::default() })?;
    ///     Ok(())
    /// }
    /// ```
    pub fn create_labelled_group(
        &self,
        label: impl AsLabel,
        settings: GroupSettings,
    ) -> Result<GroupHandle, ControlError> {
        let label = label.as_label();
        let label = label.as_ref();
        let mut labels = self.labels();
        if labels.groups.contains_key(label) {
            return Err(ControlError::LabelTaken(label.to_owned()));
        }
        let group = self.backend.create_group(settings)?;
        labels.groups.insert(label.to_owned(), group);
        Ok(group)
    }

    fn bus_or_error(&self, label: impl AsLabel) -> Result<BusHandle, ControlError> {
        let label = label.as_label();
        self.bus(label.as_ref())
            .ok_or_else(|| ControlError::UnknownBus(label.into_owned()))
    }
}

impl std::ops::Deref for VoicepoolEngine {
    type Target = Controller;
    fn deref(&self) -> &Controller {
        &self.backend
    }
}

/// The system parameter for audio at run time: voices by their entity,
/// buses and groups by label, the master volume, stats.
///
/// Every call returns at once (voicepool's game side never blocks). A call
/// on an entity that is not playing (not started yet, ended, or never a
/// sound) does nothing and returns `Ok`, as a stale handle does in
/// voicepool.
///
/// ```
/// use std::time::Duration;
/// use bevy_ecs::prelude::*;
/// use voicepool_bevy::Voicepool;
///
/// #[derive(Component)]
/// struct Engine;
///
/// #[derive(Message)]
/// struct MenuToggled {
///     open: bool,
/// }
///
/// fn pause_menu(
///     audio: Voicepool,
///     engines: Query<Entity, With<Engine>>,
///     mut menu: MessageReader<MenuToggled>,
/// ) {
///     for toggled in menu.read() {
///         if toggled.open {
///             audio.pause_bus("world").ok(); // the menu's own sounds play on
///             for engine in &engines {
///                 audio.fade_volume(engine, 0.2, Duration::from_millis(300)).ok();
///             }
///         } else {
///             audio.resume_bus("world").ok();
///         }
///     }
/// }
/// ```
#[derive(SystemParam)]
pub struct Voicepool<'w, 's> {
    engine: Res<'w, VoicepoolEngine>,
    voices: Query<'w, 's, &'static PlayingVoice>,
    /// Players waiting for their sound (loading): a stop cancels them.
    waiting: Query<
        'w,
        's,
        &'static SoundPlayer,
        (Without<PlayingVoice>, Without<crate::player::Played>),
    >,
    commands: ParallelCommands<'w, 's>,
}

impl Voicepool<'_, '_> {
    /// The voice an entity plays, while it plays.
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn sounding(audio: Voicepool, entity: Entity) -> bool {
    ///     audio.voice(entity).is_some()
    /// }
    /// ```
    pub fn voice(&self, entity: Entity) -> Option<VoiceHandle> {
        self.voices.get(entity).ok().map(|v| v.0)
    }

    fn with_voice(
        &self,
        entity: Entity,
        call: impl FnOnce(&Controller, VoiceHandle) -> Result<(), PlayError>,
    ) -> Result<(), ControlError> {
        match self.voice(entity) {
            Some(voice) => Ok(call(&self.engine, voice)?),
            None => Ok(()),
        }
    }

    /// A stop for an entity whose sound is still loading: its play is
    /// cancelled ([`crate::SoundEvent::Rejected`] with
    /// [`crate::RejectReason::Stopped`], then its [`crate::OnEnd`]), so
    /// that it never starts later. Whether there was one.
    fn cancel_waiting(&self, entity: Entity) -> bool {
        let Ok(player) = self.waiting.get(entity) else {
            return false;
        };
        let on_end = player.on_end;
        self.commands.command_scope(|mut commands| {
            crate::player::cancel(&mut commands, entity, on_end);
        });
        true
    }

    /// Stops the entity's voice with the engine's stop fade; the entity
    /// then ends as its [`crate::OnEnd`] says. An entity whose sound is
    /// still loading never plays it: its play is cancelled
    /// ([`crate::RejectReason::Stopped`]).
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn silence(audio: Voicepool, entity: Entity) { audio.stop(entity).ok(); }
    /// ```
    pub fn stop(&self, entity: Entity) -> Result<(), ControlError> {
        if self.cancel_waiting(entity) {
            return Ok(());
        }
        self.with_voice(entity, |c, v| c.stop(v))
    }

    /// Stops the entity's voice with a fade of this length.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn fade_out(audio: Voicepool, entity: Entity) {
    ///     audio.stop_with_fade(entity, Duration::from_secs(2)).ok();
    /// }
    /// ```
    pub fn stop_with_fade(&self, entity: Entity, fade: Duration) -> Result<(), ControlError> {
        if self.cancel_waiting(entity) {
            return Ok(());
        }
        self.with_voice(entity, |c, v| c.stop_with_fade(v, fade))
    }

    /// Pauses the entity's voice (it keeps its slot and its place).
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn hold(audio: Voicepool, entity: Entity) { audio.pause(entity).ok(); }
    /// ```
    pub fn pause(&self, entity: Entity) -> Result<(), ControlError> {
        self.with_voice(entity, |c, v| c.pause(v))
    }

    /// Resumes the entity's paused voice.
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn go_on(audio: Voicepool, entity: Entity) { audio.resume(entity).ok(); }
    /// ```
    pub fn resume(&self, entity: Entity) -> Result<(), ControlError> {
        self.with_voice(entity, |c, v| c.resume(v))
    }

    /// Sets the entity's voice volume (ramped over a block; clamped to
    /// `0.0..=4.0`, NaN refused).
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn quieter(audio: Voicepool, entity: Entity) { audio.set_volume(entity, 0.5).ok(); }
    /// ```
    pub fn set_volume(&self, entity: Entity, volume: f32) -> Result<(), ControlError> {
        self.with_voice(entity, |c, v| c.set_volume(v, volume))
    }

    /// Fades the entity's voice volume to `volume` over `fade`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn swell(audio: Voicepool, entity: Entity) {
    ///     audio.fade_volume(entity, 1.0, Duration::from_secs(3)).ok();
    /// }
    /// ```
    pub fn fade_volume(
        &self,
        entity: Entity,
        volume: f32,
        fade: Duration,
    ) -> Result<(), ControlError> {
        self.with_voice(entity, |c, v| c.fade_volume(v, volume, fade))
    }

    /// Sets the entity's voice pitch (a rate factor; clamped, NaN refused).
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn rev(audio: Voicepool, entity: Entity, rpm: f32) {
    ///     audio.set_pitch(entity, 0.5 + rpm / 6_000.0).ok();
    /// }
    /// ```
    pub fn set_pitch(&self, entity: Entity, pitch: f32) -> Result<(), ControlError> {
        self.with_voice(entity, |c, v| c.set_pitch(v, pitch))
    }

    /// Sets the entity's voice pan (-1 left to 1 right; ignored for an
    /// emitter, whose pan comes from where it is).
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn left(audio: Voicepool, entity: Entity) { audio.set_pan(entity, -1.0).ok(); }
    /// ```
    pub fn set_pan(&self, entity: Entity, pan: f32) -> Result<(), ControlError> {
        self.with_voice(entity, |c, v| c.set_pan(v, pan))
    }

    /// What the entity's voice plays (its sound's name, group and bus),
    /// while it plays.
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use voicepool_bevy::Voicepool;
    /// fn on_music_bus(audio: Voicepool, entity: Entity) -> bool {
    ///     audio.voice_info(entity).is_some_and(|info| Some(info.bus) == audio.bus("music"))
    /// }
    /// ```
    pub fn voice_info(&self, entity: Entity) -> Option<VoiceInfo> {
        self.voice(entity).and_then(|v| self.engine.voice_info(v))
    }

    /// The bus of this label.
    ///
    /// ```
    /// # use voicepool_bevy::Voicepool;
    /// fn has_music(audio: Voicepool) -> bool { audio.bus("music").is_some() }
    /// ```
    pub fn bus(&self, label: impl AsLabel) -> Option<BusHandle> {
        self.engine.bus(label)
    }

    /// The group of this label.
    ///
    /// ```
    /// # use voicepool_bevy::Voicepool;
    /// fn has_steps(audio: Voicepool) -> bool { audio.group("footsteps").is_some() }
    /// ```
    pub fn group(&self, label: impl AsLabel) -> Option<GroupHandle> {
        self.engine.group(label)
    }

    /// Makes a labelled bus: see [`VoicepoolEngine::create_labelled_bus`].
    ///
    /// ```
    /// use voicepool_bevy::voicepool::BusSettings;
    /// # use voicepool_bevy::Voicepool;
    /// fn setup(audio: Voicepool) {
    ///     let world = audio.create_labelled_bus("world", BusSettings::default()).unwrap();
    ///     audio.create_labelled_bus("vehicles", BusSettings { output: Some(world), ..Default::default() }).unwrap();
    /// }
    /// ```
    pub fn create_labelled_bus(
        &self,
        label: impl AsLabel,
        settings: BusSettings,
    ) -> Result<BusHandle, ControlError> {
        self.engine.create_labelled_bus(label, settings)
    }

    /// Makes a labelled bus (the old name of
    /// [`Voicepool::create_labelled_bus`]).
    #[deprecated(
        note = "use create_labelled_bus: voicepool's Controller::create_bus takes no label"
    )]
    pub fn create_bus(
        &self,
        label: &str,
        settings: BusSettings,
    ) -> Result<BusHandle, ControlError> {
        self.engine.create_labelled_bus(label, settings)
    }

    /// Makes a labelled group: see [`VoicepoolEngine::create_labelled_group`].
    ///
    /// ```
    /// use voicepool_bevy::voicepool::GroupSettings;
    /// # use voicepool_bevy::Voicepool;
    /// fn setup(audio: Voicepool) {
    ///     audio.create_labelled_group("spells", GroupSettings { max_voices: 8, ..Default::default() }).unwrap();
    /// }
    /// ```
    pub fn create_labelled_group(
        &self,
        label: impl AsLabel,
        settings: GroupSettings,
    ) -> Result<GroupHandle, ControlError> {
        self.engine.create_labelled_group(label, settings)
    }

    /// Makes a labelled group (the old name of
    /// [`Voicepool::create_labelled_group`]).
    #[deprecated(
        note = "use create_labelled_group: voicepool's Controller::create_group takes no label"
    )]
    pub fn create_group(
        &self,
        label: &str,
        settings: GroupSettings,
    ) -> Result<GroupHandle, ControlError> {
        self.engine.create_labelled_group(label, settings)
    }

    /// Pauses a bus by label: its voices (and buses feeding it) fall silent
    /// and keep their place.
    ///
    /// ```
    /// # use voicepool_bevy::Voicepool;
    /// fn open_menu(audio: Voicepool) { audio.pause_bus("world").ok(); }
    /// ```
    pub fn pause_bus(&self, label: impl AsLabel) -> Result<(), ControlError> {
        Ok(self.engine.pause_bus(self.engine.bus_or_error(label)?)?)
    }

    /// Resumes a paused bus by label.
    ///
    /// ```
    /// # use voicepool_bevy::Voicepool;
    /// fn close_menu(audio: Voicepool) { audio.resume_bus("world").ok(); }
    /// ```
    pub fn resume_bus(&self, label: impl AsLabel) -> Result<(), ControlError> {
        Ok(self.engine.resume_bus(self.engine.bus_or_error(label)?)?)
    }

    /// Fades a bus's volume by label.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use voicepool_bevy::Voicepool;
    /// fn music_down(audio: Voicepool) {
    ///     audio.set_bus_volume("music", 0.3, Duration::from_millis(500)).ok();
    /// }
    /// ```
    pub fn set_bus_volume(
        &self,
        label: impl AsLabel,
        volume: f32,
        fade: Duration,
    ) -> Result<(), ControlError> {
        Ok(self
            .engine
            .set_bus_volume(self.engine.bus_or_error(label)?, volume, fade)?)
    }

    /// Fades the master volume.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use voicepool_bevy::Voicepool;
    /// fn mute(audio: Voicepool) { audio.set_master_volume(0.0, Duration::from_millis(100)).ok(); }
    /// ```
    pub fn set_master_volume(&self, volume: f32, fade: Duration) -> Result<(), ControlError> {
        Ok(self.engine.set_master_volume(volume, fade)?)
    }

    /// A bus's level now, by label (metered buses only: see voicepool's
    /// `BusSettings`).
    ///
    /// ```
    /// # use voicepool_bevy::Voicepool;
    /// fn speech_peak(audio: Voicepool) -> f32 {
    ///     audio.bus_meter("speech").map_or(0.0, |m| m.peak)
    /// }
    /// ```
    pub fn bus_meter(&self, label: impl AsLabel) -> Option<BusMeter> {
        self.engine.bus_meter(self.bus(label)?)
    }

    /// The engine's counters (voices sounding, stolen, virtual, dropped
    /// commands, ...).
    ///
    /// ```
    /// # use voicepool_bevy::Voicepool;
    /// fn steals(audio: Voicepool) -> u64 { audio.stats().steals }
    /// ```
    pub fn stats(&self) -> Stats {
        self.engine.stats()
    }

    /// The whole of voicepool's game side, for what this parameter does not
    /// wrap (seek, effect parameters, the listener by hand, ...).
    ///
    /// ```
    /// # use voicepool_bevy::Voicepool;
    /// fn now(audio: Voicepool) -> u64 { audio.controller().clock() }
    /// ```
    pub fn controller(&self) -> &voicepool::Controller {
        &self.engine
    }
}
