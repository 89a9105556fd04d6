//! The game-thread side shared by both engines: [`Engine`] (owned where the
//! game lives: events, stats, `is_playing`) and [`Controller`] (cloneable,
//! `Send + Sync`: play, stop, set_* from any thread).
//!
//! Nothing here ever waits for the audio thread: commands go out with
//! `try_send`, and a full queue is [`PlayError::QueueFull`]. The game side does
//! the allocating and freeing the audio side may not: it keeps a reference to
//! every sound in flight and drops it only once no voice holds it.

pub(crate) mod calls;
mod engine;
pub(crate) mod game_state;
mod groups;
mod observe;
pub(crate) mod params;
pub(crate) mod settings;
mod voice;
pub(crate) mod voice_info;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_channel::{Sender, TrySendError};

use crate::control::params::{valid_pan, valid_pitch, valid_volume, PlayParams, MAX_VOLUME};
use crate::error::PlayError;
use crate::protocol::stats::Counters;
use crate::protocol::{Command, EngineId, VoiceHandle, MAX_PITCH, MIN_PITCH, NO_EMITTER};
use crate::sound::Sound;
use crate::space::positions::Positions;
pub use engine::Engine;
use game_state::GameState;
use voice_info::PlayInfo;
pub use voice_info::VoiceInfo;

/// Game-side state shared by the engine and its controllers.
pub(crate) struct Shared {
    pub(crate) engine: EngineId,
    pub(crate) commands: Sender<Command>,
    pub(crate) next_id: AtomicU64,
    pub(crate) counters: Arc<Counters>,
    /// The output rate, for turning fade durations into frames.
    pub(crate) rate: u32,
    /// `EngineSettings::groups` and `buses`.
    pub(crate) max_groups: usize,
    pub(crate) max_buses: usize,
    /// The table of positions: read by `set_position` without the lock.
    pub(crate) positions: Arc<Positions>,
    pub(crate) game: Mutex<GameState>,
}

/// Sends commands to the audio side from any thread. `Clone + Send + Sync`;
/// get one with [`Engine::controller`]. Every call returns at once.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let click = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
/// let ui = engine.controller();
/// let h = std::thread::spawn(move || ui.play(&click, PlayParams::default()))
///     .join()
///     .expect("ui thread")?;
/// engine.render(480);
/// assert_eq!(engine.stats().started, 1);
/// assert!(!engine.is_playing(h)); // 240 frames: over already
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Controller {
    pub(crate) shared: Arc<Shared>,
}

impl fmt::Debug for Controller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Controller").finish_non_exhaustive()
    }
}

