//! A bus volume gliding linearly in dB (a snapshot's blend): followed a
//! chunk at a time, each chunk's linear ramp heading for where the glide
//! will be at its end. Real-time code, under the contract in [`super`].

use super::Buses;
use crate::math::Libm;

/// A glide from `from` to `to` (gains, both above 0) linear in dB over
/// `frames`, `done` of them gone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct DbGlide {
    pub(super) from: f32,
    pub(super) to: f32,
    pub(super) frames: u32,
    pub(super) done: u32,
}

impl DbGlide {
    /// The gain `done` frames in: `from * (to / from)^(done / frames)`.
    fn at(&self, done: u32) -> f32 {
        let t = (done.min(self.frames) as f32) / self.frames.max(1) as f32;
        let db = 20.0 * (self.from.lm_log10() + t * (self.to / self.from).lm_log10());
        crate::protocol::modulation::db_to_gain(db)
    }
}

impl Buses {
    /// Each bus gliding in dB heads, over this chunk, for where its glide
    /// will be at the chunk's end.
    pub(super) fn follow_db_glides(&mut self) {
        let n = self.chunk as u32;
        let mut any = false;
        for bus in self.buses.iter_mut() {
            let Some(g) = bus.db_glide.as_mut() else {
                continue;
            };
            g.done = g.done.saturating_add(n).min(g.frames);
            if g.done >= g.frames {
                bus.volume.to(g.to, n);
                bus.db_glide = None;
            } else {
                let at = g.at(g.done);
                bus.volume.to(at, n);
                any = true;
            }
        }
        self.db_gliding = any;
        self.ramping = true;
    }
}
