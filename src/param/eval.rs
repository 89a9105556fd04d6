//! Parameters on the audio side: [`Params`], every parameter's value as a
//! glide in output frames, and [`evaluate`], which turns a voice's maps and
//! its own settings into a [`Modulation`]: a gain, a pitch factor, a
//! cutoff and a send level that the space pass folds into what the listener hears of it
//! (`space::mix`), so that fades, stealing and virtual voices see them as
//! they see distance.
//!
//! Real-time contract: the table is allocated whole on the game side when
//! the engine is made; setting and reading values is O(1), evaluating a
//! voice O(maps x points). Nothing allocates, locks or panics.

use crate::cue::{MAX_CUE_DB, MIN_CUE_DB};
use crate::protocol::modulation::{db_to_gain, Glide, Mods, Own, TargetKind, MAX_PARAMS};
use crate::protocol::space::OPEN_HZ;

/// Every parameter's value, global to the engine's plays.
pub(crate) struct Params {
    values: Box<[Glide]>,
    /// The last frame any value changed or will still be moving at: a
    /// voice heard before then is heard again.
    moving_until: u64,
    /// Frame of the last change.
    changed_at: u64,
}

impl Params {
    /// Every parameter at 0 (the game sets each one's first value when it
    /// makes it).
    pub(crate) fn new() -> Params {
        Params {
            values: crate::prefault::filled(Glide::at_rest(0.0), MAX_PARAMS),
            moving_until: 0,
            changed_at: 0,
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.values)
    }

    /// Parameter `index` heads for `value` over `frames` from `now`.
    pub(crate) fn set(&mut self, index: u16, value: f32, now: u64, frames: u32) {
        if let Some(g) = self.values.get_mut(usize::from(index)) {
            g.head_for(value, now, frames);
            self.changed_at = now;
            self.moving_until = self.moving_until.max(now + u64::from(frames));
        }
    }

    /// Parameter `index` at frame `now`.
    pub(crate) fn value(&self, index: u16, now: u64) -> f32 {
        self.values
            .get(usize::from(index))
            .map_or(0.0, |g| g.at(now))
    }

    /// Whether a voice last heard as things were at frame `heard` may
    /// hear something else now: a value changed since, or was still
    /// moving then.
    pub(crate) fn changed_since(&self, heard: u64) -> bool {
        self.changed_at >= heard || self.moving_until > heard
    }
}

/// What a voice's maps do to it now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Modulation {
    /// A factor on its volume.
    pub(crate) gain: f32,
    /// A factor on its pitch.
    pub(crate) pitch: f32,
    /// Its low-pass cutoff, Hz ([`OPEN_HZ`]: none).
    pub(crate) cutoff: f32,
    /// A factor on the level it sends at.
    pub(crate) send: f32,
}

/// Voice maps `mods` at frame `now`, its own settings `own` taking the
/// place of the global values where set.
pub(crate) fn evaluate(mods: &Mods, own: &Own, params: &Params, now: u64) -> Modulation {
    let (mut db, mut pitch, mut cutoff, mut send) = (0.0f32, 1.0f32, OPEN_HZ, 1.0f32);
    for (k, map) in mods.maps().iter().enumerate() {
        let x = if own.set & (1 << k) != 0 {
            own.glides[k].at(now)
        } else {
            params.value(map.param, now)
        };
        let y = map.at(x);
        match map.target {
            TargetKind::VolumeDb => db += y,
            TargetKind::Pitch => pitch *= y,
            TargetKind::LowPassHz => cutoff = cutoff.min(y),
            TargetKind::Send(_) => send *= y,
        }
    }
    Modulation {
        // (Each map's values are clamped; so is their sum.)
        gain: db_to_gain(db.clamp(MIN_CUE_DB, MAX_CUE_DB)),
        pitch,
        cutoff,
        // (Each map's values are clamped; so is their product.)
        send: send.min(crate::protocol::MAX_VOLUME),
    }
}
