//! Virtual voices' levels kept current: a bounded number of full
//! estimates a block, round robin, and, while the listener moves, each
//! positioned virtual voice's level re-scaled for where it is heard from
//! now. Real-time contract: as [`Mixer::process`]'s, bounded per block.

use super::heard::heard_virtual;
use super::{level_of, Mixer};
use crate::voices::NO_EMITTER;

/// Every virtual voice's audibility is re-estimated at least once per this
/// many output frames (250 ms at 48 kHz), unless that would take more than
/// [`REFRESHES_PER_BLOCK`] estimates in a block: a virtual voice's rank
/// decides when it comes back, not what is heard now, so it may be older
/// than a real voice's.
const VIRTUAL_REFRESH_FRAMES: usize = 12_000;
/// At most this many virtual voices are re-estimated per block (about
/// 50 ns each): with 10,000 virtual voices each is re-estimated every
/// 300 or so blocks.
const REFRESHES_PER_BLOCK: usize = 32;
/// At most this many positioned virtual voices have their level re-scaled
/// by where the listener is now per block ([`Space::regain`]: a distance
/// and the distance model, about 12 ns each), while the listener moves:
/// 10,000 emitters are all re-ranked for a walking listener within 10
/// blocks, and 20,000 for one that jumped within 5 (at
/// [`RESCALES_PER_BLOCK_JUMPED`]).
///
/// [`Space::regain`]: crate::space::mix::Space::regain
const RESCALES_PER_BLOCK: usize = 1_024;
/// As [`RESCALES_PER_BLOCK`], for the blocks after the listener jumped.
const RESCALES_PER_BLOCK_JUMPED: usize = 4_096;

impl Mixer {
    /// Re-estimates a bounded number of virtual voices' audibility.
    pub(crate) fn refresh_virtual(&mut self, frames: usize) {
        let count = (self.virtuals.len() * frames)
            .div_ceil(VIRTUAL_REFRESH_FRAMES)
            .min(REFRESHES_PER_BLOCK);
        let (now, audibility, buses) = (self.frame, self.audibility, &self.buses);
        let (counters, space, out_rate) = (&self.counters, &mut self.space, self.out_rate);
        let (filters, glides) = (&mut self.direct, &mut self.glides);
        let masking = &mut *self.masking;
        self.virtuals.refresh(count, |i, who, v, clock, ends| {
            let ended = Self::catch_up(buses, v, clock, now);
            // A positioned voice ranks by where it is now, and will be.
            Self::hear_virtual((space, (&mut *filters, &mut *glides)), who, v, out_rate);
            let ahead = space.ahead_of(who);
            let level = level_of(&audibility, buses, v, ahead, space.send_of(who));
            // What of it the voices sounding would leave audible (a
            // virtual voice is not in the mix: all of it masks).
            let heard = heard_virtual(masking, v, level, &ahead, out_rate);
            counters.publish_virtual_level(i, (level * heard).sqrt());
            // An end not reported yet keeps its frame.
            let new_end = match ended {
                Some(at) => at.min(ends),
                None => Self::end_frame(buses, v, now),
            };
            (level, heard, new_end)
        });
        let (moved, jumped) = self.space.take_listener_news();
        if moved {
            // Every virtual voice is re-scaled once for where the listener
            // is now (a still listener costs nothing here).
            self.rescale_left = self.virtuals.len();
        }
        if jumped {
            // The listener jumped: re-scaled at the fast rate, and no swap
            // until every virtual voice has been, or the first swaps would
            // bring back whoever happened to be re-scaled first, held
            // there for a second.
            let blocks = self.virtuals.len().div_ceil(RESCALES_PER_BLOCK_JUMPED);
            self.rescale_fast = blocks;
            self.next_swap = self.frame + (blocks as u64 + 1) * frames as u64;
        }
        if self.rescale_left > 0 && self.space.live() > 0 {
            let rate = if self.rescale_fast > 0 {
                self.rescale_fast -= 1;
                RESCALES_PER_BLOCK_JUMPED
            } else {
                RESCALES_PER_BLOCK
            };
            let count = rate.min(self.rescale_left);
            self.rescale_left -= count;
            let (space, counters) = (&self.space, &self.counters);
            self.virtuals.rescale(
                count,
                |who| {
                    (who.emitter != NO_EMITTER)
                        .then(|| space.regain(who.emitter))
                        .flatten()
                },
                // What `virtual_slots` shows is what the comeback ranks by.
                |i, level| counters.publish_virtual_level(i, level.sqrt()),
            );
        }
    }
}
