//! The mixer's side of virtual voices: moving voices into the virtual pool
//! and back, and keeping their time (ending them is
//! [`super::virtual_ends`]). The voice manager
//! ([`crate::voices::virtual_pool`], [`crate::voices::VoicePool::comeback`])
//! decides who goes and who comes back; this joins its decisions to the
//! voices' state ([`Voice::skip`], [`Voice::wake`]) and reports events.
//!
//! Real-time contract: everything here runs inside [`Mixer::process`] and
//! keeps its rules. Per block: O(1) unless a virtual voice is due to end,
//! a `stop_all` is being swept or a resumed bus's voices are being brought
//! up to date (then the bounded scan of [`super::virtual_ends`]), the
//! bounded level keeping of [`super::virtual_levels`], at most
//! [`RESUMES_PER_BLOCK`] comebacks into free
//! slots and one search every [`SWAP_PERIOD`] frames (each reads the
//! virtual pool's span summaries and the spans changed since). `stop_all`
//! and a bus resume are O(1) here (the expiry scan does their work).
//! Every event is pushed only when the event queue has room for it; what
//! cannot be reported now is done in a later block (an end keeps its exact
//! frame).

use std::sync::atomic::Ordering::Relaxed;

use super::heard::heard_virtual;
use super::virtual_ends::SCAN_PER_BLOCK;
use super::{level_of, ranked, Mixer};
use crate::bus::mix::Buses;
use crate::protocol::stats::Counters;
use crate::protocol::{Event, VoiceHandle};
use crate::render::voice::Voice;
use crate::voices::virtual_pool::{Clock, Parked, VirtualPool, HELD, NEVER};
use crate::voices::{Comeback, Identity, Newcomer, Rank};
use ringbuf::traits::Observer;

/// At most this many virtual voices come back into free slots per block.
const RESUMES_PER_BLOCK: usize = 4;
/// How often the most deserving virtual voice may take the slot of a less
/// audible real voice, in output frames (about 21 ms at 48 kHz).
pub(crate) const SWAP_PERIOD: u64 = 1024;
/// How much more audible (in power: 3 dB) than the real voice it would
/// replace a virtual voice of the same priority must be to take its slot:
/// the hysteresis that keeps voices of similar audibility from trading
/// places back and forth.
pub(crate) const SWAP_MARGIN: f32 = 2.0;
/// A voice that came back less than this long ago (in seconds) is not
/// sent away by another voice coming back, and counts as just started for
/// stealing's age rule; a real voice younger than this is sent away only
/// by a voice more audible by a margin that grows as its age falls (see
/// `VoicePool::comeback`). What bounds how often a voice can change
/// places: at most one round trip per second.
pub(crate) const SWAP_HOLD_SECONDS: u64 = 1;
/// A virtual voice comes back into a free slot once the pool has had a
/// free slot for this long (in milliseconds): in a burst, slots free and
/// fill again within a few milliseconds, and a voice brought back into each
/// would flicker in and out; after the burst, it comes back at once.
pub(crate) const COMEBACK_SETTLE_MS: u64 = 50;

/// What an attempt to bring a virtual voice back did.
enum Outcome {
    /// One came back.
    Back,
    /// None can come back until something changes.
    Nobody,
    /// One could, in a later block.
    Later,
}

impl Mixer {
    /// Brings virtual voice `v` (with its `clock`) up to frame `now`;
    /// `Some(frame)` if it ended, at that frame (frames its bus held it by
    /// a pause not counted: an end within a hold is placed as if none).
    pub(crate) fn catch_up(
        buses: &Buses,
        v: &mut Voice,
        clock: &mut Clock,
        now: u64,
    ) -> Option<u64> {
        let held = buses.held_frames(v.bus());
        let since = clock.since;
        let elapsed = now
            .saturating_sub(since)
            .saturating_sub(held.saturating_sub(clock.held));
        *clock = Clock { since: now, held };
        v.skip(elapsed).map(|k| (since + k).min(now))
    }

    /// The frame voice `v`, up to date at `now`, ends at if nothing
    /// changes ([`HELD`] while its bus holds it: worked out by the expiry
    /// scan after the bus resumes).
    pub(crate) fn end_frame(buses: &Buses, v: &Voice, now: u64) -> u64 {
        if buses.is_frozen(v.bus()) {
            return HELD;
        }
        v.frames_left().map_or(NEVER, |k| now.saturating_add(k))
    }

