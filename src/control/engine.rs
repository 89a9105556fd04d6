//! [`Engine`]: the game side an engine's owner holds, made with its
//! [`Mixer`] (`Engine::new`, or an output's constructor through
//! `Engine::with_rate`): every queue, table and counter both sides share
//! is allocated here, once.

use std::collections::VecDeque;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use ringbuf::traits::{Observer, Split};
use ringbuf::{HeapProd, HeapRb};

use super::calls;
use super::game_state::GameState;
use super::voice_info::{id_map_bytes, IdMap, PlayInfo, Retired};
use super::{Controller, Shared};
use crate::control::settings::EngineSettings;
use crate::error::EngineError;
use crate::mixer::Mixer;
use crate::protocol::stats::Counters;
use crate::protocol::{Command, EngineId, TimedEvent};

/// The game side of an engine: everything a [`Controller`] does, plus
/// reading events and voice state. Lives where the game
/// reads its events; hand [`Controller`]s to other threads.
///
/// ```
/// use voicepool::{Engine, EngineSettings, Event, PlayParams, Sound};
/// let (mut engine, mut mixer) = Engine::new(EngineSettings::default())?;
/// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
/// let h = engine.play(&blip, PlayParams::default())?; // as a `Controller` plays
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
    /// The engine's output rate in Hz: the same call as
    /// [`Controller::sample_rate`].
    #[inline]
    pub fn sample_rate(&self) -> u32 {
        self.controller.sample_rate()
    }

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
                in_flight: super::game_state::KeepAlive::new(),
                streams: stream_slots,
                space: game_space,
                picks: crate::cue::pick::Picks::new(settings.seed),
                cues: crate::cue::plays::CuePlays::default(),
                mods_in_flight: super::game_state::KeepAlive::new(),
                params: Vec::new(),
                mix: crate::snapshot::control::MixState::with_master(settings.master_gain),
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
        let sounds = game.in_flight.heap_bytes() + game.mods_in_flight.heap_bytes();
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
        self.controller.pump_streams()
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
