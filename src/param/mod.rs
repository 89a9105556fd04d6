//! Parameters: game values (a car's speed, the player's health) that
//! drive what cues sound like. A cue maps a parameter ([`ParamHandle`])
//! through a [`Curve`] to a [`Target`]: its volume in dB, its pitch, a
//! low-pass on it or the level it sends to a bus at. The game sets a parameter
//! for every play at once (`set_param`) or for one play (`set_play_param`),
//! gliding over a time it gives.
//!
//! This file holds the public types and their checks; the game-side calls
//! are in `control.rs`, the audio side (the global values, a voice's maps
//! evaluated) in `eval.rs`.

use crate::error::{finite, PlayError};
use crate::protocol::modulation::{TargetKind, ValidMap, MAX_POINTS};
use crate::protocol::space::OPEN_HZ;
use crate::protocol::{MAX_PITCH, MIN_PITCH};
use crate::space::MIN_LOWPASS_HZ;

pub(crate) mod control;
pub(crate) mod eval;

pub use crate::handle::ParamHandle;

/// The most points a [`Curve`] may have.
pub const MAX_CURVE_POINTS: usize = MAX_POINTS;
/// The most maps one voice of a cue follows: its cue's, and those of the
/// cues it is a layer of.
pub const MAX_CUE_MAPS: usize = crate::protocol::modulation::MAX_MAPS;
/// The most parameters an engine makes.
pub const MAX_PARAMS: usize = crate::protocol::modulation::MAX_PARAMS;

/// What a parameter drives in the plays of a cue that maps it.
///
/// ```
/// use voicepool::{Cue, Curve, EngineSettings, OfflineEngine, Sound, Target};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let speed = engine.create_param("speed", 0.0)?;
/// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
/// let motor = Cue::new([hum])
///     .looping(true)
///     .map(speed, Target::Pitch, Curve::linear([(0.0, 0.8), (100.0, 1.6)]))
///     .map(speed, Target::VolumeDb, Curve::linear([(0.0, -12.0), (30.0, 0.0)]));
/// assert!(motor.check().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// dB added to the play's volume (several add up); the curve's values
    /// are clamped to `limits::MIN_CUE_DB..=limits::MAX_CUE_DB`.
    VolumeDb,
    /// A factor on the play's pitch (several multiply); above 0, clamped
    /// to `limits::MIN_PITCH..=limits::MAX_PITCH`.
    Pitch,
    /// A two-pole low-pass on the play's voice at this cutoff in Hz (the
    /// lowest wins, with a cone's, an occlusion's or the air's); above 0,
    /// clamped to `limits::MIN_LOWPASS_HZ..=limits::OPEN_HZ` (20 kHz: no
    /// filter).
    LowPassHz,
    /// The level (a linear gain, as [`crate::PlayParams::send`]'s) the
    /// play sends to this bus at: a play of the cue sends there even if
    /// its `PlayParams` name no send, and one whose `PlayParams` send to
    /// the same bus has that level multiplied (several `Send` maps
    /// multiply too). A play sends to one bus: maps naming two, or a
    /// `PlayParams::send` to another bus, are an error naming `map` or
    /// `send`. Values are clamped to `0..=limits::MAX_VOLUME`. What is
    /// sent glides frame by frame, and stealing hears it: a voice heard
    /// mostly through its send is worth less when its send is down.
    ///
    /// ```
    /// use voicepool::{BusSettings, Cue, Curve, Effect, EngineSettings, OfflineEngine, PlayParams, Sound, Target};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hall = engine.create_bus_with(BusSettings {
    ///     effects: vec![Effect::Reverb { room: 0.8, damping: 0.3, wet: 1.0 }],
    ///     ..Default::default()
    /// })?;
    /// let cave = engine.create_param("cave", 0.0)?; // 0 outdoors, 1 deep inside
    /// let step = Sound::from_samples(1, 48_000, vec![0.5; 2_400])?;
    /// let footstep = Cue::new([step])
    ///     .map(cave, Target::Send(hall), Curve::linear([(0.0, 0.0), (1.0, 0.6)]));
    /// engine.play_cue(&footstep, PlayParams::default())?; // outdoors: nothing sent
    /// engine.render(9_600);
    /// assert!(engine.render(480).iter().all(|&s| s == 0.0));
    /// engine.set_param(cave, 1.0, std::time::Duration::ZERO)?;
    /// engine.play_cue(&footstep, PlayParams::default())?;
    /// engine.render(9_600);
    /// assert!(engine.render(480).iter().any(|&s| s != 0.0)); // the hall rings on
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    Send(crate::BusHandle),
}

