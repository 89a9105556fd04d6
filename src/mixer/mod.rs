//! [`Mixer`]: the audio-thread side. Drains commands, plays or steals,
//! renders every voice, retires ended voices, reports events.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use ringbuf::traits::Producer;
use ringbuf::HeapProd;

use crate::bus::mix::Buses;
use crate::protocol::stats::Counters;
use crate::protocol::{Command, EngineId, Event, MixerSetup, TimedEvent};
use crate::render::direct::DirectFilters;
use crate::render::glide::StepGlides;
use crate::render::prefetch::Prefetch;
use crate::render::tails::Tails;
use crate::render::voice::Voice;
use crate::simd::Isa;
use crate::space::positions::EmitterTable;
use crate::stream::reader::StreamReaders;
use crate::voices::audibility::Audibility;
use crate::voices::masking::Masking;
use crate::voices::virtual_pool::VirtualPool;
use crate::voices::{StealRules, VoicePool};

mod admission;
mod audible_window;
mod chunk;
mod commands;
mod heard;
#[cfg(feature = "hooks")]
mod hooks;
mod ranking;
mod shaped;
mod virtual_ends;
mod virtual_levels;
mod virtual_voices;

use ranking::{level_of, ranked};
use shaped::Batch;

pub use crate::render::limiter::LIMITER_THRESHOLD;

