//! The parameter calls on [`Controller`] (and so on every engine):
//! `create_param`, `set_param` (every play mapping it) and
//! `set_play_param` (one play). Each is one command; the audio side glides
//! the value and hears the plays that map it again (`param::eval`).

use std::time::Duration;

use super::{ParamHandle, MAX_PARAMS};
use crate::control::Controller;
use crate::error::{finite, PlayError};
use crate::protocol::{frames, Command, VoiceHandle};

impl Controller {
    /// Makes a parameter named `name` (for the game's own reference, and
    /// for sound banks), at `value`. A NaN or infinite value is an error
    /// naming `value`; a name already made is an error naming `name`; more
    /// than [`crate::limits::MAX_PARAMS`] is [`PlayError::TooManyParams`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine, PlayError};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let speed = engine.create_param("speed", 0.0)?;
    /// engine.set_param(speed, 42.0, Duration::from_millis(100))?;
    /// assert!(matches!(engine.create_param("speed", 1.0), Err(PlayError::Invalid { name: "name", .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_param(&self, name: &str, value: f32) -> Result<ParamHandle, PlayError> {
        let value = finite("value", value)?;
        let mut game = self.game()?;
        if game.params.iter().any(|n| n == name) {
            return Err(PlayError::Invalid {
                name: "name",
                reason: "a parameter of this name was made already",
            });
        }
        if game.params.len() >= MAX_PARAMS {
            return Err(PlayError::TooManyParams { max: MAX_PARAMS });
        }
        let index = game.params.len() as u16;
        self.send(Command::SetParam {
            index,
            value,
            frames: 0,
        })?;
        game.params.push(name.to_owned());
        Ok(ParamHandle::new(self.shared.engine, index))
    }

    /// The parameter named `name`, if this engine has made one (by
    /// [`Controller::create_param`] or a sound bank).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let speed = engine.create_param("speed", 0.0)?;
    /// assert_eq!(engine.param_named("speed"), Some(speed));
    /// assert_eq!(engine.param_named("sped"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn param_named(&self, name: &str) -> Option<ParamHandle> {
        let game = self.game().ok()?;
        let index = game.params.iter().position(|n| n == name)?;
        Some(ParamHandle::new(self.shared.engine, index as u16))
    }

    /// How many parameters this engine has made (at most
    /// [`crate::limits::MAX_PARAMS`]).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// engine.create_param("speed", 0.0)?;
    /// assert_eq!(engine.param_count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn param_count(&self) -> usize {
        self.game().map_or(0, |g| g.params.len())
    }

    /// Sets parameter `param` for every play whose cue maps it (but those
    /// given their own value by [`Controller::set_play_param`]), gliding
    /// there linearly over `glide` (`Duration::ZERO`: at once); the plays'
    /// volumes, pitches and cutoffs follow their curves without steps. A
    /// NaN or infinite value is an error naming `value`; a parameter of
    /// another engine is [`PlayError::ForeignHandle`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{Cue, Curve, EngineSettings, OfflineEngine, PlayParams, Sound, Target};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let health = engine.create_param("health", 100.0)?;
    /// let heart = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// // Louder as health drops: -40 dB at full health, 0 dB at 10 and below.
    /// let beat = Cue::new([heart]).map(health, Target::VolumeDb, Curve::linear([(10.0, 0.0), (100.0, -40.0)]));
    /// engine.play_cue(&beat, PlayParams::default())?;
    /// let quiet = engine.render(480)[478].abs();
    /// engine.set_param(health, 10.0, Duration::ZERO)?;
    /// engine.render(480);
    /// let loud = engine.render(480)[478].abs();
    /// assert!((loud / quiet - 100.0).abs() < 0.1); // 40 dB
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_param(
        &self,
        param: ParamHandle,
        value: f32,
        glide: Duration,
    ) -> Result<(), PlayError> {
        let value = finite("value", value)?;
        let index = param
            .index_in(self.shared.engine)
            .ok_or(PlayError::ForeignHandle)?;
        let _game = self.game()?;
        self.send(Command::SetParam {
            index,
            value,
            frames: frames(glide, self.shared.rate),
        })
    }

    /// Sets parameter `param` for play `voice` alone (each layer of a cue
    /// play), gliding over `glide`: from then on the play follows its own
    /// value of it, not the engine's. A stale handle does nothing; a NaN or
    /// infinite value is an error naming `value`; a parameter of another
    /// engine is [`PlayError::ForeignHandle`]. A play whose cue does not
    /// map `param` is not changed.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{Cue, Curve, EngineSettings, OfflineEngine, PlayParams, Sound, Target};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let rpm = engine.create_param("rpm", 1_000.0)?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let motor = Cue::new([hum]).looping(true)
    ///     .map(rpm, Target::Pitch, Curve::linear([(1_000.0, 1.0), (6_000.0, 2.0)]));
    /// let mine = engine.play_cue(&motor, PlayParams::default())?;
    /// let theirs = engine.play_cue(&motor, PlayParams::default())?;
    /// engine.set_play_param(mine, rpm, 6_000.0, Duration::from_millis(500))?; // only my car revs
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_play_param(
        &self,
        voice: VoiceHandle,
        param: ParamHandle,
        value: f32,
        glide: Duration,
    ) -> Result<(), PlayError> {
        let value = finite("value", value)?;
        let param = param
            .index_in(self.shared.engine)
            .ok_or(PlayError::ForeignHandle)?;
        let frames = frames(glide, self.shared.rate);
        self.send_if_live(voice, |id| Command::SetPlayParam {
            id,
            param,
            value,
            frames,
        })
    }
}
