//! Space as it crosses to the audio side: where the listener is and how
//! it is oriented, where a positioned play is and how it is heard, each
//! checked on the game side (`space::Listener::validate`,
//! `space::Spatial::validate`). What the audio side makes of them (gains,
//! pan, doppler) is in `crate::space`.

/// A vector in metres or metres per second.
pub(crate) type Vec3 = [f32; 3];

/// How distance attenuates a positioned play. With `d` the distance clamped
/// to `[min_distance, max_distance]` (beyond `max_distance` a sound gets no
/// quieter), the gain is:
///
/// | model | gain |
/// | --- | --- |
/// | `Inverse` | `min / (min + rolloff * (d - min))` |
/// | `Linear` | `max(0, 1 - rolloff * (d - min) / (max - min))` |
/// | `Exponential` | `(d / min).powf(-rolloff)` |
/// | `None` | 1 |
///
/// ```
/// use voicepool::{DistanceModel, Spatial};
/// let far_fades_out = Spatial { distance: DistanceModel::Linear, ..Spatial::default() };
/// assert_eq!(Spatial::default().distance, DistanceModel::Inverse);
/// # let _ = far_fades_out;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DistanceModel {
    /// Halves (-6 dB) with each doubling of distance past `min_distance`
    /// at rolloff 1: how sound spreads in the open. The default.
    #[default]
    Inverse,
    /// Falls in a straight line to silence at `max_distance` (rolloff 1).
    Linear,
    /// `(d / min)^-rolloff`: inverse at rolloff 1, steeper above.
    Exponential,
    /// No attenuation: direction and doppler only.
    None,
}

/// A listener as the audio side uses it: its position and velocity, and
/// an orthonormal frame (right, up, forward).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ValidListener {
    pub(crate) position: Vec3,
    pub(crate) velocity: Vec3,
    pub(crate) right: Vec3,
    pub(crate) up: Vec3,
    pub(crate) forward: Vec3,
}

impl Default for ValidListener {
    fn default() -> Self {
        ValidListener {
            position: [0.0; 3],
            velocity: [0.0; 3],
            right: [1.0, 0.0, 0.0],
            up: [0.0, 1.0, 0.0],
            forward: [0.0, 0.0, -1.0],
        }
    }
}

/// A [`Spatial`] checked and clamped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ValidSpatial {
    pub(crate) model: DistanceModel,
    pub(crate) min: f32,
    pub(crate) max: f32,
    pub(crate) rolloff: f32,
    pub(crate) doppler: f32,
    /// The emitter's cone, if it has one.
    pub(crate) cone: Option<ValidCone>,
    /// The air's high-frequency loss as a factor on the distance (0: off).
    pub(crate) air: f32,
}

/// A `Cone` checked: half-angles in radians (inner at most outer), the
/// outer gain in `0..=1`, the outer cutoff within the audible range
/// ([`OPEN_HZ`]: no filter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ValidCone {
    pub(crate) inner: f32,
    pub(crate) outer: f32,
    pub(crate) outer_gain: f32,
    pub(crate) outer_lowpass_hz: f32,
}

/// A cutoff at or above this (in Hz) is no low-pass at all: the direct
/// sound is left unfiltered.
pub const OPEN_HZ: f32 = 20_000.0;

/// An `Occlusion` checked: the gain in `0..=1`, the cutoff in
/// `MIN_LOWPASS_HZ..=OPEN_HZ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ValidOcclusion {
    pub(crate) gain: f32,
    pub(crate) lowpass_hz: f32,
}

impl ValidOcclusion {
    /// Nothing in the way.
    pub(crate) const NONE: ValidOcclusion = ValidOcclusion {
        gain: 1.0,
        lowpass_hz: OPEN_HZ,
    };
}

/// Where a positioned play is, how it moves, and how it is heard.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ValidEmitter {
    pub(crate) position: Vec3,
    pub(crate) velocity: Vec3,
    pub(crate) spatial: ValidSpatial,
    /// The unit vector it faces (for its cone).
    pub(crate) orientation: Vec3,
    /// What the game's ray casts found between it and the listener.
    pub(crate) occlusion: ValidOcclusion,
    /// Its cell in the shared table of positions (given by the game side
    /// as the play is sent), or `NO_EMITTER` before then.
    pub(crate) cell: u32,
    /// `Some(pan)` for a play that is not positioned but has a cell for
    /// its parameter maps: heard at this pan, with no distance, direction
    /// or doppler.
    pub(crate) fixed_pan: Option<f32>,
}