/// The audio-thread half of an engine. Made by [`crate::Engine::new`];
/// [`crate::OfflineEngine`] and [`crate::AudioEngine`] drive it for you, or
/// call [`Mixer::process`] from your own audio callback.
///
/// ```
/// use voicepool::{Engine, EngineSettings, PlayParams, Sound};
/// let (engine, mut mixer) = Engine::new(EngineSettings::default())?;
/// // Move `mixer` into your device's callback; here, one 16-bit block by hand.
/// let mut device_callback = move |out: &mut [i16]| {
///     let mut block = [0.0f32; 2 * 256];
///     mixer.process(&mut block[..out.len()]);
///     for (o, s) in out.iter_mut().zip(block) {
///         *o = (s * 32_767.0) as i16; // always within -1..=1
///     }
/// };
/// engine.play(&Sound::from_samples(1, 48_000, vec![0.5; 4_800])?, PlayParams::default())?;
/// let mut out = [0i16; 2 * 256];
/// device_callback(&mut out);
/// assert!(out.iter().any(|&s| s != 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Real-time contract
///
/// [`Mixer::process`] is the only entry point the audio thread calls, and
/// everything it reaches:
///
/// - allocates and frees nothing: the pool, tails, id index, victim arrays,
///   mix bus and meters are sized in [`crate::Engine::new`]; the last
///   reference to sample data is always held on the game side, so dropping a
///   voice's `Arc` only decrements a count;
/// - takes no lock and makes no system call: commands come from a bounded
///   `crossbeam_channel` read with `try_recv` (senders only ever `try_send`,
///   so no waker is registered and none is woken), events go into a `ringbuf`
///   SPSC queue with `try_push`, counters are relaxed atomic stores;
/// - is bounded: at most `command_capacity` commands per block (fewer while
///   the event queue is short of room, so no event is ever dropped), O(1)
///   id lookups, one victim scan per steal, one render pass per block;
/// - never panics on any input and always writes finite samples in
///   `-1.0..=1.0` (see [`Mixer::process`] for the limiter).
///
/// # Which calls are real-time safe
///
/// | call | thread | real-time safe |
/// | --- | --- | --- |
/// | [`Mixer::process`] | audio | **yes**: the contract above |
/// | [`crate::AudioEngine`]'s data callback (it only converts formats and calls `process`) | audio | **yes** |
/// | [`crate::AudioEngine`]'s error callback | cpal's | it only bumps a counter and `try_push`es an event (cpal itself allocates the error it passes in) |
/// | [`Mixer::sample_rate`], [`Mixer::frames_rendered`], [`Mixer::memory_bytes`] | any | yes (reads) |
/// | `Engine::new`, dropping a `Mixer`, `Mixer::check_invariants` (feature `hooks`) | game | **no**: they allocate or free |
/// | [`crate::Controller`] `play`, `stop`, `set_*`, `stop_all`, `pause`, `resume`, `fade_volume`, `stop_with_fade`, `create_group`, `create_bus`, bus and master volume, `pause_bus`, `resume_bus`, `voice_info` | game | **no**, but they never wait for the audio thread: a full queue is `PlayError::QueueFull` at once. They take a mutex that only game threads share, and `play` may allocate (the set of live handles, the list of sounds in flight) |
/// | [`crate::Controller::stats`] | game | lock-free (relaxed atomic loads) |
/// | [`crate::Engine::drain_events`], `is_playing`, `slots` | game | **no** (game-side mutex; they allocate what they return) |
/// | [`crate::Sound`] loading | game | **no** (file I/O, allocation) |
///
/// Never call a game-side method from an audio callback of your own; drive
/// the mixer there with `process` alone.
///
/// This is enforced by tests, not review alone: a counting global allocator
/// around `process` (and around the cpal callback) under heavy churn, and
/// LLVM's RealtimeSanitizer (`scripts/rtsan.sh`, feature `rtsan`), which
/// marks `process` and the cpal callback's body non-blocking and aborts on
/// any `malloc`, `free`, pthread lock, sleep or blocking I/O inside them.
/// (RTSan 19 does not intercept raw `futex` calls, which is how Rust's
/// `std::sync::Mutex` locks; no such mutex is reachable from `process`.)
///
/// Dropping a `Mixer` *does* free memory: drop it on a thread where that is
/// allowed (the live engine hands it back to the game side to do so).
pub struct Mixer {
    pub(crate) engine: EngineId,
    pub(crate) commands: Receiver<Command>,
    pub(crate) events: HeapProd<TimedEvent>,
    pub(crate) counters: Arc<Counters>,
    /// Who plays (boxed: its bookkeeping would otherwise make the mixer,
    /// and every engine holding one, a few hundred bytes wide).
    pub(crate) pool: Box<VoicePool<Voice>>,
    /// Voices keeping time silently until there is room for them
    /// (boxed, like the pool).
    pub(crate) virtuals: Box<VirtualPool<Voice>>,
    /// A slot freed (or a virtual voice arrived) since virtual voices last
    /// looked for a free slot.
    pub(crate) room_changed: bool,
    /// Since when the pool has had a free slot (at block ends), if it has.
    pub(crate) free_since: Option<u64>,
    /// A bus (or the master) was resumed in this drain.
    pub(crate) buses_resumed: bool,
    /// The frame at or after which virtual voices next try to take the
    /// slot of a less audible real voice.
    pub(crate) next_swap: u64,
    /// Virtual voices still to re-scale for where the listener is now, and
    /// blocks left at the fast rate after a jump.
    pub(crate) rescale_left: usize,
    pub(crate) rescale_fast: usize,
    /// Stolen voices fading out.
    pub(crate) tails: Tails,
    /// The listener and where positioned plays are.
    pub(crate) space: crate::space::mix::Space,
    /// Each emitter cell's low-pass (cones, occlusion, air).
    pub(crate) direct: DirectFilters,
    /// Each emitter cell's doppler glide for the next block.
    pub(crate) glides: StepGlides,
    /// Filtered voices waiting to be filtered together.
    pub(crate) batch: Box<Batch>,
    /// Whether (and which) voices' sample data is fetched ahead.
    pub(crate) prefetch: Prefetch,
    /// The audio side of every stream slot.
    pub(crate) streams: StreamReaders,
    /// What a voice is worth hearing, at this output rate.
    pub(crate) audibility: Audibility,
    /// What of each voice the rest of the mix masks (boxed, like the
    /// pool), and output frames since its total was last summed anew.
    pub(crate) masking: Box<Masking>,
    pub(crate) masking_clock: usize,
    /// The master bus and the buses feeding it: planar mix buffers,
    /// volumes and pauses.
    pub(crate) buses: Buses,
    pub(crate) rules: StealRules,
    pub(crate) out_rate: u32,
    /// Commands taken per block at most: the queue's capacity, up to
    /// [`COMMANDS_PER_BLOCK`].
    pub(crate) max_commands: usize,
    pub(crate) steal_fade: u32,
    pub(crate) stop_fade: u32,
    pub(crate) param_ramp: u32,
    pub(crate) frame: u64,
    /// The play (its first voice's id) last refused as a too-early
    /// retrigger: its later voices are refused with it.
    pub(crate) refused_play: u64,
    pub(crate) next_order: u64,
    /// The audible window, if on, and the loudest voice's level at the
    /// last block (what it is measured from).
    pub(crate) window: Option<audible_window::Window>,
    pub(crate) loudest: f32,
}

