//! Sound from places: the [`Listener`], where a play sounds from
//! ([`crate::PlayParams::position`], [`Spatial`]), and what distance,
//! direction and motion make of it: a gain, a pan and a doppler pitch.

pub(crate) mod air;
pub(crate) mod control;
pub(crate) mod direct;
pub(crate) mod mix;
pub(crate) mod positions;

use crate::math::Libm;
use crate::protocol::modulation::Own;
pub use crate::protocol::space::OPEN_HZ;
use air::AirTable;
pub use air::MAX_AIR_ABSORPTION;
pub use direct::{Cone, Occlusion, MIN_LOWPASS_HZ};

use crate::error::{finite, PlayError};
pub use crate::protocol::space::DistanceModel;
pub(crate) use crate::protocol::space::{
    ValidEmitter, ValidListener, ValidOcclusion, ValidSpatial, Vec3,
};
use crate::protocol::NO_EMITTER;

/// The default speed of sound, in metres per second (dry air at 20 °C).
pub const DEFAULT_SPEED_OF_SOUND: f32 = 343.3;
/// The largest `rolloff` accepted; larger is clamped.
pub const MAX_ROLLOFF: f32 = 100.0;
/// The largest `doppler` factor accepted; larger is clamped.
pub const MAX_DOPPLER: f32 = 10.0;
/// The largest doppler pitch factor a motion can give (and the smallest is
/// its inverse): at and past the speed of sound the formula's denominator
/// reaches 0, and a voice stays finite and in range.
pub const MAX_DOPPLER_SHIFT: f32 = 16.0;

/// Where the player hears from: a position, the way it faces, which way is
/// up, and how it moves (for doppler). Set with
/// [`crate::Controller::set_listener`]; the default is at the origin,
/// facing -Z, +Y up, at rest.
///
/// ```
/// use voicepool::{EngineSettings, Listener, OfflineEngine};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// engine.set_listener(Listener {
///     position: [0.0, 1.7, 0.0].into(),
///     forward: [1.0, 0.0, 0.0].into(), // facing +X
///     ..Listener::default()
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Listener {
    /// Where the listener is, in metres.
    pub position: mint::Vector3<f32>,
    /// The way it faces (any length but 0).
    pub forward: mint::Vector3<f32>,
    /// Which way is up for it (any length but 0, not along `forward`).
    pub up: mint::Vector3<f32>,
    /// How it moves, in metres per second.
    pub velocity: mint::Vector3<f32>,
}

impl Default for Listener {
    fn default() -> Self {
        Listener {
            position: [0.0; 3].into(),
            forward: [0.0, 0.0, -1.0].into(),
            up: [0.0, 1.0, 0.0].into(),
            velocity: [0.0; 3].into(),
        }
    }
}

