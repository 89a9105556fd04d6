//! Typed handles to one effect of a bus: a filter's handle sets a cutoff,
//! a reverb's its wet level, room and damping, a game's own effect's its
//! own numbered parameters. Got once from the bus
//! ([`Controller::filter`], [`Controller::reverb`],
//! [`Controller::custom_effect`]), which checks the kind; after that a
//! parameter that does not fit the effect does not compile.
//!
//! A handle holds a [`Controller`] (so it is `Clone + Send + Sync`, and
//! may be kept by whatever owns the sound it shapes): each call sends one
//! command and returns at once, with the errors of
//! [`Controller::set_effect_param`].

use std::time::Duration;

use crate::bus::control::EffectKind;
use crate::bus::EffectParam;
use crate::control::Controller;
use crate::error::{finite, PlayError};
use crate::protocol::bus::ParamChange;
use crate::protocol::BusHandle;

/// One effect of one bus, as the handles below name it.
#[derive(Clone, Debug)]
struct EffectRef {
    controller: Controller,
    bus: BusHandle,
    b: u16,
    index: usize,
}

impl EffectRef {
    fn find(
        controller: &Controller,
        bus: BusHandle,
        index: usize,
        want: EffectKind,
        what: &'static str,
    ) -> Result<EffectRef, PlayError> {
        let (b, kind) = controller.effect_kind(bus, index)?;
        if kind != want {
            return Err(PlayError::Invalid {
                name: "effect index",
                reason: what,
            });
        }
        Ok(EffectRef {
            controller: controller.clone(),
            bus,
            b,
            index,
        })
    }

    fn send(&self, param: EffectParam, glide: Duration) -> Result<(), PlayError> {
        let param = param.validate(self.controller.shared.rate)?;
        self.controller
            .send_param(self.b, self.index, ParamChange::Builtin(param), glide)
    }
}

/// A low-pass or high-pass filter on a bus: from [`Controller::filter`].
///
/// ```
/// use std::time::Duration;
/// use voicepool::{BusSettings, Effect, EngineSettings, OfflineEngine};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let world = engine.create_bus_with(BusSettings {
///     effects: vec![Effect::LowPass { cutoff_hz: 20_000.0 }],
///     ..Default::default()
/// })?;
/// let muffle = engine.filter(world, 0)?;
/// muffle.set_cutoff(600.0, Duration::from_millis(300))?; // underwater
/// assert!(engine.reverb(world, 0).is_err()); // effect 0 is not a reverb
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct FilterHandle(EffectRef);

impl FilterHandle {
    /// Glides the cutoff to `hz` over `glide` (`Duration::ZERO`: at the
    /// next block), evenly in pitch. Clamped to 10 Hz .. 0.49 times the
    /// output rate; NaN or infinite is [`PlayError::InvalidParameter`].
    pub fn set_cutoff(&self, hz: f32, glide: Duration) -> Result<(), PlayError> {
        self.0.send(EffectParam::CutoffHz(hz), glide)
    }

    /// The bus it is on.
    pub fn bus(&self) -> BusHandle {
        self.0.bus
    }

    /// Its place among the bus's effects (from 0).
    pub fn index(&self) -> usize {
        self.0.index
    }
}

/// A reverb on a bus: from [`Controller::reverb`].
///
/// ```
/// use std::time::Duration;
/// use voicepool::{BusSettings, Effect, EngineSettings, OfflineEngine};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let hall = engine.create_bus_with(BusSettings {
///     effects: vec![Effect::Reverb { room: 0.7, damping: 0.4, wet: 1.0 }],
///     ..Default::default()
/// })?;
/// let reverb = engine.reverb(hall, 0)?;
/// reverb.set_wet(0.3, Duration::from_millis(500))?;
/// reverb.set_room(0.9, Duration::ZERO)?; // a bigger room
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ReverbHandle(EffectRef);

impl ReverbHandle {
    /// Glides its share of reverberation (0 to 1, clamped) over `glide`.
    pub fn set_wet(&self, wet: f32, glide: Duration) -> Result<(), PlayError> {
        self.0.send(EffectParam::Wet(wet), glide)
    }