    /// Puts `voice` (of identity `who`, start order `order`) into the
    /// virtual pool, up to date at this block's start. With the pool full,
    /// the least deserving virtual voice makes room (it ends: `Stolen` by
    /// `by`), unless this one deserves it less still: then it is given
    /// back.
    pub(crate) fn park(
        &mut self,
        who: Identity,
        voice: Voice,
        order: u64,
        by: VoiceHandle,
    ) -> Result<(), Voice> {
        let now = self.frame;
        let ahead = self.space.ahead_of(&who);
        let level = level_of(
            &self.audibility,
            &self.buses,
            &voice,
            ahead,
            self.space.send_of(&who),
        );
        let heard = heard_virtual(&mut self.masking, &voice, level, &ahead, self.out_rate);
        let parked = Parked {
            who,
            ends: Self::end_frame(&self.buses, &voice, now),
            clock: Clock {
                since: now,
                held: self.buses.held_frames(voice.bus()),
            },
            voice,
            level,
            heard,
            order,
        };
        let parked = match self.virtuals.insert(parked) {
            Ok(i) => {
                self.parked(i);
                return Ok(());
            }
            Err(p) => p,
        };
        if let Some(j) = self.virtuals.find_stopped(SCAN_PER_BLOCK) {
            // Stopped already (by `stop_all`), its end not yet reported:
            // it makes room first, ending as stopped, at the frame it was.
            let at = self.stop_frame(j);
            self.end_virtual(j, at);
            return match self.virtuals.insert(parked) {
                Ok(i) => {
                    self.parked(i);
                    Ok(())
                }
                Err(p) => Err(p.voice),
            };
        }
        self.virtuals.clean();
        let Some((j, least)) = self.virtuals.least() else {
            return Err(parked.voice); // no virtual pool at all
        };
        if VirtualPool::<Voice>::key_of(&who, level) <= least {
            return Err(parked.voice);
        }
        if let Some((gone, old, _, _)) = self.virtuals.remove(j) {
            drop(old); // an Arc decrement: the game side holds the sound
            self.space.release(gone.emitter);
            self.counters.publish_virtual(j, 0, 0.0);
            Counters::bump(&self.counters.steals);
            Counters::bump(&self.counters.virtual_dropped);
            let victim = VoiceHandle::new(self.engine, gone.id);
            self.event(Event::Stolen { victim, by });
        }
        match self.virtuals.insert(parked) {
            Ok(i) => {
                self.parked(i);
                Ok(())
            }
            Err(p) => Err(p.voice),
        }
    }

    /// Entry `i` was just filled: publish it.
    fn parked(&mut self, i: usize) {
        self.room_changed = true;
        let who = self.virtuals.who(i);
        let level = self.virtuals.level(i);
        self.counters.publish_virtual(i, who.id, level.sqrt());
        let live = self.virtuals.live() as u64;
        self.counters.virtual_active.store(live, Relaxed);
        self.counters.virtual_peak.fetch_max(live, Relaxed);
    }

    /// Reports that `voice` went virtual.
    pub(crate) fn virtualized(&mut self, voice: VoiceHandle) {
        Counters::bump(&self.counters.virtualized);
        self.event(Event::Virtualized { voice });
    }

    /// Takes virtual entry `i` out, and publishes that.
    pub(crate) fn unpark(&mut self, i: usize) -> Option<(Identity, Voice, u64, Clock)> {
        let out = self.virtuals.remove(i)?;
        self.counters.publish_virtual(i, 0, 0.0);
        let live = self.virtuals.live() as u64;
        self.counters.virtual_active.store(live, Relaxed);
        Some(out)
    }

