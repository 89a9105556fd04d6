//! What the game reads back from the engine: events, whether a voice still
//! plays, statistics, the pool's slots. Game-thread side; each call reads
//! the queues and counters the audio side fills and never waits for it.

use super::{Controller, Engine};
use crate::protocol::stats::{SlotView, Stats};
use crate::protocol::{Event, TimedEvent, VoiceHandle};

impl Engine {
    /// Takes every event reported since the last call, oldest first.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
    /// let h = engine.play(&blip, PlayParams::default())?;
    /// engine.render(480);
    /// // Once per game frame:
    /// let mut ended = Vec::new();
    /// for event in engine.drain_events() {
    ///     if let Event::Ended { voice } = event {
    ///         ended.push(voice); // e.g. free the game object that owned it
    ///     }
    /// }
    /// assert_eq!(ended, [h]);
    /// assert_eq!(engine.drain_events().count(), 0); // each event comes once
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn drain_events(&mut self) -> impl Iterator<Item = Event> {
        self.drain_timed_events().into_iter().map(|e| e.event)
    }

    /// As [`Engine::drain_events`], with the output frame of each event.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound, TimedEvent};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?; // 5 ms
    /// engine.render(1_000);
    /// let h = engine.play(&blip, PlayParams::default())?;
    /// engine.render(480);
    /// assert_eq!(
    ///     engine.drain_timed_events(),
    ///     [
    ///         TimedEvent { frame: 1_000, event: Event::Started { voice: h } },
    ///         TimedEvent { frame: 1_240, event: Event::Ended { voice: h } },
    ///     ]
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn drain_timed_events(&mut self) -> Vec<TimedEvent> {
        let mut game = self.controller.lock();
        // Everything still queued goes to the caller: the backlog limit
        // (drop the oldest) is for events nobody is reading, not for those
        // being read right now.
        let capacity = std::mem::replace(&mut game.backlog_capacity, usize::MAX);
        self.controller.pump(&mut game);
        game.backlog_capacity = capacity;
        let out = game.backlog.drain(..).collect();
        // Once a frame or so is often enough to free sounds the game has
        // dropped and the audio side has finished with (a large music
        // track should not wait for fifteen more sounds to be played).
        game.prune();
        out
    }

    /// Sounds the game side still holds for the audio side (tests and soak
    /// runs: after every voice has ended, the game has dropped its sounds
    /// and events have been drained, this is 0).
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn sounds_in_flight(&self) -> usize {
        self.controller.lock().in_flight.len()
    }

    /// True from a successful `play` until the voice's terminal event
    /// (`Ended`, `Stolen`, `Rejected`) has reached the game side, or until
    /// it was stopped by [`crate::Controller::stop`] or
    /// [`crate::Controller::stop_all`] (at once, however many events are
    /// still on their way; `stop_with_fade` keeps it playing until its fade
    /// is over). Never true
    /// for a handle of another engine, nor for any handle once the mixer has
    /// been dropped (every play then ends with `Ended`).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
    /// let h = engine.play(&blip, PlayParams::default())?;
    /// assert!(engine.is_playing(h)); // from the `play` call on
    /// engine.render(480);
    /// assert!(!engine.is_playing(h)); // it ended
    /// let other = OfflineEngine::new(EngineSettings::default())?;
    /// assert!(!other.is_playing(h)); // never on another engine
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_playing(&self, voice: VoiceHandle) -> bool {
        let Some(id) = voice.id_in(self.controller.shared.engine) else {
            return false;
        };
        let mut game = self.controller.lock();
        self.controller.pump(&mut game);
        game.is_playing(id)
    }
}

/// Reading the engine's counters and meters needs no exclusive access: a
/// [`Controller`] on any thread reads them as the [`Engine`] does.
impl Controller {
    /// The counters, as of the last block rendered.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 2, ..Default::default() })?;
    /// let swish = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// for _ in 0..5 {
    ///     engine.play(&swish, PlayParams::default())?;
    ///     engine.render(4_800);
    /// }
    /// let stats = engine.stats();
    /// assert_eq!(stats.active_voices, 2);
    /// assert_eq!(stats.steals, 3); // five plays into two voices
    /// assert_eq!(stats.frames_rendered, 5 * 4_800);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stats(&self) -> Stats {
        self.shared.counters.snapshot()
    }

    /// Bus `bus`'s meter as of the last block rendered: its peak and its
    /// duck's gain (see [`crate::BusMeter`]). `None` for a bus of another
    /// engine. For debug overlays and for tests that check a mix.
    ///
    /// Peaks are measured from the first call on (a game that never reads
    /// a meter pays nothing for them): until the audio side has begun a
    /// block after it, `peak` reads 0.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let sfx = engine.create_bus()?;
    /// assert_eq!(engine.bus_meter(sfx).unwrap().peak, 0.0); // metering starts
    /// engine.play(&Sound::from_samples(1, 48_000, vec![0.5; 4_800])?, PlayParams::default().bus(sfx).pan(-1.0))?;
    /// engine.render(480);
    /// assert_eq!(engine.bus_meter(sfx).unwrap().peak, 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bus_meter(&self, bus: crate::BusHandle) -> Option<crate::BusMeter> {
        let shared = &self.shared;
        let b = bus.index_in(shared.engine)?;
        shared.counters.bus_meter(usize::from(b))
    }

    /// What each pool slot holds, as of the last block rendered.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 4, ..Default::default() })?;
    /// let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
    /// let hum = Sound::from_samples(1, 48_000, tone)?;
    /// let h = engine.play(&hum, PlayParams::default().looping(true))?;
    /// engine.render(480);
    /// let slots = engine.slots();
    /// assert_eq!(slots.len(), 4); // one per voice of the pool
    /// let busy: Vec<_> = slots.iter().filter(|s| s.voice.is_some()).collect();
    /// assert_eq!(busy.len(), 1);
    /// assert_eq!(busy[0].voice, Some(h));
    /// assert!(busy[0].level > 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn slots(&self) -> Vec<SlotView> {
        let shared = &self.shared;
        self.named_by_play(shared.counters.slots(shared.engine))
    }

    /// `slots` with a layered cue's voices named by their play's handle.
    fn named_by_play(&self, mut slots: Vec<SlotView>) -> Vec<SlotView> {
        let game = self.lock();
        if !game.cues.is_empty() {
            for s in &mut slots {
                s.voice = s.voice.map(|v| game.cues.play_of(v, self.shared.engine));
            }
        }
        slots
    }

    /// The virtual voices (see [`crate::PlayParams::virtualize`]), as of the last
    /// block rendered: each with the level it ranks by for coming back
    /// (refreshed at least every 250 ms while there are a few hundred of
    /// them, less often with thousands).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 1, ..Default::default() })?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.2; 48_000])?;
    /// let boom = Sound::from_samples(1, 48_000, vec![0.9; 48_000])?;
    /// let amb = engine.play(&hum, PlayParams::default().looping(true).virtualize(true))?;
    /// engine.render(4_800);
    /// engine.play(&boom, PlayParams::default())?;
    /// engine.render(480);
    /// let virtual_now: Vec<_> = engine.virtual_slots().iter().filter_map(|s| s.voice).collect();
    /// assert_eq!(virtual_now, [amb]);
    /// assert_eq!(engine.stats().virtual_voices, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn virtual_slots(&self) -> Vec<SlotView> {
        let shared = &self.shared;
        self.named_by_play(shared.counters.virtual_slots(shared.engine))
    }
}