impl Controller {
    /// Decodes every streamed play as far as its ring has room, on the
    /// calling thread (an engine whose stream loader runs inline: offline,
    /// or in a browser). True if any streamed play is in flight.
    pub(crate) fn pump_streams(&self) -> bool {
        let mut game = self.lock();
        if !game.streams.in_use() {
            return false;
        }
        game.streams.pump_all();
        true
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, GameState> {
        // A panic elsewhere while holding the lock leaves the state usable.
        self.shared.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The game state, for a call that sends a command: the audio side's
    /// events are read first (so a game that never drains still keeps the
    /// event queue moving, whatever calls it makes), and once the audio
    /// side is gone every such call answers [`PlayError::EngineStopped`].
    pub(crate) fn game(&self) -> Result<MutexGuard<'_, GameState>, PlayError> {
        let mut game = self.lock();
        self.pump(&mut game);
        if self.shared.counters.mixer_gone() {
            return Err(PlayError::EngineStopped);
        }
        Ok(game)
    }

    pub(crate) fn send(&self, cmd: Command) -> Result<(), PlayError> {
        match self.shared.commands.try_send(cmd) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                Counters::bump(&self.shared.counters.dropped_commands);
                Err(PlayError::QueueFull)
            }
            Err(TrySendError::Disconnected(_)) => Err(PlayError::EngineStopped),
        }
    }

    /// The engine's output rate in Hz: what a time becomes in frames of
    /// [`Controller::clock`] (for [`crate::PlayParams::start_at`]).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { sample_rate: 44_100, ..Default::default() })?;
    /// let ui = engine.controller();
    /// let click = Sound::from_samples(1, 44_100, vec![0.5; 441])?;
    /// let half_a_second = u64::from(ui.sample_rate()) / 2;
    /// ui.play(&click, PlayParams::default().start_at(ui.clock() + half_a_second))?;
    /// # engine.render(480);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_rate(&self) -> u32 {
        self.shared.rate
    }

    /// Starts `sound`. Returns its handle at once; the audio side starts it
    /// at the next block, stealing a voice if the pool is full (see
    /// [`crate::StealPolicy`]). Events tell what happened.
    ///
    /// With [`PlayParams::group`], the group's retrigger interval and
    /// limit apply first (see [`Controller::create_group`]): a play they
    /// refuse ends in `Event::Rejected`.
    ///
    /// Errors: [`PlayError::InvalidParameter`] for NaN or infinite
    /// parameters, [`PlayError::ForeignHandle`] for a group or bus of
    /// another engine, [`PlayError::QueueFull`] when the audio side is
    /// behind, [`PlayError::EngineStopped`] once the mixer is gone; for a
    /// streamed sound also [`PlayError::TooManyStreams`] when every stream
    /// slot is in use and [`PlayError::LoaderUnavailable`] when the stream
    /// loader's thread cannot run. Nothing is sent on an error.
    ///
    /// ```
    /// use voicepool::{Event, OfflineEngine, EngineSettings, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let blip = Sound::from_samples(1, 48_000, vec![0.5; 480])?;
    /// let h = engine.play(&blip, PlayParams::default().volume(0.5).pan(0.2))?;
    /// engine.render(480);
    /// assert_eq!(engine.drain_events().next(), Some(Event::Started { voice: h }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(&self, sound: &Sound, params: PlayParams) -> Result<VoiceHandle, PlayError> {
        let params = params.validate(self.shared.engine)?;
        let mut game = self.game()?;
        // Under the lock: ids go out in the order their plays are sent,
        // which `stop_all` relies on (see `GameState::stopped_below`).
        let id = self.shared.next_id.fetch_add(1, Relaxed);
        let info = self.play_voice(&mut game, id, sound, (params, None))?;
        let emitter = info.emitter;
        game.live.insert(id, info);
        Ok(VoiceHandle::new(self.shared.engine, id).with_emitter(emitter))
    }

    /// Sends the play of voice `id` (under the game-state lock): claims its
    /// cell if it is positioned, a stream slot if it streams. Returns what
    /// the game side keeps of it; on an error nothing was sent and nothing
    /// is kept.
    pub(crate) fn play_voice(
        &self,
        game: &mut GameState,
        id: u64,
        sound: &Sound,
        (mut params, mods): (
            crate::protocol::ValidParams,
            Option<Arc<crate::protocol::modulation::Mods>>,
        ),
    ) -> Result<PlayInfo, PlayError> {
        if let Some(m) = &mods {
            game.keep_mods(m);
        }
        let mut emitter = NO_EMITTER;
        if let Some(at) = params.emitter.as_mut() {
            at.cell = self.claim_cell(game, id, at)?;
            emitter = at.cell;
        }
        let sent = match &sound.data.stream {
            Some(source) => self
                .play_stream(game, id, sound, source, (params, mods))
                .map(|slot| Some((slot, Arc::clone(source)))),
            None => {
                game.keep(&sound.data);
                if params.looping {
                    // Made here, on the game side, once per sound: the audio
                    // side only reads it (see `SoundData::prepare_loop`).
                    sound.data.prepare_loop();
                }
                self.send(Command::Play {
                    id,
                    sound: Arc::clone(&sound.data),
                    params,
                    stream: None,
                    mods,
                })
                .map(|()| None)
            }
        };
        let stream = match sent {
            Ok(stream) => stream,
            Err(e) => {
                game.space.give_back(emitter);
                return Err(e);
            }
        };
        Ok(PlayInfo {
            name: sound.name_arc(),
            group: params.group,
            bus: params.bus,
            rate: sound.sample_rate(),
            looping: params.looping,
            stream,
            stopping: false,
            emitter,
            scale: (1.0, 1.0),
        })
    }

    /// The engine's clock: output frames the audio side has rendered, as of
    /// its last block (what [`PlayParams::start_at`] counts in). It moves
    /// a block at a time; a start scheduled a block or more ahead of it is
    /// still ahead when the audio side takes the command.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// assert_eq!(engine.clock(), 0);
    /// engine.render(480);
    /// assert_eq!(engine.clock(), 480);
    /// let beat = Sound::from_samples(1, 48_000, vec![0.5; 480])?;
    /// let next_bar = engine.clock() + 24_000; // half a second from now
    /// engine.play(&beat, PlayParams::default().start_at(next_bar))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(&self) -> u64 {
        self.shared.counters.frames.load(Relaxed)
    }

    /// Fades the voice out (over `EngineSettings::stop_fade`) and ends it.
    /// From this call on, [`Engine::is_playing`] is false for it (its
    /// `Ended` still follows). A stale handle does nothing.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
    /// # let hum = Sound::from_samples(1, 48_000, tone)?;
    /// let h = engine.play(&hum, PlayParams::default().looping(true))?;
    /// engine.render(480);
    /// engine.stop(h)?;
    /// engine.render(960); // the 10 ms stop fade, and the event
    /// assert!(!engine.is_playing(h));
    /// engine.stop(h)?; // stale now: does nothing, not an error
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop(&self, voice: VoiceHandle) -> Result<(), PlayError> {
        let mut game = self.game()?;
        let Some(wire) = voice.wire_in(self.shared.engine) else {
            return Ok(());
        };
        let Some(info) = game.live.get_mut(&voice.id()) else {
            return Ok(());
        };
        self.send(Command::Stop { id: wire })?;
        info.stopping = true;
        Ok(())
    }

    /// Changes the voice's volume, ramped (no zipper noise). NaN or infinite
    /// is rejected; out of range is clamped. A stale handle does nothing.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
    /// # let hum = Sound::from_samples(1, 48_000, tone)?;
    /// let h = engine.play(&hum, PlayParams::default().looping(true))?;
    /// engine.render(480);
    /// engine.set_volume(h, 0.0)?;
    /// engine.render(480); // the 10 ms ramp (`EngineSettings::param_ramp`)
    /// assert!(engine.render(480).iter().all(|&s| s == 0.0));
    /// assert!(engine.is_playing(h)); // silent, but it keeps its voice
    /// assert!(engine.set_volume(h, f32::NAN).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_volume(&self, voice: VoiceHandle, volume: f32) -> Result<(), PlayError> {
        let volume = valid_volume(volume)?;
        self.send_scaled(voice, |id, (v, _)| Command::SetVolume {
            id,
            volume: (volume * v).min(MAX_VOLUME),
        })
    }

    /// Changes the voice's pan, ramped. NaN or infinite is rejected; out of
    /// range is clamped. A stale handle does nothing.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
    /// # let hum = Sound::from_samples(1, 48_000, tone)?;
    /// let h = engine.play(&hum, PlayParams::default().looping(true))?;
    /// engine.render(480);
    /// engine.set_pan(h, 1.0)?; // all the way right
    /// engine.render(480); // the 10 ms ramp
    /// let block = engine.render(480);
    /// assert!(block.chunks(2).all(|frame| frame[0] == 0.0)); // left is silent
    /// assert!(block.chunks(2).any(|frame| frame[1] != 0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_pan(&self, voice: VoiceHandle, pan: f32) -> Result<(), PlayError> {
        let pan = valid_pan(pan)?;
        self.send_if_live(voice, |id| Command::SetPan { id, pan })
    }

    /// Changes the voice's pitch. NaN or infinite is rejected; out of range is
    /// clamped. A stale handle does nothing.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let tone = Sound::from_samples(1, 48_000, vec![0.5; 4_800])?; // 100 ms
    /// let h = engine.play(&tone, PlayParams::default())?;
    /// engine.set_pitch(h, 2.0)?; // an octave up, twice as fast
    /// engine.render(3_000);
    /// assert!(!engine.is_playing(h)); // over in about 50 ms
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_pitch(&self, voice: VoiceHandle, pitch: f32) -> Result<(), PlayError> {
        let pitch = valid_pitch(pitch)?;
        self.send_scaled(voice, |id, (_, p)| Command::SetPitch {
            id,
            pitch: (pitch * p).clamp(MIN_PITCH, MAX_PITCH),
        })
    }

    /// Fades out every voice, protected ones included, virtual ones and
    /// ones waiting for a scheduled start too. From this call on,
    /// [`Engine::is_playing`] is false for every play made before it (their
    /// `Ended` events still follow, as fast as the event queue takes them).
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
    /// # let hum = Sound::from_samples(1, 48_000, tone)?;
    /// let music = engine.play(&hum, PlayParams::default().looping(true).protected(true))?;
    /// let wind = engine.play(&hum, PlayParams::default().looping(true))?;
    /// engine.render(480);
    /// engine.stop_all()?; // back to the title screen
    /// engine.render(960);
    /// assert!(!engine.is_playing(music) && !engine.is_playing(wind));
    /// assert_eq!(engine.stats().active_voices, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop_all(&self) -> Result<(), PlayError> {
        let mut game = self.game()?;
        self.send(Command::StopAll)?;
        // Every play sent before this command has a smaller id.
        game.stopped_below = self.shared.next_id.load(Relaxed);
        Ok(())
    }

    /// Sends the command made for `voice`'s id, if `voice` is a live
    /// handle of this engine; a stale or foreign handle does nothing.
    pub(crate) fn send_if_live(
        &self,
        voice: VoiceHandle,
        cmd: impl FnOnce(u64) -> Command,
    ) -> Result<(), PlayError> {
        let game = self.game()?;
        let Some(wire) = voice.wire_in(self.shared.engine) else {
            return Ok(());
        };
        if !game.live.contains_key(&voice.id()) {
            return Ok(());
        }
        // (Every layer of a layered cue: the mixer reads them off the id.)
        self.send(cmd(wire))
    }

    /// Whether the command queue has room for `n` more commands now
    /// (under the game-state lock, where every command is sent, it keeps
    /// it: the audio side only takes commands out); `QueueFull`, counted
    /// as a dropped command, if not. For calls that send several commands
    /// and must send all or none.
    pub(crate) fn room_for(&self, n: usize) -> Result<(), PlayError> {
        let commands = &self.shared.commands;
        if commands.capacity().unwrap_or(usize::MAX) - commands.len() < n {
            Counters::bump(&self.shared.counters.dropped_commands);
            return Err(PlayError::QueueFull);
        }
        Ok(())
    }

    /// Sends `cmd` to each voice of play `voice` with that voice's own
    /// scale (a cue's drawn level and pitch, which the game's values
    /// multiply), all or none; nothing for a stale or foreign handle.
    pub(crate) fn send_scaled(
        &self,
        voice: VoiceHandle,
        cmd: impl Fn(u64, (f32, f32)) -> Command,
    ) -> Result<(), PlayError> {
        let game = self.game()?;
        if voice.wire_in(self.shared.engine).is_none() {
            return Ok(());
        }
        let id = voice.id();
        let Some(info) = game.live.get(&id) else {
            return Ok(());
        };
        let Some(play) = game.cues.get(id) else {
            return self.send(cmd(id, info.scale));
        };
        let layers: Vec<(u64, (f32, f32))> = (id..)
            .zip(&play.layers)
            .filter_map(|(id, l)| Some((id, l.as_ref()?.scale)))
            .collect();
        self.room_for(layers.len())?;
        for (id, scale) in layers {
            self.send(cmd(id, scale))?;
        }
        Ok(())
    }

    pub(crate) fn pump(&self, game: &mut GameState) {
        game.pump(self.shared.engine, &self.shared.counters);
    }
}
