//! Buses on the game side, on [`Controller`]: a bus made plain or with
//! effects, a parent and a duck ([`Controller::create_bus_with`]), its
//! volume and the master's, pause and resume, and an effect's parameter
//! gliding ([`Controller::set_effect_param`]). Validated here; the effects
//! are built here too (their memory allocated on the game side) and moved
//! to the audio side in one command.

use crate::snapshot::control::Key;
use std::time::Duration;

use crate::bus::effects;
use crate::bus::{
    BusSettings, BusSetup, Effect, EffectHealth, EffectParam, ValidDuck, MAX_EFFECTS,
};
use crate::control::params::{fade_frames, valid_master_volume, valid_volume};
use crate::control::Controller;
use crate::error::{finite, PlayError};
use crate::math::Libm;
use crate::protocol::bus::ParamChange;
use crate::protocol::{BusHandle, Command, MASTER_BUS};

/// What kind of effect sits at an index of a bus (the game side's record,
/// to refuse a parameter that does not fit it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EffectKind {
    Filter,
    Reverb,
    Custom,
}

impl EffectKind {
    fn of(effect: &Effect) -> EffectKind {
        match effect {
            Effect::LowPass { .. } | Effect::HighPass { .. } => EffectKind::Filter,
            Effect::Reverb { .. } => EffectKind::Reverb,
            Effect::Custom(_) => EffectKind::Custom,
        }
    }

    pub(crate) fn takes(self, param: &EffectParam) -> bool {
        matches!(
            (self, param),
            (EffectKind::Custom, _)
                | (EffectKind::Filter, EffectParam::CutoffHz(_))
                | (
                    EffectKind::Reverb,
                    EffectParam::Wet(_) | EffectParam::Room(_) | EffectParam::Damping(_)
                )
        )
    }
}

/// The longest duck attack or release, and effect glide.
const MAX_TIME: Duration = Duration::from_secs(10);

