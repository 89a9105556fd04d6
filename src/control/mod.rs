//! The game-thread side shared by both engines: [`Engine`] (owned where the
//! game lives: events, stats, `is_playing`) and [`Controller`] (cloneable,
//! `Send + Sync`: play, stop, set_* from any thread).
//!
//! Nothing here ever waits for the audio thread: commands go out with
//! `try_send`, and a full queue is [`PlayError::QueueFull`]. The game side does
//! the allocating and freeing the audio side may not: it keeps a reference to
//! every sound in flight and drops it only once no voice holds it.

pub(crate) mod calls;
pub(crate) mod game_state;
mod groups;
mod observe;
pub(crate) mod params;
pub(crate) mod settings;
mod voice;
mod voice_info;

use std::collections::VecDeque;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_channel::{Sender, TrySendError};
use ringbuf::traits::{Observer, Split};
use ringbuf::{HeapProd, HeapRb};

use crate::control::params::{valid_pan, valid_pitch, valid_volume, PlayParams};
use crate::control::settings::EngineSettings;
pub use crate::error::{EngineError, PlayError};
use crate::mixer::Mixer;
use crate::protocol::stats::Counters;
use crate::protocol::{Command, EngineId, TimedEvent, VoiceHandle, NO_EMITTER};
use crate::sound::{Sound, SoundData};
use crate::space::positions::Positions;
use game_state::GameState;
pub use voice_info::VoiceInfo;
use voice_info::{id_map_bytes, IdMap, PlayInfo, Retired};

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
        let mut params = params.validate(self.shared.engine)?;
        let mut game = self.game()?;
        // Under the lock: ids go out in the order their plays are sent,
        // which `stop_all` relies on (see `GameState::stopped_below`).
        let id = self.shared.next_id.fetch_add(1, Relaxed);
        let mut emitter = NO_EMITTER;
        if let Some(at) = params.emitter.as_mut() {
            at.cell = self.claim_cell(&mut game, id, at)?;
            emitter = at.cell;
        }
        let sent = match &sound.data.stream {
            Some(source) => self
                .play_stream(&mut game, id, sound, source, params)
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
        let info = PlayInfo {
            name: sound.name_arc(),
            group: params.group,
            bus: params.bus,
            rate: sound.sample_rate(),
            looping: params.looping,
            stream,
            stopping: false,
            emitter,
        };
        game.live.insert(id, info);
        Ok(VoiceHandle::new(self.shared.engine, id).with_emitter(emitter))
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
        let Some(id) = voice.id_in(self.shared.engine) else {
            return Ok(());
        };
        let Some(info) = game.live.get_mut(&id) else {
            return Ok(());
        };
        self.send(Command::Stop { id })?;
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
        self.send_if_live(voice, |id| Command::SetVolume { id, volume })
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
        self.send_if_live(voice, |id| Command::SetPitch { id, pitch })
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
    fn send_if_live(
        &self,
        voice: VoiceHandle,
        cmd: impl FnOnce(u64) -> Command,
    ) -> Result<(), PlayError> {
        let game = self.game()?;
        let Some(id) = voice.id_in(self.shared.engine) else {
            return Ok(());
        };
        if !game.live.contains_key(&id) {
            return Ok(());
        }
        self.send(cmd(id))
    }

    pub(crate) fn pump(&self, game: &mut GameState) {
        game.pump(self.shared.engine, &self.shared.counters);
    }
}

/// The game side of an engine: everything a [`Controller`] does, plus
/// reading events and voice state. Lives where the game
/// reads its events; hand [`Controller`]s to other threads.
///
/// ```
/// use voicepool::{Engine, EngineSettings, Event, PlayParams, Sound};
/// let (mut engine, mut mixer) = Engine::new(EngineSettings::default())?;
/// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
/// let h = engine.play(&blip, PlayParams::default())?; // a `Controller` method
/// mixer.process(&mut [0.0; 2 * 480]); // the audio side, normally on its own thread
/// let events: Vec<Event> = engine.drain_events().collect();
/// assert_eq!(events, [Event::Started { voice: h }, Event::Ended { voice: h }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Engine {
    pub(crate) controller: Controller,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("stats", &self.stats())
            .finish()
    }
}

