//! `Command` and [`Event`]: the plain data that crosses the thread boundary.
//!
//! Commands travel game -> audio over a bounded `crossbeam_channel` used only
//! with `try_send` / `try_recv`; events travel audio -> game over a `ringbuf`
//! single-producer single-consumer queue. Both are moved, never shared.
//! The handles they name voices, groups and buses by are in `crate::handle`
//! (re-exported here).

use std::sync::Arc;

use crate::sound::SoundData;
use space::{ValidEmitter, ValidListener};

pub(crate) mod bus;
pub(crate) mod device_name;
mod event;
pub(crate) mod modulation;
pub(crate) mod space;
pub(crate) mod stats;

pub(crate) use crate::handle::EngineId;
pub use crate::handle::{BusHandle, GroupHandle, VoiceHandle};
pub(crate) use crate::handle::{MASTER_BUS, NO_EMITTER, NO_GROUP};
pub use event::{EffectFault, Event, StreamErrorKind, TimedEvent};

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
    /// Output frames between that start (or the command's arrival) and
    /// its first sample: a cue layer's delay after the play's start.
    pub(crate) offset: u32,
    /// Its place among its play's voices: 0 for a plain play and a cue's
    /// first voice, 1, 2, ... for the layers after it (ids follow).
    pub(crate) layer: u8,
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
    /// What the level moves by each frame of a render (0 but while a
    /// parameter mapped to the send glides: `Target::Send`).
    pub(crate) step: f32,
}

/// [`SendTo::bus`] of a play that sends nowhere.
pub(crate) const NO_SEND: u16 = u16::MAX;

// (Never NaN: validated.)
impl Eq for SendTo {}

impl SendTo {
    pub(crate) const NONE: SendTo = SendTo {
        bus: NO_SEND,
        level: 0.0,
        step: 0.0,
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
/// `stream::source`'s hand-over protocol).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StreamTicket {
    pub(crate) slot: u16,
    pub(crate) epoch: u32,
}

/// Loudest volume accepted (linear gain, +12 dB).
pub const MAX_VOLUME: f32 = 4.0;
/// Lowest pitch factor accepted (six octaves down).
pub const MIN_PITCH: f32 = 1.0 / 64.0;
/// Highest pitch factor accepted (six octaves up).
pub const MAX_PITCH: f32 = 64.0;

/// A duration in whole output frames at `rate`: how every time the game
/// gives becomes the frames the audio side counts.
pub(crate) fn frames(d: std::time::Duration, rate: u32) -> u32 {
    (d.as_secs_f64() * f64::from(rate)).round() as u32
}

/// What the mixer is made with: the engine's settings in output frames,
/// as the game side checked them (`EngineSettings::mixer_setup`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MixerSetup {
    pub(crate) voices: usize,
    pub(crate) virtual_voices: usize,
    pub(crate) groups: usize,
    pub(crate) buses: usize,
    pub(crate) speed_of_sound: f32,
    pub(crate) master_gain: f32,
    pub(crate) steal_policy: StealPolicy,
    pub(crate) command_capacity: usize,
    /// In output frames.
    pub(crate) pause_fade: u32,
    pub(crate) min_voice_age: u32,
    pub(crate) steal_fade: u32,
    pub(crate) stop_fade: u32,
    pub(crate) param_ramp: u32,
    /// The audible window in dB, if on.
    pub(crate) audible_window: Option<f32>,
    /// Whether stealing hears masking.
    pub(crate) masking: bool,
}

/// A request from the game side to the mixer. A command to one play names
/// it by the play's command id ([`VoiceHandle`]'s wire id): for a layered
/// cue, its first voice's id with the number of layers above it, and the
/// mixer applies it to every layer (`crate::handle::layer_ids`).
pub(crate) enum Command {
    Play {
        id: u64,
        sound: Arc<SoundData>,
        params: ValidParams,
        /// For a streamed sound: its stream slot and epoch.
        stream: Option<StreamTicket>,
        /// A cue's parameter maps for this voice (the play then has a
        /// cell: `params.emitter`).
        mods: Option<Arc<modulation::Mods>>,
    },
    /// Parameter `index` heads for `value` over `frames` output frames.
    SetParam {
        index: u16,
        value: f32,
        frames: u32,
    },
    /// Parameter `param` heads for `value` over `frames`, for play `id`
    /// alone (each of its voices that maps it).
    SetPlayParam {
        id: u64,
        param: u16,
        value: f32,
        frames: u32,
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
        /// Glide linearly in dB (a snapshot's blend) rather than in gain
        /// (where neither end is silent).
        in_db: bool,
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
    SetupBus(Box<bus::BusSetup>),
    /// Effect `index` of bus `bus` glides a parameter over `frames`.
    SetEffectParam {
        bus: u16,
        index: u8,
        param: bus::ParamChange,
        frames: u32,
    },
    ResumeBus {
        bus: u16,
    },
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
