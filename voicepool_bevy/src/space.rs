//! Sound from places: [`SoundListener`] hears, and every playing entity
//! with a `GlobalTransform` is an emitter that the plugin moves each update.

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_reflect::prelude::*;
use bevy_time::{Fixed, Real, Time};
use bevy_transform::components::GlobalTransform;
use voicepool::{Listener, Occlusion};

use crate::control::VoicepoolEngine;
use crate::player::{Emitter, PlayingVoice};

/// (Velocities, of emitters and the listener, are their movement per
/// update smoothed over 100 ms, so they stay steady under `FixedUpdate`
/// movement; a move faster than 1 km/s is taken for a teleport and leaves
/// the velocity as it was.)
///
/// The ears: put it on one entity (usually the camera; it requires a
/// `Transform`). Each update, after transforms propagate, the listener is
/// placed and turned as that entity is (facing its forward, -Z, with +Y
/// up), with a velocity for doppler from how far it moved. Until there is
/// one, the listener is at the origin facing -Z; once there is none, it
/// stays where it last was; with several, the first found is used.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use bevy_transform::components::Transform;
/// use voicepool_bevy::SoundListener;
///
/// fn spawn_player(mut commands: Commands) {
///     commands.spawn((SoundListener, Transform::from_xyz(0.0, 1.7, 0.0)));
/// }
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default)]
#[require(bevy_transform::components::Transform)]
pub struct SoundListener;

/// Where the listener was last update.
/// The velocity of an emitter or of the listener, in metres per second,
/// as the game knows it (a kinematic body, a projectile, a car driven by
/// its own physics): where present, doppler uses it instead of the
/// velocity the plugin measures from how the entity's transform moves
/// (smoothed over 100 ms). A NaN or infinite component is ignored for
/// that update.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use bevy_math::Vec3;
/// use voicepool_bevy::prelude::*;
///
/// fn fire(mut commands: Commands, whoosh: Handle<SoundAsset>, from: Vec3, toward: Vec3) {
///     commands.spawn((
///         SoundPlayer::new(whoosh),
///         Transform::from_translation(from),
///         SoundVelocity(toward.normalize() * 300.0),
///     ));
/// }
/// # use bevy_asset::Handle;
/// # use bevy_transform::components::Transform;
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default)]
pub struct SoundVelocity(pub Vec3);

impl SoundVelocity {
    /// The velocity, if usable.
    fn get(this: Option<&SoundVelocity>) -> Option<Vec3> {
        this.map(|v| v.0).filter(|v| v.is_finite())
    }
}

/// What stands between an emitter and the listener, as the game's ray
/// casts found it: a gain and a low-pass on its direct sound
/// ([`voicepool::Occlusion`]), glided to over the next block. Insert or
/// change it as often as every update; removing it clears the occlusion.
/// A NaN, infinite or negative field is refused (logged, the occlusion
/// left as it was); out-of-range values are clamped.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use voicepool_bevy::prelude::*;
///
/// #[derive(Component)]
/// struct BehindWall(bool);
///
/// fn occlude(mut commands: Commands, emitters: Query<(Entity, &BehindWall), With<PlayingVoice>>) {
///     for (e, wall) in &emitters {
///         let o = if wall.0 { SoundOcclusion { gain: 0.4, lowpass_hz: 1_200.0 } } else { SoundOcclusion::NONE };
///         commands.entity(e).insert(o);
///     }
/// }
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, Default)]
pub struct SoundOcclusion {
    /// The direct sound's gain through the obstacle (linear, `0..=1`).
    pub gain: f32,
    /// The low-pass cutoff the obstacle makes, in Hz (20 kHz or above:
    /// none).
    pub lowpass_hz: f32,
}

impl SoundOcclusion {
    /// Nothing in the way.
    pub const NONE: SoundOcclusion = SoundOcclusion {
        gain: Occlusion::NONE.gain,
        lowpass_hz: Occlusion::NONE.lowpass_hz,
    };
}