/// Every live voice's audibility is recomputed at least once per this many
/// output frames (about 43 ms at 48 kHz), spread evenly over blocks, and
/// whenever a command changes the voice (play, volume, pan, pitch, stop).
/// The estimate looks 100 ms to 1 s ahead, so one this old is still a
/// forecast of the present. The trade, measured (`steal_regret`, 6 seeds,
/// 300 ms oracle): every 1024 frames 0.3 dB mean regret, 2048 frames
/// 0.6 dB, 4096 frames 1.2 dB; each estimate costs about 50 ns, so every
/// 1024 frames would add about 15 % to the mixing cost of the peer
/// workload and every 2048 frames about 7 %.
pub(crate) const LEVEL_REFRESH_FRAMES: usize = 2048;

/// A steal ranks again, fresh, the eligible voice whose sound runs out
/// soonest, when that is within this long (the middle of audibility's
/// horizons): a kept level is up to [`LEVEL_REFRESH_FRAMES`] old, and a
/// voice that has run out of sound since may still be ranked by the loud
/// moments it had then (see `VoicePool::place`).
const FRESH_WINDOW: std::time::Duration = std::time::Duration::from_millis(300);

/// With the audible window on, a virtual voice comes back only this far
/// (in dB) inside it: the hysteresis that keeps a voice at the window's
/// edge from going and coming back every block.
const COMEBACK_WINDOW_DB: f32 = 6.0;

/// At most this many commands are taken per block, however large the
/// command queue: a block of 1,024 plays into a full pool of a million
/// virtual voices takes up to about 1 ms, so a game that queues a hundred
/// thousand at once spreads them over blocks instead of missing a
/// deadline.
pub(crate) const COMMANDS_PER_BLOCK: usize = 1_024;

