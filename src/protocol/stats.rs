//! [`Stats`] and per-slot meters: counters the audio side publishes through
//! atomics (relaxed stores, no locks) for the game side to read at any time.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use crate::protocol::{EngineId, VoiceHandle};

/// A snapshot of the engine's counters. All counts are since the engine started.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings { voices: 4, ..Default::default() })?;
/// let spark = Sound::from_samples(1, 48_000, vec![0.3; 24_000])?;
/// for _ in 0..6 {
///     engine.play(&spark, PlayParams::default())?;
///     engine.render(2_400);
/// }
/// let s = engine.stats();
/// assert_eq!((s.started, s.steals, s.peak_active_voices), (6, 2, 4));
/// println!("{} voices busy, {} stolen, {} rejected", s.active_voices, s.steals, s.rejections);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Voices sounding now (not counting stolen voices finishing their fade).
    pub active_voices: usize,
    /// The most voices that were ever sounding at once.
    pub peak_active_voices: usize,
    /// Voices that started (`Event::Started`).
    pub started: u64,
    /// Voices stolen (`Event::Stolen`).
    pub steals: u64,
    /// Plays rejected (`Event::Rejected`).
    pub rejections: u64,
    /// Voices that ended (`Event::Ended`).
    pub ended: u64,
    /// Plays a group limited: rejected for a full group (policy `Reject`,
    /// or no member could be replaced) or for coming sooner than its
    /// `min_interval`, or started by replacing a member of their own full
    /// group. Counted in `rejections` or `steals` as well.
    pub limited: u64,
    /// Calls that returned `PlayError::QueueFull`.
    pub dropped_commands: u64,
    /// Events the game never saw because it did not call
    /// [`crate::Engine::drain_events`] in time: the game-side backlog keeps
    /// the newest `event_capacity` events and drops the oldest, counting each
    /// here. `is_playing` stays exact all the same (it is updated before the
    /// drop). The audio side itself never drops one: it holds commands back
    /// rather than report more than its queue can take (if it ever did, it
    /// would be counted here too).
    pub lost_events: u64,
    /// Output frames the mixer has rendered.
    pub frames_rendered: u64,
    /// Errors the output stream reported (live engine only).
    pub stream_errors: u64,
    /// Virtual voices now: voices keeping time silently for a slot
    /// ([`crate::PlayParams::virtualize`]).
    pub virtual_voices: usize,
    /// The most virtual voices there ever were at once.
    pub peak_virtual_voices: usize,
    /// Times a voice went virtual (`Event::Virtualized`).
    pub virtualized: u64,
    /// Times a virtual voice got a slot back (`Event::Resumed`).
    pub resumed: u64,
    /// Virtual voices ended to make room in a full virtual pool (each an
    /// `Event::Stolen`, counted in `steals` as well).
    pub virtual_dropped: u64,
    /// Voices the audible window let go (`EngineSettings::audible_window`):
    /// ended, or sent virtual.
    pub outside_window: u64,
    /// Streamed plays reading their stream slot now (at most
    /// [`crate::EngineSettings::streams`]; see [`crate::Sound::stream_file`]).
    pub streams: usize,
    /// Times a streamed play's ring ran dry while it played (each an
    /// [`crate::Event::StreamUnderrun`]): the loader fell behind, and the
    /// play was silent until data came.
    pub stream_underruns: u64,
    /// Streams whose file failed to decode partway (their play ended at
    /// what was decoded) or could not be opened again. A decoder that
    /// panicked counts here too: the panic is caught, that stream ends,
    /// and the loader goes on with the others.
    pub stream_decode_errors: u64,
    /// Faults of bus effects, each also an [`crate::Event::EffectFault`]
    /// naming the bus: a game's effect that panicked, allocated on the
    /// audio thread (seen where [`crate::alloc_check`] watches), or put
    /// out NaN or infinity. Each effect reports each kind once.
    pub effect_faults: u64,
    /// Live engine: data callbacks the device made.
    pub callbacks: u64,
    /// Live engine: callbacks whose processing took longer than the audio
    /// they produced lasts (their `callback_budget`): each one a deadline
    /// the engine itself missed, whatever the device then did.
    pub late_callbacks: u64,
    /// Live engine: the longest a callback took, from entry to return.
    pub worst_callback: Duration,
    /// Live engine: the time all callbacks took together, from entry to
    /// return. Over an interval, its growth divided by the audio rendered
    /// meanwhile is the share of real time the mix takes (the load a
    /// profiler's audio meter shows).
    ///
    /// ```
    /// # use voicepool::Stats;
    /// fn load(before: &Stats, now: &Stats, sample_rate: u32) -> f64 {
    ///     let busy = (now.callback_time - before.callback_time).as_secs_f64();
    ///     let audio = (now.frames_rendered - before.frames_rendered) as f64 / f64::from(sample_rate);
    ///     if audio > 0.0 { busy / audio } else { 0.0 }
    /// }
    /// ```
    pub callback_time: Duration,
    /// Live engine: the last callback's budget, the duration of the
    /// frames it was asked for (256 frames at 48 kHz: 5.33 ms).
    pub callback_budget: Duration,
    /// Live engine: underruns (xruns) the backend reported. JACK reports
    /// every xrun; cpal's ALSA backend recovers from underruns without
    /// saying so, so there this stays 0 (late callbacks still count).
    pub underruns: u64,
    /// Live engine: times the output was reopened after the device was
    /// lost (`Event::OutputRecovered`).
    pub recoveries: u64,
}

