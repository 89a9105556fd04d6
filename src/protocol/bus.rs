//! Buses as they cross to the audio side: a bus's set-up with its effects
//! built (`BusSetup`, sent once), the parameters an effect takes
//! ([`EffectParam`]), and the trait every effect runs through on the audio
//! thread ([`CustomEffect`]), the built-in ones as a game's own. Their
//! public face, the settings a bus is made with, is in `crate::bus`.

/// A parameter of an effect, for
/// [`crate::Controller::set_effect_param`]. Which effect takes which:
/// `CutoffHz` the filters; `Room`, `Damping` and `Wet` the reverb; a
/// [`Effect::Custom`](crate::Effect::Custom) effect is given any of them
/// ([`CustomEffect::set_param`]).
///
/// ```
/// use voicepool::EffectParam;
/// let muffled = EffectParam::CutoffHz(600.0);
/// # let _ = muffled;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EffectParam {
    /// A filter's cutoff, in Hz.
    CutoffHz(f32),
    /// A reverb's share of reverberation, 0 to 1.
    Wet(f32),
    /// A reverb's decay, 0 to 1 (see [`Effect::Reverb`](crate::Effect::Reverb)).
    Room(f32),
    /// A reverb's damping, 0 to 1.
    Damping(f32),
}

/// A bus effect of the game's own, for [`Effect::Custom`](crate::Effect::Custom): built on the
/// game side (where it may allocate all the memory it will ever need),
/// then moved to the audio thread, where the bus runs it on every block it
/// processes.
///
/// # Real-time contract
///
/// [`CustomEffect::process`], [`CustomEffect::set_param`],
/// [`CustomEffect::set_custom_param`], [`CustomEffect::is_idle`] and
/// [`CustomEffect::power_gain`] run on the
/// audio thread, inside the mixer's block: they must not allocate or free
/// memory, take a lock, wait, do I/O or panic, and must return finite
/// samples. Allocate in the constructor or in [`CustomEffect::prepare`]
/// (called on the game side, with the output rate, before the effect is
/// moved). The effect is dropped with the engine's audio side, never on
/// the audio thread while it runs.
///
/// ```
/// use voicepool::{BusSettings, CustomEffect, Effect, EngineSettings, OfflineEngine, PlayParams, Sound};
///
/// /// Hard clipping at a threshold: a crude distortion.
/// struct Clip(f32);
///
/// impl CustomEffect for Clip {
///     fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
///         for x in left.iter_mut().chain(right.iter_mut()) {
///             *x = x.clamp(-self.0, self.0);
///         }
///     }
/// }
///
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let crushed = engine.create_bus_with(BusSettings {
///     effects: vec![Effect::Custom(Box::new(Clip(0.1)))],
///     ..Default::default()
/// })?;
/// let loud = Sound::from_samples(1, 48_000, vec![0.8; 4_800])?;
/// engine.play(&loud, PlayParams::default().bus(crushed))?;
/// assert!(engine.render(480).iter().all(|s| s.abs() <= 0.1 + 1e-6));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait CustomEffect: Send + 'static {
    /// Called once on the game side, before the effect is moved to the
    /// audio side, with the output sample rate: allocate here.
    fn prepare(&mut self, sample_rate: u32) {
        let _ = sample_rate;
    }

    /// Processes one piece of a block in place: `left` and `right` hold
    /// the same number of frames (at most 1,024), the bus's input after
    /// the effects before this one.
    fn process(&mut self, left: &mut [f32], right: &mut [f32]);

    /// A parameter change, reached over `frames` output frames. Only
    /// parameters the game chose to send reach it; one it does not take
    /// may be ignored.
    fn set_param(&mut self, param: EffectParam, frames: u32) {
        let _ = (param, frames);
    }

    /// A parameter of the effect's own (numbered by the effect: a
    /// distortion's drive, a delay's time), sent by
    /// [`CustomEffectHandle::set_custom_param`](crate::CustomEffectHandle::set_custom_param),
    /// reached over `frames` output frames. `value` is finite (NaN and
    /// infinities are refused before they are sent); its range is the
    /// effect's to clamp. Default: ignored.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{BusSettings, CustomEffect, Effect, EngineSettings, OfflineEngine, PlayParams, Sound};
    ///
    /// /// A gain whose level is parameter 0.
    /// struct Gain(f32);
    ///
    /// impl CustomEffect for Gain {
    ///     fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
    ///         for x in left.iter_mut().chain(right.iter_mut()) {
    ///             *x *= self.0;
    ///         }
    ///     }
    ///     fn set_custom_param(&mut self, id: u32, value: f32, _frames: u32) {
    ///         if id == 0 {
    ///             self.0 = value.clamp(0.0, 1.0);
    ///         }
    ///     }
    /// }
    ///
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let bus = engine.create_bus_with(BusSettings {
    ///     effects: vec![Effect::Custom(Box::new(Gain(1.0)))],
    ///     ..Default::default()
    /// })?;
    /// let gain = engine.custom_effect(bus, 0)?;
    /// gain.set_custom_param(0, 0.0, Duration::ZERO)?; // silence
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 4_800])?;
    /// engine.play(&hum, PlayParams::default().bus(bus))?;
    /// assert!(engine.render(480).iter().all(|&s| s == 0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn set_custom_param(&mut self, id: u32, value: f32, frames: u32) {
        let _ = (id, value, frames);
    }

    /// Whether, fed silence from now on, it would output only silence (a
    /// reverb whose tail has died away) and has nothing under way that must
    /// move on with time (a parameter glide). While it is idle and the bus
    /// gets no input, the bus skips it: `process` is not called, and time
    /// does not pass for it. Default: never idle (it always runs).
    fn is_idle(&self) -> bool {
        false
    }

    /// The power gain it applies to sound at `hz` (1: none), for ranking
    /// the voices on its bus when the pool is full. Default 1.
    fn power_gain(&self, hz: f32) -> f32 {
        let _ = hz;
        1.0
    }
}

/// A parameter change on its way to an effect: one of the built-in
/// parameters, or one of a game's effect's own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ParamChange {
    Builtin(EffectParam),
    Custom { id: u32, value: f32 },
}

/// A bus's settings that passed validation, as the audio side gets them
/// (with its effects built).
pub(crate) struct BusSetup {
    pub(crate) index: u16,
    /// The bus it feeds.
    pub(crate) output: u16,
    pub(crate) volume: f32,
    pub(crate) effects: Vec<Box<dyn CustomEffect>>,
    /// Per effect: whether it is a game's own (guarded), and its faults.
    pub(crate) health: Vec<EffectHealth>,
    pub(crate) duck: Option<ValidDuck>,
}

/// One effect's standing on the audio side: a game's own is guarded (its
/// panics caught, its allocations watched, its output checked), and what
/// it did wrong is reported once per kind of fault.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EffectHealth {
    /// A game's own effect (the built-in ones keep the contract).
    pub(crate) custom: bool,
    /// It panicked: never called again.
    pub(crate) dead: bool,
    /// Faults seen (bits of `EffectHealth::bit`), and those not yet
    /// reported to the game.
    pub(crate) seen: u8,
    pub(crate) pending: u8,
}

/// A [`Duck`] checked, in output frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ValidDuck {
    pub(crate) by: u16,
    /// The gain at full ducking (linear).
    pub(crate) floor: f32,
    pub(crate) attack: u32,
    pub(crate) release: u32,
}
