//! [`Event`]: what the audio side reports about voices and the output,
//! carried back to the game over a single-producer single-consumer queue.

use crate::handle::{BusHandle, VoiceHandle};
use crate::protocol::device_name::DeviceName;

/// What happened to a voice, reported by the audio side.
///
/// Every successful `play` leads to exactly one *terminal* event: `Ended`,
/// `Stolen` (as `victim`) or `Rejected`. A virtual voice too: it ends with
/// `Ended` (a one-shot reaching its end while virtual, or `stop`) or
/// `Stolen` (dropped from a full virtual pool); `Virtualized` and
/// `Resumed` are not terminal.
///
/// ```
/// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, StealPolicy};
/// let settings = EngineSettings { voices: 1, steal_policy: StealPolicy::Reject, ..Default::default() };
/// let mut engine = OfflineEngine::new(settings)?;
/// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
/// let first = engine.play(&hum, PlayParams::default())?;
/// let second = engine.play(&hum, PlayParams::default())?; // no voice left
/// engine.render(480);
/// for event in engine.drain_events() {
///     match event {
///         Event::Started { voice } => assert_eq!(voice, first),
///         Event::Rejected { voice } => assert_eq!(voice, second),
///         Event::Stolen { victim, by } => println!("{victim:?} gave way to {by:?}"),
///         Event::Ended { voice } => println!("{voice:?} ended"),
///         other => println!("{other:?}"), // `Event` is non_exhaustive
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// The voice finished: a one-shot reached its end, a stop's fade ended,
    /// or the mixer was dropped while the voice was still in flight
    /// (sounding, or queued and never started).
    Ended {
        /// The voice that ended.
        voice: VoiceHandle,
    },
    /// The voice lost its slot (stolen, limited by its group, or refused
    /// by a full pool) but asked to [`crate::PlayParams::virtualize`]: it
    /// keeps time silently, is still playing (`is_playing` is true, the
    /// setters and `stop` apply) and comes back with
    /// [`Event::Resumed`]. Not terminal.
    Virtualized {
        /// The voice now virtual.
        voice: VoiceHandle,
    },
    /// A virtual voice got a slot back and sounds again, from exactly the
    /// sample it would have reached had it never stopped (fading in over
    /// `EngineSettings::steal_fade`). Not terminal.
    Resumed {
        /// The voice sounding again.
        voice: VoiceHandle,
    },
    /// A streamed play ([`crate::Sound::stream_file`]) ran out of decoded
    /// data: its loader fell behind (a slow disk, a starved thread). The
    /// play is silent from there, holding its position, and goes on when
    /// data comes; one event per dry spell, counted in
    /// [`crate::Stats::stream_underruns`]. Not terminal.
    StreamUnderrun {
        /// The streamed play.
        voice: VoiceHandle,
    },
    /// The output stream reported an error (live engine only): the device
    /// went away, or the host or driver failed. The engine keeps accepting
    /// commands; each error is also counted in [`crate::Stats::stream_errors`].
    StreamError {
        /// What kind of error.
        kind: StreamErrorKind,
    },
    /// A bus effect broke the real-time contract ([`crate::CustomEffect`]):
    /// it panicked (it is never called again and its bus is silent from
    /// then on), allocated on the audio thread (reported where
    /// [`crate::alloc_check`] watches; it keeps running), or put out NaN or
    /// infinity (that piece of its bus was silenced). Each effect reports
    /// each kind of fault once; each is counted in
    /// [`crate::Stats::effect_faults`]. Not about a voice: plays on the bus
    /// go on and end as usual.
    EffectFault {
        /// The bus the effect is on.
        bus: BusHandle,
        /// Its place among the bus's effects (0 first).
        effect: usize,
        /// What it did.
        fault: EffectFault,
    },
    /// Live output is back after [`StreamErrorKind::DeviceLost`]: the engine
    /// reopened a device on its own (see
    /// [`crate::EngineSettings::recover_device`]) and the same voices go on
    /// from where they were. Not about a voice.
    OutputRecovered {
        /// The device now playing.
        device: DeviceName,
        /// Its rate in Hz: always the engine's own rate (a device is only
        /// reopened at the rate the mixer runs at).
        sample_rate: u32,
    },
}

/// What a bus effect did wrong ([`Event::EffectFault`]).
///
/// ```
/// use voicepool::{EffectFault, Event};
/// fn warn(event: &Event) {
///     if let Event::EffectFault { bus, effect, fault: EffectFault::Panicked } = event {
///         eprintln!("effect {effect} on bus {} panicked and was switched off", bus.index());
///     }
/// }
/// # let _ = warn;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EffectFault {
    /// It panicked. It is not called again (nor are its other methods),
    /// and its bus passes silence from then on; it is dropped with the
    /// engine, on the game's side. With `panic = "abort"` in the build
    /// profile a panic ends the process instead, as anywhere.
    Panicked,
    /// It allocated or freed memory while it ran on the audio thread.
    /// Seen only where the game installed
    /// [`crate::alloc_check::CountingAllocator`] (in debug builds, say).
    Allocated,
    /// It put out NaN, infinity or a value past 1e30: that piece of its
    /// bus was silenced.
    NotFinite,
}

