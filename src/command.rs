//! `Command` and [`Event`]: the plain data that crosses the thread boundary.
//!
//! Commands travel game -> audio over a bounded `crossbeam_channel` used only
//! with `try_send` / `try_recv`; events travel audio -> game over a `ringbuf`
//! single-producer single-consumer queue. Both are moved, never shared.

use std::sync::Arc;

use crate::params::ValidParams;
use crate::sound::SoundData;

/// Names one `play` call. `Copy + Eq + Hash`; unique per play for the life of
/// the engine (a 64-bit id issued on the game side). A handle whose voice has
/// ended or been stolen is *stale*: commands sent with it do nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VoiceHandle(pub(crate) u64);

impl VoiceHandle {
    /// The id of the play call, counting from 1 in the order plays were issued.
    pub fn id(self) -> u64 {
        self.0
    }
}

/// A request from the game side to the mixer.
pub(crate) enum Command {
    Play {
        id: u64,
        sound: Arc<SoundData>,
        params: ValidParams,
    },
    Stop {
        id: u64,
    },
    SetVolume {
        id: u64,
        volume: f32,
    },
    SetPan {
        id: u64,
        pan: f32,
    },
    SetPitch {
        id: u64,
        pitch: f32,
    },
    StopAll,
}

/// What happened to a voice, reported by the audio side.
///
/// Every successful `play` leads to exactly one *terminal* event: `Ended`,
/// `Stolen` (as `victim`) or `Rejected`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Event {
    /// The voice got a slot and started sounding.
    Started {
        /// The new voice.
        voice: VoiceHandle,
    },
    /// `victim` was stolen to make room for `by` (which then starts). The
    /// victim fades out over a few milliseconds; it produces no `Ended`.
    Stolen {
        /// The voice that was replaced.
        victim: VoiceHandle,
        /// The voice that replaced it.
        by: VoiceHandle,
    },
    /// The pool was full and nothing could be stolen (policy `Reject`, every
    /// voice protected, or every voice of higher priority).
    Rejected {
        /// The voice that never started.
        voice: VoiceHandle,
    },
    /// The voice finished: a one-shot reached its end, or a stop's fade ended.
    Ended {
        /// The voice that ended.
        voice: VoiceHandle,
    },
    /// The output stream reported an error (live engine only): the device
    /// went away, or the host or driver failed. The engine keeps accepting
    /// commands; each error is also counted in [`crate::Stats::stream_errors`].
    StreamError {
        /// What kind of error.
        kind: StreamErrorKind,
    },
}

/// What went wrong with a live output stream ([`Event::StreamError`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamErrorKind {
    /// The device is gone (for example unplugged). No more audio is heard
    /// until a new engine is started on another device.
    DeviceLost,
    /// The host or driver reported another error (its text is not kept: the
    /// report crosses from the audio side as plain data).
    Backend,
}

impl Event {
    /// The voice this event is about (for `Stolen`, the victim); `None` for
    /// events about the output stream rather than a voice.
    pub fn voice(&self) -> Option<VoiceHandle> {
        match *self {
            Event::Started { voice } | Event::Rejected { voice } | Event::Ended { voice } => {
                Some(voice)
            }
            Event::Stolen { victim, .. } => Some(victim),
            Event::StreamError { .. } => None,
        }
    }

    /// True for `Ended`, `Stolen` and `Rejected`: the voice is over.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Event::Ended { .. } | Event::Stolen { .. } | Event::Rejected { .. }
        )
    }
}

/// An [`Event`] with the output frame at which it happened (the start of the
/// block in which the mixer acted on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimedEvent {
    /// Output frames rendered before the block in which it happened.
    pub frame: u64,
    /// What happened.
    pub event: Event,
}
