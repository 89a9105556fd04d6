//! The game side of streamed plays: which stream slot each play has, the
//! loader that decodes them, and `seek`.
//!
//! A slot is free when the audio side has released the epoch last given
//! out on it (`stream::source`'s hand-over protocol). The game side claims
//! a free slot for a play, makes sure the loader runs (starting its thread
//! at the first streamed play; a refused thread refuses the play), sends
//! the play, then asks the loader to decode for it; a seek is a new epoch
//! on the same slot.

use std::sync::atomic::Ordering::Acquire;
use std::sync::Arc;
use std::time::Duration;

use crate::control::game_state::GameState;
use crate::control::voice_info::PlayInfo;
use crate::control::Controller;
use crate::error::PlayError;
use crate::protocol::{Command, StreamTicket, ValidParams, VoiceHandle};
use ringbuf::traits::Split;
use ringbuf::HeapRb;

use crate::control::settings::EngineSettings;
use crate::protocol::stats::Counters;
use crate::stream::loader::{Loader, Request, Worker};
use crate::stream::reader::{StreamReader, StreamReaders, STAGING_FRAMES};
use crate::stream::source::{StreamShared, StreamSource};

/// The furthest frame a seek goes (2^31: 12 hours at 48 kHz), so a voice's
/// 32.32 position, its stream slot's reader and its loader all agree.
const MAX_SEEK_FRAME: u64 = 1 << 31;

/// Every stream slot, as the game side sees it.
pub(crate) struct StreamSlots {
    shared: Vec<Arc<StreamShared>>,
    /// Per slot, the epoch last given out (0: never).
    given: Vec<u32>,
    loader: Loader,
    /// Frames per ring.
    ring_frames: usize,
}

impl StreamSlots {
    fn new(shared: Vec<Arc<StreamShared>>, loader: Loader, ring_frames: usize) -> StreamSlots {
        StreamSlots {
            given: vec![0; shared.len()],
            shared,
            loader,
            ring_frames,
        }
    }

    /// Whether `n` streamed plays can be sent now (free slots, the loader
    /// running); the error the first to fail would meet, if not.
    pub(crate) fn ready_for(&mut self, n: usize) -> Result<(), PlayError> {
        if n == 0 {
            return Ok(());
        }
        let free = (0..self.shared.len())
            .filter(|&k| self.shared[k].released.load(Acquire) == self.given[k])
            .count();
        if free < n {
            return Err(PlayError::TooManyStreams {
                max: self.shared.len(),
            });
        }
        if !self.loader.start() {
            return Err(PlayError::LoaderUnavailable);
        }
        Ok(())
    }

    /// A slot whose last play the audio side is done with.
    fn free_slot(&self) -> Option<usize> {
        (0..self.shared.len()).find(|&k| self.shared[k].released.load(Acquire) == self.given[k])
    }

    /// The next epoch for slot `k` (never 0).
    fn next_epoch(&self, k: usize) -> u32 {
        self.given[k].wrapping_add(1).max(1)
    }

    /// The audio side was sent `req`'s epoch: the slot is its until the
    /// audio side releases it, and the loader decodes for it.
    fn give_out(&mut self, req: Request) {
        self.given[req.slot] = req.epoch;
        self.loader.send(req);
    }

    /// True while any slot's play is not over on the audio side.
    pub(crate) fn in_use(&self) -> bool {
        (0..self.shared.len()).any(|k| self.shared[k].released.load(Acquire) != self.given[k])
    }

    /// The loader runs inline (an offline engine).
    pub(crate) fn make_inline(&mut self) {
        self.loader.make_inline();
    }

    /// See [`Loader::refuse_thread`].
    #[cfg(feature = "hooks")]
    pub(crate) fn refuse_loader_thread(&mut self, refuse: bool) {
        self.loader.refuse_thread(refuse);
    }

    /// See [`Loader::panic_next_decode`].
    #[cfg(feature = "hooks")]
    pub(crate) fn panic_next_decode(&self) {
        self.loader.panic_next_decode();
    }

    /// Offline: fills every ring.
    pub(crate) fn pump_all(&mut self) {
        self.loader.pump_all();
    }

    /// Heap bytes the rings hold (the audio side's staging is the
    /// mixer's).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.shared.len() * (2 * self.ring_frames * 4 + 4)
    }
}

/// Every stream slot of an engine made with `settings`: its ring (the
/// audio side's readers, the loader's producers), its shared state, and the
/// loader (started on its own thread at the first streamed play).
pub(crate) fn make(settings: &EngineSettings, counters: &Counters) -> (StreamReaders, StreamSlots) {
    let mut readers = Vec::with_capacity(settings.streams);
    let mut producers = Vec::with_capacity(settings.streams);
    let mut shared = Vec::with_capacity(settings.streams);
    for _ in 0..settings.streams {
        let (prod, cons) = HeapRb::<f32>::new(2 * settings.stream_buffer_frames).split();
        let s = Arc::new(StreamShared::new(
            settings.stream_buffer_frames,
            STAGING_FRAMES,
        ));
        readers.push(StreamReader::new(cons, Arc::clone(&s)));
        producers.push((prod, Arc::clone(&s)));
        shared.push(s);
    }
    let (tx, rx) = crossbeam_channel::unbounded();
    let worker = Worker::new(producers, rx, Arc::clone(&counters.stream_decode_errors));
    let loader = Loader::new(tx, worker, true);
    (
        StreamReaders::new(readers),
        StreamSlots::new(shared, loader, settings.stream_buffer_frames),
    )
}