impl Controller {
    /// Makes a bus with `settings`: where it feeds (a bus made before it,
    /// or the master), its effects (run in order on everything reaching
    /// it, before its volume), what ducks it, and its volume. Buses form a
    /// tree, and each is processed after every bus feeding it; a bus can
    /// only feed one made before it, so the tree cannot loop.
    ///
    /// Errors, with nothing made: [`PlayError::TooManyBuses`];
    /// [`PlayError::ForeignHandle`] for an `output` or a duck's `by` of
    /// another engine; [`PlayError::Invalid`] for more than
    /// [`crate::bus::MAX_EFFECTS`] effects, or a duck by the master bus
    /// or by a bus this one feeds (its own sound would duck it);
    /// [`PlayError::InvalidParameter`] for a NaN or infinite parameter
    /// (out-of-range ones are clamped: see [`Effect`] and
    /// [`crate::Duck`]); [`PlayError::QueueFull`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{BusSettings, Effect, EffectParam, EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let world = engine.create_bus_with(BusSettings {
    ///     effects: vec![Effect::LowPass { cutoff_hz: f32::MAX }], // fully open
    ///     ..Default::default()
    /// })?;
    /// let vehicles = engine.create_bus_with(BusSettings { output: Some(world), ..Default::default() })?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.3; 48_000])?;
    /// engine.play(&hum, PlayParams::default().bus(vehicles).looping(true))?;
    /// // The pause menu: the world (and the vehicles in it) muffled.
    /// engine.set_effect_param(world, 0, EffectParam::CutoffHz(600.0), Duration::from_millis(300))?;
    /// engine.render(48_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_bus_with(&self, settings: BusSettings) -> Result<BusHandle, PlayError> {
        let engine = self.shared.engine;
        let rate = self.shared.rate;
        let BusSettings {
            output,
            effects,
            duck,
            volume,
        } = settings;
        let output = match output {
            Some(b) => b.index_in(engine).ok_or(PlayError::ForeignHandle)?,
            None => MASTER_BUS,
        };
        if effects.len() > MAX_EFFECTS {
            return Err(PlayError::Invalid {
                name: "effects",
                reason: "a bus runs at most 8 effects",
            });
        }
        for effect in &effects {
            check_effect(effect)?;
        }
        let duck = match duck {
            Some(d) => {
                let by = d.by.index_in(engine).ok_or(PlayError::ForeignHandle)?;
                if by == MASTER_BUS {
                    return Err(PlayError::Invalid {
                        name: "duck",
                        reason: "the master bus carries every sound: it cannot duck a bus",
                    });
                }
                let amount = finite("amount_db", d.amount_db)?.clamp(-96.0, 0.0);
                Some(ValidDuck {
                    by,
                    floor: 10f32.lm_powf(amount / 20.0),
                    attack: fade_frames(d.attack.min(MAX_TIME), rate),
                    release: fade_frames(d.release.min(MAX_TIME), rate),
                })
            }
            None => None,
        };
        let volume = valid_volume(volume)?;
        let mut game = self.game()?;
        let max = self.shared.max_buses;
        if game.buses_made >= max {
            return Err(PlayError::TooManyBuses { max });
        }
        let index = game.buses_made as u16 + 1;
        if let Some(d) = duck {
            // The bus itself, or one it feeds through: its own sound would
            // duck it.
            let mut at = output;
            let mut on_chain = d.by == index;
            for _ in 0..=game.bus_outputs.len() {
                if at == MASTER_BUS {
                    break;
                }
                on_chain |= at == d.by;
                at = game
                    .bus_outputs
                    .get(usize::from(at) - 1)
                    .copied()
                    .unwrap_or(MASTER_BUS);
            }
            if on_chain {
                return Err(PlayError::Invalid {
                    name: "duck",
                    reason: "a bus cannot be ducked by itself or a bus it feeds",
                });
            }
        }
        let kinds: Vec<EffectKind> = effects.iter().map(EffectKind::of).collect();
        let made_with = crate::snapshot::control::made_with(index, volume, &effects, rate);
        let plain = kinds.is_empty() && duck.is_none() && output == MASTER_BUS && volume == 1.0;
        if !plain {
            let setup = BusSetup {
                index,
                output,
                volume,
                health: kinds
                    .iter()
                    .map(|&k| EffectHealth {
                        custom: k == EffectKind::Custom,
                        ..EffectHealth::default()
                    })
                    .collect(),
                effects: effects
                    .into_iter()
                    .map(|e| effects::build(e, rate))
                    .collect(),
                duck,
            };
            self.send(Command::SetupBus(Box::new(setup)))?;
        }
        game.buses_made += 1;
        for (key, value) in made_with {
            game.mix.game_sets(key, value);
        }
        game.bus_effects.push(kinds);
        game.bus_outputs.push(output);
        Ok(BusHandle::new(engine, index))
    }

    /// Glides `param` of effect `index` of `bus` (counting from 0 in the
    /// order the bus was made with) to its new value over `glide`
    /// (`Duration::ZERO`: at once, at the next block). A filter's cutoff
    /// glides evenly in pitch; the other parameters linearly. A glide in
    /// progress turns toward the new value from where it is.
    ///
    /// Errors, with nothing sent: [`PlayError::InvalidParameter`] for a
    /// NaN or infinite value (out-of-range values are clamped: a cutoff to
    /// 10 Hz .. 0.49 times the output rate, the others to 0 .. 1);
    /// [`PlayError::Invalid`] for an index past the bus's effects or a
    /// parameter its effect does not take; [`PlayError::ForeignHandle`]
    /// for a bus of another engine; [`PlayError::QueueFull`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{BusSettings, Effect, EffectParam, EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let world = engine.create_bus_with(BusSettings {
    ///     effects: vec![Effect::LowPass { cutoff_hz: f32::MAX }], // fully open
    ///     ..Default::default()
    /// })?;
    /// engine.set_effect_param(world, 0, EffectParam::CutoffHz(600.0), Duration::from_millis(300))?;
    /// assert!(engine.set_effect_param(world, 1, EffectParam::CutoffHz(600.0), Duration::ZERO).is_err());
    /// assert!(engine.set_effect_param(world, 0, EffectParam::Wet(0.5), Duration::ZERO).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_effect_param(
        &self,
        bus: BusHandle,
        index: usize,
        param: EffectParam,
        glide: Duration,
    ) -> Result<(), PlayError> {
        let param = param.validate(self.shared.rate)?;
        let (b, kind) = self.effect_kind(bus, index)?;
        if !kind.takes(&param) {
            return Err(PlayError::Invalid {
                name: "effect parameter",
                reason: "not one this effect takes",
            });
        }
        self.send_param(b, index, ParamChange::Builtin(param), glide)
    }

    /// The bus's index and what kind of effect is at `index` on it.
    pub(crate) fn effect_kind(
        &self,
        bus: BusHandle,
        index: usize,
    ) -> Result<(u16, EffectKind), PlayError> {
        let b = bus
            .index_in(self.shared.engine)
            .ok_or(PlayError::ForeignHandle)?;
        let game = self.game()?;
        let kind = (b != MASTER_BUS)
            .then(|| game.bus_effects.get(usize::from(b) - 1))
            .flatten()
            .and_then(|kinds| kinds.get(index).copied())
            .ok_or(PlayError::Invalid {
                name: "effect index",
                reason: "past the bus's effects",
            })?;
        Ok((b, kind))
    }

    /// Sends a checked parameter change to effect `index` of bus `b`.
    pub(crate) fn send_param(
        &self,
        b: u16,
        index: usize,
        param: ParamChange,
        glide: Duration,
    ) -> Result<(), PlayError> {
        let frames = fade_frames(glide.min(MAX_TIME), self.shared.rate);
        let mut game = self.game()?;
        let built_in = match param {
            ParamChange::Builtin(p) => Some(Key::of_param(b, index, p)),
            ParamChange::Custom { .. } => None,
        };
        if let Some((key, value)) = built_in {
            if game.mix.held(key) {
                // A snapshot holds it: the game's value comes back on stop.
                game.mix.game_sets(key, value);
                return Ok(());
            }
        }
        self.send(Command::SetEffectParam {
            bus: b,
            index: index as u8,
            param,
            frames,
        })?;
        if let Some((key, value)) = built_in {
            game.mix.game_sets(key, value);
        }
        Ok(())
    }
}

