//! Buses that shape sound: what a bus is made with ([`BusSettings`]: where
//! it feeds, its [`Effect`]s, what [`Duck`]s it), the parameters an effect
//! takes ([`EffectParam`]), and the trait every effect runs through on the
//! audio thread ([`CustomEffect`]), the built-in ones as a game's own.
//!
//! Plain data and the trait, shared by the game side (which validates the
//! settings and builds the effects) and the audio side (which runs them);
//! the built-in effects' signal processing is in `bus/effects/`, the bus graph that runs them in `bus/mix/`.

use std::fmt;
use std::time::Duration;

pub(crate) mod control;
mod effect_handles;
pub(crate) mod effects;
pub(crate) mod mix;

use crate::error::{finite, PlayError};
pub(crate) use crate::protocol::bus::{BusSetup, EffectHealth, ValidDuck};
pub use crate::protocol::bus::{CustomEffect, EffectParam};
use crate::protocol::BusHandle;
pub use effect_handles::{CustomEffectHandle, FilterHandle, ReverbHandle};

/// How a bus is made: where it feeds, its effects in order, what ducks it,
/// its starting volume. `BusSettings::default()` is a plain bus feeding the
/// master at volume 1, as [`crate::Controller::create_bus`] makes.
///
/// ```
/// use std::time::Duration;
/// use voicepool::{BusSettings, Duck, Effect, EngineSettings, OfflineEngine};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let speech = engine.create_bus()?;
/// let music = engine.create_bus_with(BusSettings {
///     effects: vec![Effect::LowPass { cutoff_hz: 20_000.0 }],
///     duck: Some(Duck { by: speech, amount_db: -12.0, attack: Duration::from_millis(50), release: Duration::from_millis(400) }),
///     ..Default::default()
/// })?;
/// let score = engine.create_bus_with(BusSettings { output: Some(music), ..Default::default() })?;
/// # let _ = score;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct BusSettings {
    /// The bus it feeds: `None` (the default) or the master bus for the
    /// master, or any bus made before it. The buses form a tree, processed
    /// children first.
    pub output: Option<BusHandle>,
    /// Its effects, run in order on everything that reaches the bus,
    /// before its volume (at most [`MAX_EFFECTS`]).
    pub effects: Vec<Effect>,
    /// Another bus whose sound turns this one down.
    pub duck: Option<Duck>,
    /// Its volume at the start (linear gain; 0 to 4, clamped). Default 1.
    pub volume: f32,
}

impl Default for BusSettings {
    fn default() -> Self {
        BusSettings {
            output: None,
            effects: Vec::new(),
            duck: None,
            volume: 1.0,
        }
    }
}

/// The most effects one bus runs.
pub const MAX_EFFECTS: usize = 8;

/// One effect on a bus. Its parameters glide with
/// [`crate::Controller::set_effect_param`].
///
/// Out-of-range values are clamped, NaN or infinite ones refused:
/// `cutoff_hz` 10 Hz to just under half the output rate (0.49 times it);
/// `room`, `damping` and `wet` 0 to 1. A filter at the end of its range
/// (a low-pass given `f32::MAX`, a high-pass given 0) is fully open: a
/// wire that costs nothing.
///
/// ```
/// use voicepool::Effect;
/// let underwater = Effect::LowPass { cutoff_hz: 600.0 };
/// let rumble_cut = Effect::HighPass { cutoff_hz: 80.0 };
/// let hall = Effect::Reverb { room: 0.8, damping: 0.3, wet: 1.0 };
/// # let _ = (underwater, rumble_cut, hall);
/// ```
pub enum Effect {
    /// A two-pole (12 dB per octave) low-pass filter, Butterworth at its
    /// cutoff, made to glide: its cutoff can sweep at audio rate without
    /// zipper noise or instability.
    LowPass {
        /// Where it starts to cut, in Hz.
        cutoff_hz: f32,
    },
    /// A two-pole (12 dB per octave) high-pass filter, as
    /// [`Effect::LowPass`] mirrored.
    HighPass {
        /// Where it starts to cut, in Hz.
        cutoff_hz: f32,
    },
    /// A stereo algorithmic reverb (a feedback delay network of eight
    /// lines). Its memory is fixed when the bus is made; its tail outlives
    /// the sound that fed it, and once decayed it costs nothing.
    Reverb {
        /// Size and decay: 0 a small room (about 0.3 s), 1 a hall (about
        /// 4 s). The size of the room is fixed when the bus is made;
        /// gliding it changes the decay.
        room: f32,
        /// How fast high frequencies die out, 0 (bright) to 1 (dark).
        damping: f32,
        /// The share of reverberation in the bus's output: 0 only the dry
        /// sound, 1 only the reverberation (for a bus that plays take a
        /// send to).
        wet: f32,
    },
    /// The game's own processing (see [`CustomEffect`]).
    Custom(Box<dyn CustomEffect>),
}