/// How a positioned play is heard: its distance model, its doppler
/// factor, its [`Cone`] and the air's high-frequency loss. The default:
/// [`DistanceModel::Inverse`], full gain within 1 m, no quieter past
/// 100 m, rolloff 1, doppler 1, no cone, no air absorption.
///
/// ```
/// use voicepool::{DistanceModel, EngineSettings, OfflineEngine, PlayParams, Sound, Spatial};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
/// let near_only = Spatial { distance: DistanceModel::Linear, max_distance: 30.0, ..Spatial::default() };
/// engine.play(&hum, PlayParams::default().position([0.0, 0.0, -40.0]).spatial(near_only))?;
/// engine.render(960);
/// assert!(engine.render(480).iter().all(|&s| s == 0.0)); // beyond 30 m: silent
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Plain data and pure arithmetic, shared by the game side (which validates),
/// the renderer (which turns them into gain, pan and pitch ramps every block)
/// and the voice manager (which ranks a positioned voice by where it will
/// be). Nothing here allocates, locks or panics.
///
/// Coordinates are metres (and metres per second), right-handed, +Y up; a
/// listener at rest at the origin faces -Z, so +X is to its right.
///
/// | value | accepted | out of range | NaN / infinite |
/// | --- | --- | --- | --- |
/// | a position or velocity component | any finite `f32` | - | rejected |
/// | `Listener::forward`, `up` | finite, not zero (any length: normalised), not parallel | a zero or parallel pair: rejected | rejected |
/// | `min_distance` | above 0 | 0 or below: rejected | rejected |
/// | `max_distance` | at least `min_distance` | below it: rejected | rejected |
/// | `rolloff` | `0.0..=`[`MAX_ROLLOFF`] | clamped | rejected |
/// | `doppler` | `0.0..=`[`MAX_DOPPLER`] (0: no pitch shift) | clamped | rejected |
/// | `cone` | see [`Cone`] | see there | rejected |
/// | `air_absorption` | `0.0..=`[`MAX_AIR_ABSORPTION`] (0: off) | negative: rejected; above: clamped | rejected |
/// | `EngineSettings::speed_of_sound` | `1.0..=100_000.0` m/s | an engine error | an engine error |
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spatial {
    /// How distance attenuates.
    pub distance: DistanceModel,
    /// Within this distance (metres, above 0) the gain is full.
    pub min_distance: f32,
    /// Past this distance (metres, at least `min_distance`) it gets no
    /// quieter.
    pub max_distance: f32,
    /// How fast the gain falls with distance (see [`DistanceModel`]).
    pub rolloff: f32,
    /// Scales the doppler pitch shift: 1 is physical, 0 turns it off.
    pub doppler: f32,
    /// Whether it sounds louder and brighter ahead of it than behind
    /// (facing [`crate::PlayParams::orientation`]); `None`: the same all
    /// round.
    pub cone: Option<Cone>,
    /// The air's high-frequency loss over the distance to the listener: 0
    /// off, 1 air at 20 °C and 50 % relative humidity (ISO 9613-1), 2 as if
    /// the distance were twice as far (haze), and so on. Rendered as a
    /// two-pole low-pass fitted to the air's loss at each distance (at 1,
    /// its cutoff is near 10.6 kHz at 25 m, 4.5 kHz at 100 m, 1.9 kHz at
    /// 400 m at 48 kHz), within 2.2 dB of the standard up to 400 m where the air
    /// takes up to 12 dB.
    pub air_absorption: f32,
}

impl Default for Spatial {
    fn default() -> Self {
        Spatial {
            distance: DistanceModel::Inverse,
            min_distance: 1.0,
            max_distance: 100.0,
            rolloff: 1.0,
            doppler: 1.0,
            cone: None,
            air_absorption: 0.0,
        }
    }
}

/// The audio side's record of one positioned play, kept in the emitter
/// table at its cell: where it was when last read, its own volume and
/// pitch (what `set_volume`, `fade_volume` and `set_pitch` set, before
/// distance and doppler), and what the listener made of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Emitter {
    pub(crate) at: ValidEmitter,
    pub(crate) volume: f32,
    pub(crate) pitch: f32,
    pub(crate) heard: Heard,
    /// The cell's sequence when `at` was read from it.
    pub(crate) seq: u32,
    /// Frames of a fade left to run once the voice's ramp under way ends
    /// (a move during a fade cuts it at a block's end: see
    /// `Voice::respatialize`).
    pub(crate) fade_rest: u32,
    /// The play's own parameter values (`set_play_param`), for its maps.
    pub(crate) own: Own,
    /// An own value changed since it was last heard.
    pub(crate) own_changed: bool,
    /// The frame it was last heard at (its maps evaluated).
    pub(crate) heard_at: u64,
}

impl Emitter {
    /// An unused record.
    pub(crate) const NONE: Emitter = Emitter {
        at: ValidEmitter {
            position: [0.0; 3],
            velocity: [0.0; 3],
            spatial: ValidSpatial {
                model: DistanceModel::None,
                min: 1.0,
                max: 1.0,
                rolloff: 0.0,
                doppler: 0.0,
                cone: None,
                air: 0.0,
            },
            orientation: [0.0, 0.0, -1.0],
            occlusion: ValidOcclusion::NONE,
            cell: NO_EMITTER,
            fixed_pan: None,
        },
        volume: 0.0,
        pitch: 1.0,
        heard: Heard {
            gain: 0.0,
            pan: 0.0,
            doppler: 1.0,
            direct: 1.0,
            cutoff: OPEN_HZ,
            send: 1.0,
        },
        seq: 0,
        fade_rest: 0,
        own: Own::NONE,
        own_changed: false,
        heard_at: 0,
    };
}