/// What went wrong with a live output stream ([`Event::StreamError`]).
///
/// ```
/// use voicepool::{Event, StreamErrorKind};
/// fn describe(event: Event) -> Option<&'static str> {
///     match event {
///         Event::StreamError { kind: StreamErrorKind::DeviceLost } => Some("device gone: restart on another"),
///         Event::StreamError { .. } => Some("the audio driver failed"),
///         _ => None,
///     }
/// }
/// let lost = Event::StreamError { kind: StreamErrorKind::DeviceLost };
/// assert_eq!(describe(lost), Some("device gone: restart on another"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamErrorKind {
    /// The device is gone (for example unplugged), or it stopped calling
    /// back for a second. Nothing is heard until output comes back: with
    /// [`crate::EngineSettings::recover_device`] on (the default) the engine
    /// reopens a device itself and reports [`Event::OutputRecovered`];
    /// otherwise start a new engine.
    DeviceLost,
    /// The host or driver reported another error (its text is not kept: the
    /// report crosses from the audio side as plain data).
    Backend,
    /// While recovering from [`StreamErrorKind::DeviceLost`], the device
    /// found does not offer the engine's rate: it is not used (the mix
    /// would play at the wrong speed), and the engine keeps looking.
    /// Reported once per loss.
    RateUnavailable,
}

impl Event {
    /// The voice this event is about (for `Stolen`, the victim); `None` for
    /// events about the output stream rather than a voice.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, StreamErrorKind};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 1, ..Default::default() })?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let old = engine.play(&hum, PlayParams::default())?;
    /// engine.render(4_800);
    /// let new = engine.play(&hum, PlayParams::default())?;
    /// engine.render(480);
    /// let stolen = engine.drain_events().find(|e| matches!(e, Event::Stolen { .. })).unwrap();
    /// assert_eq!(stolen, Event::Stolen { victim: old, by: new });
    /// assert_eq!(stolen.voice(), Some(old)); // the victim
    /// assert_eq!(Event::StreamError { kind: StreamErrorKind::Backend }.voice(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn voice(&self) -> Option<VoiceHandle> {
        match *self {
            Event::Started { voice }
            | Event::Rejected { voice }
            | Event::Ended { voice }
            | Event::Virtualized { voice }
            | Event::Resumed { voice }
            | Event::StreamUnderrun { voice } => Some(voice),
            Event::Stolen { victim, .. } => Some(victim),
            Event::StreamError { .. }
            | Event::OutputRecovered { .. }
            | Event::EffectFault { .. } => None,
        }
    }

    /// This event with every voice handle in it passed through `f`.
    pub(crate) fn map_voices(self, f: impl Fn(VoiceHandle) -> VoiceHandle) -> Event {
        match self {
            Event::Started { voice } => Event::Started { voice: f(voice) },
            Event::Rejected { voice } => Event::Rejected { voice: f(voice) },
            Event::Ended { voice } => Event::Ended { voice: f(voice) },
            Event::Virtualized { voice } => Event::Virtualized { voice: f(voice) },
            Event::Resumed { voice } => Event::Resumed { voice: f(voice) },
            Event::StreamUnderrun { voice } => Event::StreamUnderrun { voice: f(voice) },
            Event::Stolen { victim, by } => Event::Stolen {
                victim: f(victim),
                by: f(by),
            },
            other => other,
        }
    }

    /// True for `Ended`, `Stolen` and `Rejected`: the voice is over.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
    /// let h = engine.play(&blip, PlayParams::default())?;
    /// engine.render(480);
    /// let over: Vec<Event> = engine.drain_events().filter(Event::is_terminal).collect();
    /// assert_eq!(over, [Event::Ended { voice: h }]); // `Started` is not terminal
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Event::Ended { .. } | Event::Stolen { .. } | Event::Rejected { .. }
        )
    }
}

/// An [`Event`] with the output frame at which it happened, counted from
/// the engine's first rendered frame (0).
///
/// | event | `frame` |
/// | --- | --- |
/// | `Started`, `Stolen`, `Rejected` | the first frame of the block in which the mixer took the `play` command: the new voice's first sample is at that frame (for `Started` with [`crate::PlayParams::start_at`] still ahead: the scheduled frame) |
/// | `Virtualized` | the first frame of the block in which the voice lost its slot |
/// | `Resumed` | the frame of the first sample it sounds again |
/// | `Ended` of a virtual voice | the frame at which it would have stopped sounding had it played (a one-shot's end), or the first frame of the block that took its `stop` |
///
/// With [`crate::PlayParams::start_at`], `Started` carries the scheduled
/// frame while the voice waits; a `stop` or steal before then is stamped
/// with the block that took it, so it can come before its `Started` frame
/// (events are reported in the order they happen, not sorted by frame).
/// | `Ended` | the frame at which the voice stopped sounding: its last sample was at `frame - 1` (a one-shot's end, or the end of a stop's fade) |
/// | `Ended` after the mixer was dropped | the frame at which the mixer stopped |
/// | `StreamError`, `OutputRecovered` | frames rendered when it was reported |
///
/// ```
/// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
/// engine.render(4_800);
/// let h = engine.play(&blip, PlayParams::default())?;
/// engine.render(480);
/// let events = engine.drain_timed_events();
/// let start = events.iter().find(|e| e.event == Event::Started { voice: h }).unwrap();
/// let seconds = start.frame as f64 / f64::from(engine.sample_rate());
/// assert_eq!(seconds, 0.1); // started 100 ms into the render
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimedEvent {
    /// The output frame at which it happened (see the table above).
    pub frame: u64,
    /// What happened.
    pub event: Event,
}