impl fmt::Debug for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Effect::LowPass { cutoff_hz } => f
                .debug_struct("LowPass")
                .field("cutoff_hz", cutoff_hz)
                .finish(),
            Effect::HighPass { cutoff_hz } => f
                .debug_struct("HighPass")
                .field("cutoff_hz", cutoff_hz)
                .finish(),
            Effect::Reverb { room, damping, wet } => f
                .debug_struct("Reverb")
                .field("room", room)
                .field("damping", damping)
                .field("wet", wet)
                .finish(),
            Effect::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

impl EffectParam {
    /// The value, checked finite and clamped to its range at `rate`.
    pub(crate) fn validate(self, rate: u32) -> Result<EffectParam, PlayError> {
        Ok(match self {
            EffectParam::CutoffHz(v) => {
                EffectParam::CutoffHz(finite("cutoff_hz", v)?.clamp(MIN_CUTOFF, max_cutoff(rate)))
            }
            EffectParam::Wet(v) => EffectParam::Wet(finite("wet", v)?.clamp(0.0, 1.0)),
            EffectParam::Room(v) => EffectParam::Room(finite("room", v)?.clamp(0.0, 1.0)),
            EffectParam::Damping(v) => EffectParam::Damping(finite("damping", v)?.clamp(0.0, 1.0)),
        })
    }
}

/// The lowest cutoff a filter takes, in Hz.
pub(crate) const MIN_CUTOFF: f32 = 10.0;

/// The highest cutoff a filter takes at `rate`: just under half of it.
pub(crate) fn max_cutoff(rate: u32) -> f32 {
    rate as f32 * 0.49
}

/// One bus turned down while another sounds: `by` (dialogue, say) ducks
/// the bus made with it (the music) by `amount_db`, reached over `attack`
/// once `by` sounds (above -60 dBFS), and undone over `release` once it
/// falls silent. Several buses may duck on one.
///
/// `amount_db` is clamped to -96 to 0 dB, `attack` and `release` to at most
/// 10 s; NaN or infinite is refused, as is a `by` of another engine, the
/// master bus, or a bus the ducked one feeds (its own sound would duck it).
///
/// A ducker heard in the same block ducks at once when it is at least as
/// deep in the bus tree as the bus it ducks (the common case: both feed
/// the master); one nearer the master ducks from the next block.
///
/// ```
/// use std::time::Duration;
/// use voicepool::{BusSettings, Duck, EngineSettings, OfflineEngine};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let dialogue = engine.create_bus()?;
/// let music = engine.create_bus_with(BusSettings {
///     duck: Some(Duck { by: dialogue, amount_db: -12.0, attack: Duration::from_millis(50), release: Duration::from_millis(400) }),
///     ..Default::default()
/// })?;
/// # let _ = music;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Duck {
    /// The bus whose sound ducks this one.
    pub by: BusHandle,
    /// How far down, in dB (negative).
    pub amount_db: f32,
    /// How long going down takes.
    pub attack: Duration,
    /// How long coming back up takes.
    pub release: Duration,
}