/// What the listener makes of an emitter now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Heard {
    /// The distance gain times the direct gain (multiplies the play's
    /// volume).
    pub(crate) gain: f32,
    /// The direct gain alone: the cone's and the occlusion's.
    pub(crate) direct: f32,
    /// The direct sound's low-pass cutoff, in Hz ([`OPEN_HZ`]: none).
    pub(crate) cutoff: f32,
    /// The pan: the x of the direction in the listener's frame, right +1.
    pub(crate) pan: f32,
    /// The doppler pitch factor.
    pub(crate) doppler: f32,
    /// A factor on the level it sends at (its `Send` maps').
    pub(crate) send: f32,
}

/// `v` as a finite vector, or the error naming `name`.
pub(crate) fn valid_vector(name: &'static str, v: mint::Vector3<f32>) -> Result<Vec3, PlayError> {
    Ok([finite(name, v.x)?, finite(name, v.y)?, finite(name, v.z)?])
}

/// `v` as a unit vector, or the error naming `name` (NaN, infinite or
/// zero).
pub(crate) fn valid_direction(
    name: &'static str,
    v: mint::Vector3<f32>,
) -> Result<Vec3, PlayError> {
    normalized(valid_vector(name, v)?).ok_or(PlayError::Invalid {
        name,
        reason: "must not be the zero vector",
    })
}

impl Listener {
    pub(crate) fn validate(&self) -> Result<ValidListener, PlayError> {
        let position = valid_vector("listener position", self.position)?;
        let velocity = valid_vector("listener velocity", self.velocity)?;
        let forward = valid_vector("listener forward", self.forward)?;
        let up = valid_vector("listener up", self.up)?;
        let forward = normalized(forward).ok_or(PlayError::Invalid {
            name: "listener forward",
            reason: "must not be the zero vector",
        })?;
        let up = normalized(up).ok_or(PlayError::Invalid {
            name: "listener up",
            reason: "must not be the zero vector",
        })?;
        let right = normalized(cross(forward, up)).ok_or(PlayError::Invalid {
            name: "listener up",
            reason: "must not point along forward (or against it)",
        })?;
        Ok(ValidListener {
            position,
            velocity,
            right,
            up: cross(right, forward),
            forward,
        })
    }
}

impl Spatial {
    pub(crate) fn validate(&self) -> Result<ValidSpatial, PlayError> {
        let min = finite("min_distance", self.min_distance)?;
        let max = finite("max_distance", self.max_distance)?;
        if min <= 0.0 {
            return Err(PlayError::Invalid {
                name: "min_distance",
                reason: "must be above 0",
            });
        }
        if max < min {
            return Err(PlayError::Invalid {
                name: "max_distance",
                reason: "must be at least min_distance",
            });
        }
        Ok(ValidSpatial {
            model: self.distance,
            min,
            max,
            rolloff: finite("rolloff", self.rolloff)?.clamp(0.0, MAX_ROLLOFF),
            doppler: finite("doppler", self.doppler)?.clamp(0.0, MAX_DOPPLER),
            cone: self.cone.as_ref().map(Cone::validate).transpose()?,
            air: air::air_factor(self.air_absorption)?,
        })
    }
}

