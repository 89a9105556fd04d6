//! Virtual voices ending: at their end frame, by a `stop_all`, or once a
//! resumed bus lets them move again. One bounded scan does all three: it
//! goes on each block from where the last one stopped, looking at up to
//! [`SCAN_PER_BLOCK`] entries and touching up to [`ENDS_PER_BLOCK`] voices,
//! and a full circle makes the pool's earliest end frame exact again.
//!
//! Real-time contract: as [`super::virtual_voices`]: bounded per block,
//! nothing allocated or freed (a virtual voice's sound is an `Arc` the game
//! side also holds), every event pushed only when the queue has room.

use super::{push_event, Mixer};
use crate::protocol::stats::Counters;
use crate::protocol::{Event, VoiceHandle};
use crate::voices::virtual_pool::HELD;

/// At most this many virtual voices end, or are brought up to date after
/// their bus resumed, per block (each touches the voice: about 100 to
/// 300 ns with a million virtual voices in cold memory); more wait for the
/// next block, and an end keeps its exact frame.
const ENDS_PER_BLOCK: usize = 2_048;
/// At most this many virtual entries are looked at per block for ends
/// (an end frame read, and a start order while a `stop_all` is swept): a
/// pool of up to this many is scanned whole each block something is due;
/// the largest (2^20) in 8 blocks.
pub(crate) const SCAN_PER_BLOCK: usize = 131_072;

impl Mixer {
    /// Virtual entry `i` ends at `frame`.
    pub(crate) fn end_virtual(&mut self, i: usize, frame: u64) {
        if let Some((who, voice, _, _)) = self.unpark(i) {
            drop(voice); // an Arc decrement: the game side holds the sound
            self.space.release(who.emitter);
            Counters::bump(&self.counters.ended);
            let voice = VoiceHandle::new(self.engine, who.id);
            push_event(
                &mut self.events,
                &self.counters,
                frame,
                Event::Ended { voice },
            );
        }
    }

    /// `stop_all`: every virtual voice ends at this block's start. O(1):
    /// the expiry scan ends them (as many per block as the event queue and
    /// [`ENDS_PER_BLOCK`] allow), and until then a stopped voice neither
    /// comes back nor takes a command, and is the first to make room.
    pub(crate) fn stop_all_virtual(&mut self) {
        self.virtuals.stop_all(self.next_order, self.frame);
    }

    /// The frame virtual entry `i`, stopped by a `stop_all`, ends at: the
    /// stop, or its own end if that came first (not reported yet).
    pub(crate) fn stop_frame(&self, i: usize) -> u64 {
        let stop = self.virtuals.stopped_at(i).unwrap_or(self.frame);
        self.virtuals.ends(i).min(stop)
    }

    /// Buses were resumed: virtual voices that a pause held may come back
    /// now, and get their end frames back from the expiry scan (a bounded
    /// number per block, see [`Mixer::expire_virtual`]).
    pub(crate) fn buses_resumed_virtual(&mut self) {
        self.room_changed = true;
        self.virtuals.recheck_held();
    }

    /// Ends the virtual voices whose end frame has come, and those a
    /// `stop_all` stopped, and works out the end frames of voices a
    /// resumed bus held: a bounded scan that goes on from where the last
    /// block's stopped.
    pub(crate) fn expire_virtual(&mut self) {
        let now = self.frame;
        let mut work = 0;
        for _ in 0..self.virtuals.len().min(SCAN_PER_BLOCK) {
            if !self.virtuals.any_due(now) {
                break;
            }
            if work >= ENDS_PER_BLOCK || !self.room_for(1) {
                break;
            }
            let i = self.virtuals.scan_next();
            let ends = self.virtuals.ends(i);
            if self.virtuals.stopped_at(i).is_some() {
                let at = self.stop_frame(i);
                self.end_virtual(i, at);
                work += 1;
            } else if ends <= now || (ends == HELD && self.virtuals.rechecking_held()) {
                let buses = &self.buses;
                if let Some((v, clock)) = self.virtuals.get_mut(i) {
                    if ends == HELD && buses.is_frozen(v.bus()) {
                        // Still held (its bus was not the one resumed).
                    } else if let Some(at) = Self::catch_up(buses, v, clock, now) {
                        self.end_virtual(i, at.min(ends));
                        work += 1;
                    } else if v.is_finished() {
                        self.end_virtual(i, ends.min(now));
                        work += 1;
                    } else {
                        // Held by a paused bus, moved by a change, or its
                        // bus resumed: its end frame as it is now.
                        let next = Self::end_frame(buses, v, now);
                        let next = if ends <= now { next.max(now + 1) } else { next };
                        self.virtuals.set_ends(i, next);
                        work += 1;
                    }
                }
            }
            self.virtuals.scanned();
        }
    }
}
