//! Running a bus's effects under guard: a game's own effect
//! ([`crate::CustomEffect`]) is trusted with nothing. A panic is caught
//! and the effect switched off (its bus passes silence from then on); an
//! allocation is seen where [`crate::alloc_check`] counts; output that is
//! NaN, infinite or past [`CEILING`] is silenced for that piece. Each
//! fault is noted once per kind on the effect's [`EffectHealth`], for the
//! mixer to report.
//!
//! Real-time contract: no allocation, lock or wait of its own. Catching a
//! panic costs nothing until one happens; the panic itself (a game's bug)
//! allocates and prints, once, as any panic does.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alloc_check;
use crate::bus::{CustomEffect, EffectHealth};
use crate::protocol::bus::ParamChange;
use crate::protocol::EffectFault;

use crate::bus::mix::peak_of_both;

/// The largest magnitude a bus passes on: above it a piece is taken for
/// an overflow in the making (a sum of sane sounds never comes near).
pub(crate) const CEILING: f32 = 1e30;

impl EffectHealth {
    fn bit(fault: EffectFault) -> u8 {
        match fault {
            EffectFault::Panicked => 1,
            EffectFault::Allocated => 2,
            EffectFault::NotFinite => 4,
        }
    }

    fn note(&mut self, fault: EffectFault) {
        let bit = Self::bit(fault);
        if self.seen & bit == 0 {
            self.seen |= bit;
            self.pending |= bit;
        }
    }

    /// Hands the faults not yet reported to `f`, at most `room` of them,
    /// each once (those left over stay pending).
    pub(crate) fn take_pending(&mut self, room: &mut usize, mut f: impl FnMut(EffectFault)) {
        for fault in [
            EffectFault::Panicked,
            EffectFault::Allocated,
            EffectFault::NotFinite,
        ] {
            let bit = Self::bit(fault);
            if self.pending & bit != 0 && *room > 0 {
                *room -= 1;
                self.pending &= !bit;
                f(fault);
            }
        }
    }
}

/// Whether every sample of both channels is finite and within [`CEILING`].
#[inline]
pub(crate) fn sane(l: &[f32], r: &[f32]) -> bool {
    // (A NaN compares false.)
    peak_of_both(l, r) <= CEILING
}

/// Runs `effect` on one piece of its bus. Returns whether a fault waits
/// to be reported.
pub(crate) fn process(
    effect: &mut dyn CustomEffect,
    health: &mut EffectHealth,
    l: &mut [f32],
    r: &mut [f32],
) -> bool {
    if !health.custom {
        // The built-in ones keep the contract, and heal themselves from a
        // piece too loud for `f32` (that piece is lost).
        effect.process(l, r);
        return false;
    }
    // (A dead effect is not called: its piece is silence, below.)
    guarded(health, (), || effect.process(l, r));
    if health.dead || !sane(l, r) {
        if !health.dead {
            health.note(EffectFault::NotFinite);
        }
        l.fill(0.0);
        r.fill(0.0);
    }
    health.pending != 0
}

/// Calls `f` (one of a game's effect's methods) caught and watched: a
/// panic switches the effect off (its payload kept, not freed here: a few
/// bytes, once per effect), an allocation is noted; `dead` when it
/// panicked (or had before). A built-in effect's call runs as it is.
fn guarded<T>(health: &mut EffectHealth, dead: T, f: impl FnOnce() -> T) -> T {
    if health.dead {
        return dead;
    }
    if !health.custom {
        return f();
    }
    let before = alloc_check::watch();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => {
            if before.is_some_and(|n| alloc_check::allocations() != n) {
                health.note(EffectFault::Allocated);
            }
            v
        }
        Err(payload) => {
            std::mem::forget(payload);
            health.dead = true;
            health.note(EffectFault::Panicked);
            dead
        }
    }
}

/// [`CustomEffect::is_idle`], guarded (a dead effect is idle).
pub(crate) fn is_idle(effect: &dyn CustomEffect, health: &mut EffectHealth) -> bool {
    guarded(health, true, || effect.is_idle())
}

/// [`CustomEffect::power_gain`], guarded (a dead effect passes nothing).
pub(crate) fn power_gain(effect: &dyn CustomEffect, health: &mut EffectHealth, hz: f32) -> f32 {
    guarded(health, 0.0, || effect.power_gain(hz))
}

/// [`CustomEffect::set_param`] or [`CustomEffect::set_custom_param`],
/// guarded.
pub(crate) fn set_param(
    effect: &mut dyn CustomEffect,
    health: &mut EffectHealth,
    param: ParamChange,
    frames: u32,
) {
    guarded(health, (), || match param {
        ParamChange::Builtin(p) => effect.set_param(p, frames),
        ParamChange::Custom { id, value } => effect.set_custom_param(id, value, frames),
    })
}
