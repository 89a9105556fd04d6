//! The audible window (`EngineSettings::audible_window`): voices whose
//! predicted loudness stays far below the loudest voice's are let go
//! before the pool is full (virtual if they asked to be, else ended), and
//! virtual voices come back only once well inside the window.
//!
//! Real-time contract: as [`Mixer::process`], which runs it once a block:
//! one pass over the kept levels, then at most [`CULLS_PER_BLOCK`] voices
//! let go (the pool's scratch holds their slots; no allocation).

use ringbuf::traits::Observer;

use super::{Mixer, COMEBACK_WINDOW_DB};
use crate::math::Libm;
use crate::protocol::stats::Counters;
use crate::protocol::{Event, VoiceHandle};

/// At most this many voices are let go per block.
const CULLS_PER_BLOCK: usize = 64;

/// How long (in milliseconds) a voice stays below the window before it is
/// let go: a dip shorter than this (a gap between syllables) keeps it.
const WINDOW_HOLD_MS: u64 = 100;

/// The window as power ratios of the loudest level.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    /// Below `floor` times the loudest, a voice is let go.
    floor: f32,
    /// A virtual voice comes back only at `back` times the loudest or more.
    back: f32,
    /// Frames a voice must stay below.
    hold: u64,
}

impl Window {
    /// The window of `db` decibels (clamped to its range by the game side)
    /// at `rate` Hz.
    pub(crate) fn new(db: f32, rate: u32) -> Window {
        let ratio = |db: f32| 10f32.lm_powf(-db / 10.0);
        Window {
            floor: ratio(db),
            back: ratio((db - COMEBACK_WINDOW_DB).max(0.0)),
            hold: WINDOW_HOLD_MS * u64::from(rate) / 1_000,
        }
    }
}

impl Mixer {
    /// Lets go of the voices below the window (see the module docs), from
    /// the kept levels; remembers the loudest level for the comeback gate.
    pub(crate) fn apply_window(&mut self) {
        let Some(w) = self.window else { return };
        // Two events each at most (a dropped virtual voice, then this one).
        let room = self.events.vacant_len().saturating_sub(self.pool.live()) / 2;
        let floor = self.loudest * w.floor;
        let now = self.frame;
        let (loudest, outside) =
            self.pool
                .outside_window(floor, now, w.hold, CULLS_PER_BLOCK.min(room));
        self.loudest = loudest;
        let slots = outside.len();
        for k in 0..slots {
            let Some(i) = self.pool.outside_slot(k) else {
                break;
            };
            self.let_go(i);
        }
    }

    /// The least level a virtual voice comes back at, with the window on.
    pub(crate) fn window_allows(&self, level: f32) -> bool {
        self.window.is_none_or(|w| level >= self.loudest * w.back)
    }

    /// Lets go of the voice in slot `i`: it fades out as a tail (if it has
    /// sounded), then goes virtual if it asked to and there is room, else
    /// it ends.
    fn let_go(&mut self, i: usize) {
        let Some((who, mut voice, start, order)) = self.pool.release_with_start(i) else {
            return;
        };
        self.room_changed = true;
        Counters::bump(&self.counters.outside_window);
        if let Some(reader) = voice.stream_slot().and_then(|k| self.streams.get(k)) {
            // It ends (streams never go virtual): its fade-out reports
            // nothing after its `Ended`.
            reader.silence_reports();
        }
        let now = self.frame;
        let handle = VoiceHandle::new(self.engine, who.id);
        let sounded = start < now && !voice.is_waiting() && voice.peak_gain() > 0.0;
        if who.virtualize && !voice.is_stopping() && self.virtuals.len() > 0 {
            let keep = voice.fork();
            if sounded {
                voice.stop(self.steal_fade);
                self.tails.push(
                    voice,
                    self.glides.send_of(who.emitter, who.send, 0),
                    self.direct.get(who.emitter),
                );
            }
            if self.park(who, keep, order, handle).is_ok() {
                self.virtualized(handle);
                return;
            }
        } else if sounded {
            voice.stop(self.steal_fade);
            self.tails.push(
                voice,
                self.glides.send_of(who.emitter, who.send, 0),
                self.direct.get(who.emitter),
            );
        }
        self.space.release(who.emitter);
        Counters::bump(&self.counters.ended);
        self.event(Event::Ended { voice: handle });
    }
}
