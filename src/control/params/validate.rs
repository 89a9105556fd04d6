//! Play parameters checked and clamped on the game side (the ranges are in
//! [`PlayParams`]'s docs): what reaches the audio side is finite and in
//! range.

use std::time::Duration;

use super::*;
use crate::error::finite;

impl PlayParams {
    /// Checks and clamps every value (see [`PlayParams`]) for a play on
    /// `engine`.
    pub(crate) fn validate(&self, engine: EngineId) -> Result<ValidParams, PlayError> {
        let group = match self.group {
            Some(g) => g.index_in(engine).ok_or(PlayError::ForeignHandle)?,
            None => NO_GROUP,
        };
        let bus = match self.bus {
            Some(b) => b.index_in(engine).ok_or(PlayError::ForeignHandle)?,
            None => MASTER_BUS,
        };
        let send = match self.send {
            Some((b, level)) => crate::protocol::SendTo {
                bus: b.index_in(engine).ok_or(PlayError::ForeignHandle)?,
                level: finite("send level", level)?.clamp(0.0, MAX_VOLUME),
                step: 0.0,
            },
            None => crate::protocol::SendTo::NONE,
        };
        Ok(ValidParams {
            group,
            bus,
            volume: valid_volume(self.volume)?,
            pan: valid_pan(self.pan)?,
            pitch: valid_pitch(self.pitch)?,
            fade_in: finite("fade_in", self.fade_in)?.clamp(0.0, MAX_FADE_SECONDS),
            looping: self.looping,
            priority: self.priority,
            protected: self.protected,
            virtualize: self.virtualize,
            start_at: self.start_at,
            offset: 0,
            layer: 0,
            send,
            emitter: match self.position {
                Some(position) => Some(ValidEmitter {
                    position: valid_vector("position", position)?,
                    velocity: valid_vector("velocity", self.velocity)?,
                    spatial: self.spatial.validate()?,
                    orientation: crate::space::valid_direction("orientation", self.orientation)?,
                    occlusion: crate::protocol::space::ValidOcclusion::NONE,
                    cell: crate::protocol::NO_EMITTER,
                    fixed_pan: None,
                }),
                None => None,
            },
        })
    }
}

pub(crate) fn valid_volume(v: f32) -> Result<f32, PlayError> {
    valid_gain(v, MAX_VOLUME)
}

/// A volume clamped to `0..=max`, below [`MIN_AUDIBLE_VOLUME`] exactly 0.
fn valid_gain(v: f32, max: f32) -> Result<f32, PlayError> {
    let v = finite("volume", v)?.clamp(0.0, max);
    Ok(if v < MIN_AUDIBLE_VOLUME { 0.0 } else { v })
}

pub(crate) fn valid_pan(p: f32) -> Result<f32, PlayError> {
    Ok(finite("pan", p)?.clamp(-1.0, 1.0))
}

pub(crate) fn valid_pitch(p: f32) -> Result<f32, PlayError> {
    let p = finite("pitch", p)?;
    if p <= 0.0 {
        return Err(PlayError::InvalidParameter {
            name: "pitch",
            value: p,
        });
    }
    Ok(p.clamp(MIN_PITCH, MAX_PITCH))
}

pub(crate) fn valid_master_volume(v: f32) -> Result<f32, PlayError> {
    valid_gain(v, MAX_MASTER_VOLUME)
}

/// A fade's length in output frames at `rate`, clamped to
/// [`MAX_FADE_SECONDS`].
pub(crate) fn fade_frames(d: Duration, rate: u32) -> u32 {
    let longest = Duration::from_secs_f32(MAX_FADE_SECONDS);
    crate::protocol::frames(d.min(longest), rate)
}
