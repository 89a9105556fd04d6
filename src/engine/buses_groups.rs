//! The voice-management calls beyond play and stop, on [`Controller`] (and so
//! on every engine): groups, buses, the master volume, pausing and fading one
//! voice, and what a voice plays. Each call validates on the game side and
//! sends one command; none waits for the audio thread.

use std::time::Duration;

use super::{Controller, VoiceInfo};
use crate::engine::params::{fade_frames, valid_master_volume, valid_volume};
use crate::engine::settings::GroupSettings;
use crate::error::PlayError;
use crate::protocol::{BusHandle, Command, GroupHandle, ValidGroup, VoiceHandle, MASTER_BUS};

impl Controller {
    /// Makes a group: at most `max_voices` of its members sound at once, a
    /// new member of a full group is handled by the group's `policy` among
    /// its own members (never by stealing outside the group), and a member
    /// starting closer than `min_interval` to the group's last accepted
    /// start (in the frames first samples sound at) is rejected. Play into it with [`crate::PlayParams::group`].
    /// The pool's own rules still apply on top: a group below its limit in
    /// a full pool steals by the pool's policy like any other voice.
    ///
    /// Errors: [`PlayError::TooManyGroups`] once `EngineSettings::groups`
    /// groups exist, [`PlayError::Invalid`] for `max_voices` 0,
    /// [`PlayError::QueueFull`]. `min_interval` beyond 60 s is clamped.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, GroupSettings, OfflineEngine, PlayParams, Sound, StealPolicy};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let guns = engine.create_group(GroupSettings {
    ///     max_voices: 4,
    ///     policy: StealPolicy::Oldest,
    ///     min_interval: Duration::from_millis(40),
    /// })?;
    /// let shot = Sound::from_samples(1, 48_000, vec![0.5; 9_600])?;
    /// for _ in 0..10 {
    ///     engine.play(&shot, PlayParams::default().group(guns))?;
    ///     engine.render(2_400); // 50 ms between shots
    /// }
    /// assert!(engine.stats().active_voices <= 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_group(&self, settings: GroupSettings) -> Result<GroupHandle, PlayError> {
        if settings.max_voices == 0 {
            return Err(PlayError::Invalid {
                name: "max_voices",
                reason: "a group must allow at least 1 voice",
            });
        }
        let group = ValidGroup {
            max_voices: u32::try_from(settings.max_voices).unwrap_or(u32::MAX),
            policy: settings.policy,
            min_interval: fade_frames(settings.min_interval, self.shared.rate),
        };
        let mut game = self.game()?;
        let max = self.shared.max_groups;
        if game.groups_made >= max {
            return Err(PlayError::TooManyGroups { max });
        }
        let index = game.groups_made as u16;
        self.send(Command::SetGroup { index, group })?;
        game.groups_made += 1;
        Ok(GroupHandle::new(self.shared.engine, index))
    }

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
    /// [`crate::engine::params::MAX_VOLUME`]; for the master bus, 0 to
    /// [`crate::engine::params::MAX_MASTER_VOLUME`]), as is a fade beyond 60 s. A
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
        let _game = self.game()?;
        let Some(bus) = bus.index_in(self.shared.engine) else {
            return Ok(());
        };
        let frames = fade_frames(fade, self.shared.rate);
        self.send(Command::SetBusVolume {
            bus,
            volume,
            frames,
        })
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
        self.send_if_live(voice, |id| Command::FadeVolume { id, volume, frames })
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
