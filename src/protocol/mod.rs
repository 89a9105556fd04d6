//! `Command` and [`Event`]: the plain data that crosses the thread boundary.
//!
//! Commands travel game -> audio over a bounded `crossbeam_channel` used only
//! with `try_send` / `try_recv`; events travel audio -> game over a `ringbuf`
//! single-producer single-consumer queue. Both are moved, never shared.
//! The handles they name voices, groups and buses by are in `handles`
//! (re-exported here).

use std::sync::Arc;

use crate::sound::SoundData;
use crate::space::{ValidEmitter, ValidListener};

pub(crate) mod stats;

pub(crate) use crate::handle::EngineId;
pub use crate::handle::{BusHandle, GroupHandle, VoiceHandle};
pub(crate) use crate::space::positions::{EmitterTable, Positions, NO_EMITTER};

/// The master bus's index: every engine's bus 0.
pub(crate) const MASTER_BUS: u16 = 0;
/// The group index of a voice in no group.
pub(crate) const NO_GROUP: u16 = u16::MAX;

/// Parameters that passed validation: every float finite and in range,
/// group and bus indices of this engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ValidParams {
    pub(crate) volume: f32,
    pub(crate) pan: f32,
    pub(crate) pitch: f32,
    pub(crate) fade_in: f32,
    pub(crate) looping: bool,
    pub(crate) priority: u8,
    pub(crate) protected: bool,
    /// [`NO_GROUP`] or a created group's index.
    pub(crate) group: u16,
    /// [`MASTER_BUS`] or a created bus's index.
    pub(crate) bus: u16,
    /// Keep time as a virtual voice rather than end when it loses (or
    /// cannot get) a slot.
    pub(crate) virtualize: bool,
    /// The output frame of its first sample (0, or any frame already
    /// rendered: at once).
    pub(crate) start_at: u64,
    /// Where it plays from, for a positioned play.
    pub(crate) emitter: Option<ValidEmitter>,
    /// A second bus it sends to, and at what level.
    pub(crate) send: SendTo,
}

/// A second bus a play sends its sound to (a reverb, say), at a level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SendTo {
    /// The bus's index, or [`NO_SEND`].
    pub(crate) bus: u16,
    pub(crate) level: f32,
}

/// [`SendTo::bus`] of a play that sends nowhere.
pub(crate) const NO_SEND: u16 = u16::MAX;

// (Never NaN: validated.)
impl Eq for SendTo {}

impl SendTo {
    pub(crate) const NONE: SendTo = SendTo {
        bus: NO_SEND,
        level: 0.0,
    };

    pub(crate) fn is_some(&self) -> bool {
        self.bus != NO_SEND
    }
}

/// A group's settings that passed validation, in output frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValidGroup {
    pub(crate) max_voices: u32,
    pub(crate) policy: StealPolicy,
    pub(crate) min_interval: u32,
}

/// A streamed play's stream slot and the epoch it reads (see
/// `sound::stream`'s hand-over protocol).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StreamTicket {
    pub(crate) slot: u16,
    pub(crate) epoch: u32,
}

/// A request from the game side to the mixer.
pub(crate) enum Command {
    Play {
        id: u64,
        sound: Arc<SoundData>,
        params: ValidParams,
        /// For a streamed sound: its stream slot and epoch.
        stream: Option<StreamTicket>,
    },
    /// Move to frame `frame` of the voice's sound; for a streamed play, on
    /// a new epoch of its slot.
    Seek {
        id: u64,
        frame: u64,
        stream: Option<StreamTicket>,
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
    /// Stop with a fade of its own length, in output frames.
    StopWithFade {
        id: u64,
        frames: u32,
    },
    /// Head for `volume` over exactly `frames` output frames.
    FadeVolume {
        id: u64,
        volume: f32,
        frames: u32,
    },
    Pause {
        id: u64,
    },
    Resume {
        id: u64,
    },
    /// Configure group `index` (sent once, by `create_group`).
    SetGroup {
        index: u16,
        group: ValidGroup,
    },
    /// Head for `volume` over `frames` output frames (bus 0: the master).
    SetBusVolume {
        bus: u16,
        volume: f32,
        frames: u32,
    },
    PauseBus {
        bus: u16,
    },
    /// Where the listener is, faces and moves.
    SetListener {
        listener: ValidListener,
    },
    /// Bus `index` gets its parent, volume, effects and duck (sent once,
    /// by `create_bus_with`; the audio side keeps the box).
    SetupBus(Box<crate::bus::BusSetup>),
    /// Effect `index` of bus `bus` glides a parameter over `frames`.
    SetEffectParam {
        bus: u16,
        index: u8,
        param: crate::bus::EffectParam,
        frames: u32,
    },
    ResumeBus {
        bus: u16,
    },
}

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
        device: crate::DeviceName,
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

/// What to do with a new sound when every voice is busy.
///
/// ```
/// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, StealPolicy};
/// let settings = EngineSettings { voices: 2, steal_policy: StealPolicy::Oldest, ..Default::default() };
/// let mut engine = OfflineEngine::new(settings)?;
/// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
/// let first = engine.play(&hum, PlayParams::default())?;
/// engine.render(4_800);
/// engine.play(&hum, PlayParams::default().volume(0.1))?; // quieter, but younger
/// engine.render(4_800);
/// let third = engine.play(&hum, PlayParams::default())?;
/// engine.render(480);
/// assert!(engine.drain_events().any(|e| e == Event::Stolen { victim: first, by: third }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StealPolicy {
    /// Replace the voice the listener would miss least: the one with the
    /// least perceived (BS.1770 K-weighted) loudness over the next 100 ms,
    /// 300 ms and 1 s as it will play: its position, pitch and loop, times
    /// its gain (volume, pan, fades in progress). A loud sound in its silent
    /// tail goes before a faint one still sounding; a line of dialogue in a
    /// pause, or a gunshot before its echo, is kept.
    #[default]
    Quietest,
    /// Replace the voice that started first.
    Oldest,
    /// Never replace: the new sound is rejected (`Event::Rejected`).
    Reject,
}
