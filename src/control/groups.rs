//! Groups on the game side: [`Controller::create_group`] checks a group's
//! settings and sends them once; the audio side's limits and retrigger
//! intervals are the voice manager's (`voices::groups`).

use super::params::fade_frames;
use super::Controller;
use crate::control::settings::GroupSettings;
use crate::error::PlayError;
use crate::protocol::{Command, GroupHandle, ValidGroup};

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
}
