//! A cue's values checked as the builder takes them: weights, ranges,
//! the engine of its parameters, and each voice's parameter maps (its
//! cue's and those above it, gathered once, when the cue is built).

use std::sync::Arc;

use super::{CueData, MAX_CUE_DB, MIN_CUE_DB};
use crate::error::PlayError;
use crate::protocol::modulation::{Mods, TargetKind, ValidMap, MAX_MAPS};
use crate::protocol::{MAX_PITCH, MIN_PITCH};

/// Each voice's maps for cue `d` (see [`CueData::voice_mods`]).
pub(super) fn voice_mods(d: &CueData) -> Result<Vec<Option<Arc<Mods>>>, PlayError> {
    let mut out = Vec::with_capacity(d.voices);
    out.push(merged(&d.maps, None)?);
    for layer in &d.layers {
        for below in &layer.data.voice_mods {
            out.push(merged(&d.maps, below.as_deref())?);
        }
    }
    Ok(out)
}

/// `above`'s maps then `below`'s, as one voice's (none: `None`).
fn merged(above: &[ValidMap], below: Option<&Mods>) -> Result<Option<Arc<Mods>>, PlayError> {
    let below = below.map_or(&[][..], Mods::maps);
    let all: Vec<&ValidMap> = above.iter().chain(below).collect();
    if all.is_empty() {
        return Ok(None);
    }
    if all.len() > MAX_MAPS {
        return Err(PlayError::Invalid {
            name: "map",
            reason: "a voice follows at most MAX_CUE_MAPS (4) maps, its cue's and those above",
        });
    }
    let mut sends = all.iter().filter_map(|m| match m.target {
        TargetKind::Send(b) => Some(b),
        _ => None,
    });
    if let Some(first) = sends.next() {
        if sends.any(|b| b != first) {
            return Err(PlayError::Invalid {
                name: "map",
                reason: "a voice sends to one bus: its Send maps name one",
            });
        }
    }
    let mut maps = [*all[0]; MAX_MAPS];
    for (slot, m) in maps.iter_mut().zip(&all) {
        *slot = **m;
    }
    Ok(Some(Arc::new(Mods {
        maps,
        n: all.len() as u8,
    })))
}

/// Records `other` as the engine of a cue's parameters, unless it has
/// one already that differs.
pub(super) fn same_engine(engine: &mut Option<u32>, other: Option<u32>) -> Result<(), PlayError> {
    match (*engine, other) {
        (Some(a), Some(b)) if a != b => Err(PlayError::Invalid {
            name: "map",
            reason: "a cue's parameters are of one engine",
        }),
        (None, b) => {
            *engine = b;
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Running sums of valid weights, one per variation.
pub(super) fn valid_weights(weights: &[f32], variations: usize) -> Result<Vec<f64>, PlayError> {
    if weights.len() != variations {
        return Err(PlayError::Invalid {
            name: "weights",
            reason: "one weight per variation",
        });
    }
    let mut sum = 0.0f64;
    let mut cumulative = Vec::with_capacity(weights.len());
    for &w in weights {
        crate::error::finite("weights", w)?;
        if w < 0.0 {
            return Err(PlayError::Invalid {
                name: "weights",
                reason: "a weight must be 0 or more",
            });
        }
        sum += f64::from(w);
        cumulative.push(sum);
    }
    if sum <= 0.0 {
        return Err(PlayError::Invalid {
            name: "weights",
            reason: "at least one weight must be above 0",
        });
    }
    Ok(cumulative)
}

pub(super) fn valid_pitch_range(lo: f32, hi: f32) -> Result<(f32, f32), PlayError> {
    for x in [lo, hi] {
        if !(x.is_finite() && x > 0.0) {
            return Err(PlayError::InvalidParameter {
                name: "pitch_range",
                value: x,
            });
        }
    }
    if lo > hi {
        return Err(PlayError::Invalid {
            name: "pitch_range",
            reason: "its start must not be above its end",
        });
    }
    Ok((
        lo.clamp(MIN_PITCH, MAX_PITCH),
        hi.clamp(MIN_PITCH, MAX_PITCH),
    ))
}

pub(super) fn valid_db_range(lo: f32, hi: f32) -> Result<(f32, f32), PlayError> {
    for x in [lo, hi] {
        crate::error::finite("volume_range_db", x)?;
    }
    if lo > hi {
        return Err(PlayError::Invalid {
            name: "volume_range_db",
            reason: "its start must not be above its end",
        });
    }
    Ok((
        lo.clamp(MIN_CUE_DB, MAX_CUE_DB),
        hi.clamp(MIN_CUE_DB, MAX_CUE_DB),
    ))
}
