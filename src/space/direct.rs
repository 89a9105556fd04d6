//! What shapes a positioned play's direct sound besides distance: the
//! emitter's [`Cone`] (it sounds duller and quieter behind), what stands in
//! the way ([`Occlusion`], from the game's ray casts) and the air (a
//! high-frequency loss that grows with distance). Each gives a gain and a
//! low-pass cutoff; a voice gets the product of the gains and the lowest
//! cutoff, rendered by one two-pole low-pass of its own
//! (`render::direct::DirectFilter`).
//!
//! Plain data and pure arithmetic, shared by the game side (which
//! validates) and the audio side (which hears them each block a play or
//! the listener moves). Nothing here allocates, locks or panics.

use crate::error::{finite, PlayError};
use crate::math::Libm;
use crate::protocol::space::{ValidCone, ValidOcclusion, Vec3, OPEN_HZ};
use crate::space::air::AirTable;

/// The lowest cutoff a cone or an occlusion may set, in Hz; lower values
/// are clamped to it.
pub const MIN_LOWPASS_HZ: f32 = 10.0;

/// A directional emitter (OpenAL's cone): full and bright within
/// `inner_deg`, quieter by `outer_gain` and low-passed at
/// `outer_lowpass_hz` outside `outer_deg`, and between the two, the gain
/// interpolated linearly in the angle (in amplitude, as OpenAL Soft does)
/// and the cutoff in log frequency, from [`OPEN_HZ`] (no filter) at the
/// inner edge. Angles are whole cone angles in degrees: a listener `θ` off
/// the emitter's axis ([`crate::PlayParams::orientation`]) is inside the
/// inner cone when `θ <= inner_deg / 2`.
///
/// ```
/// use voicepool::{Cone, EngineSettings, OfflineEngine, PlayParams, Sound, Spatial};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let radio = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
/// // At the listener's right, facing away from it (+X): the listener is behind.
/// let cone = Cone { inner_deg: 60.0, outer_deg: 180.0, outer_gain: 0.25, outer_lowpass_hz: 20_000.0 };
/// let behind = PlayParams::default().position([1.0, 0.0, 0.0]).orientation([1.0, 0.0, 0.0]);
/// engine.play(&radio, behind.spatial(Spatial { cone: Some(cone), ..Spatial::default() }))?;
/// engine.render(960);
/// let right = engine.render(480)[481];
/// assert!((right - 0.5 * 0.25).abs() < 1e-3); // a quarter of the level
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// | field | accepted | out of range | NaN / infinite |
/// | --- | --- | --- | --- |
/// | `inner_deg`, `outer_deg` | `0.0..=360.0`, inner at most outer | rejected | rejected |
/// | `outer_gain` | `0.0..=1.0` | negative: rejected; above 1: clamped | rejected |
/// | `outer_lowpass_hz` | [`MIN_LOWPASS_HZ`]`..=`[`OPEN_HZ`] (at or above: no filter) | negative: rejected; else clamped | rejected |
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cone {
    /// The whole angle, in degrees, within which it sounds full.
    pub inner_deg: f32,
    /// The whole angle, in degrees, outside which it sounds as the outer
    /// gain and cutoff say.
    pub outer_deg: f32,
    /// The gain outside the outer cone (linear, `0..=1`).
    pub outer_gain: f32,
    /// The low-pass cutoff outside the outer cone, in Hz ([`OPEN_HZ`] or
    /// above: none).
    pub outer_lowpass_hz: f32,
}

/// What stands between a positioned play and the listener, as the game's
/// ray casts found it: a gain and a low-pass on the direct sound, set with
/// [`crate::Controller::set_occlusion`] and reached over the next block
/// (the low-pass over its first 1,024 frames, for a longer block).
/// [`Occlusion::NONE`] (the default) is nothing in the way.
///
/// It applies to the voice's whole output, its send to a reverb bus
/// included: a sound behind a wall is muffled in the room's reverb too.
///
/// ```
/// use voicepool::Occlusion;
/// let wall = Occlusion { gain: 0.4, lowpass_hz: 1_200.0 };
/// assert_eq!(Occlusion::default(), Occlusion::NONE);
/// # let _ = wall;
/// ```
///
/// | field | accepted | out of range | NaN / infinite |
/// | --- | --- | --- | --- |
/// | `gain` | `0.0..=1.0` | negative: rejected; above 1: clamped | rejected |
/// | `lowpass_hz` | [`MIN_LOWPASS_HZ`]`..=`[`OPEN_HZ`] (at or above: no filter) | negative: rejected; else clamped | rejected |
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occlusion {
    /// The direct sound's gain through the obstacle (linear, `0..=1`).
    pub gain: f32,
    /// The low-pass cutoff the obstacle makes, in Hz ([`OPEN_HZ`] or above:
    /// none).
    pub lowpass_hz: f32,
}

impl Occlusion {
    /// Nothing in the way: full gain, no filter.
    pub const NONE: Occlusion = Occlusion {
        gain: 1.0,
        lowpass_hz: OPEN_HZ,
    };

    pub(crate) fn validate(&self) -> Result<ValidOcclusion, PlayError> {
        Ok(ValidOcclusion {
            gain: unit_gain("occlusion.gain", self.gain)?,
            lowpass_hz: cutoff("occlusion.lowpass_hz", self.lowpass_hz)?,
        })
    }
}

impl Default for Occlusion {
    fn default() -> Self {
        Occlusion::NONE
    }
}