/// What one pool slot holds, as last published by the mixer.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings { voices: 2, ..Default::default() })?;
/// let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.06).sin() * 0.5).collect();
/// let hum = Sound::from_samples(1, 48_000, tone)?;
/// let loud = engine.play(&hum, PlayParams::default().looping(true))?;
/// let faint = engine.play(&hum, PlayParams::default().looping(true).volume(0.1))?;
/// engine.render(480);
/// let level = |h| engine.slots().iter().find(|s| s.voice == Some(h)).map(|s| s.level);
/// assert!(level(faint) < level(loud)); // the faint one goes first if a voice is needed
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SlotView {
    /// The voice in the slot, if any.
    pub voice: Option<VoiceHandle>,
    /// What stealing ranks it by: the loudness the listener would lose if
    /// it were cut now, as an RMS level (0.0 silent; a full-scale 1 kHz
    /// sine at volume 1.0 is about 0.77). It is the voice's K-weighted
    /// (ITU-R BS.1770) loudness as it will play over the next 100 ms,
    /// 300 ms and 1 s (position, pitch, loop and fades included), averaged,
    /// times its volume and pan. Refreshed at least every 2048 frames and
    /// whenever the voice is changed; 0.0 for a free slot.
    pub level: f32,
}

#[derive(Default)]
pub(crate) struct SlotMeter {
    id: AtomicU64,
    level: AtomicU32,
}

impl SlotMeter {
    /// Audio side: what the slot holds now (id 0: empty).
    fn store(&self, id: u64, level: f32) {
        self.id.store(id, Relaxed);
        self.level.store(level.to_bits(), Relaxed);
    }
}

/// A bus's meter, as of the last block rendered: from
/// [`crate::Controller::bus_meter`].
///
/// ```
/// use std::time::Duration;
/// use voicepool::{BusSettings, Duck, EngineSettings, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let speech = engine.create_bus()?;
/// let music = engine.create_bus_with(BusSettings {
///     duck: Some(Duck { by: speech, amount_db: -12.0, attack: Duration::ZERO, release: Duration::from_millis(300) }),
///     ..Default::default()
/// })?;
/// let hum = Sound::from_samples(1, 48_000, vec![0.3; 48_000])?;
/// engine.play(&hum, PlayParams::default().bus(music).looping(true))?;
/// engine.play(&hum, PlayParams::default().bus(speech))?;
/// engine.bus_meter(music); // peaks are measured from the first read on
/// engine.render(480); // the speech bus sounds, and ducks the music at once
/// let m = engine.bus_meter(music).unwrap();
/// assert!((m.duck_gain - 0.251).abs() < 0.01); // -12 dB
/// assert!(m.peak > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct BusMeter {
    /// The largest sample the bus passed on in the last block, after its
    /// effects, volume, pause and duck (for the master: before the output
    /// limiter).
    pub peak: f32,
    /// The gain its duck holds it at now (1: not ducked).
    pub duck_gain: f32,
}

/// One bus's meter cell: peak and duck gain as `f32` bits.
#[derive(Default)]
struct BusMeterCell {
    peak: AtomicU32,
    duck: AtomicU32,
}

