//! Entities that play: [`SoundPlayer`] starts a voice when it is added,
//! [`PlayingVoice`] names the voice while it sounds, and [`OnEnd`] says what
//! becomes of the entity after.

use std::borrow::Cow;

use bevy_asset::{AssetServer, Assets, Handle, LoadState};
use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::world::DeferredWorld;
use bevy_reflect::prelude::*;

use crate::label::AsLabel;
use bevy_transform::components::GlobalTransform;
use voicepool::{PlayError, PlayParams, VoiceHandle};

use crate::asset::SoundAsset;
use crate::bank::{BankAsset, SoundBanks};
use crate::control::{Owner, VoicepoolEngine};
use crate::events::{RejectReason, SoundEvent};

/// Plays a sound: add it to an entity (spawn it) and the sound starts in
/// the plugin's systems (`PostUpdate`) of the same update, once its asset
/// has loaded. Changing a `SoundPlayer` in place does nothing to a sound
/// already playing; inserting a new one replaces it (the old voice stops,
/// the new one plays).
///
/// - The play's parameters are voicepool's [`PlayParams`] (volume, pitch,
///   looping, priority, protected, fade-in, virtualize, scheduled start,
///   spatial settings); buses and groups can be named by their labels.
/// - An entity with a `GlobalTransform` is an **emitter**: its voice is
///   placed where the entity is, and follows it (with a velocity for
///   doppler from how far it moved), heard from the [`crate::SoundListener`].
///   [`SoundPlayer::non_spatial`] plays it unplaced anyway.
/// - Removing the component, or despawning the entity, stops the voice with
///   the engine's stop fade.
/// - When the voice ends (played out, stopped, stolen, or refused), the
///   entity is despawned, or the component removed, or both kept, as
///   [`SoundPlayer::on_end`] says (despawned by default).
/// - What happens to it arrives as [`SoundEvent`] messages naming the entity.
///
/// ```
/// use bevy_asset::AssetServer;
/// use bevy_ecs::prelude::*;
/// use bevy_transform::components::Transform;
/// use voicepool_bevy::voicepool::PlayParams;
/// use voicepool_bevy::{OnEnd, SoundPlayer};
///
/// fn cast(mut commands: Commands, assets: Res<AssetServer>) {
///     // a one-shot at the wand's tip, on the "spells" bus: despawned when it ends
///     commands.spawn((
///         SoundPlayer::new(assets.load("swish.wav"))
///             .params(PlayParams::default().volume(0.8).priority(160))
///             .bus("spells"),
///         Transform::from_xyz(1.0, 1.5, -2.0),
///     ));
///     // music: not placed, kept looping, the entity kept when stopped
///     commands.spawn(
///         SoundPlayer::new(assets.load("theme.ogg"))
///             .params(PlayParams::default().looping(true))
///             .on_end(OnEnd::Remove),
///     );
/// }
/// ```
#[derive(Component, Clone, Debug, Reflect)]
#[reflect(Component, Debug)]
#[component(on_insert = player_inserted, on_discard = player_discarded)]
pub struct SoundPlayer {
    /// The sound (unused when `cue` names one).
    pub sound: Handle<SoundAsset>,
    /// A cue of a sound bank to play instead, by name (see
    /// [`SoundPlayer::cue`]).
    #[reflect(ignore)]
    pub cue: Option<(Handle<BankAsset>, Cow<'static, str>)>,
    /// voicepool's play parameters. A bus, group or send given by label
    /// below replaces the one set here; an emitter's position replaces any
    /// set here.
    #[reflect(ignore)]
    pub params: PlayParams,
    /// The bus to play on, by label (see [`crate::Voicepool::create_labelled_bus`]).
    pub bus: Option<Cow<'static, str>>,
    /// The group to play in, by label.
    pub group: Option<Cow<'static, str>>,
    /// A bus to send to (a reverb), by label, and the send's level.
    pub send: Option<(Cow<'static, str>, f32)>,
    /// What becomes of the entity when the voice ends.
    pub on_end: OnEnd,
    /// Placed where the entity is, when it has a `GlobalTransform`
    /// (default true).
    pub spatial: bool,
}

/// What becomes of a [`SoundPlayer`]'s entity when its voice ends.
///
/// ```
/// use voicepool_bevy::OnEnd;
/// assert_eq!(OnEnd::default(), OnEnd::Despawn);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Debug, Default, PartialEq)]
pub enum OnEnd {
    /// Despawn the entity (and its children): for entities that exist only
    /// to make a sound.
    #[default]
    Despawn,
    /// Remove the [`SoundPlayer`]; the entity stays. For sounds on game
    /// objects (a door, an enemy) that outlive them. Adding a new
    /// `SoundPlayer` plays again.
    Remove,
    /// Keep everything; the voice is gone ([`PlayingVoice`] removed). A
    /// `SoundPlayer` inserted again (replacing this one) plays again.
    Keep,
}

impl SoundPlayer {
    /// Plays `sound` with default parameters, despawning the entity when
    /// it ends.
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::{OnEnd, SoundAsset, SoundPlayer};
    /// let player = SoundPlayer::new(Handle::<SoundAsset>::default());
    /// assert_eq!(player.on_end, OnEnd::Despawn);
    /// assert!(player.spatial);
    /// ```
    pub fn new(sound: Handle<SoundAsset>) -> SoundPlayer {
        SoundPlayer {
            sound,
            cue: None,
            params: PlayParams::default(),
            bus: None,
            group: None,
            send: None,
            on_end: OnEnd::Despawn,
            spatial: true,
        }
    }

    /// Plays the cue `name` of a sound bank (a `*.bank.toml` asset), once
    /// the bank has loaded and built ([`crate::SoundBanks`]), with default
    /// parameters. A cue play is one play whatever its layers (one
    /// [`PlayingVoice`], one end). A bank that failed to load or build, or
    /// that has no cue of this name, is a rejection
    /// ([`RejectReason::AssetFailed`], [`RejectReason::UnknownCue`]). A
    /// bank loaded again (hot reloading) plays its new version from the
    /// next play on.
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::SoundPlayer;
    /// let step = SoundPlayer::cue(Handle::default(), "footstep");
    /// assert_eq!(step.cue.as_ref().map(|(_, name)| name.as_ref()), Some("footstep"));
    /// ```
    pub fn cue(bank: Handle<BankAsset>, name: impl Into<Cow<'static, str>>) -> SoundPlayer {
        SoundPlayer {
            cue: Some((bank, name.into())),
            ..SoundPlayer::new(Handle::default())
        }
    }

    /// With these play parameters.
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::voicepool::PlayParams;
    /// # use voicepool_bevy::SoundPlayer;
    /// let loop_ = SoundPlayer::new(Handle::default()).params(PlayParams::default().looping(true).virtualize(true));
    /// assert!(loop_.params.get_virtualize());
    /// ```
    pub fn params(mut self, params: PlayParams) -> SoundPlayer {
        self.params = params;
        self
    }

    /// On the bus of this label.
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::SoundPlayer;
    /// let step = SoundPlayer::new(Handle::default()).bus("world");
    /// assert_eq!(step.bus.as_deref(), Some("world"));
    /// ```
    pub fn bus(mut self, label: impl AsLabel) -> SoundPlayer {
        self.bus = Some(Cow::Owned(label.as_label().into_owned()));
        self
    }

    /// In the group of this label.
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::SoundPlayer;
    /// let step = SoundPlayer::new(Handle::default()).group("footsteps");
    /// assert_eq!(step.group.as_deref(), Some("footsteps"));
    /// ```
    pub fn group(mut self, label: impl AsLabel) -> SoundPlayer {
        self.group = Some(Cow::Owned(label.as_label().into_owned()));
        self
    }

    /// Also sent to the bus of this label at `level` (0 to 1).
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::SoundPlayer;
    /// let shot = SoundPlayer::new(Handle::default()).send("cave", 0.3);
    /// assert_eq!(shot.send.as_ref().map(|(_, level)| *level), Some(0.3));
    /// ```
    pub fn send(mut self, label: impl AsLabel, level: f32) -> SoundPlayer {
        self.send = Some((Cow::Owned(label.as_label().into_owned()), level));
        self
    }

    /// What becomes of the entity when the voice ends.
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::{OnEnd, SoundPlayer};
    /// let growl = SoundPlayer::new(Handle::default()).on_end(OnEnd::Remove);
    /// assert_eq!(growl.on_end, OnEnd::Remove);
    /// ```
    pub fn on_end(mut self, on_end: OnEnd) -> SoundPlayer {
        self.on_end = on_end;
        self
    }

    /// Not placed, even on an entity with a `GlobalTransform` (a UI click
    /// on a button entity).
    ///
    /// ```
    /// # use bevy_asset::Handle;
    /// # use voicepool_bevy::SoundPlayer;
    /// assert!(!SoundPlayer::new(Handle::default()).non_spatial().spatial);
    /// ```
    pub fn non_spatial(mut self) -> SoundPlayer {
        self.spatial = false;
        self
    }
}

/// The voice a [`SoundPlayer`] entity plays, present while it plays
/// (sounding, paused or virtual). Added by the plugin; read it to use
/// voicepool's [`voicepool::Controller`] directly.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use voicepool_bevy::PlayingVoice;
/// fn count(voices: Query<&PlayingVoice>) -> usize {
///     voices.iter().count()
/// }
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
#[reflect(Debug, opaque)]
pub struct PlayingVoice(pub VoiceHandle);

/// Marks a [`SoundPlayer`] that has played (or failed), so that it is not
/// played again; a new `SoundPlayer` inserted clears it.
#[derive(Component)]
pub(crate) struct Played;

/// Where an emitter was last update, for its velocity.
#[derive(Component)]
pub(crate) struct Emitter {
    pub(crate) last: bevy_math::Vec3,
    /// Its velocity, smoothed (see `space::Motion`).
    pub(crate) velocity: bevy_math::Vec3,
    /// Its play has a cone: it is turned with its entity.
    pub(crate) turns: bool,
}

/// A new (or replacing) `SoundPlayer` plays from scratch.
fn player_inserted(mut world: DeferredWorld, context: HookContext) {
    world
        .commands()
        .entity(context.entity)
        .try_remove::<(Played, PlayingVoice, Emitter)>();
}

/// A `SoundPlayer` removed, replaced or despawned stops its voice, and the
/// voice's end no longer touches the entity.
fn player_discarded(mut world: DeferredWorld, context: HookContext) {
    let Some(&PlayingVoice(voice)) = world.get::<PlayingVoice>(context.entity) else {
        return;
    };
    let Some(mut engine) = world.get_resource_mut::<VoicepoolEngine>() else {
        return;
    };
    // No owner: the voice is already over (its end is being applied).
    let Some(owner) = engine.owners.get_mut(&voice).filter(|o| o.attached) else {
        return;
    };
    owner.attached = false;
    // Only a stopped engine refuses, and then nothing plays anyway.
    let _ = engine.stop(voice);
    world
        .commands()
        .entity(context.entity)
        .try_remove::<(PlayingVoice, Emitter, Played)>();
}

/// Starts every `SoundPlayer` whose sound is ready.
#[allow(clippy::type_complexity)]
pub(crate) fn start_players(
    mut commands: Commands,
    mut engine: ResMut<VoicepoolEngine>,
    sounds: Res<Assets<SoundAsset>>,
    banks: Res<SoundBanks>,
    asset_server: Option<Res<AssetServer>>,
    players: Query<
        (Entity, &SoundPlayer, Option<&GlobalTransform>),
        (Without<PlayingVoice>, Without<Played>),
    >,
    mut events: MessageWriter<SoundEvent>,
) {
    for (entity, player, transform) in &players {
        let what = match &player.cue {
            Some((bank, name)) => match banks.get(bank) {
                Some(built) => match built.cue(name) {
                    Some(cue) => What::Cue(cue),
                    None => {
                        let reason = RejectReason::UnknownCue(name.to_string());
                        reject(&mut commands, &mut events, entity, player.on_end, reason);
                        continue;
                    }
                },
                None => {
                    let state = asset_server
                        .as_ref()
                        .map_or(LoadState::NotLoaded, |server| server.load_state(bank));
                    let error = match (state, banks.error(bank)) {
                        (_, Some(e)) => e.to_string(),
                        (LoadState::Failed(e), _) => e.to_string(),
                        (LoadState::NotLoaded, _) => String::new(),
                        _ => continue, // still loading or building
                    };
                    let path = bank.path().map_or_else(String::new, ToString::to_string);
                    let reason = RejectReason::AssetFailed { path, error };
                    reject(&mut commands, &mut events, entity, player.on_end, reason);
                    continue;
                }
            },
            None => match sounds.get(&player.sound) {
                Some(sound) => What::Sound(sound.sound()),
                None => What::Missing,
            },
        };
        let What::Missing = what else {
            start(
                &mut commands,
                &mut engine,
                &mut events,
                (entity, player, transform),
                what,
            );
            continue;
        };
        // Failed, or neither loaded nor loading (a default handle, an
        // asset removed): it would wait for ever.
        let state = asset_server
            .as_ref()
            .map_or(LoadState::NotLoaded, |server| {
                server.load_state(&player.sound)
            });
        let error = match state {
            LoadState::Failed(e) => e.to_string(),
            LoadState::NotLoaded => String::new(),
            _ => continue, // still loading
        };
        let path = player
            .sound
            .path()
            .map_or_else(String::new, ToString::to_string);
        reject(
            &mut commands,
            &mut events,
            entity,
            player.on_end,
            RejectReason::AssetFailed { path, error },
        );
    }
}

/// What a player plays.
enum What<'a> {
    Sound(&'a voicepool::Sound),
    Cue(&'a voicepool::Cue),
    /// Its sound is not loaded.
    Missing,
}

/// Starts `player`'s play of `what`, or rejects it.
fn start(
    commands: &mut Commands,
    engine: &mut VoicepoolEngine,
    events: &mut MessageWriter<SoundEvent>,
    (entity, player, transform): (Entity, &SoundPlayer, Option<&GlobalTransform>),
    what: What<'_>,
) {
    let params = match resolve(engine, player, transform) {
        Ok(params) => params,
        Err(reason) => {
            reject(commands, events, entity, player.on_end, reason);
            return;
        }
    };
    let played = match what {
        What::Sound(sound) => engine.backend.play(sound, params),
        What::Cue(cue) => engine.backend.play_cue(cue, params),
        What::Missing => return,
    };
    match played {
        Ok(voice) => {
            engine.owners.insert(
                voice,
                Owner {
                    entity,
                    attached: true,
                    on_end: player.on_end,
                },
            );
            let turns = params.get_spatial().cone.is_some();
            let placed = (transform.is_some() && player.spatial)
                .then(|| params.get_position())
                .flatten()
                .map(|p| (bevy_math::Vec3::new(p.x, p.y, p.z), turns));
            commands.queue(move |world: &mut World| playing(world, entity, voice, placed));
        }
        // The audio side is behind: try again next update.
        Err(PlayError::QueueFull) => {}
        Err(e) => reject(
            commands,
            events,
            entity,
            player.on_end,
            RejectReason::Play(e),
        ),
    }
}

/// Marks `entity` as playing `voice` (an emitter if `placed`), once the
/// commands before it have run; an entity despawned meanwhile (in the same
/// update) gets its voice stopped instead, never left playing for nobody.
fn playing(
    world: &mut World,
    entity: Entity,
    voice: VoiceHandle,
    placed: Option<(bevy_math::Vec3, bool)>,
) {
    if let Ok(mut e) = world.get_entity_mut(entity) {
        e.insert((PlayingVoice(voice), Played));
        if let Some((last, turns)) = placed {
            e.insert(Emitter {
                last,
                velocity: bevy_math::Vec3::ZERO,
                turns,
            });
        }
        return;
    }
    if let Some(mut engine) = world.get_resource_mut::<VoicepoolEngine>() {
        if let Some(owner) = engine.owners.get_mut(&voice) {
            owner.attached = false;
        }
        let _ = engine.stop(voice);
    }
}

/// The play's parameters with labels and the entity's place filled in.
fn resolve(
    engine: &VoicepoolEngine,
    player: &SoundPlayer,
    transform: Option<&GlobalTransform>,
) -> Result<PlayParams, RejectReason> {
    let mut params = player.params;
    if let Some(label) = &player.bus {
        let bus = engine
            .bus(label)
            .ok_or_else(|| RejectReason::UnknownBus(label.to_string()))?;
        params = params.bus(bus);
    }
    if let Some(label) = &player.group {
        let group = engine
            .group(label)
            .ok_or_else(|| RejectReason::UnknownGroup(label.to_string()))?;
        params = params.group(group);
    }
    if let Some((label, level)) = &player.send {
        let bus = engine
            .bus(label)
            .ok_or_else(|| RejectReason::UnknownBus(label.to_string()))?;
        params = params.send(bus, *level);
    }
    if let (Some(transform), true) = (transform, player.spatial) {
        let at = transform.translation();
        params = params.position([at.x, at.y, at.z]).velocity([0.0; 3]);
        // Facing as the entity does (for a cone).
        if let Some(f) = crate::space::facing(transform) {
            params = params.orientation([f.x, f.y, f.z]);
        }
    }
    Ok(params)
}

fn reject(
    commands: &mut Commands,
    events: &mut MessageWriter<SoundEvent>,
    entity: Entity,
    on_end: OnEnd,
    reason: RejectReason,
) {
    log::warn!("voicepool: sound of entity {entity} not played: {reason}");
    crate::events::announce(commands, events, SoundEvent::Rejected { entity, reason });
    if let Ok(mut e) = commands.get_entity(entity) {
        e.try_insert(Played);
    }
    end_entity(commands, entity, on_end);
}

/// A play stopped before its sound loaded: it never starts; reported as
/// rejected (`Stopped`), and `on_end` applied.
pub(crate) fn cancel(commands: &mut Commands, entity: Entity, on_end: OnEnd) {
    if let Ok(mut e) = commands.get_entity(entity) {
        e.try_insert(Played);
    }
    commands.queue(move |world: &mut World| {
        let event = SoundEvent::Rejected {
            entity,
            reason: RejectReason::Stopped,
        };
        world.write_message(event.clone());
        crate::events::trigger(world, event);
    });
    end_entity(commands, entity, on_end);
}

/// Applies `on_end` to an entity whose voice is over.
pub(crate) fn end_entity(commands: &mut Commands, entity: Entity, on_end: OnEnd) {
    let Ok(mut entity) = commands.get_entity(entity) else {
        return;
    };
    match on_end {
        OnEnd::Despawn => entity.try_despawn(),
        OnEnd::Remove => {
            entity.try_remove::<(SoundPlayer, PlayingVoice, Emitter, Played)>();
        }
        OnEnd::Keep => {
            entity.try_remove::<(PlayingVoice, Emitter)>();
        }
    }
}
