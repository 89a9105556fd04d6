//! The snapshot calls on [`Controller`] (and so on every engine), and
//! [`MixState`]: what the game set each bus volume and effect parameter
//! to, the snapshots made and those started. Game side only, under the
//! game-state lock: a snapshot's start or stop sends the glides the
//! values need (bus volumes in dB, `Command::SetBusVolume { in_db }`;
//! effect parameters as `set_effect_param` would).

use std::collections::HashMap;
use std::time::Duration;

use super::{Setting, Snapshot, SnapshotHandle};
use crate::bus::control::EffectKind;
use crate::bus::{Effect, EffectParam};
use crate::control::params::{fade_frames, valid_master_volume, valid_volume};
use crate::control::Controller;
use crate::error::PlayError;
use crate::protocol::bus::ParamChange;
use crate::protocol::{Command, MASTER_BUS};

/// One value of the mix: a bus's volume, or a parameter of an effect
/// (`which`: the `EffectParam` kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Volume(u16),
    Effect { bus: u16, index: u8, which: u8 },
}

impl Key {
    pub(crate) fn of_param(bus: u16, index: usize, param: EffectParam) -> (Key, f32) {
        let (which, value) = match param {
            EffectParam::CutoffHz(v) => (0, v),
            EffectParam::Wet(v) => (1, v),
            EffectParam::Room(v) => (2, v),
            EffectParam::Damping(v) => (3, v),
        };
        let index = index as u8;
        (Key::Effect { bus, index, which }, value)
    }

    /// The command that takes this value to `value` over `frames`.
    fn command(self, value: f32, frames: u32) -> Command {
        match self {
            Key::Volume(bus) => Command::SetBusVolume {
                bus,
                volume: value,
                frames,
                in_db: true,
            },
            Key::Effect { bus, index, which } => Command::SetEffectParam {
                bus,
                index,
                param: ParamChange::Builtin(match which {
                    0 => EffectParam::CutoffHz(value),
                    1 => EffectParam::Wet(value),
                    2 => EffectParam::Room(value),
                    _ => EffectParam::Damping(value),
                }),
                frames,
            },
        }
    }
}

/// The mix as the game set it, and the snapshots over it.
#[derive(Debug, Default)]
pub(crate) struct MixState {
    /// What the game set each value to (or what it was made with).
    base: HashMap<Key, f32>,
    /// The snapshots made, by index: their values, checked.
    made: Vec<Vec<(Key, f32)>>,
    /// Those started, oldest first.
    started: Vec<u16>,
}

impl MixState {
    /// The mix of a new engine: the master bus at `master_gain`.
    pub(crate) fn with_master(master_gain: f32) -> MixState {
        let mut mix = MixState::default();
        mix.base.insert(Key::Volume(MASTER_BUS), master_gain);
        mix
    }

    /// `key` was made (a bus, its effects) or set by the game at `value`:
    /// what it returns to when no snapshot holds it.
    pub(crate) fn game_sets(&mut self, key: Key, value: f32) {
        self.base.insert(key, value);
    }

    /// Whether a started snapshot sets `key` (the game's own value then
    /// waits for it to stop).
    pub(crate) fn held(&self, key: Key) -> bool {
        self.holder(key).is_some()
    }

    /// The value the most recently started snapshot setting `key` gives.
    fn holder(&self, key: Key) -> Option<f32> {
        self.started.iter().rev().find_map(|&s| {
            let values = self.made.get(usize::from(s))?;
            values.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
        })
    }

    fn value(&self, key: Key) -> Option<f32> {
        self.holder(key).or_else(|| self.base.get(&key).copied())
    }
}

/// The values a bus is made with: its volume and its effects' parameters.
pub(crate) fn made_with(bus: u16, volume: f32, effects: &[Effect], rate: u32) -> Vec<(Key, f32)> {
    let mut out = vec![(Key::Volume(bus), volume)];
    for (i, e) in effects.iter().enumerate() {
        let params: &[EffectParam] = match *e {
            Effect::LowPass { cutoff_hz } | Effect::HighPass { cutoff_hz } => {
                &[EffectParam::CutoffHz(cutoff_hz)]
            }
            Effect::Reverb { room, damping, wet } => &[
                EffectParam::Wet(wet),
                EffectParam::Room(room),
                EffectParam::Damping(damping),
            ],
            Effect::Custom(_) => &[],
        };
        for p in params {
            if let Ok(p) = p.validate(rate) {
                out.push(Key::of_param(bus, i, p));
            }
        }
    }
    out
}