impl Cone {
    pub(crate) fn validate(&self) -> Result<ValidCone, PlayError> {
        let angle = |name: &'static str, deg: f32| -> Result<f32, PlayError> {
            let deg = finite(name, deg)?;
            if !(0.0..=360.0).contains(&deg) {
                return Err(PlayError::Invalid {
                    name,
                    reason: "must be within 0 to 360 degrees",
                });
            }
            Ok((deg * 0.5).to_radians())
        };
        let inner = angle("cone.inner_deg", self.inner_deg)?;
        let outer = angle("cone.outer_deg", self.outer_deg)?;
        if inner > outer {
            return Err(PlayError::Invalid {
                name: "cone.inner_deg",
                reason: "must be at most outer_deg",
            });
        }
        Ok(ValidCone {
            inner,
            outer,
            outer_gain: unit_gain("cone.outer_gain", self.outer_gain)?,
            outer_lowpass_hz: cutoff("cone.outer_lowpass_hz", self.outer_lowpass_hz)?,
        })
    }
}

/// A gain in `0..=1`: negative rejected, above 1 clamped.
fn unit_gain(name: &'static str, g: f32) -> Result<f32, PlayError> {
    let g = finite(name, g)?;
    if g < 0.0 {
        return Err(PlayError::Invalid {
            name,
            reason: "must not be negative",
        });
    }
    Ok(g.min(1.0))
}

/// A cutoff in `MIN_LOWPASS_HZ..=OPEN_HZ`: negative rejected, else
/// clamped.
fn cutoff(name: &'static str, hz: f32) -> Result<f32, PlayError> {
    let hz = finite(name, hz)?;
    if hz < 0.0 {
        return Err(PlayError::Invalid {
            name,
            reason: "must not be negative",
        });
    }
    Ok(hz.clamp(MIN_LOWPASS_HZ, OPEN_HZ))
}

impl ValidCone {
    /// The gain and cutoff a listener `cos_theta` off the axis gets (the
    /// cosine of the angle between where the emitter faces and where the
    /// listener is from it).
    pub(crate) fn shape(&self, cos_theta: f32) -> (f32, f32) {
        let theta = cos_theta.clamp(-1.0, 1.0).lm_acos();
        if theta <= self.inner {
            return (1.0, OPEN_HZ);
        }
        if theta >= self.outer {
            return (self.outer_gain, self.outer_lowpass_hz);
        }
        let t = (theta - self.inner) / (self.outer - self.inner);
        let gain = 1.0 + (self.outer_gain - 1.0) * t;
        let hz = OPEN_HZ * (self.outer_lowpass_hz / OPEN_HZ).lm_powf(t);
        (gain, hz)
    }
}

/// The direct sound's gain and cutoff for a play `distance` metres away
/// with `toward` the unit vector from the listener to it: its cone (from
/// `orientation`), its occlusion and the air over `distance` times `air`.
pub(crate) fn shape(
    cone: Option<&ValidCone>,
    orientation: Vec3,
    occlusion: ValidOcclusion,
    air: (f32, &AirTable),
    toward: Option<Vec3>,
    distance: f32,
) -> (f32, f32) {
    let (mut gain, mut hz) = (occlusion.gain, occlusion.lowpass_hz);
    if let (Some(cone), Some(toward)) = (cone, toward) {
        // The listener seen from the emitter: `-toward`.
        let cos =
            -(orientation[0] * toward[0] + orientation[1] * toward[1] + orientation[2] * toward[2]);
        let (g, h) = cone.shape(cos);
        gain *= g;
        hz = hz.min(h);
    }
    if air.0 > 0.0 {
        hz = hz.min(air.1.cutoff(distance * air.0));
    }
    (gain, hz)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_cones_and_occlusions_name_their_field() {
        let cone = Cone {
            inner_deg: 60.0,
            outer_deg: 180.0,
            outer_gain: 0.3,
            outer_lowpass_hz: 2_000.0,
        };
        let bad = [
            (
                Cone {
                    inner_deg: f32::NAN,
                    ..cone
                },
                "cone.inner_deg",
            ),
            (
                Cone {
                    outer_deg: 400.0,
                    ..cone
                },
                "cone.outer_deg",
            ),
            (
                Cone {
                    inner_deg: 200.0,
                    ..cone
                },
                "cone.inner_deg",
            ),
            (
                Cone {
                    outer_gain: -0.1,
                    ..cone
                },
                "cone.outer_gain",
            ),
            (
                Cone {
                    outer_lowpass_hz: -5.0,
                    ..cone
                },
                "cone.outer_lowpass_hz",
            ),
        ];
        for (c, field) in bad {
            let e = c.validate().expect_err("bad cone");
            assert!(e.to_string().contains(field), "{c:?}: {e}");
        }
        let clamped = Cone {
            outer_gain: 3.0,
            outer_lowpass_hz: 1e9,
            ..cone
        }
        .validate();
        assert_eq!(
            clamped.map(|c| (c.outer_gain, c.outer_lowpass_hz)),
            Ok((1.0, OPEN_HZ))
        );
        let e = Occlusion {
            gain: -1.0,
            lowpass_hz: 100.0,
        }
        .validate()
        .expect_err("bad");
        assert!(e.to_string().contains("occlusion.gain"));
        let e = Occlusion {
            gain: 0.5,
            lowpass_hz: f32::INFINITY,
        }
        .validate()
        .expect_err("bad");
        assert!(e.to_string().contains("occlusion.lowpass_hz"));
    }
}
