//! [`GameState`]: what the game side keeps behind its mutex: the event
//! backlog pumped from the audio side's ring, the live plays and what they
//! play, and the keep-alive list of sounds the audio side may still hold.
//! Only game threads ever take the mutex; nothing here runs on the audio
//! thread.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use ringbuf::traits::Consumer;
use ringbuf::HeapCons;

use super::voice_info::{IdMap, PlayInfo, Retired};
use crate::cue::plays::{CuePlays, Mapped};
use crate::protocol::modulation::Mods;
use crate::protocol::stats::Counters;
use crate::protocol::{EngineId, Event, TimedEvent, VoiceHandle};
use crate::sound::SoundData;

/// Guarded by a mutex that only game threads ever take.
pub(crate) struct GameState {
    pub(crate) events: HeapCons<TimedEvent>,
    /// Events reported by a live output stream's error callback (a second
    /// single-producer queue: that callback may run on its own thread).
    pub(crate) stream_events: Option<HeapCons<TimedEvent>>,
    /// Events pumped out of the ring, waiting for `drain_events`.
    pub(crate) backlog: VecDeque<TimedEvent>,
    pub(crate) backlog_capacity: usize,
    /// Ids played whose terminal event has not been seen yet, and what
    /// they play.
    pub(crate) live: IdMap<PlayInfo>,
    /// What the most recently ended plays played (for naming the voices in
    /// events already drained).
    pub(crate) retired: Retired,
    /// Plays with an id below this were made before the last `stop_all`:
    /// no longer playing for the game, whatever events are still to come.
    pub(crate) stopped_below: u64,
    /// Groups and buses created so far.
    pub(crate) groups_made: usize,
    pub(crate) buses_made: usize,
    /// Per bus made (bus 1 first), the kinds of its effects.
    pub(crate) bus_effects: Vec<Vec<crate::bus::control::EffectKind>>,
    /// Per bus made (bus 1 first), the bus it feeds.
    pub(crate) bus_outputs: Vec<u16>,
    /// One reference to each sound that may be in flight, so the audio side
    /// never drops the last one.
    pub(crate) in_flight: KeepAlive<SoundData>,
    /// Stream slots and the loader.
    pub(crate) streams: crate::stream::control::StreamSlots,
    /// The emitter table's cells, once a positioned play was made.
    pub(crate) space: crate::space::control::GameSpace,
    /// The cues' generator and picking state.
    pub(crate) picks: crate::cue::pick::Picks,
    /// Layered cue plays still sounding.
    pub(crate) cues: CuePlays,
    /// One reference to each cue's parameter maps that may be in flight
    /// (as `in_flight` for sounds).
    pub(crate) mods_in_flight: KeepAlive<Mods>,
    /// The parameters made, by index: their names.
    pub(crate) params: Vec<String>,
    /// The mix as the game set it, and the snapshots over it.
    pub(crate) mix: crate::snapshot::control::MixState,
}

impl GameState {
    /// Moves events from the ring into the backlog, updating `live`. Once
    /// the mixer has been dropped, every play still live (sounding, or
    /// queued and never taken) gets its terminal `Ended` here, at the frame
    /// the mixer stopped: the audio side can no longer report it.
    pub(crate) fn pump(&mut self, engine: EngineId, counters: &Counters) {
        // Read the flag first: everything the mixer pushed before setting
        // it is then in the ring for the loop below.
        let gone = counters.mixer_gone();
        while let Some(mut ev) = self.events.try_pop() {
            if !self.cues.is_empty() {
                // A layer's event is its play's, or none.
                match self.cues.map(ev.event, engine, &mut self.space) {
                    Mapped::Report(e) => ev.event = e,
                    Mapped::Held => continue,
                }
            }
            if ev.event.is_terminal() {
                if let Some(id) = ev.event.voice().and_then(|v| v.id_in(engine)) {
                    self.retire(id);
                }
            }
            self.backlog_push(ev, counters);
        }
        while let Some(ev) = self.stream_events.as_mut().and_then(|q| q.try_pop()) {
            self.backlog_push(ev, counters);
        }
        if gone && !self.cues.is_empty() {
            self.cues.clear(&mut self.space);
        }
        if gone && !self.live.is_empty() {
            let mut ids: Vec<u64> = self.live.keys().copied().collect();
            ids.sort_unstable();
            let frame = counters.frames.load(Relaxed);
            for id in ids {
                self.retire(id);
                Counters::bump(&counters.ended);
                let voice = VoiceHandle::new(engine, id);
                self.backlog_push(
                    TimedEvent {
                        frame,
                        event: Event::Ended { voice },
                    },
                    counters,
                );
            }
        }
    }

    /// Whether play `id` is playing for the game: not over, not stopped.
    pub(crate) fn is_playing(&self, id: u64) -> bool {
        id >= self.stopped_below && self.live.get(&id).is_some_and(|p| !p.stopping)
    }

    /// Play `id` is over: what it played moves to the retired list.
    pub(crate) fn retire(&mut self, id: u64) {
        if let Some(info) = self.live.remove(&id) {
            self.retired.push(id, info);
        }
    }

    pub(crate) fn backlog_push(&mut self, ev: TimedEvent, counters: &Counters) {
        if self.backlog.len() >= self.backlog_capacity {
            self.backlog.pop_front();
            Counters::bump(&counters.lost_events);
        }
        self.backlog.push_back(ev);
    }

    /// Keeps `sound` alive on the game side; drops sounds no voice holds.
    pub(crate) fn keep(&mut self, sound: &Arc<SoundData>) {
        self.in_flight.keep(sound);
    }

    /// Keeps a cue's parameter maps alive on the game side, as a sound.
    pub(crate) fn keep_mods(&mut self, mods: &Arc<Mods>) {
        self.mods_in_flight.keep(mods);
    }

    /// Lets go of the sounds and maps nobody else holds.
    pub(crate) fn prune(&mut self) {
        self.in_flight.prune();
        self.mods_in_flight.prune();
    }
}

/// One reference to each value the audio side may hold (a sound, a cue's
/// maps), so that it only ever drops a reference, never the last one.
pub(crate) struct KeepAlive<T> {
    items: Vec<Arc<T>>,
    /// The length at which the next `keep` prunes (twice what was left
    /// after the last prune: amortized O(1) per `keep`).
    prune_at: usize,
}

impl<T> KeepAlive<T> {
    pub(crate) fn new() -> KeepAlive<T> {
        KeepAlive {
            items: Vec::new(),
            prune_at: 16,
        }
    }

    /// Keeps `x` (once); drops those nobody else holds now and then.
    pub(crate) fn keep(&mut self, x: &Arc<T>) {
        if !self.items.iter().any(|k| Arc::ptr_eq(k, x)) {
            self.items.push(Arc::clone(x));
        }
        if self.items.len() >= self.prune_at {
            self.prune();
        }
    }

    /// Lets go of those nobody else holds. Count 1: only this list holds
    /// it; the audio side is done with it and can never get it back (it
    /// only receives them from here, and a queued command holds a count).
    pub(crate) fn prune(&mut self) {
        self.items.retain(|k| Arc::strong_count(k) > 1);
        self.prune_at = (self.items.len() * 2).max(16);
    }

    #[cfg(feature = "hooks")]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<Arc<T>>()
    }
}