    /// Glides its decay (0 to 1, clamped; see [`crate::Effect::Reverb`]).
    pub fn set_room(&self, room: f32, glide: Duration) -> Result<(), PlayError> {
        self.0.send(EffectParam::Room(room), glide)
    }

    /// Glides its damping (0 to 1, clamped).
    pub fn set_damping(&self, damping: f32, glide: Duration) -> Result<(), PlayError> {
        self.0.send(EffectParam::Damping(damping), glide)
    }

    /// The bus it is on.
    pub fn bus(&self) -> BusHandle {
        self.0.bus
    }

    /// Its place among the bus's effects (from 0).
    pub fn index(&self) -> usize {
        self.0.index
    }
}

/// A game's own effect on a bus ([`crate::Effect::Custom`]): from
/// [`Controller::custom_effect`]. Sends the effect's own numbered
/// parameters (`set_custom_param`, reaching
/// [`crate::CustomEffect::set_custom_param`], which has an example), or the
/// built-in ones (`set_effect_param`, reaching
/// [`crate::CustomEffect::set_param`]).
#[derive(Clone, Debug)]
pub struct CustomEffectHandle(EffectRef);

impl CustomEffectHandle {
    /// Sends parameter `id` of the effect's own, `value`, to be reached
    /// over `glide` (given to the effect in output frames). NaN or
    /// infinite is [`PlayError::InvalidParameter`]; the range is the
    /// effect's to clamp.
    pub fn set_custom_param(&self, id: u32, value: f32, glide: Duration) -> Result<(), PlayError> {
        let value = finite("custom effect parameter", value)?;
        self.0.controller.send_param(
            self.0.b,
            self.0.index,
            ParamChange::Custom { id, value },
            glide,
        )
    }

    /// Sends one of the built-in parameters, as
    /// [`Controller::set_effect_param`] does.
    pub fn set_effect_param(&self, param: EffectParam, glide: Duration) -> Result<(), PlayError> {
        self.0.send(param, glide)
    }

    /// The bus it is on.
    pub fn bus(&self) -> BusHandle {
        self.0.bus
    }

    /// Its place among the bus's effects (from 0).
    pub fn index(&self) -> usize {
        self.0.index
    }
}

/// Typed effect handles.
impl Controller {
    /// The filter (low-pass or high-pass) at `index` among `bus`'s effects,
    /// to set its cutoff. Errors: [`PlayError::Invalid`] when there is no
    /// effect at `index` or it is not a filter, [`PlayError::ForeignHandle`]
    /// for a bus of another engine, [`PlayError::EngineStopped`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{BusSettings, Effect, EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let world = engine.create_bus_with(BusSettings {
    ///     effects: vec![Effect::HighPass { cutoff_hz: 20.0 }],
    ///     ..Default::default()
    /// })?;
    /// engine.filter(world, 0)?.set_cutoff(300.0, Duration::from_millis(200))?; // a radio
    /// assert!(engine.filter(world, 1).is_err()); // no second effect
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn filter(&self, bus: BusHandle, index: usize) -> Result<FilterHandle, PlayError> {
        EffectRef::find(self, bus, index, EffectKind::Filter, "not a filter").map(FilterHandle)
    }

    /// The reverb at `index` among `bus`'s effects (see [`ReverbHandle`]);
    /// errors as [`Controller::filter`].
    pub fn reverb(&self, bus: BusHandle, index: usize) -> Result<ReverbHandle, PlayError> {
        EffectRef::find(self, bus, index, EffectKind::Reverb, "not a reverb").map(ReverbHandle)
    }

    /// The game's own effect at `index` among `bus`'s effects (see
    /// [`CustomEffectHandle`]); errors as [`Controller::filter`].
    pub fn custom_effect(
        &self,
        bus: BusHandle,
        index: usize,
    ) -> Result<CustomEffectHandle, PlayError> {
        EffectRef::find(
            self,
            bus,
            index,
            EffectKind::Custom,
            "not a game's own effect",
        )
        .map(CustomEffectHandle)
    }
}