    /// Applies `f` to virtual voice `id` (nothing if there is none), up
    /// to date at this block's start. A stop ends it at once: it is
    /// silent already.
    pub(crate) fn update_virtual(&mut self, id: u64, f: impl FnOnce(&mut Voice)) {
        let Some(i) = self.virtuals.find(id) else {
            return;
        };
        if self.virtuals.stopped_at(i).is_some() {
            // Stopped by a `stop_all` already: nothing changes it now.
            let at = self.stop_frame(i);
            self.end_virtual(i, at);
            return;
        }
        let now = self.frame;
        let who = self.virtuals.who(i);
        let (ahead, send) = (self.space.ahead_of(&who), self.space.send_of(&who));
        let (buses, space, masking) = (&self.buses, &mut self.space, &mut *self.masking);
        let Some((v, clock)) = self.virtuals.get_mut(i) else {
            return;
        };
        let ended = Self::catch_up(buses, v, clock, now).is_some();
        // A fade a move cut short goes on first (as for a real voice).
        space.settle(who.emitter, v);
        f(v);
        if ended || v.is_stopping() {
            // A stop ends it at this block's start; a one-shot whose end
            // was not reported yet ends when it did.
            let at = if ended {
                self.virtuals.ends(i).min(now)
            } else {
                now
            };
            self.end_virtual(i, at);
            return;
        }
        let level = level_of(&self.audibility, buses, v, ahead, send);
        let heard = heard_virtual(masking, v, level, &ahead, self.out_rate);
        let ends = Self::end_frame(buses, v, now);
        self.virtuals.set_heard_level(i, level, heard);
        self.virtuals.set_ends(i, ends);
        self.counters.publish_virtual(i, id, (level * heard).sqrt());
    }

    /// End of a block of `frames`, at `self.frame`: virtual voices due end,
    /// some are re-ranked, and the most deserving come back into free slots
    /// or, now and then, in place of a much less audible real voice.
    pub(crate) fn keep_virtual_time(&mut self, frames: usize) {
        if self.virtuals.live() == 0 {
            return;
        }
        if self.virtuals.any_due(self.frame) {
            self.expire_virtual();
        }
        self.refresh_virtual(frames);
        if self.virtuals.sweeping() {
            // Comebacks wait for the sweep: until it is over, most of the
            // pool may be stopped voices a search would have to pass over
            // (a sweep takes one block per `ENDS_PER_BLOCK` stopped voices).
            return;
        }
        if self.room_changed && self.settled() {
            for _ in 0..RESUMES_PER_BLOCK {
                match self.resume_one(false) {
                    Outcome::Back => continue,
                    // Nobody can come back now: wait for the next change.
                    Outcome::Nobody => self.room_changed = false,
                    // Someone could, in a later block (no event room yet).
                    Outcome::Later => {}
                }
                break;
            }
        }
        if self.frame >= self.next_swap {
            self.next_swap = self.frame + SWAP_PERIOD;
            self.resume_one(true);
        }
    }

    /// Whether the pool has had a free slot long enough for a virtual
    /// voice to come back into it.
    fn settled(&self) -> bool {
        let settle = COMEBACK_SETTLE_MS * u64::from(self.out_rate) / 1_000;
        self.free_since
            .is_some_and(|f| self.frame.saturating_sub(f) >= settle)
    }

    /// Room in the event queue for `n` more events, beyond one `Ended` per
    /// real voice (which rendering may need).
    pub(crate) fn room_for(&self, n: usize) -> bool {
        self.events.vacant_len() >= self.pool.live() + n
    }

    /// Whether virtual entry `i` could come back now: not held (paused,
    /// or on a paused bus: it would come back silent and send an audible
    /// voice away), and, for a free slot (`free`), its group has room,
    /// else its group could make room.
    fn may_come_back(&self, i: usize, who: &Identity, free: bool) -> bool {
        let Some(v) = self.virtuals.voice(i) else {
            return false;
        };
        if self.virtuals.stopped_at(i).is_some() {
            return false;
        }
        if v.is_held() || self.buses.is_frozen(v.bus()) {
            return false;
        }
        // Outside the audible window (6 dB inside it, to come back), it
        // stays virtual; a less deserving one (of lower priority, say) may
        // be inside.
        if !self.window_allows(self.virtuals.level(i)) {
            return false;
        }
        if free {
            self.pool.has_room(who.group)
        } else {
            self.pool.may_replace_for(who.group)
        }
    }