/// Refuses an effect with a NaN or infinite parameter.
fn check_effect(effect: &Effect) -> Result<(), PlayError> {
    match *effect {
        Effect::LowPass { cutoff_hz } | Effect::HighPass { cutoff_hz } => {
            finite("cutoff_hz", cutoff_hz)?;
        }
        Effect::Reverb { room, damping, wet } => {
            finite("room", room)?;
            finite("damping", damping)?;
            finite("wet", wet)?;
        }
        Effect::Custom(_) => {}
    }
    Ok(())
}

/// Buses: made, turned up and down, paused.
impl Controller {
    /// Makes a bus: a volume (with fades) and a pause switch for the voices
    /// played on it ([`crate::PlayParams::bus`]). It starts at volume 1,
    /// playing, and feeds the master bus. (For effects, a duck or another
    /// parent: [`Controller::create_bus_with`].)
    ///
    /// Errors: [`PlayError::TooManyBuses`] once `EngineSettings::buses`
    /// buses exist.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings { buses: 2, ..Default::default() })?;
    /// let music = engine.create_bus()?;
    /// let sfx = engine.create_bus()?;
    /// assert_ne!(music, sfx);
    /// assert!(engine.create_bus().is_err()); // only 2 were asked for
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_bus(&self) -> Result<BusHandle, PlayError> {
        self.create_bus_with(crate::BusSettings::default())
    }

