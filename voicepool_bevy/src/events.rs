//! What happens to sounds, as Bevy messages: [`SoundEvent`] names the
//! entity, [`VoicepoolEvent`] carries every voicepool event as it came.

use bevy_ecs::prelude::*;
use voicepool::{Event, PlayError};

use crate::control::VoicepoolEngine;
use crate::player::end_entity;

/// What happened to a [`crate::SoundPlayer`]'s voice, naming its entity.
/// Read with a `MessageReader<SoundEvent>`; written after the plugin's
/// systems in `PostUpdate`.
///
/// Every play ends in exactly one of `Ended`, `Stolen` or `Rejected`
/// (then [`crate::OnEnd`] applies), unless its [`crate::SoundPlayer`] is
/// removed, replaced or despawned first: then its voice is stopped and
/// reports nothing more (a replacing player's events are its own).
///
/// ```
/// use bevy_ecs::prelude::*;
/// use voicepool_bevy::SoundEvent;
///
/// fn log_steals(mut events: MessageReader<SoundEvent>) {
///     for event in events.read() {
///         if let SoundEvent::Stolen { entity, by } = event {
///             println!("{entity} lost its voice to {by:?}");
///         }
///     }
/// }
/// ```
#[derive(Message, Clone, Debug, PartialEq)]
pub enum SoundEvent {
    /// The voice got a slot and is sounding.
    Started {
        /// The entity playing.
        entity: Entity,
    },
    /// The voice was stolen to make room for another play. Terminal.
    Stolen {
        /// The entity whose voice was taken.
        entity: Entity,
        /// The entity whose sound took it (`None`: a play made through
        /// voicepool's controller directly, not by an entity).
        by: Option<Entity>,
    },
    /// The voice finished: played out, or stopped. Terminal.
    Ended {
        /// The entity that played.
        entity: Entity,
    },
    /// The voice lost its slot but keeps time silently (it asked to
    /// virtualize); it may come back with `Resumed`.
    Virtualized {
        /// The entity playing.
        entity: Entity,
    },
    /// A virtual voice is sounding again, from where it would have been.
    Resumed {
        /// The entity playing.
        entity: Entity,
    },
    /// The sound never played. Terminal.
    Rejected {
        /// The entity that asked.
        entity: Entity,
        /// Why.
        reason: RejectReason,
    },
}

impl SoundEvent {
    /// The entity the event is about.
    ///
    /// ```
    /// # use bevy_ecs::entity::Entity;
    /// # use voicepool_bevy::SoundEvent;
    /// let e = Entity::PLACEHOLDER;
    /// assert_eq!(SoundEvent::Ended { entity: e }.entity(), e);
    /// ```
    pub fn entity(&self) -> Entity {
        match self {
            SoundEvent::Started { entity }
            | SoundEvent::Stolen { entity, .. }
            | SoundEvent::Ended { entity }
            | SoundEvent::Virtualized { entity }
            | SoundEvent::Resumed { entity }
            | SoundEvent::Rejected { entity, .. } => *entity,
        }
    }
}

/// Why a [`SoundEvent::Rejected`] sound never played.
///
/// ```
/// # use voicepool_bevy::RejectReason;
/// assert_eq!(RejectReason::UnknownBus("music".into()).to_string(), "no bus is labelled `music`");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RejectReason {
    /// voicepool refused it a voice: the pool was full and nothing could
    /// be stolen (every voice of higher priority or protected, or the
    /// policy `Reject`), or its group refused it (full under `Reject`, or
    /// too soon after the group's last start).
    Refused,
    /// Its sound asset failed to load, or is neither loaded nor loading
    /// (a default handle, an asset removed).
    AssetFailed {
        /// The asset's path (empty for an asset with none: one added by
        /// hand).
        path: String,
        /// Why, as the asset server says (empty where it says nothing).
        error: String,
    },
    /// It was stopped ([`crate::Voicepool::stop`]) before its sound
    /// loaded: it never plays.
    Stopped,
    /// No bus has the label it asked for.
    UnknownBus(String),
    /// No group has the label it asked for.
    UnknownGroup(String),
    /// Its sound bank has no cue of the name it asked for.
    UnknownCue(String),
    /// voicepool refused the play (a bad parameter, the engine stopped).
    Play(PlayError),
}

impl std::fmt::Display for RejectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RejectReason::Refused => {
                f.write_str("no voice: the pool or its group refused it (full, or too soon)")
            }
            RejectReason::AssetFailed { path, error } => {
                write!(f, "its sound asset `{path}` did not load")?;
                if error.is_empty() {
                    f.write_str(" (nor is it loading)")
                } else {
                    write!(f, ": {error}")
                }
            }
            RejectReason::Stopped => f.write_str("stopped before its sound loaded"),
            RejectReason::UnknownBus(label) => write!(f, "no bus is labelled `{label}`"),
            RejectReason::UnknownGroup(label) => write!(f, "no group is labelled `{label}`"),
            RejectReason::UnknownCue(name) => write!(f, "its sound bank has no cue `{name}`"),
            RejectReason::Play(e) => write!(f, "{e}"),
        }
    }
}

/// Every event voicepool reported, as it came (voice handles, not
/// entities), including the output's: a lost device, a recovery, a
/// stream's underrun.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use voicepool_bevy::voicepool::Event;
/// use voicepool_bevy::VoicepoolEvent;
///
/// fn device_watch(mut events: MessageReader<VoicepoolEvent>) {
///     for VoicepoolEvent(event) in events.read() {
///         if let Event::OutputRecovered { device, .. } = event {
///             println!("sound back on {device}");
///         }
///     }
/// }
/// ```
#[derive(Message, Clone, Debug, PartialEq)]
pub struct VoicepoolEvent(pub Event);