impl Controller {
    /// Makes a snapshot of `snapshot`'s values, checked as
    /// `set_bus_volume` and `set_effect_param` check theirs (a NaN volume
    /// or parameter is an error naming it; an effect index past the bus's
    /// effects, or a parameter the effect does not take, is an error; a
    /// bus of another engine is [`PlayError::ForeignHandle`]). Nothing is
    /// made on an error.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, Snapshot};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let music = engine.create_bus()?;
    /// let menu = engine.create_snapshot(Snapshot::new().bus_volume(music, 0.3))?;
    /// assert!(engine.create_snapshot(Snapshot::new().bus_volume(music, f32::NAN)).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_snapshot(&self, snapshot: Snapshot) -> Result<SnapshotHandle, PlayError> {
        let values = self.snapshot_values(&snapshot)?;
        let mut game = self.game()?;
        let index = u16::try_from(game.mix.made.len()).map_err(|_| PlayError::Invalid {
            name: "snapshot",
            reason: "an engine makes at most 65,536 snapshots",
        })?;
        game.mix.made.push(values);
        Ok(SnapshotHandle::new(self.shared.engine, index))
    }

    /// `snapshot`'s values checked for this engine (the last of two that
    /// set one value wins), or the first one's error; nothing made.
    pub(crate) fn snapshot_values(
        &self,
        snapshot: &Snapshot,
    ) -> Result<Vec<(Key, f32)>, PlayError> {
        let mut values: Vec<(Key, f32)> = Vec::with_capacity(snapshot.values.len());
        for &setting in &snapshot.values {
            let (key, value) = match setting {
                Setting::Volume(bus, volume) => {
                    let b = bus
                        .index_in(self.shared.engine)
                        .ok_or(PlayError::ForeignHandle)?;
                    let v = if b == MASTER_BUS {
                        valid_master_volume(volume)?
                    } else {
                        valid_volume(volume)?
                    };
                    (Key::Volume(b), v)
                }
                Setting::Effect(bus, index, param) => {
                    let param = param.validate(self.shared.rate)?;
                    let (b, kind) = self.effect_kind(bus, index)?;
                    if !kind.takes(&param) || kind == EffectKind::Custom {
                        return Err(PlayError::Invalid {
                            name: "effect parameter",
                            reason: "not one this effect takes",
                        });
                    }
                    Key::of_param(b, index, param)
                }
            };
            values.retain(|(k, _)| *k != key);
            values.push((key, value));
        }
        Ok(values)
    }

    /// Blends the mix into `snapshot` over `fade`: each value it sets
    /// glides from where it is (bus volumes linearly in dB, cutoffs in log
    /// frequency, the reverb's values linearly). Where another started
    /// snapshot sets the same value, this one (started last) wins; starting
    /// a started snapshot makes it the last again. A snapshot of another
    /// engine is [`PlayError::ForeignHandle`]; a full queue,
    /// [`PlayError::QueueFull`] with nothing changed.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Snapshot, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let music = engine.create_bus()?;
    /// let song = Sound::from_samples(1, 48_000, vec![0.5; 96_000])?;
    /// engine.play(&song, PlayParams::default().bus(music))?;
    /// let menu = engine.create_snapshot(Snapshot::new().bus_volume(music, 0.1))?;
    /// engine.start_snapshot(menu, Duration::from_millis(100))?;
    /// engine.render(9_600);
    /// let under = engine.render(480)[0];
    /// engine.stop_snapshot(menu, Duration::ZERO)?; // back to what the game set
    /// engine.render(480);
    /// assert!((engine.render(480)[0] / under - 10.0).abs() < 1e-3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_snapshot(
        &self,
        snapshot: SnapshotHandle,
        fade: Duration,
    ) -> Result<(), PlayError> {
        self.move_snapshot(snapshot, fade, true)
    }

    /// Blends the mix out of `snapshot` over `fade`: each value it set goes
    /// back to what another started snapshot sets (the one started last),
    /// or else to what the game set (by `set_bus_volume`,
    /// `set_effect_param`, or the bus's settings). A snapshot not started
    /// does nothing. Errors as [`Controller::start_snapshot`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine, Snapshot};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let quiet = engine.create_snapshot(Snapshot::new().bus_volume(engine.master_bus(), 0.2))?;
    /// engine.stop_snapshot(quiet, Duration::ZERO)?; // not started: nothing
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop_snapshot(&self, snapshot: SnapshotHandle, fade: Duration) -> Result<(), PlayError> {
        self.move_snapshot(snapshot, fade, false)
    }

    fn move_snapshot(
        &self,
        snapshot: SnapshotHandle,
        fade: Duration,
        start: bool,
    ) -> Result<(), PlayError> {
        let s = snapshot
            .index_in(self.shared.engine)
            .ok_or(PlayError::ForeignHandle)?;
        let mut game = self.game()?;
        let mix = &mut game.mix;
        let Some(keys) = mix.made.get(usize::from(s)) else {
            return Err(PlayError::ForeignHandle);
        };
        let keys: Vec<_> = keys.iter().map(|&(k, _)| k).collect();
        if !start && !mix.started.contains(&s) {
            return Ok(());
        }
        let was = mix.started.clone();
        mix.started.retain(|&x| x != s);
        if start {
            mix.started.push(s);
        }
        // Every value it sets, changed or not: a glide under way (its own
        // start's, say) is replaced by one over this fade.
        let moves: Vec<(Key, f32)> = keys
            .iter()
            .filter_map(|&k| mix.value(k).map(|v| (k, v)))
            .collect();
        if let Err(e) = self.room_for(moves.len()) {
            game.mix.started = was;
            return Err(e);
        }
        let frames = fade_frames(fade, self.shared.rate);
        for (k, v) in moves {
            self.send(k.command(v, frames))?;
        }
        Ok(())
    }
}
