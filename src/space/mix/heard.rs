//! How the space pass hears a record: [`Ear`] (a positioned play's
//! distance, direction and doppler, or an unpositioned play's own pan,
//! with its parameter maps folded in), a cell's maps, whether they may
//! give something new, and a play's own parameter values and pan.
//! Mixer-side, under the real-time contract of [`super`]: no allocation,
//! no lock, no panic.

use super::Space;
use crate::param::eval::{evaluate, Params};
use crate::protocol::modulation::Mods;
use crate::protocol::space::OPEN_HZ;
use crate::space::air::AirTable;
use crate::space::positions::Positions;
use crate::space::{hear, Emitter, Heard, ValidListener};

impl Space {
    /// Cell `e`'s maps, if its play has any.
    pub(super) fn mods_of(&self, e: u32) -> Option<&Mods> {
        self.table.as_ref()?.mods.get(e as usize)?.as_deref()
    }

    /// Whether cell `e`'s maps may give something else than when it was
    /// last heard (a parameter set or gliding, its own or the engine's).
    pub(super) fn modulating(&self, e: u32) -> bool {
        let (Some(x), Some(_)) = (self.record(e), self.mods_of(e)) else {
            return false;
        };
        x.own_changed || x.own.moving(self.now) || self.params.changed_since(x.heard_at)
    }

    /// Parameter `param` heads for `value` over `frames` for cell `e`'s
    /// play alone (heard again at the next block, or when ranked if it
    /// is virtual).
    pub(crate) fn set_own(&mut self, e: u32, param: u16, value: f32, frames: u32) {
        let now = self.now;
        let global = self.params.value(param, now);
        let Some(t) = self.table.as_deref_mut() else {
            return;
        };
        let (Some(x), Some(Some(mods))) = (t.records.get_mut(e as usize), t.mods.get(e as usize))
        else {
            return;
        };
        if x.own.set_param(mods, global, param, value, now, frames) {
            x.own_changed = true;
        }
    }

    /// Sets cell `e`'s pan if its play is not positioned (it has a cell
    /// for its maps); returns whether it is not.
    pub(crate) fn set_fixed_pan(&mut self, e: u32, pan: f32) -> bool {
        let Some(x) = self
            .table
            .as_mut()
            .and_then(|t| t.records.get_mut(e as usize))
        else {
            return false;
        };
        match &mut x.at.fixed_pan {
            Some(p) => {
                *p = pan;
                x.heard.pan = pan;
                true
            }
            None => false,
        }
    }
}

/// Record `x`, of cell `e`, brought up to date with where the game last
/// put it (kept as it was while a writer is at the cell).
pub(super) fn fresh(positions: &Positions, x: &mut Emitter, e: u32) {
    if positions.seq(e) != x.seq {
        if let Some(r) = positions.read(e) {
            x.at.position = r.position;
            x.at.velocity = r.velocity;
            x.at.orientation = r.orientation;
            x.at.occlusion = r.occlusion;
            x.seq = r.seq;
        }
    }
}

/// What hearing a record takes: the listener, the air, the parameters and
/// the frame (copied out of [`Space`], so the table can be borrowed
/// apart).
pub(super) struct Ear<'a> {
    pub(super) listener: ValidListener,
    pub(super) speed: f32,
    pub(super) air: &'static AirTable,
    pub(super) params: &'a Params,
    pub(super) now: u64,
}

impl Ear<'_> {
    /// What the listener hears of record `x` now: as `hear` says for a
    /// positioned play, its own pan alone for one that has a cell only
    /// for its maps; and its maps (`mods`) on top, folded in: their gain
    /// into the direct gain, their pitch into the doppler factor, their
    /// cutoff into the lowest, their send level as its own. Marks `x`
    /// heard now.
    pub(super) fn hear(&self, x: &mut Emitter, mods: Option<&Mods>) -> Heard {
        let mut h = match x.at.fixed_pan {
            Some(pan) => Heard {
                gain: 1.0,
                direct: 1.0,
                cutoff: OPEN_HZ,
                pan,
                doppler: 1.0,
                send: 1.0,
            },
            None => hear(&self.listener, &x.at, self.speed, self.air),
        };
        if let Some(mods) = mods {
            let m = evaluate(mods, &x.own, self.params, self.now);
            h.gain *= m.gain;
            h.direct *= m.gain;
            h.doppler *= m.pitch;
            h.cutoff = h.cutoff.min(m.cutoff);
            h.send = m.send;
        }
        x.heard_at = self.now;
        x.own_changed = false;
        h
    }
}
