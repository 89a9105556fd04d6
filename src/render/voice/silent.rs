//! Keeping time without sounding: a virtual voice (one that lost its slot
//! but asked to come back) is forked from the voice it was, moved on by
//! whole blocks in O(1) ([`Voice::skip`]), and woken with a fade-in to the
//! sample it would have reached.
//!
//! Real-time contract: runs on the audio thread; plain arithmetic on the
//! voice (a fork clones an `Arc`, never the sample data), nothing allocated
//! or locked.

use super::{Phase, Voice};
use crate::render::kernel::FRAC_BITS;

impl Voice {
    /// A copy of this voice (sharing its sample data): a stolen voice that
    /// goes virtual fades out as one copy and keeps time as the other.
    pub(crate) fn fork(&self) -> Voice {
        self.clone()
    }

    /// Moves the voice on by `n` output frames without rendering them,
    /// exactly as rendering would have: its start delay, its position (in
    /// the same fixed-point arithmetic, wrapping a loop), its gain ramp, a
    /// pause's fade. What a virtual voice does to keep time. Returns
    /// `Some(k)` if it ended after `k` of those frames (a one-shot reached
    /// its end, or a stop's fade finished). O(1) whatever `n` is.
    pub(crate) fn skip(&mut self, n: u64) -> Option<u64> {
        if self.is_finished() {
            return Some(0);
        }
        if self.phase == Phase::Paused {
            return None;
        }
        let wait = u64::from(self.delay).min(n);
        self.delay -= wait as u32;
        let n = n - wait;
        let moving = match self.phase {
            Phase::Pausing | Phase::Stopping => n.min(u64::from(self.ramp_left)),
            _ => n,
        };
        if let Some(k) = self.advance_position(moving) {
            return Some(wait + k);
        }
        let d = self.ramp_delta();
        self.advance_ramp(moving.min(u64::from(u32::MAX)) as u32, d);
        match self.phase {
            Phase::Pausing if self.ramp_left == 0 => self.phase = Phase::Paused,
            Phase::Stopping if self.ramp_left == 0 => return Some(wait + moving),
            _ => {}
        }
        None
    }

    /// Output frames until it ends if nothing changes (its wait, then the
    /// rest of a one-shot, or a stop's fade); `None` if it never ends by
    /// itself (a loop, or paused, or pausing before its end).
    pub(crate) fn frames_left(&self) -> Option<u64> {
        if self.is_finished() {
            return Some(0);
        }
        let to_end = (!self.looping).then(|| self.frames_to_end());
        let left = match self.phase {
            Phase::Paused => None,
            Phase::Playing => to_end,
            Phase::Pausing => to_end.filter(|&k| k <= u64::from(self.ramp_left)),
            Phase::Stopping => Some(to_end.map_or(u64::from(self.ramp_left), |k| {
                k.min(u64::from(self.ramp_left))
            })),
        };
        left.map(|k| k + u64::from(self.delay))
    }

    /// Output frames a one-shot has left to play from its position.
    fn frames_to_end(&self) -> u64 {
        let end = (self.sound.frames as u64) << FRAC_BITS;
        end.saturating_sub(self.pos).div_ceil(self.step)
    }

    /// Moves the position on by `m` output frames; `Some(k)` if a one-shot
    /// reached its end after `k` of them.
    fn advance_position(&mut self, m: u64) -> Option<u64> {
        if self.looping {
            // Congruent, modulo the sound's length, to where rendering would
            // have left it (rendering wraps by the loop tile's period, a
            // multiple of it, and reads the same samples there).
            let len = ((self.sound.frames as u64) << FRAC_BITS).max(1);
            let moved = self
                .step
                .checked_mul(m)
                .and_then(|d| d.checked_add(self.pos));
            self.pos = match moved {
                Some(pos) => pos % len,
                // Beyond 2^64 (hours of a fast loop unrefreshed): exact
                // in 128 bits.
                None => {
                    let pos = u128::from(self.pos) + u128::from(self.step) * u128::from(m);
                    (pos % u128::from(len)) as u64
                }
            };
            return None;
        }
        let left = self.frames_to_end();
        if m >= left {
            self.pos = self.pos.max((self.sound.frames as u64) << FRAC_BITS);
            return Some(left);
        }
        self.pos += self.step * m;
        None
    }

    /// Comes back from keeping time silently: fades in over `frames` (or
    /// what is left of a fade in progress, if longer) toward the gain it
    /// would have now, so that once the fade is over it sounds exactly as
    /// if it had never stopped. A voice still waiting for its start needs
    /// no fade; a pausing or paused one stays silent.
    pub(crate) fn wake(&mut self, frames: u32) {
        if self.delay > 0 {
            return;
        }
        match self.phase {
            Phase::Playing => {
                let (target, left) = (self.target, self.ramp_left);
                self.gain = [0.0; 2];
                self.ramp_to(target, frames.max(left));
            }
            Phase::Pausing => self.gain = [0.0; 2],
            Phase::Paused | Phase::Stopping => {}
        }
    }
}
