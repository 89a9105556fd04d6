//! One voice's controls beyond play, stop and the setters: pause, resume,
//! its own fades, and what a handle plays ([`Controller::voice_info`]).

use std::time::Duration;

use super::{Controller, VoiceInfo};
use crate::control::params::{fade_frames, valid_volume};
use crate::error::PlayError;
use crate::protocol::{Command, VoiceHandle};

impl Controller {
    /// Pauses one voice: it fades out over `EngineSettings::pause_fade` and
    /// then holds its exact position, keeping its slot and handle, until
    /// [`Controller::resume`]. A paused voice ranks for stealing by what it
    /// will play when resumed. A stale handle does nothing.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let h = engine.play(&hum, PlayParams::default().looping(true))?;
    /// engine.pause(h)?;
    /// engine.render(4_800);
    /// assert!(engine.is_playing(h)); // paused is still playing, just held
    /// engine.resume(h)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pause(&self, voice: VoiceHandle) -> Result<(), PlayError> {
        self.send_if_live(voice, |id| Command::Pause { id })
    }

    /// Resumes a paused voice from the exact position it held, fading in
    /// over `EngineSettings::pause_fade` (or over what was left of a fade
    /// the pause interrupted, if longer). A voice not paused is unchanged.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let h = engine.play(&hum, PlayParams::default())?;
    /// engine.pause(h)?;
    /// engine.render(480);
    /// engine.resume(h)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resume(&self, voice: VoiceHandle) -> Result<(), PlayError> {
        self.send_if_live(voice, |id| Command::Resume { id })
    }

    /// Stops the voice with a fade of its own length (`Duration::ZERO`
    /// cuts it at the next block; beyond 60 s is clamped). If it is already
    /// stopping, the shorter fade wins. It ends with `Event::Ended` when
    /// the fade is done. A stale handle does nothing.
    ///
    /// ```
    /// use std::time::Duration;
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let music = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let h = engine.play(&music, PlayParams::default().looping(true))?;
    /// engine.stop_with_fade(h, Duration::from_millis(500))?;
    /// engine.render(24_000 + 480);
    /// assert!(!engine.is_playing(h));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop_with_fade(&self, voice: VoiceHandle, fade: Duration) -> Result<(), PlayError> {
        let frames = fade_frames(fade, self.shared.rate);
        self.send_if_live(voice, |id| Command::StopWithFade { id, frames })
    }

    /// Fades the voice's volume to `volume` over exactly `fade`, linear in
    /// amplitude (kira's default tween; equal steps of gain per frame). It
    /// replaces a ramp in progress (unlike [`Controller::set_volume`], whose
    /// short ramp never cuts a fade short). NaN is rejected; out of range
    /// volume is clamped, as is a fade beyond 60 s. A stale handle does
    /// nothing.
    ///
    /// ```
    /// use std::time::Duration;
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let wind = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let h = engine.play(&wind, PlayParams::default().looping(true))?;
    /// engine.fade_volume(h, 0.2, Duration::from_secs(1))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fade_volume(
        &self,
        voice: VoiceHandle,
        volume: f32,
        fade: Duration,
    ) -> Result<(), PlayError> {
        let volume = valid_volume(volume)?;
        let frames = fade_frames(fade, self.shared.rate);
        self.send_scaled(voice, |id, (v, _)| Command::FadeVolume {
            id,
            volume: (volume * v).min(crate::control::params::MAX_VOLUME),
            frames,
        })
    }

    /// What `voice` plays: its sound's name, group and bus. Known from the
    /// `play` call until a while after the voice's terminal event (for the
    /// last `2 * event_capacity + command_capacity + 2 * voices + 2` plays
    /// that ended: more than one `drain_events` can return), so the voices
    /// in events just drained can be named; `None` after that, and for a
    /// handle of another engine.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 1, ..Default::default() })?;
    /// let step = Sound::from_samples(1, 48_000, vec![0.1; 9_600])?.with_name("footstep");
    /// let shot = Sound::from_samples(1, 48_000, vec![0.9; 9_600])?.with_name("gunshot");
    /// engine.play(&step, PlayParams::default())?;
    /// engine.render(4_800);
    /// engine.play(&shot, PlayParams::default())?;
    /// engine.render(480);
    /// for event in engine.drain_events() {
    ///     if let Event::Stolen { victim, by } = event {
    ///         let (v, b) = (engine.voice_info(victim).unwrap(), engine.voice_info(by).unwrap());
    ///         assert_eq!(format!("{} stolen by {}", v.sound_name, b.sound_name), "footstep stolen by gunshot");
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn voice_info(&self, voice: VoiceHandle) -> Option<VoiceInfo> {
        let engine = self.shared.engine;
        let id = voice.id_in(engine)?;
        let mut game = self.lock();
        self.pump(&mut game);
        match game.live.get(&id) {
            Some(info) => Some(info.public(engine)),
            None => game.retired.get(id).map(|ended| ended.public(engine)),
        }
    }
}