/// The shared counters. Audio side writes with relaxed stores; nothing here
/// ever blocks either side.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) active: AtomicU64,
    pub(crate) peak: AtomicU64,
    pub(crate) started: AtomicU64,
    pub(crate) steals: AtomicU64,
    pub(crate) rejections: AtomicU64,
    pub(crate) ended: AtomicU64,
    pub(crate) limited: AtomicU64,
    pub(crate) dropped_commands: AtomicU64,
    pub(crate) lost_events: AtomicU64,
    pub(crate) frames: AtomicU64,
    pub(crate) stream_errors: AtomicU64,
    pub(crate) virtual_active: AtomicU64,
    pub(crate) virtual_peak: AtomicU64,
    pub(crate) virtualized: AtomicU64,
    pub(crate) resumed: AtomicU64,
    pub(crate) virtual_dropped: AtomicU64,
    pub(crate) outside_window: AtomicU64,
    pub(crate) streams: AtomicU64,
    pub(crate) stream_underruns: AtomicU64,
    /// Bumped by the stream loader (which holds a clone).
    pub(crate) stream_decode_errors: std::sync::Arc<AtomicU64>,
    pub(crate) effect_faults: AtomicU64,
    pub(crate) callbacks: AtomicU64,
    pub(crate) late_callbacks: AtomicU64,
    pub(crate) worst_callback_ns: AtomicU64,
    pub(crate) callback_time_ns: AtomicU64,
    pub(crate) callback_budget_ns: AtomicU64,
    pub(crate) underruns: AtomicU64,
    pub(crate) recoveries: AtomicU64,
    meters: Box<[SlotMeter]>,
    virtual_meters: Box<[SlotMeter]>,
    bus_meters: Box<[BusMeterCell]>,
    /// Some bus meter was read: the audio side measures peaks from then on.
    meters_wanted: AtomicBool,
    /// Set once by the mixer's `Drop`, after its last event was pushed.
    mixer_gone: AtomicBool,
}

impl Counters {
    pub(crate) fn new(voices: usize, virtual_voices: usize, buses: usize) -> Counters {
        let counters = Counters {
            meters: (0..voices).map(|_| SlotMeter::default()).collect(),
            virtual_meters: (0..virtual_voices).map(|_| SlotMeter::default()).collect(),
            bus_meters: (0..=buses).map(|_| BusMeterCell::default()).collect(),
            ..Default::default()
        };
        // Fault every page in here, not on the audio thread's first store
        // (a zeroed allocation is mapped lazily; a million virtual
        // voices' meters are 16 MB).
        let per_page = 4096 / std::mem::size_of::<SlotMeter>();
        for m in counters.virtual_meters.iter().step_by(per_page) {
            m.store(0, 0.0);
        }
        counters
    }