impl Mixer {
    pub(crate) fn new(
        settings: &MixerSetup,
        out_rate: u32,
        engine: EngineId,
        emitters: Box<EmitterTable>,
        (commands, events): (Receiver<Command>, HeapProd<TimedEvent>),
        counters: Arc<Counters>,
        streams: StreamReaders,
    ) -> Mixer {
        Mixer {
            engine,
            commands,
            events,
            counters,
            pool: Box::new(VoicePool::new(settings.voices, settings.groups)),
            virtuals: Box::new(VirtualPool::new(settings.virtual_voices)),
            room_changed: false,
            free_since: None,
            buses_resumed: false,
            next_swap: 0,
            rescale_left: 0,
            rescale_fast: 0,
            tails: Tails::new(settings.voices),
            direct: DirectFilters::new(emitters.records.len()),
            glides: StepGlides::new(emitters.records.len()),
            batch: Box::new(Batch::new()),
            space: crate::space::mix::Space::new(settings.speed_of_sound, emitters, out_rate),
            prefetch: Prefetch::new(),
            streams,
            audibility: Audibility::new(out_rate),
            masking: Box::new(Masking::new(
                settings.voices,
                settings.masking,
                crate::sound::loudness::k_power_gain,
            )),
            masking_clock: 0,
            buses: Buses::new(settings.buses, settings.master_gain, settings.pause_fade),
            rules: StealRules {
                policy: settings.steal_policy,
                min_age: u64::from(settings.min_voice_age),
                fresh_window: u64::from(crate::protocol::frames(FRESH_WINDOW, out_rate)),
                start_virtual_margin: if settings.virtual_voices > 0 {
                    virtual_voices::SWAP_MARGIN
                } else {
                    0.0
                },
                isa: Isa::detect(),
            },
            out_rate,
            max_commands: settings.command_capacity.min(COMMANDS_PER_BLOCK),
            steal_fade: settings.steal_fade,
            stop_fade: settings.stop_fade,
            param_ramp: settings.param_ramp,
            frame: 0,
            next_order: 0,
            refused_play: 0,
            window: settings
                .audible_window
                .map(|db| audible_window::Window::new(db, out_rate)),
            loudest: 0.0,
        }
    }