impl Default for SoundOcclusion {
    fn default() -> Self {
        SoundOcclusion::NONE
    }
}

impl From<Occlusion> for SoundOcclusion {
    fn from(o: Occlusion) -> Self {
        SoundOcclusion {
            gain: o.gain,
            lowpass_hz: o.lowpass_hz,
        }
    }
}

/// A voice whose occlusion changed, or that just started playing.
type NewOcclusion = Or<(Changed<SoundOcclusion>, Added<PlayingVoice>)>;

/// Sends each changed (or newly playing) [`SoundOcclusion`] to its voice,
/// and clears the occlusion of a voice whose component was removed.
pub(crate) fn occlude_emitters(
    engine: Res<VoicepoolEngine>,
    changed: Query<(&PlayingVoice, &SoundOcclusion), NewOcclusion>,
    mut removed: RemovedComponents<SoundOcclusion>,
    voices: Query<&PlayingVoice, Without<SoundOcclusion>>,
) {
    for (voice, o) in &changed {
        let o = Occlusion {
            gain: o.gain,
            lowpass_hz: o.lowpass_hz,
        };
        if let Err(e) = engine.set_occlusion(voice.0, o) {
            log::warn!("voicepool: occlusion {o:?} not set: {e}");
        }
    }
    for entity in removed.read() {
        if let Ok(voice) = voices.get(entity) {
            let _ = engine.set_occlusion(voice.0, Occlusion::NONE);
        }
    }
}

/// The way `transform` faces (its -Z), if it has one.
pub(crate) fn facing(transform: &GlobalTransform) -> Option<Vec3> {
    let axes = transform.affine().matrix3;
    Vec3::from(axes * bevy_math::Vec3A::NEG_Z).try_normalize()
}

#[derive(Resource, Default)]
pub(crate) struct ListenerState {
    last: Option<Vec3>,
    velocity: Vec3,
}

/// The seconds one update covers: the rendered frames offline (so that
/// offline renders do not depend on the machine's clock), the app's real
/// clock otherwise.
fn update_seconds(
    engine: &VoicepoolEngine,
    time: Option<&Time<Real>>,
    fixed: Option<&Time<Fixed>>,
) -> f32 {
    engine
        .backend
        .update_seconds(fixed.map(|t| t.elapsed_secs_f64()))
        .or_else(|| time.map(|t| t.delta_secs()))
        .unwrap_or(0.0)
}

/// How long (in seconds) velocities are smoothed over: a game that moves
/// things in `FixedUpdate` moves them 0, 1 or 2 steps between two frames,
/// and doppler would warble with the raw figure; a teleport would give a
/// one-update spike.
const VELOCITY_SMOOTHING: f32 = 0.1;

/// A move faster than this (metres per second) is a teleport: the
/// velocity stays what it was.
const TELEPORT_SPEED: f32 = 1_000.0;

/// The velocity after a move from `from` to `to` over `seconds`, smoothed
/// from `before` (exponentially, over [`VELOCITY_SMOOTHING`]).
fn velocity(before: Vec3, from: Vec3, to: Vec3, seconds: f32) -> Vec3 {
    if seconds <= 0.0 {
        return before;
    }
    let raw = (to - from) / seconds;
    if !raw.is_finite() || raw.length() > TELEPORT_SPEED {
        return before;
    }
    let blend = 1.0 - (-seconds / VELOCITY_SMOOTHING).exp();
    let v = before + (raw - before) * blend;
    if v.is_finite() {
        v
    } else {
        Vec3::ZERO
    }
}

fn mint(v: Vec3) -> [f32; 3] {
    [v.x, v.y, v.z]
}