    /// Heap bytes held (the per-slot and per-bus meters).
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.meters.len() + self.virtual_meters.len()) * std::mem::size_of::<SlotMeter>()
            + self.bus_meters.len() * std::mem::size_of::<BusMeterCell>()
    }

    /// Audio side: bus `b`'s meter for the block just rendered.
    pub(crate) fn publish_bus(&self, b: usize, peak: f32, duck: f32) {
        if let Some(m) = self.bus_meters.get(b) {
            m.peak.store(peak.to_bits(), Relaxed);
            m.duck.store(duck.to_bits(), Relaxed);
        }
    }

    /// Whether the game reads bus meters (until it first does, the audio
    /// side spares itself the peak passes).
    pub(crate) fn meters_wanted(&self) -> bool {
        self.meters_wanted.load(Relaxed)
    }

    /// Bus `b`'s meter, if there is such a bus.
    pub(crate) fn bus_meter(&self, b: usize) -> Option<BusMeter> {
        self.meters_wanted.store(true, Relaxed);
        let m = self.bus_meters.get(b)?;
        Some(BusMeter {
            peak: f32::from_bits(m.peak.load(Relaxed)),
            duck_gain: f32::from_bits(m.duck.load(Relaxed)),
        })
    }

    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Relaxed);
    }

    /// Audio side: publish what slot `i` holds (id 0: empty).
    pub(crate) fn publish_slot(&self, i: usize, id: u64, level: f32) {
        if let Some(m) = self.meters.get(i) {
            m.store(id, level);
        }
    }

    /// Audio side: publish virtual entry `i`'s new level.
    pub(crate) fn publish_virtual_level(&self, i: usize, level: f32) {
        if let Some(m) = self.virtual_meters.get(i) {
            m.level.store(level.to_bits(), Relaxed);
        }
    }

    /// Audio side: publish what virtual entry `i` holds (id 0: empty).
    pub(crate) fn publish_virtual(&self, i: usize, id: u64, level: f32) {
        if let Some(m) = self.virtual_meters.get(i) {
            m.store(id, level);
        }
    }

    pub(crate) fn snapshot(&self) -> Stats {
        Stats {
            active_voices: self.active.load(Relaxed) as usize,
            peak_active_voices: self.peak.load(Relaxed) as usize,
            started: self.started.load(Relaxed),
            steals: self.steals.load(Relaxed),
            rejections: self.rejections.load(Relaxed),
            ended: self.ended.load(Relaxed),
            limited: self.limited.load(Relaxed),
            dropped_commands: self.dropped_commands.load(Relaxed),
            lost_events: self.lost_events.load(Relaxed),
            frames_rendered: self.frames.load(Relaxed),
            stream_errors: self.stream_errors.load(Relaxed),
            virtual_voices: self.virtual_active.load(Relaxed) as usize,
            peak_virtual_voices: self.virtual_peak.load(Relaxed) as usize,
            virtualized: self.virtualized.load(Relaxed),
            resumed: self.resumed.load(Relaxed),
            virtual_dropped: self.virtual_dropped.load(Relaxed),
            outside_window: self.outside_window.load(Relaxed),
            streams: self.streams.load(Relaxed) as usize,
            stream_underruns: self.stream_underruns.load(Relaxed),
            stream_decode_errors: self.stream_decode_errors.load(Relaxed),
            effect_faults: self.effect_faults.load(Relaxed),
            callbacks: self.callbacks.load(Relaxed),
            late_callbacks: self.late_callbacks.load(Relaxed),
            worst_callback: Duration::from_nanos(self.worst_callback_ns.load(Relaxed)),
            callback_time: Duration::from_nanos(self.callback_time_ns.load(Relaxed)),
            callback_budget: Duration::from_nanos(self.callback_budget_ns.load(Relaxed)),
            underruns: self.underruns.load(Relaxed),
            recoveries: self.recoveries.load(Relaxed),
        }
    }

    /// Audio side, at the end of a data callback: it took `took_ns` to
    /// produce audio lasting `budget_ns`. Relaxed atomics only.
    pub(crate) fn note_callback(&self, took_ns: u64, budget_ns: u64) {
        self.callbacks.fetch_add(1, Relaxed);
        self.callback_budget_ns.store(budget_ns, Relaxed);
        if took_ns > budget_ns {
            self.late_callbacks.fetch_add(1, Relaxed);
        }
        self.worst_callback_ns.fetch_max(took_ns, Relaxed);
        self.callback_time_ns.fetch_add(took_ns, Relaxed);
    }

    /// Audio side, as the mixer is dropped: nothing sounds any more, and no
    /// event will follow the ones already pushed (release ordering: the
    /// game side that sees the flag sees those events).
    pub(crate) fn mark_mixer_gone(&self) {
        self.active.store(0, Relaxed);
        self.virtual_active.store(0, Relaxed);
        self.streams.store(0, Relaxed);
        for m in self.meters.iter().chain(self.virtual_meters.iter()) {
            m.store(0, 0.0);
        }
        self.mixer_gone.store(true, Ordering::Release);
    }

    /// True once the mixer has been dropped.
    pub(crate) fn mixer_gone(&self) -> bool {
        self.mixer_gone.load(Ordering::Acquire)
    }

    pub(crate) fn slots(&self, engine: EngineId) -> Vec<SlotView> {
        Self::views(&self.meters, engine)
    }

    /// The virtual voices, as last published (free entries left out).
    pub(crate) fn virtual_slots(&self, engine: EngineId) -> Vec<SlotView> {
        let mut v = Self::views(&self.virtual_meters, engine);
        v.retain(|s| s.voice.is_some());
        v
    }

    fn views(meters: &[SlotMeter], engine: EngineId) -> Vec<SlotView> {
        meters
            .iter()
            .map(|m| {
                let id = m.id.load(Relaxed);
                SlotView {
                    voice: (id != 0).then(|| VoiceHandle::new(engine, id)),
                    level: f32::from_bits(m.level.load(Relaxed)),
                }
            })
            .collect()
    }
}