/// A piecewise-linear curve from a parameter's value (x) to its target's
/// (y): straight lines between the points, the end values outside them.
/// Points are sorted by x (a curve may be given in any order). No point,
/// more than [`MAX_CURVE_POINTS`], or a NaN or infinite value is an error
/// naming `curve`, reported when the cue is played (and by `Cue::check`).
///
/// ```
/// use voicepool::Curve;
/// let fade_in = Curve::linear([(0.0, -40.0), (10.0, 0.0)]);
/// assert_eq!(fade_in.value_at(5.0), Some(-20.0));
/// assert_eq!(fade_in.value_at(99.0), Some(0.0)); // the end value holds
/// assert_eq!(Curve::linear([]).value_at(0.0), None); // no point: an error
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    points: Vec<(f32, f32)>,
}

impl Curve {
    /// A curve through `points` (x, y).
    ///
    /// ```
    /// use voicepool::Curve;
    /// let pitch = Curve::linear([(100.0, 1.6), (0.0, 0.8)]); // any order
    /// assert_eq!(pitch.value_at(50.0), Some(1.2));
    /// ```
    pub fn linear(points: impl IntoIterator<Item = (f32, f32)>) -> Curve {
        let mut points: Vec<(f32, f32)> = points.into_iter().collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        Curve { points }
    }

    /// Its value at `x`, or `None` if it is not a valid curve.
    ///
    /// ```
    /// use voicepool::Curve;
    /// assert_eq!(Curve::linear([(0.0, 1.0)]).value_at(-5.0), Some(1.0));
    /// assert_eq!(Curve::linear([(0.0, f32::NAN)]).value_at(0.0), None);
    /// ```
    pub fn value_at(&self, x: f32) -> Option<f32> {
        let checked = self
            .checked(TargetKind::VolumeDb, 0, f32::MIN, f32::MAX)
            .ok()?;
        Some(checked.at(x))
    }

    /// Its points, sorted by x.
    ///
    /// ```
    /// use voicepool::Curve;
    /// assert_eq!(Curve::linear([(1.0, 0.0), (0.0, 2.0)]).points(), [(0.0, 2.0), (1.0, 0.0)]);
    /// ```
    pub fn points(&self) -> &[(f32, f32)] {
        &self.points
    }

    /// This curve for `target` of parameter `param`, its values clamped
    /// to `lo..=hi`; the error naming `curve` if it is not valid.
    pub(crate) fn checked(
        &self,
        target: TargetKind,
        param: u16,
        lo: f32,
        hi: f32,
    ) -> Result<ValidMap, PlayError> {
        if self.points.is_empty() {
            return Err(PlayError::Invalid {
                name: "curve",
                reason: "a curve needs at least one point",
            });
        }
        if self.points.len() > MAX_POINTS {
            return Err(PlayError::Invalid {
                name: "curve",
                reason: "a curve has at most MAX_CURVE_POINTS (16) points",
            });
        }
        let mut points = [(0.0, 0.0); MAX_POINTS];
        for (slot, &(x, y)) in points.iter_mut().zip(&self.points) {
            *slot = (finite("curve", x)?, finite("curve", y)?.clamp(lo, hi));
        }
        Ok(ValidMap {
            param,
            target,
            points,
            n: self.points.len() as u8,
        })
    }
}

impl Target {
    /// Its kind on the audio side, and the range its values are clamped
    /// to (values at or below 0 are an error for pitch and cutoff).
    pub(crate) fn kind(self) -> (TargetKind, f32, f32, bool) {
        match self {
            Target::VolumeDb => (
                TargetKind::VolumeDb,
                crate::cue::MIN_CUE_DB,
                crate::cue::MAX_CUE_DB,
                false,
            ),
            Target::Pitch => (TargetKind::Pitch, MIN_PITCH, MAX_PITCH, true),
            Target::LowPassHz => (TargetKind::LowPassHz, MIN_LOWPASS_HZ, OPEN_HZ, true),
            Target::Send(bus) => (
                TargetKind::Send(bus.index()),
                0.0,
                crate::protocol::MAX_VOLUME,
                false,
            ),
        }
    }
}

/// `curve` as a checked map of `param` to `target`.
pub(crate) fn valid_map(
    param: ParamHandle,
    target: Target,
    curve: &Curve,
) -> Result<ValidMap, PlayError> {
    let (kind, lo, hi, positive) = target.kind();
    if positive {
        if let Some(&(_, y)) = curve.points.iter().find(|p| p.1 <= 0.0) {
            return Err(PlayError::InvalidParameter {
                name: "curve",
                value: y,
            });
        }
    }
    curve.checked(kind, param.index(), lo, hi)
}
