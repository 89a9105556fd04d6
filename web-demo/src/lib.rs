//! The wand-swish demo on a web page: voicepool's live engine on Web Audio,
//! driven from the page (`www/`), which shows the pool as it plays.
//!
//! Each cast is a swish and a burst of 20 to 36 sparkles over 0.7 s, all
//! scheduled sample-accurately on the engine's clock when the cast is
//! made; over an ambience (Ogg Vorbis bytes, decoded in the module) which a
//! full pool makes virtual. With 12 voices (the default) a cast fills the
//! pool, and the sparkles the listener would miss least are stolen. The
//! ambience can instead be streamed from the bytes (decoded as it plays,
//! before each audio callback): a streamed play keeps its voice, at the
//! top priority, as a stream cannot go virtual.
//!
//! Built by `scripts/web_demo.sh` (wasm-bindgen's CLI binds it for the
//! page). Natively this crate is empty.
#![cfg(target_arch = "wasm32")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use voicepool::output::cpal::CallbackPhase;
use voicepool::{AudioEngine, EngineSettings, Event, OutputState, PlayParams, Sound, VoiceHandle};
use wasm_bindgen::prelude::*;

/// The demo's sounds, in the module: (name, WAV bytes).
const WAVS: [(&str, &[u8]); 7] = [
    ("swish", include_bytes!("../../samples/swish.wav")),
    ("sparkle 1", include_bytes!("../../samples/sparkle_1.wav")),
    ("sparkle 2", include_bytes!("../../samples/sparkle_2.wav")),
    ("sparkle 3", include_bytes!("../../samples/sparkle_3.wav")),
    ("sparkle 4", include_bytes!("../../samples/sparkle_4.wav")),
    ("sparkle 5", include_bytes!("../../samples/sparkle_5.wav")),
    ("sparkle 6", include_bytes!("../../samples/sparkle_6.wav")),
];
const AMBIENCE: &[u8] = include_bytes!("../../samples/ambience.ogg");

/// The page's allocator: the system's, counting what is allocated, freed
/// or grown while the engine's audio callback runs (which must be nothing:
/// the page shows the count, and the browser test asserts it stays 0).
struct Counting;

/// Set between the callback hook's `Enter` and `Exit`.
static IN_CALLBACK: AtomicBool = AtomicBool::new(false);
static CALLBACK_ALLOCS: AtomicU64 = AtomicU64::new(0);

fn seen_in_callback() {
    if IN_CALLBACK.load(Relaxed) {
        CALLBACK_ALLOCS.fetch_add(1, Relaxed);
    }
}

// SAFETY: every call is passed to the system allocator unchanged; counting
// touches only atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        seen_in_callback();
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        seen_in_callback();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        seen_in_callback();
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        seen_in_callback();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Called by the engine on entry to and exit from its audio callback.
fn hook(phase: CallbackPhase) {
    IN_CALLBACK.store(phase == CallbackPhase::Enter, Relaxed);
}

/// A deterministic pseudo-random sequence (as the native demo's).
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

/// What happened lately, for the page to show.
#[derive(Default)]
struct Counts {
    casts: u64,
    steals: u64,
    virtualized: u64,
    resumed: u64,
    ended: u64,
    refused: u64,
    stream_errors: u64,
}

/// The demo: an engine, its sounds, and what each play is.
#[wasm_bindgen]
pub struct Demo {
    engine: AudioEngine,
    /// Swish, then the sparkles, then the ambience (streamed).
    sounds: Vec<Sound>,
    names: Vec<&'static str>,
    /// Which sound each play in flight is.
    playing: HashMap<VoiceHandle, usize>,
    /// Steals since the page last asked: (slot, victim's sound, thief's sound).
    steals: Vec<(usize, usize, usize)>,
    counts: Counts,
    rng: Rng,
    ambience: Option<VoiceHandle>,
}