    /// The output rate this mixer renders at, in Hz.
    ///
    /// ```
    /// use voicepool::{Engine, EngineSettings};
    /// let (_engine, mixer) = Engine::new(EngineSettings { sample_rate: 44_100, ..Default::default() })?;
    /// assert_eq!(mixer.sample_rate(), 44_100);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_rate(&self) -> u32 {
        self.out_rate
    }

    /// The engine this mixer belongs to.
    #[cfg(feature = "hooks")]
    pub(crate) fn engine_id(&self) -> EngineId {
        self.engine
    }

    /// Output frames rendered so far.
    ///
    /// ```
    /// use voicepool::{Engine, EngineSettings};
    /// let (_engine, mut mixer) = Engine::new(EngineSettings::default())?;
    /// mixer.process(&mut [0.0; 2 * 480]);
    /// mixer.process(&mut [0.0; 2 * 240]);
    /// assert_eq!(mixer.frames_rendered(), 720);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn frames_rendered(&self) -> u64 {
        self.frame
    }

    /// Renders one block of interleaved stereo into `out` (`out.len() / 2`
    /// frames; an odd last sample is set to 0). Real-time safe: see the
    /// module docs.
    ///
    /// Commands sent before the call take effect at the start of the block.
    /// Each voice is summed into its bus, each bus into the master with its
    /// volume (and pause fade), and the master, times the master volume
    /// (`master_gain` at start, [`crate::Controller::set_master_volume`]
    /// after), passes through a soft limiter: samples up to [`LIMITER_THRESHOLD`] in
    /// magnitude pass unchanged, louder ones are bent smoothly towards 1.0,
    /// never past it (a sum some hundred thousand times full scale rounds to
    /// exactly 1.0 in `f32`), so the output is always finite and within
    /// `-1.0..=1.0`.
    ///
    /// ```
    /// use voicepool::{Engine, EngineSettings, PlayParams, Sound};
    /// let (engine, mut mixer) = Engine::new(EngineSettings::default())?;
    /// let loud = Sound::from_samples(1, 48_000, vec![4.0; 4_800])?;
    /// for _ in 0..8 {
    ///     engine.play(&loud, PlayParams::default().volume(4.0))?; // far too loud
    /// }
    /// let mut out = [0.0f32; 2 * 480];
    /// mixer.process(&mut out);
    /// assert!(out.iter().all(|s| s.abs() <= 1.0)); // limited, never clipped past 1
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg_attr(feature = "rtsan", rtsan_standalone::nonblocking)]
    pub fn process(&mut self, out: &mut [f32]) {
        let frames = out.len() / 2;
        if let Some(odd) = out.get_mut(frames * 2) {
            *odd = 0.0;
        }
        self.space.set_now(self.frame);
        self.drain_commands();
        self.buses.metering = self.counters.meters_wanted();
        self.move_emitters(frames);
        // Since when a slot has been free (a virtual voice comes back into
        // one that stays free a while): reset while the pool is full.
        if self.pool.live() == self.pool.len() {
            self.free_since = None;
        } else if self.free_since.is_none() {
            self.free_since = Some(self.frame);
        }
        let end_frame = self.frame + frames as u64;
        self.render_block(&mut out[..frames * 2]);
        self.report_block(frames);
        self.refresh_levels(frames);
        self.frame = end_frame;
        self.apply_window();
        self.keep_virtual_time(frames);
        self.publish();
    }

    /// Heap memory the mixer holds, in bytes: pool slots, victim-choice keys,
    /// id index, fade-out tails, mix bus and meters. All of it is allocated
    /// when the engine is made and none of it grows. (Sample data is shared
    /// with, and owned by, the game side; the command and event queues are
    /// counted by [`crate::Engine::memory_bytes`].)
    ///
    /// ```
    /// use voicepool::{Engine, EngineSettings, PlayParams, Sound};
    /// let (engine, mut mixer) = Engine::new(EngineSettings { voices: 16, ..Default::default() })?;
    /// let before = mixer.memory_bytes();
    /// let blip = Sound::from_samples(1, 48_000, vec![0.5; 2_400])?;
    /// for _ in 0..100 {
    ///     engine.play(&blip, PlayParams::default())?;
    ///     mixer.process(&mut [0.0; 2 * 480]);
    /// }
    /// assert_eq!(mixer.memory_bytes(), before); // nothing grows on the audio side
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<VoicePool<Voice>>()
            + self.pool.memory_bytes()
            + std::mem::size_of::<VirtualPool<Voice>>()
            + self.virtuals.memory_bytes()
            + self.space.memory_bytes()
            + self.direct.memory_bytes()
            + self.glides.memory_bytes()
            + self.batch.memory_bytes()
            + self.tails.memory_bytes()
            + self.prefetch.memory_bytes()
            + self.buses.memory_bytes()
            + self.streams.memory_bytes()
            + self.counters.memory_bytes()
            + std::mem::size_of::<Masking>()
            + self.masking.memory_bytes()
    }

    /// Events one command can report at once (`Stolen` of a dropped
    /// virtual voice + `Virtualized` or `Stolen` + `Started`).
    const EVENTS_PER_COMMAND: usize = 3;

    pub(crate) fn drain_commands(&mut self) {
        self.drain_queue();
        self.refresh_bus_levels();
        if std::mem::take(&mut self.buses_resumed) {
            self.buses_resumed_virtual();
        }
    }

    fn event(&mut self, event: Event) {
        push_event(&mut self.events, &self.counters, self.frame, event);
    }
}

/// Dropping the mixer ends every play for the game side: the counters say
/// that nothing sounds any more, and the game side, seeing the mixer gone,
/// reports `Ended` for every play still live (sounding, or queued and never
/// taken) at the frame the mixer stopped. Dropping frees the pool, so it
/// happens where freeing is allowed (never inside `process`).
impl std::fmt::Debug for Mixer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mixer")
            .field("sample_rate", &self.out_rate)
            .field("frames_rendered", &self.frame)
            .field("voices", &self.pool.len())
            .finish_non_exhaustive()
    }
}

impl Drop for Mixer {
    fn drop(&mut self) {
        self.counters.frames.store(self.frame, Relaxed);
        self.counters.mark_mixer_gone();
    }
}

fn push_event(events: &mut HeapProd<TimedEvent>, counters: &Counters, frame: u64, event: Event) {
    if events.try_push(TimedEvent { frame, event }).is_err() {
        Counters::bump(&counters.lost_events);
    }
}

#[cfg(test)]
mod tests;
