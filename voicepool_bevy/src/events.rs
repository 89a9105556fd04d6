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
/// (then [`crate::OnEnd`] applies). The entity named may already be
/// despawned (a despawned entity's voice still ends).
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
    /// The pool was full and nothing could be stolen (every voice of
    /// higher priority, protected, or the policy refuses).
    PoolFull,
    /// Its sound asset failed to load (the asset server says why).
    AssetFailed,
    /// No bus has the label it asked for.
    UnknownBus(String),
    /// No group has the label it asked for.
    UnknownGroup(String),
    /// voicepool refused the play (a bad parameter, the engine stopped).
    Play(PlayError),
}

impl std::fmt::Display for RejectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RejectReason::PoolFull => f.write_str("the pool is full and no voice could be stolen"),
            RejectReason::AssetFailed => f.write_str("its sound asset failed to load"),
            RejectReason::UnknownBus(label) => write!(f, "no bus is labelled `{label}`"),
            RejectReason::UnknownGroup(label) => write!(f, "no group is labelled `{label}`"),
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
/// use voicepool::Event;
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
        let owner = |engine: &VoicepoolEngine, voice| engine.owners.get(&voice).copied();
        match event {
            Event::Started { voice } => {
                if let Some(owner) = owner(&engine, voice) {
                    sound_events.write(SoundEvent::Started {
                        entity: owner.entity,
                    });
                }
            }
            Event::Virtualized { voice } => {
                if let Some(owner) = owner(&engine, voice) {
                    sound_events.write(SoundEvent::Virtualized {
                        entity: owner.entity,
                    });
                }
            }
            Event::Resumed { voice } => {
                if let Some(owner) = owner(&engine, voice) {
                    sound_events.write(SoundEvent::Resumed {
                        entity: owner.entity,
                    });
                }
            }
            Event::Stolen { victim, by } => {
                let thief = owner(&engine, by).map(|o| o.entity);
                if let Some(owner) = engine.owners.remove(&victim) {
                    sound_events.write(SoundEvent::Stolen {
                        entity: owner.entity,
                        by: thief,
                    });
                    if owner.attached {
                        end_entity(&mut commands, owner.entity, owner.on_end);
                    }
                }
            }
            Event::Ended { voice } | Event::Rejected { voice } => {
                if let Some(owner) = engine.owners.remove(&voice) {
                    sound_events.write(match event {
                        Event::Ended { .. } => SoundEvent::Ended {
                            entity: owner.entity,
                        },
                        _ => SoundEvent::Rejected {
                            entity: owner.entity,
                            reason: RejectReason::PoolFull,
                        },
                    });
                    if owner.attached {
                        end_entity(&mut commands, owner.entity, owner.on_end);
                    }
                }
            }
            _ => {}
        }
        raw_events.write(VoicepoolEvent(event));
    }
}