/// Turns the engine's events into messages, and ends entities whose
/// voices ended.
pub(crate) fn dispatch_events(
    mut commands: Commands,
    mut engine: ResMut<VoicepoolEngine>,
    mut sound_events: MessageWriter<SoundEvent>,
    mut raw_events: MessageWriter<VoicepoolEvent>,
) {
    let events = engine.backend.drain_events();
    for event in events {
        // Plays whose player was removed, replaced or despawned (detached)
        // report nothing more: their entity has moved on.
        let attached = |engine: &VoicepoolEngine, voice| {
            engine
                .owners
                .get(&voice)
                .filter(|o| o.attached)
                .map(|o| o.entity)
        };
        match event {
            Event::Started { voice } => {
                if let Some(entity) = attached(&engine, voice) {
                    announce(
                        &mut commands,
                        &mut sound_events,
                        SoundEvent::Started { entity },
                    );
                }
            }
            Event::Virtualized { voice } => {
                if let Some(entity) = attached(&engine, voice) {
                    announce(
                        &mut commands,
                        &mut sound_events,
                        SoundEvent::Virtualized { entity },
                    );
                }
            }
            Event::Resumed { voice } => {
                if let Some(entity) = attached(&engine, voice) {
                    announce(
                        &mut commands,
                        &mut sound_events,
                        SoundEvent::Resumed { entity },
                    );
                }
            }
            Event::Stolen { victim, by } => {
                let thief = engine.owners.get(&by).map(|o| o.entity);
                if let Some(owner) = engine.owners.remove(&victim).filter(|o| o.attached) {
                    let stolen = SoundEvent::Stolen {
                        entity: owner.entity,
                        by: thief,
                    };
                    announce(&mut commands, &mut sound_events, stolen);
                    end_entity(&mut commands, owner.entity, owner.on_end);
                }
            }
            Event::Ended { voice } | Event::Rejected { voice } => {
                if let Some(owner) = engine.owners.remove(&voice).filter(|o| o.attached) {
                    let over = match event {
                        Event::Ended { .. } => SoundEvent::Ended {
                            entity: owner.entity,
                        },
                        _ => SoundEvent::Rejected {
                            entity: owner.entity,
                            reason: RejectReason::Refused,
                        },
                    };
                    announce(&mut commands, &mut sound_events, over);
                    end_entity(&mut commands, owner.entity, owner.on_end);
                }
            }
            _ => {}
        }
        raw_events.write(VoicepoolEvent(event));
    }
}

/// What happened to an entity's sound, as events its observers see
/// (`On<SoundEnded>`, ...), beside the [`SoundEvent`] messages: each is
/// triggered on the entity while it still exists (before an
/// [`crate::OnEnd::Despawn`] takes it), right after the message is
/// written.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use voicepool_bevy::prelude::*;
///
/// fn spawn_door(mut commands: Commands, door: Handle<SoundAsset>) {
///     commands
///         .spawn(SoundPlayer::new(door).on_end(OnEnd::Keep))
///         .observe(|ended: On<SoundEnded>, mut commands: Commands| {
///             commands.entity(ended.entity).insert(Opened);
///         });
/// }
/// # #[derive(Component)] struct Opened;
/// # use bevy_asset::Handle;
/// ```
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoundEnded {
    /// The entity that played.
    pub entity: Entity,
}

/// The entity's voice got a slot and is sounding (see [`SoundEnded`]).
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoundStarted {
    /// The entity playing.
    pub entity: Entity,
}

/// The entity's voice was stolen (see [`SoundEnded`]). Terminal.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoundStolen {
    /// The entity whose voice was taken.
    pub entity: Entity,
    /// The entity whose sound took it, if an entity's.
    pub by: Option<Entity>,
}

/// The entity's voice went virtual (see [`SoundEnded`]).
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoundVirtualized {
    /// The entity playing.
    pub entity: Entity,
}

/// The entity's virtual voice sounds again (see [`SoundEnded`]).
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoundResumed {
    /// The entity playing.
    pub entity: Entity,
}

/// The entity's sound never played (see [`SoundEnded`]). Terminal.
#[derive(EntityEvent, Clone, Debug, PartialEq)]
pub struct SoundRejected {
    /// The entity that asked.
    pub entity: Entity,
    /// Why.
    pub reason: RejectReason,
}

/// Writes `event` as a message and triggers it on its entity for the
/// entity's observers.
pub(crate) fn announce(
    commands: &mut Commands,
    messages: &mut MessageWriter<SoundEvent>,
    event: SoundEvent,
) {
    messages.write(event.clone());
    commands.queue(move |world: &mut World| trigger(world, event));
}

/// Triggers `event` on its entity, if the entity still exists.
pub(crate) fn trigger(world: &mut World, event: SoundEvent) {
    if world.get_entity(event.entity()).is_err() {
        return;
    }
    match event {
        SoundEvent::Started { entity } => world.trigger(SoundStarted { entity }),
        SoundEvent::Stolen { entity, by } => world.trigger(SoundStolen { entity, by }),
        SoundEvent::Ended { entity } => world.trigger(SoundEnded { entity }),
        SoundEvent::Virtualized { entity } => world.trigger(SoundVirtualized { entity }),
        SoundEvent::Resumed { entity } => world.trigger(SoundResumed { entity }),
        SoundEvent::Rejected { entity, reason } => world.trigger(SoundRejected { entity, reason }),
    }
}