    /// The master bus: every voice's sound passes through it, and through
    /// the output limiter after it. Voices play on it unless given another.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// assert!(engine.master_bus().is_master());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn master_bus(&self) -> BusHandle {
        BusHandle::new(self.shared.engine, MASTER_BUS)
    }

    /// Fades `bus`'s volume to `volume` (linear gain, 0 mutes) over `fade`
    /// (linear in amplitude; `Duration::ZERO` at once, at the next block).
    /// A fade in progress turns toward the new target from where it is.
    /// Stealing counts a bus's volume in its voices' audibility (as it will
    /// be after the fade). NaN is rejected; out of range is clamped (0 to
    /// [`crate::limits::MAX_VOLUME`]; for the master bus, 0 to
    /// [`crate::limits::MAX_MASTER_VOLUME`]), as is a fade beyond 60 s. A
    /// bus of another engine does nothing.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let music = engine.create_bus()?;
    /// engine.set_bus_volume(music, 0.25, Duration::from_millis(500))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_bus_volume(
        &self,
        bus: BusHandle,
        volume: f32,
        fade: Duration,
    ) -> Result<(), PlayError> {
        let volume = if bus.is_master() {
            valid_master_volume(volume)?
        } else {
            valid_volume(volume)?
        };
        let mut game = self.game()?;
        let Some(bus) = bus.index_in(self.shared.engine) else {
            return Ok(());
        };
        if game.mix.held(Key::Volume(bus)) {
            // A snapshot holds it: the game's value comes back on stop.
            game.mix.game_sets(Key::Volume(bus), volume);
            return Ok(());
        }
        let frames = fade_frames(fade, self.shared.rate);
        self.send(Command::SetBusVolume {
            bus,
            volume,
            frames,
            in_db: false,
        })?;
        game.mix.game_sets(Key::Volume(bus), volume);
        Ok(())
    }

    /// Fades the master volume (the gain before the output limiter, which
    /// starts at `EngineSettings::master_gain`) to `volume` over `fade`.
    /// The same as [`Controller::set_bus_volume`] on the master bus.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// engine.set_master_volume(0.8, Duration::ZERO)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_master_volume(&self, volume: f32, fade: Duration) -> Result<(), PlayError> {
        self.set_bus_volume(self.master_bus(), volume, fade)
    }

    /// Pauses `bus`: it fades out over `EngineSettings::pause_fade`, and at
    /// the end of the fade its voices stop moving, each holding its exact
    /// position. They keep their slots and their handles (no event), and
    /// rank for stealing by what they will play when resumed. Pausing the
    /// master bus pauses every voice. A voice stopped while paused ends at
    /// once (it is silent already). Pausing a paused bus does nothing.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let sfx = engine.create_bus()?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// engine.play(&hum, PlayParams::default().bus(sfx).looping(true))?;
    /// engine.pause_bus(sfx)?;
    /// engine.render(4_800);
    /// assert!(engine.render(480).iter().all(|&s| s == 0.0)); // silent, held
    /// engine.resume_bus(sfx)?; // and on from where it was
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pause_bus(&self, bus: BusHandle) -> Result<(), PlayError> {
        let _game = self.game()?;
        match bus.index_in(self.shared.engine) {
            Some(bus) => self.send(Command::PauseBus { bus }),
            None => Ok(()),
        }
    }

    /// Resumes a paused `bus`: its voices go on from the exact positions
    /// they held, fading in over `EngineSettings::pause_fade`. Resuming a
    /// bus that is not paused does nothing.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let ui = engine.create_bus()?;
    /// engine.pause_bus(ui)?;
    /// engine.resume_bus(ui)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resume_bus(&self, bus: BusHandle) -> Result<(), PlayError> {
        let _game = self.game()?;
        match bus.index_in(self.shared.engine) {
            Some(bus) => self.send(Command::ResumeBus { bus }),
            None => Ok(()),
        }
    }
}