impl ValidSpatial {
    /// The distance gain at `distance` metres.
    pub(crate) fn gain(&self, distance: f32) -> f32 {
        let d = distance.clamp(self.min, self.max);
        let (min, max, r) = (self.min, self.max, self.rolloff);
        let g = match self.model {
            DistanceModel::Inverse => min / (min + r * (d - min)),
            // (The share of the range first: no overflow at any distance.)
            DistanceModel::Linear if max > min => 1.0 - r * ((d - min) / (max - min)),
            DistanceModel::Linear => 1.0,
            DistanceModel::Exponential => (d / min).lm_powf(-r),
            DistanceModel::None => 1.0,
        };
        if g.is_finite() {
            g.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// What `listener` hears of `emitter`, with sound at `speed` m/s and the
/// air as `air` says. (Run for every moving voice every block: one square
/// root and three divisions, and for a play with a cone, occlusion or air,
/// what [`direct::shape`] adds.)
#[inline]
pub(crate) fn hear(
    listener: &ValidListener,
    emitter: &ValidEmitter,
    speed: f32,
    air: &AirTable,
) -> Heard {
    let to_source = sub(emitter.position, listener.position);
    let distance = length(to_source);
    let spatial = &emitter.spatial;
    let gain = spatial.gain(distance);
    // Too close (or too far for `f32`) to have a direction: centred, no
    // shift.
    let toward = (distance.is_finite() && distance > 1e-12).then(|| {
        // The unit direction first (a long vector's products would
        // overflow).
        let inv = 1.0 / distance;
        to_source.map(|x| x * inv)
    });
    let (direct, cutoff) = if spatial.cone.is_none()
        && spatial.air <= 0.0
        && emitter.occlusion == ValidOcclusion::NONE
    {
        (1.0, OPEN_HZ)
    } else {
        shaped(emitter, air, toward, distance)
    };
    let Some(toward) = toward else {
        return Heard {
            gain: gain * direct,
            pan: 0.0,
            doppler: 1.0,
            direct,
            cutoff,
            send: 1.0,
        };
    };
    let pan = dot(toward, listener.right).clamp(-1.0, 1.0);
    let still = emitter.velocity == [0.0; 3] && listener.velocity == [0.0; 3];
    let doppler = if spatial.doppler <= 0.0 || speed <= 0.0 || still {
        1.0
    } else {
        // OpenAL 1.1: speeds along the unit vector from source to
        // listener, `-toward`.
        let along = |v: Vec3| -dot(toward, v);
        doppler_shift(
            spatial.doppler,
            speed,
            along(emitter.velocity),
            along(listener.velocity),
        )
    };
    Heard {
        gain: gain * direct,
        pan,
        doppler,
        direct,
        cutoff,
        send: 1.0,
    }
}

/// [`direct::shape`] for `emitter`: out of line, so that a plain
/// positioned play's hearing stays small.
#[inline(never)]
fn shaped(
    emitter: &ValidEmitter,
    air: &AirTable,
    toward: Option<Vec3>,
    distance: f32,
) -> (f32, f32) {
    let spatial = &emitter.spatial;
    direct::shape(
        spatial.cone.as_ref(),
        emitter.orientation,
        emitter.occlusion,
        (spatial.air, air),
        toward,
        distance,
    )
}

/// `(c - D vl) / (c - D vs)` with `vs`, `vl` the source's and listener's
/// speeds toward the listener, each clamped below `c / D`, the result kept
/// within [`MAX_DOPPLER_SHIFT`] either way.
fn doppler_shift(factor: f32, speed: f32, vs: f32, vl: f32) -> f32 {
    // `D v` clamped to `c`: `v` clamped to `c / D`, without dividing.
    let num = speed - (factor * vl).min(speed);
    let den = speed - (factor * vs).min(speed);
    if num <= 0.0 && den <= 0.0 {
        // Both at the clamp (at or past the speed of sound along the same
        // line): nothing is left to tell them apart.
        return 1.0;
    }
    if den * MAX_DOPPLER_SHIFT <= num {
        return MAX_DOPPLER_SHIFT;
    }
    let shift = num / den;
    if shift.is_finite() {
        shift.clamp(1.0 / MAX_DOPPLER_SHIFT, MAX_DOPPLER_SHIFT)
    } else {
        1.0
    }
}

pub(crate) fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The length of `a`, without overflow or underflow: components of any
/// finite size (up to `f32::MAX`, down to denormals) give their true
/// length, rounded; infinite only where the length itself is past
/// `f32::MAX`.
#[inline]
pub(crate) fn length(a: Vec3) -> f32 {
    let sq = dot(a, a);
    // The common case: no square overflowed or fell below the normal range.
    if sq.is_finite() && sq >= f32::MIN_POSITIVE {
        return sq.sqrt();
    }
    let m = a[0].abs().max(a[1].abs()).max(a[2].abs());
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    // In `f64`: every finite `f32` vector's length and squares fit.
    let [x, y, z] = a.map(f64::from);
    (x * x + y * y + z * z).sqrt() as f32
}

/// `a` scaled to length 1, or `None` for the zero vector (any other
/// finite vector has a direction, however long or short).
fn normalized(a: Vec3) -> Option<Vec3> {
    let [x, y, z] = a.map(f64::from);
    let l = (x * x + y * y + z * z).sqrt();
    (l > 0.0 && l.is_finite()).then(|| [(x / l) as f32, (y / l) as f32, (z / l) as f32])
}

#[cfg(test)]
mod tests;