impl Controller {
    /// `play` for a streamed sound: claims a slot, makes sure the loader
    /// runs, sends the play, asks the loader to decode for it. Returns the
    /// slot.
    pub(crate) fn play_stream(
        &self,
        game: &mut GameState,
        id: u64,
        sound: &crate::Sound,
        source: &Arc<StreamSource>,
        (params, mods): (ValidParams, Option<Arc<crate::protocol::modulation::Mods>>),
    ) -> Result<usize, PlayError> {
        let slots = &mut game.streams;
        let Some(k) = slots.free_slot() else {
            return Err(PlayError::TooManyStreams {
                max: slots.shared.len(),
            });
        };
        if !slots.loader.start() {
            return Err(PlayError::LoaderUnavailable);
        }
        let epoch = slots.next_epoch(k);
        let params = ValidParams {
            // A stolen stream ends: it cannot keep time silently.
            virtualize: false,
            ..params
        };
        game.keep(&sound.data);
        self.send(Command::Play {
            id,
            sound: Arc::clone(&sound.data),
            params,
            stream: Some(StreamTicket {
                slot: k as u16,
                epoch,
            }),
            mods,
        })?;
        game.streams.give_out(Request {
            slot: k,
            epoch,
            source: Arc::clone(source),
            looping: params.looping,
            from: 0,
        });
        Ok(k)
    }

    /// Makes the stream loader's thread fail to start, as if the system
    /// refused a new thread (`true`), or lets it start again (tests of
    /// [`PlayError::LoaderUnavailable`]). Only before the thread has
    /// started: a running loader is not stopped.
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn refuse_stream_loader_thread(&self, refuse: bool) {
        self.lock().streams.refuse_loader_thread(refuse);
    }

    /// Makes the stream loader's next decode panic, as a decoding library
    /// with a bug might on a malformed file (tests: the stream being
    /// decoded ends as on a decode error, and the loader goes on).
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn panic_next_stream_decode(&self) {
        self.lock().streams.panic_next_decode();
    }

    /// Moves the voice to `position` in its sound (from the sound's start,
    /// at the sound's own rate: pitch does not scale it). A loop's position
    /// wraps around its length; past the end of a one-shot, the play ends.
    /// A streamed play is decoded anew from there (silent for the few
    /// milliseconds the loader takes, offline not at all). A virtual voice
    /// moves too. A stale or foreign handle does nothing.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// // One second: silence, then a tone from 0.5 s on.
    /// let mut samples = vec![0.0f32; 24_000];
    /// samples.extend((0..24_000).map(|i| (i as f32 * 0.06).sin() * 0.5));
    /// let song = Sound::from_samples(1, 48_000, samples)?;
    /// let h = engine.play(&song, PlayParams::default())?;
    /// assert!(engine.render(480).iter().all(|&s| s == 0.0)); // the silent start
    /// engine.seek(h, Duration::from_millis(600))?;
    /// assert!(engine.render(480).iter().any(|&s| s != 0.0)); // now the tone
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn seek(&self, voice: VoiceHandle, position: Duration) -> Result<(), PlayError> {
        let mut game = self.game()?;
        let Some(id) = voice.id_in(self.shared.engine) else {
            return Ok(());
        };
        let Some(info) = game.live.get(&id).cloned() else {
            return Ok(());
        };
        let Some(play) = game.cues.get(id) else {
            return self.seek_voice(&mut game, id, &info, position);
        };
        // A layered cue: each layer still sounding, in its own sound's
        // frames.
        let layers: Vec<(u64, PlayInfo)> = (id..)
            .zip(&play.layers)
            .filter_map(|(id, info)| Some((id, info.clone()?)))
            .collect();
        self.room_for(layers.len())?;
        for (id, info) in &layers {
            self.seek_voice(&mut game, *id, info, position)?;
        }
        Ok(())
    }

    /// `seek` for voice `id`, whose record is `info`.
    fn seek_voice(
        &self,
        game: &mut GameState,
        id: u64,
        info: &PlayInfo,
        position: Duration,
    ) -> Result<(), PlayError> {
        let mut frame = (position.as_secs_f64() * f64::from(info.rate)).round() as u64;
        let Some((k, source)) = info.stream.clone() else {
            return self.send(Command::Seek {
                id,
                frame,
                stream: None,
            });
        };
        let looping = info.looping;
        if looping && source.frames > 0 {
            frame %= source.frames;
        } else if source.frames > 0 {
            frame = frame.min(source.frames);
        }
        // (A length the file does not tell: a target past the end ends a
        // one-shot, as a decoded sound's does.)
        frame = frame.min(MAX_SEEK_FRAME);
        let epoch = game.streams.next_epoch(k);
        self.send(Command::Seek {
            id,
            frame,
            stream: Some(StreamTicket {
                slot: k as u16,
                epoch,
            }),
        })?;
        game.streams.give_out(Request {
            slot: k,
            epoch,
            source,
            looping,
            from: frame,
        });
        Ok(())
    }
}