/// Moves every emitter's voice to where its entity is now.
pub(crate) fn move_emitters(
    engine: Res<VoicepoolEngine>,
    time: Option<Res<Time<Real>>>,
    fixed: Option<Res<Time<Fixed>>>,
    mut emitters: Query<(
        &PlayingVoice,
        &GlobalTransform,
        &mut Emitter,
        Option<&SoundVelocity>,
    )>,
) {
    let seconds = update_seconds(&engine, time.as_deref(), fixed.as_deref());
    for (voice, transform, mut emitter, given) in &mut emitters {
        let at = transform.translation();
        if !at.is_finite() {
            continue;
        }
        let v = SoundVelocity::get(given)
            .unwrap_or_else(|| velocity(emitter.velocity, emitter.last, at, seconds));
        (emitter.last, emitter.velocity) = (at, v);
        // Only a stopped engine or a non-finite value refuses; neither is
        // worth more than skipping this update.
        let _ = engine.set_position(voice.0, mint(at), mint(v));
        // A play with a cone faces where its entity does.
        if let (true, Some(forward)) = (emitter.turns, facing(transform)) {
            let _ = engine.set_orientation(voice.0, mint(forward));
        }
    }
}

/// Places the listener where the [`SoundListener`] entity is now.
pub(crate) fn move_listener(
    engine: Res<VoicepoolEngine>,
    time: Option<Res<Time<Real>>>,
    fixed: Option<Res<Time<Fixed>>>,
    mut state: ResMut<ListenerState>,
    listeners: Query<(&GlobalTransform, Option<&SoundVelocity>), With<SoundListener>>,
) {
    let Some((transform, given)) = listeners.iter().next() else {
        return;
    };
    let seconds = update_seconds(&engine, time.as_deref(), fixed.as_deref());
    let at = transform.translation();
    if !at.is_finite() {
        return;
    }
    // Facing its -Z, +Y up; a degenerate transform (scale 0, NaN
    // rotation) leaves the listener where it was.
    let axes = transform.affine().matrix3;
    let (Some(forward), Some(up)) = (
        Vec3::from(axes * bevy_math::Vec3A::NEG_Z).try_normalize(),
        Vec3::from(axes * bevy_math::Vec3A::Y).try_normalize(),
    ) else {
        return;
    };
    let measured = state.last.map_or(Vec3::ZERO, |last| {
        velocity(state.velocity, last, at, seconds)
    });
    let v = SoundVelocity::get(given).unwrap_or(measured);
    (state.last, state.velocity) = (Some(at), v);
    let listener = Listener {
        position: mint(at).into(),
        forward: mint(forward).into(),
        up: mint(up).into(),
        velocity: mint(v).into(),
    };
    if let Err(e) = engine.set_listener(listener) {
        log::debug!("voicepool: listener not moved this update: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Movement in `FixedUpdate` at 50 Hz seen from 60 Hz frames: 0 or
    /// 1 step per frame (and now and then 2); the velocity sent stays
    /// within 15 % of the true one once settled, where the raw figure
    /// jumps between 0 and twice it.
    #[test]
    fn velocity_is_steady_under_fixed_step_movement() {
        let (frame, step, speed) = (1.0 / 60.0, 1.0 / 50.0, 10.0);
        let (mut v, mut last) = (Vec3::ZERO, Vec3::ZERO);
        for k in 1..240 {
            let t = k as f32 * frame;
            let at = Vec3::X * speed * step * (t / step).floor();
            v = velocity(v, last, at, frame);
            last = at;
            if k > 60 {
                assert!((v.x - speed).abs() < 0.15 * speed, "frame {k}: {v}");
            }
        }
    }

    #[test]
    fn a_teleport_is_not_a_spike() {
        let walking = Vec3::X * 1.5;
        let v = velocity(walking, Vec3::ZERO, Vec3::X * 1_000.0, 1.0 / 60.0);
        assert_eq!(v, walking, "a jump of 1 km in a frame keeps the velocity");
        assert!(velocity(Vec3::ZERO, Vec3::ZERO, Vec3::X, 0.0) == Vec3::ZERO);
    }
}