fn js(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

#[wasm_bindgen]
impl Demo {
    /// Makes the engine (suspended until the page's first click or key)
    /// and the sounds, and starts the ambience (`stream`: streamed; at
    /// `pitch`). `buffer_frames`: Web Audio's buffer (0: the default).
    #[wasm_bindgen(constructor)]
    pub fn new(
        voices: usize,
        stream: bool,
        pitch: f32,
        buffer_frames: u32,
    ) -> Result<Demo, JsError> {
        let settings = EngineSettings {
            voices,
            buffer_frames: (buffer_frames > 0).then_some(buffer_frames),
            ..Default::default()
        };
        let engine = AudioEngine::start_with_hook(settings, hook).map_err(js)?;
        let mut sounds = Vec::new();
        let mut names = Vec::new();
        for (name, bytes) in WAVS {
            sounds.push(Sound::from_wav_bytes(bytes).map_err(js)?);
            names.push(name);
        }
        sounds.push(if stream {
            Sound::stream_bytes(AMBIENCE).map_err(js)?
        } else {
            Sound::from_bytes(AMBIENCE).map_err(js)?
        });
        names.push("ambience");
        let mut demo = Demo {
            engine,
            sounds,
            names,
            playing: HashMap::new(),
            steals: Vec::new(),
            counts: Counts::default(),
            rng: Rng(0x5eed),
            ambience: None,
        };
        let ambience = PlayParams::default()
            .volume(0.35)
            .looping(true)
            .pitch(pitch);
        let ambience = if stream {
            // A stream cannot go virtual: it keeps its voice.
            ambience.priority(255)
        } else {
            // Below the spell: a full pool takes its voice first; it keeps
            // time, virtual, and comes back in the gaps.
            ambience.priority(64).virtualize(true)
        };
        demo.ambience = demo.play(demo.sounds.len() - 1, ambience);
        Ok(demo)
    }

    /// Asks the engine's output to play (it resumes by itself on the
    /// page's first click or key); an error once shut down.
    pub fn resume(&self) -> Result<(), JsError> {
        self.engine.resume_output().map_err(js)
    }

    /// Moves the ambience to `seconds` into its sound.
    pub fn seek_ambience(&self, seconds: f64) -> Result<(), JsError> {
        let Some(h) = self.ambience else {
            return Err(JsError::new("no ambience"));
        };
        let at = std::time::Duration::try_from_secs_f64(seconds).map_err(js)?;
        self.engine.seek(h, at).map_err(js)
    }

    /// "playing", "suspended" or "closed".
    pub fn state(&self) -> String {
        match self.engine.output_state() {
            OutputState::Playing => "playing",
            OutputState::Suspended => "suspended",
            _ => "closed",
        }
        .into()
    }

    /// The engine's output, through an analyser the page reads.
    pub fn analyser(&self) -> Result<web_sys::AnalyserNode, JsError> {
        let (Some(ctx), Some(node)) = (self.engine.audio_context(), self.engine.output_node())
        else {
            return Err(JsError::new("the engine is shut down"));
        };
        let analyser = ctx.create_analyser().map_err(|e| js(format!("{e:?}")))?;
        node.connect_with_audio_node(&analyser)
            .map_err(|e| js(format!("{e:?}")))?;
        Ok(analyser)
    }

    /// One cast: a swish now and a burst of sparkles over 0.7 s, each at
    /// its frame on the engine's clock. `pan` is -1 (left) to 1 (right).
    pub fn cast(&mut self, pan: f32) {
        let rate = f64::from(self.engine.sample_rate());
        // A little ahead of what has rendered, so the first frame is kept.
        let now = self.engine.clock() + (rate * 0.02) as u64;
        let swish = PlayParams::default()
            .volume(0.9)
            .pan(pan)
            .pitch(self.rng.range(0.9, 1.12))
            .priority(200)
            .start_at(now);
        self.play(0, swish);
        let burst = 20 + (self.rng.unit() * 17.0) as usize;
        for _ in 0..burst {
            let u = self.rng.unit();
            let at = now + ((0.08 + f64::from(u.powf(1.5)) * 0.7) * rate) as u64;
            let sound = 1 + (self.rng.unit() * 6.0) as usize % 6;
            let params = PlayParams::default()
                .volume(0.06 + 0.5 * self.rng.unit().powi(2))
                .pitch(self.rng.range(0.7, 1.7))
                .pan((pan + self.rng.range(-0.6, 0.6)).clamp(-1.0, 1.0))
                .start_at(at);
            self.play(sound, params);
        }
        self.counts.casts += 1;
    }

    /// Reads the engine's events and returns the page's view as JSON:
    /// `slots` (one per voice: sound name and level), `virtual` (the
    /// virtual voices' sounds), `stolen` since the last call (slot,
    /// victim, thief), the running counts and the engine's statistics.
    pub fn tick(&mut self) -> String {
        self.absorb();
        let slots = self.engine.slots();
        let virtual_slots = self.engine.virtual_slots();
        let stats = self.engine.stats();
        let mut out = String::from("{\"slots\":[");
        for (i, s) in slots.iter().enumerate() {
            let name = s.voice.and_then(|v| self.name_of(v)).unwrap_or("");
            let sep = if i > 0 { "," } else { "" };
            let _ = write!(
                out,
                "{sep}{{\"sound\":\"{name}\",\"level\":{:.4}}}",
                s.level
            );
        }
        out.push_str("],\"virtual\":[");
        let names: Vec<String> = virtual_slots
            .iter()
            .filter_map(|s| s.voice.and_then(|v| self.name_of(v)))
            .map(|n| format!("\"{n}\""))
            .collect();
        out.push_str(&names.join(","));
        out.push_str("],\"stolen\":[");
        let steals: Vec<String> = self
            .steals
            .drain(..)
            .map(|(slot, victim, by)| {
                format!(
                    "{{\"slot\":{slot},\"victim\":\"{}\",\"by\":\"{}\"}}",
                    self.names[victim], self.names[by]
                )
            })
            .collect();
        out.push_str(&steals.join(","));
        let c = &self.counts;
        let _ = write!(
            out,
            "],\"state\":\"{}\",\"rate\":{},\"frames\":{},\"casts\":{},\"started\":{},\
             \"steals\":{},\"virtualized\":{},\"resumed\":{},\"ended\":{},\"refused\":{},\
             \"streamErrors\":{},\"callbacks\":{},\"lateCallbacks\":{},\
             \"worstCallbackMs\":{:.3},\"callbackBudgetMs\":{:.3},\"callbackTimeMs\":{:.3},\
             \"blockFrames\":{},\
             \"inFlight\":{},\"peakVoices\":{},\"streams\":{},\"streamUnderruns\":{},\
             \"streamDecodeErrors\":{},\"callbackAllocs\":{}}}",
            self.state(),
            self.engine.sample_rate(),
            stats.frames_rendered,
            c.casts,
            stats.started,
            c.steals,
            c.virtualized,
            c.resumed,
            c.ended,
            c.refused,
            c.stream_errors,
            stats.callbacks,
            stats.late_callbacks,
            stats.worst_callback.as_secs_f64() * 1e3,
            stats.callback_budget.as_secs_f64() * 1e3,
            stats.callback_time.as_secs_f64() * 1e3,
            self.engine.info().max_block_frames,
            self.playing.len(),
            stats.peak_active_voices,
            stats.streams,
            stats.stream_underruns,
            stats.stream_decode_errors,
            CALLBACK_ALLOCS.load(Relaxed),
        );
        out
    }

    /// Stops the sound for good; every play in flight ends.
    pub fn shut_down(&mut self) {
        self.engine.shut_down();
        self.absorb();
    }
}

impl Demo {
    fn play(&mut self, sound: usize, params: PlayParams) -> Option<VoiceHandle> {
        match self.engine.play(&self.sounds[sound], params) {
            Ok(h) => {
                self.playing.insert(h, sound);
                Some(h)
            }
            Err(_) => {
                self.counts.refused += 1;
                None
            }
        }
    }

    fn name_of(&self, voice: VoiceHandle) -> Option<&'static str> {
        self.playing.get(&voice).map(|&s| self.names[s])
    }

    /// Turns the engine's events into the counts, the steal marks and the
    /// end of each play's record.
    fn absorb(&mut self) {
        let slots = self.engine.slots();
        let events: Vec<Event> = self.engine.drain_events().collect();
        for event in events {
            match event {
                Event::Stolen { victim, by } => {
                    self.counts.steals += 1;
                    let slot = slots.iter().position(|s| s.voice == Some(by));
                    if let (Some(slot), Some(&v), Some(&b)) =
                        (slot, self.playing.get(&victim), self.playing.get(&by))
                    {
                        self.steals.push((slot, v, b));
                    }
                    self.playing.remove(&victim);
                }
                Event::Ended { voice } | Event::Rejected { voice } => {
                    self.counts.ended += 1;
                    self.playing.remove(&voice);
                }
                Event::Virtualized { .. } => self.counts.virtualized += 1,
                Event::Resumed { .. } => self.counts.resumed += 1,
                Event::StreamError { .. } => self.counts.stream_errors += 1,
                _ => {}
            }
        }
    }
}