/// The controller's calls, listed on the engine itself.
impl Engine {
    fn controller_ref(&self) -> &Controller {
        &self.controller
    }
    calls::controller_calls!();
}

/// Kept so that code written when the controller's calls were reached
/// through `Deref` still builds; every call is the engine's own now.
#[doc(hidden)]
impl Deref for Engine {
    type Target = Controller;
    fn deref(&self) -> &Controller {
        &self.controller
    }
}

impl Engine {
    /// Makes a game side and its [`Mixer`] at `settings.sample_rate`, for
    /// driving the mixer from an audio callback of your own. Everything is
    /// allocated here; the mixer allocates nothing afterwards.
    ///
    /// ```
    /// use voicepool::{Engine, EngineSettings, PlayParams, Sound};
    /// let (engine, mut mixer) = Engine::new(EngineSettings::default())?;
    /// let beep = Sound::from_samples(1, 48_000, vec![0.5; 480])?;
    /// engine.play(&beep, PlayParams::default())?;
    /// let mut block = [0.0f32; 2 * 256];
    /// mixer.process(&mut block); // in your audio callback
    /// assert!(block.iter().any(|&s| s != 0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(settings: EngineSettings) -> Result<(Engine, Mixer), EngineError> {
        let rate = settings.sample_rate;
        Engine::with_rate(settings, rate)
    }

    /// As [`Engine::new`], at an output rate chosen by the caller (a device's).
    pub(crate) fn with_rate(
        settings: EngineSettings,
        out_rate: u32,
    ) -> Result<(Engine, Mixer), EngineError> {
        EngineSettings {
            sample_rate: out_rate,
            ..settings.clone()
        }
        .validate()?;
        let (tx, rx) = crossbeam_channel::bounded(settings.command_capacity);
        // The audio side never pushes an event it has no room for: it takes a
        // command only while the ring can still hold that command's events
        // plus one `Ended` for every voice already sounding (see
        // `Mixer::drain_commands`). `voices + 2` more than the game-side
        // capacity lets at least `event_capacity / 2` plays through per block.
        // (And one `StreamUnderrun` per stream per block.)
        let ring = settings.event_capacity + settings.voices + settings.streams + 2;
        let (prod, cons) = HeapRb::<TimedEvent>::new(ring).split();
        let counters = Arc::new(Counters::new(
            settings.voices,
            settings.virtual_voices,
            settings.buses,
        ));
        let engine = EngineId::next();
        let (readers, stream_slots) = crate::stream::control::make(&settings, &counters);
        // The table of emitters, made whole now: every play may be
        // positioned, and the first positioned play costs no more than
        // any other (nor a command). A cell for every play the audio side
        // can hold (voices, virtual voices, a newcomer before its victim
        // lets go) and every play the command queue can.
        let cells = settings.voices + settings.virtual_voices + settings.command_capacity + 1;
        let (game_space, emitters) = crate::space::control::GameSpace::make(cells);
        let positions = game_space.positions();
        let mixer = Mixer::new(
            &settings.mixer_setup(out_rate),
            out_rate,
            engine,
            Box::new(emitters),
            (rx, prod),
            Arc::clone(&counters),
            readers,
        );
        let shared = Arc::new(Shared {
            engine,
            commands: tx,
            next_id: AtomicU64::new(1),
            counters,
            rate: out_rate,
            max_groups: settings.groups,
            max_buses: settings.buses,
            positions,
            game: Mutex::new(GameState {
                events: cons,
                stream_events: None,
                // Sized for the most they can ever hold, so that neither
                // grows after start: the backlog keeps at most
                // `event_capacity`; a handle is live while its play is queued,
                // its voice sounds, or its terminal event is unread.
                backlog: VecDeque::with_capacity(settings.event_capacity),
                backlog_capacity: settings.event_capacity,
                live: IdMap::with_capacity_and_hasher(
                    settings.command_capacity
                        + settings.voices
                        + settings.virtual_voices
                        + settings.event_capacity,
                    Default::default(),
                ),
                // Enough to name every voice one drain can return: the
                // backlog, the audio side's ring, and an `Ended` for every
                // play still live when the mixer goes.
                retired: Retired::new(
                    2 * settings.event_capacity
                        + settings.command_capacity
                        + 2 * (settings.voices + settings.virtual_voices)
                        + 2,
                ),
                stopped_below: 0,
                groups_made: 0,
                buses_made: 0,
                bus_effects: Vec::new(),
                bus_outputs: Vec::new(),
                in_flight: Vec::new(),
                prune_at: 16,
                streams: stream_slots,
                space: game_space,
            }),
        });
        Ok((
            Engine {
                controller: Controller { shared },
            },
            mixer,
        ))
    }

    /// A cloneable, `Send + Sync` handle for playing sounds from other threads.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let ui = engine.controller(); // give this to the UI thread
    /// let click = Sound::from_samples(1, 48_000, vec![0.5; 480])?;
    /// let h = ui.play(&click, PlayParams::default())?;
    /// assert!(engine.is_playing(h)); // the engine sees plays from every controller
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn controller(&self) -> Controller {
        self.controller.clone()
    }

    /// A queue on which a live output's error callback reports
    /// [`Event::StreamError`]s, and the counters it bumps; the game side
    /// reads the queue with the voice events.
    pub(crate) fn stream_error_sink(
        &self,
        capacity: usize,
    ) -> (HeapProd<TimedEvent>, Arc<Counters>) {
        let (prod, cons) = HeapRb::<TimedEvent>::new(capacity).split();
        self.controller.lock().stream_events = Some(cons);
        (prod, Arc::clone(&self.controller.shared.counters))
    }

    /// Heap memory of the game side and the queues between the threads, in
    /// bytes: the command queue, the event queue, the event backlog and the
    /// set of live handles, each allocated at its full size when the engine
    /// is made. (The list of sounds kept alive for the audio side grows with
    /// the number of distinct sounds in flight; sample data is not counted.)
    /// Add [`Mixer::memory_bytes`] for the audio side.
    ///
    /// ```
    /// use voicepool::{Engine, EngineSettings};
    /// let (engine, mixer) = Engine::new(EngineSettings { voices: 64, ..Default::default() })?;
    /// let total = engine.memory_bytes() + mixer.memory_bytes();
    /// println!("64 voices: {total} bytes, all allocated up front");
    /// assert!(total > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let shared = &self.controller.shared;
        let game = self.controller.lock();
        // crossbeam's bounded channel: one slot (message + stamp) per command.
        let commands =
            shared.commands.capacity().unwrap_or(0) * (size_of::<Command>() + size_of::<usize>());
        let events = game.events.capacity().get() * size_of::<TimedEvent>();
        let backlog = game.backlog.capacity() * size_of::<TimedEvent>();
        let live = id_map_bytes::<PlayInfo>(game.live.capacity()) + game.retired.memory_bytes();
        let sounds = game.in_flight.capacity() * size_of::<Arc<SoundData>>();
        let stream_errors = game
            .stream_events
            .as_ref()
            .map_or(0, |q| q.capacity().get() * size_of::<TimedEvent>());
        let space = game.space.memory_bytes();
        commands
            + events
            + backlog
            + live
            + sounds
            + stream_errors
            + game.streams.memory_bytes()
            + space
    }

    /// Runs the stream loader on the calling thread, from [`Engine::pump_streams`]
    /// (an offline engine: deterministic), instead of on a thread of its own.
    pub(crate) fn stream_loader_inline(&self) {
        self.controller.lock().streams.make_inline();
    }

    /// Offline: decodes every streamed play as far as its ring has room.
    /// True if any streamed play is in flight.
    pub(crate) fn pump_streams(&self) -> bool {
        let mut game = self.controller.lock();
        if !game.streams.in_use() {
            return false;
        }
        game.streams.pump_all();
        true
    }

    /// The audio side is gone without its mixer being dropped (a live
    /// output that never gave it back): every play still live ends, as if
    /// it had been.
    pub(crate) fn audio_side_lost(&self) {
        self.controller.shared.counters.mark_mixer_gone();
    }

    /// Moves reported events into the game-side backlog (which keeps the
    /// newest `event_capacity`), so the audio side's queue never fills.
    pub(crate) fn pump(&self) {
        let mut game = self.controller.lock();
        self.controller.pump(&mut game);
    }
}