    /// Brings back the most deserving virtual voice that may come back:
    /// into a free slot (`swap` false: only voices whose group has room,
    /// once the pool has had a free slot for the settle time), or (`swap`
    /// true) wherever the voice manager lets it, in place of a less
    /// audible voice if need be.
    fn resume_one(&mut self, swap: bool) -> Outcome {
        if !self.room_for(2) {
            return Outcome::Later;
        }
        let now = self.frame;
        let free = self.pool.live() < self.pool.len() && self.settled();
        let candidate = if swap {
            // Usually the cached most deserving entry; if it cannot come
            // back, a search for the most deserving that can.
            let top = self.virtuals.top();
            match top.filter(|&i| self.may_come_back(i, &self.virtuals.who(i), false)) {
                Some(i) => Some(i),
                None => {
                    self.virtuals.clean();
                    self.virtuals
                        .best(|i, who| Some(i) != top && self.may_come_back(i, who, false))
                }
            }
        } else if free {
            self.virtuals.clean();
            self.virtuals
                .best(|i, who| self.may_come_back(i, who, true))
        } else {
            None
        };
        let Some(i) = candidate else {
            return Outcome::Nobody;
        };
        let (who, level) = (self.virtuals.who(i), self.virtuals.level(i));
        let hold = SWAP_HOLD_SECONDS * u64::from(self.out_rate);
        let margin = (SWAP_MARGIN, hold);
        let Some(place) = self.pool.comeback(who, level, now, self.rules, margin) else {
            return Outcome::Nobody;
        };
        if place == Comeback::Free && !free {
            // A slot is free but has not stayed free long enough.
            return Outcome::Later;
        }
        if !swap && place != Comeback::Free {
            return Outcome::Nobody;
        }
        let buses = &self.buses;
        let Some((v, clock)) = self.virtuals.get_mut(i) else {
            return Outcome::Nobody;
        };
        if let Some(at) = Self::catch_up(buses, v, clock, now) {
            // Over already (its end not reported yet): due this block.
            let at = at.min(self.virtuals.ends(i));
            self.virtuals.set_ends(i, at);
            return Outcome::Later;
        }
        if v.is_finished() {
            self.virtuals.set_ends(i, now.min(self.virtuals.ends(i)));
            return Outcome::Later;
        }
        let Some((who, mut voice, order, _)) = self.unpark(i) else {
            return Outcome::Nobody;
        };
        Self::hear_virtual(
            (&mut self.space, (&mut self.direct, &mut self.glides)),
            &who,
            &mut voice,
            self.out_rate,
        );
        voice.wake(self.steal_fade);
        let Rank { level, ends, .. } = ranked(
            &self.audibility,
            &self.buses,
            &self.streams,
            &voice,
            (self.space.ahead_of(&who), self.space.send_of(&who)),
            now,
        );
        let handle = VoiceHandle::new(self.engine, who.id);
        // Held as just started for a hold: it is not sent away again (by
        // stealing's preference for older voices, or by another voice
        // coming back) before a second has passed.
        let hold = SWAP_HOLD_SECONDS * u64::from(self.out_rate);
        let new = Newcomer {
            who,
            voice,
            level,
            ends,
            held: hold.saturating_sub(self.rules.min_age),
            order,
            now,
            fresh: None,
            later_layer: false,
        };
        match place {
            Comeback::Free => {
                if let Err(back) = self.pool.acquire(new) {
                    // Cannot happen (a slot was free); keep it virtual.
                    self.reinsert(back.who, back.voice, back.order);
                    return Outcome::Nobody;
                }
            }
            Comeback::Replace(slot) => match self.pool.replace(slot, new) {
                Ok(old) => {
                    self.resumed(handle);
                    self.displace(old, handle);
                    return Outcome::Back;
                }
                Err(voice) => {
                    // Cannot happen (the slot was live); keep it virtual.
                    self.reinsert(who, voice, order);
                    return Outcome::Nobody;
                }
            },
        }
        self.resumed(handle);
        Outcome::Back
    }

    /// Puts a voice that could not come back into the virtual pool again
    /// (there is room: it just left).
    fn reinsert(&mut self, who: Identity, voice: Voice, order: u64) {
        let by = VoiceHandle::new(self.engine, who.id);
        if let Err(voice) = self.park(who, voice, order, by) {
            // No room after all: it ends, as every play must.
            drop(voice);
            self.space.release(who.emitter);
            Counters::bump(&self.counters.ended);
            self.event(Event::Ended { voice: by });
        }
    }

    fn resumed(&mut self, voice: VoiceHandle) {
        Counters::bump(&self.counters.resumed);
        let live = self.pool.live() as u64;
        self.counters.active.store(live, Relaxed);
        self.counters.peak.fetch_max(live, Relaxed);
        self.event(Event::Resumed { voice });
    }
}
