//! The audio side of a live engine: what the data callback owns, the cell
//! that lends it to the callback, and the error callback's counters.
//!
//! Everything here that a callback calls keeps the real-time rules: no
//! allocation or freeing, no lock, no blocking, no panic; atomics only.

#[cfg(not(web))]
use std::cell::UnsafeCell;
#[cfg(not(web))]
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
#[cfg(not(web))]
use std::sync::atomic::{AtomicU64, AtomicU8};
use std::sync::Arc;
#[cfg(not(web))]
use std::time::Instant;

use cpal::{FromSample, Sample};

use super::{CallbackHook, CallbackPhase};
use crate::mixer::Mixer;
use crate::protocol::stats::Counters;

/// Everything the data callback works with.
pub(crate) struct AudioSide {
    pub(crate) mixer: Mixer,
    /// Interleaved stereo, `max_block_frames * 2` samples.
    pub(crate) scratch: Box<[f32]>,
    /// Device channels (at least 1).
    pub(crate) channels: usize,
    pub(crate) hook: CallbackHook,
    /// For the deadline accounting.
    pub(crate) counters: Arc<Counters>,
    /// The stream's rate in Hz (the mixer's).
    pub(crate) rate: u32,
}

/// The monotonic clock the callback is timed with: `Instant` natively,
/// `performance.now()` in a browser (where `Instant` is not there).
struct Stopwatch {
    #[cfg(not(web))]
    start: Instant,
    #[cfg(web)]
    start_ns: u64,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            #[cfg(not(web))]
            start: Instant::now(),
            #[cfg(web)]
            start_ns: crate::output::web::now_ns(),
        }
    }

    fn elapsed_ns(&self) -> u64 {
        #[cfg(not(web))]
        let ns = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        #[cfg(web)]
        let ns = crate::output::web::now_ns().saturating_sub(self.start_ns);
        ns
    }
}

impl AudioSide {
    /// **The real-time entry point**: the whole body of the data callback.
    /// Renders `out.len() / channels` frames in chunks of at most the
    /// scratch buffer's size and converts them into `out`, then notes how
    /// long that took against the frames' duration ([`Counters::note_callback`]:
    /// two reads of the monotonic clock, a vDSO call, and relaxed atomics).
    /// Allocates, frees, locks and prints nothing; never panics (every
    /// slice is cut at whole frames within `out`; a trailing partial frame,
    /// which a host should never pass, is filled with silence).
    #[cfg_attr(feature = "rtsan", rtsan_standalone::nonblocking)]
    pub(crate) fn fill<T: Sample + FromSample<f32>>(&mut self, out: &mut [T]) {
        self.fill_with(out, |_| usize::MAX);
    }

    /// [`AudioSide::fill`] in pieces, with `prepare` called before each: it
    /// does what must happen between them on the calling thread (in a
    /// browser, the stream loader, which runs inline there) and returns the
    /// most frames the next piece may have. The callback hook and the clock
    /// cover the rendering only; the whole counts as one callback.
    /// Real-time as [`AudioSide::fill`] when `prepare` is.
    pub(crate) fn fill_with<T: Sample + FromSample<f32>>(
        &mut self,
        out: &mut [T],
        mut prepare: impl FnMut(&mut Mixer) -> usize,
    ) {
        let channels = self.channels.max(1);
        let frames = out.len() / channels;
        let (mut rest, partial) = out.split_at_mut(frames * channels);
        partial.fill(T::EQUILIBRIUM);
        let mut took_ns = 0u64;
        while !rest.is_empty() {
            let piece = prepare(&mut self.mixer).clamp(1, rest.len() / channels);
            let (now, later) = std::mem::take(&mut rest).split_at_mut(piece * channels);
            (self.hook)(CallbackPhase::Enter);
            let watch = Stopwatch::start();
            let block = (self.scratch.len() / 2).max(1);
            for chunk in now.chunks_mut(channels * block) {
                self.render_chunk(chunk, channels);
            }
            took_ns = took_ns.saturating_add(watch.elapsed_ns());
            (self.hook)(CallbackPhase::Exit);
            rest = later;
        }
        let budget_ns = (frames as u64).saturating_mul(1_000_000_000) / u64::from(self.rate.max(1));
        self.counters.note_callback(took_ns, budget_ns);
    }

    /// Renders `out.len() / channels` frames (at most the scratch size).
    fn render_chunk<T: Sample + FromSample<f32>>(&mut self, out: &mut [T], channels: usize) {
        let frames = out.len() / channels;
        let Some(mix) = self.scratch.get_mut(..frames * 2) else {
            out.fill(T::EQUILIBRIUM);
            return;
        };
        self.mixer.process(mix);
        write_frames(mix, out, channels);
    }
}

/// Converts interleaved stereo `mix` into `out` with `channels` channels:
/// mono gets `(left + right) / 2`, stereo is copied, more channels get left
/// and right in the first two and silence in the rest.
fn write_frames<T: Sample + FromSample<f32>>(mix: &[f32], out: &mut [T], channels: usize) {
    if channels == 1 {
        for (o, f) in out.iter_mut().zip(mix.chunks_exact(2)) {
            if let [l, r] = f {
                *o = T::from_sample((l + r) * 0.5);
            }
        }
        return;
    }
    for (o, f) in out.chunks_exact_mut(channels).zip(mix.chunks_exact(2)) {
        if let ([ol, or, extra @ ..], [l, r]) = (o, f) {
            *ol = T::from_sample(*l);
            *or = T::from_sample(*r);
            extra.fill(T::EQUILIBRIUM);
        }
    }
}

/// The slot's side is there and no callback is using it.
#[cfg(not(web))]
const READY: u8 = 0;
/// A data callback is using the side.
#[cfg(not(web))]
const BUSY: u8 = 1;
/// The output thread took the side out; the slot stays empty.
#[cfg(not(web))]
const TAKEN: u8 = 2;

/// Lends the audio side to one stream's data callback, and lets the output
/// thread take it back *while that stream still exists*: from a stream
/// whose device is gone, or whose host thread is stuck outside the
/// callback, which may never be dropped cleanly. A state byte guards the
/// cell: the callback moves it `READY -> BUSY` on entry and back on exit;
/// the output thread moves it `READY -> TAKEN` and then owns the side. A
/// callback that finds the slot taken writes silence. No lock: a callback
/// never waits, the output thread retries while one is inside. (Not in a
/// browser, where the callback and the engine share the page's thread.)
#[cfg(not(web))]
pub(crate) struct Slot {
    state: AtomicU8,
    side: UnsafeCell<Option<Box<AudioSide>>>,
}

// SAFETY: `side` is only reached by whoever moved `state` away from READY
// (`lend`: to BUSY; `try_take`: to TAKEN) with an acquire exchange, and
// handed back with a release store (BUSY -> READY) or never (TAKEN is
// final): at most one thread touches it at a time, and `AudioSide` is
// `Send`, so sharing the slot between threads is sound.
#[cfg(not(web))]
unsafe impl Sync for Slot {}

/// What [`Slot::try_take`] found.
#[cfg(not(web))]
pub(crate) enum Take {
    /// The side, now the caller's.
    Side(Box<AudioSide>),
    /// A callback is inside: try again shortly.
    Busy,
    /// Taken before.
    Empty,
}

#[cfg(not(web))]
impl Slot {
    pub(super) fn new(side: Box<AudioSide>) -> Arc<Slot> {
        Arc::new(Slot {
            state: AtomicU8::new(READY),
            side: UnsafeCell::new(Some(side)),
        })
    }

    /// **Real-time** (the data callback): fills `out` from the side, or
    /// with silence if the side has been taken. An exchange and a store on
    /// one atomic byte around [`AudioSide::fill`].
    #[cfg_attr(feature = "rtsan", rtsan_standalone::nonblocking)]
    pub(super) fn fill<T: Sample + FromSample<f32>>(&self, out: &mut [T]) {
        if self
            .state
            .compare_exchange(READY, BUSY, Acquire, Relaxed)
            .is_err()
        {
            out.fill(T::EQUILIBRIUM);
            return;
        }
        // SAFETY: the exchange above moved the state from READY to BUSY, so
        // no other thread reaches `side` until the release store below.
        let side = unsafe { &mut *self.side.get() };
        match side.as_deref_mut() {
            Some(side) => side.fill(out),
            None => out.fill(T::EQUILIBRIUM),
        }
        self.state.store(READY, Release);
    }

    /// The output thread: takes the side out unless a callback is inside.
    pub(crate) fn try_take(&self) -> Take {
        match self.state.compare_exchange(READY, TAKEN, Acquire, Relaxed) {
            // SAFETY: the state is now TAKEN, which no one leaves: this
            // thread has `side` to itself from here on.
            Ok(_) => match unsafe { (*self.side.get()).take() } {
                Some(side) => Take::Side(side),
                None => Take::Empty,
            },
            Err(TAKEN) => Take::Empty,
            Err(_) => Take::Busy,
        }
    }

    /// The output thread: takes the side out, waiting for a callback that
    /// is inside to return (1 ms naps, at most `patience`). `None` if the
    /// slot was taken before or a callback never returned.
    pub(crate) fn take(&self, patience: std::time::Duration) -> Option<Box<AudioSide>> {
        let start = Instant::now();
        loop {
            match self.try_take() {
                Take::Side(side) => return Some(side),
                Take::Empty => return None,
                Take::Busy if start.elapsed() > patience => return None,
                Take::Busy => std::thread::sleep(std::time::Duration::from_millis(1)),
            }
        }
    }
}

/// What one stream's error callback has reported, as plain counts: the
/// error callback may run on the audio thread (cpal's ALSA backend calls it
/// there), so it only classifies the error and bumps an atomic. The output
/// thread reads the counts and turns them into events.
#[cfg(not(web))]
#[derive(Default)]
pub(crate) struct StreamFlags {
    /// Errors meaning the device is gone.
    pub(crate) lost: AtomicU64,
    /// Other errors.
    pub(crate) backend: AtomicU64,
}

#[cfg(not(web))]
impl StreamFlags {
    /// Classifies and counts `err`; an underrun goes to
    /// [`crate::Stats::underruns`] instead. Looks at the error's text (no
    /// allocation): cpal reports JACK's xruns and shutdown, and ALSA's
    /// vanished devices, as backend-specific errors.
    pub(crate) fn report(&self, err: &cpal::StreamError, counters: &Counters) {
        match err {
            cpal::StreamError::DeviceNotAvailable => {
                self.lost.fetch_add(1, Relaxed);
            }
            cpal::StreamError::BackendSpecific { err } => match classify(&err.description) {
                Kind::Underrun => Counters::bump(&counters.underruns),
                Kind::Lost => {
                    self.lost.fetch_add(1, Relaxed);
                }
                Kind::Other => {
                    self.backend.fetch_add(1, Relaxed);
                }
            },
        }
    }
}

#[cfg(not(web))]
#[derive(Debug, PartialEq)]
enum Kind {
    Underrun,
    Lost,
    Other,
}

/// What a backend-specific error's text says, for the texts cpal 0.16 uses:
/// its JACK host's xrun and shutdown notifications ("xrun (buffer over or
/// under run)", "JACK was shut down for reason: ...", and "sample rate
/// changed to: ...", after which its client stops), and an ALSA device
/// that has gone away (ENODEV, or `poll` reporting POLLERR on the PCM).
#[cfg(not(web))]
fn classify(description: &str) -> Kind {
    if description.starts_with("xrun") {
        Kind::Underrun
    } else if description.starts_with("JACK was shut down")
        || description.starts_with("sample rate changed")
        || description.contains("ENODEV")
        || description.contains("No such device")
        || description.contains("POLLERR")
    {
        Kind::Lost
    } else {
        Kind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Engine, EngineSettings, OfflineEngine, PlayParams, Sound};

    fn stereo_sound() -> Sound {
        let samples = (0..2_000)
            .flat_map(|i| {
                let t = i as f32;
                [0.5 * (t * 0.03).cos(), -0.25 * (t * 0.11).cos()]
            })
            .collect();
        Sound::from_samples(2, 48_000, samples).unwrap()
    }

    fn make_side(channels: usize, block: usize) -> (Engine, AudioSide) {
        let (engine, mixer) = Engine::new(EngineSettings::default()).unwrap();
        let (_, counters) = engine.stream_error_sink(4);
        let side = AudioSide {
            mixer,
            scratch: vec![0.0; block * 2].into_boxed_slice(),
            channels,
            hook: |_| {},
            counters,
            rate: 48_000,
        };
        (engine, side)
    }

    fn offline(frames: usize, sound: &Sound) -> Vec<f32> {
        let mut engine = OfflineEngine::new(EngineSettings::default()).unwrap();
        engine.play(sound, PlayParams::default()).unwrap();
        engine.render(frames).to_vec()
    }

    #[test]
    fn a_request_larger_than_the_scratch_buffer_is_rendered_in_chunks() {
        let sound = stereo_sound();
        let (engine, mut side) = make_side(2, 256);
        engine.play(&sound, PlayParams::default()).unwrap();
        // 1000 frames: three whole chunks of 256 and one of 232.
        let mut out = vec![9.0f32; 2_000];
        side.fill(&mut out);
        assert_eq!(side.scratch.len(), 512, "the scratch buffer did not grow");
        assert_eq!(out, offline(1_000, &sound));
    }

    #[test]
    fn mono_devices_get_a_downmix_and_extra_channels_get_silence() {
        let sound = stereo_sound();
        let expected = offline(300, &sound);

        let (engine, mut side) = make_side(1, 512);
        engine.play(&sound, PlayParams::default()).unwrap();
        let mut mono = vec![0.0f32; 300];
        side.fill(&mut mono);
        for (m, f) in mono.iter().zip(expected.chunks(2)) {
            assert_eq!(*m, (f[0] + f[1]) * 0.5);
        }

        let (engine, mut side) = make_side(4, 512);
        engine.play(&sound, PlayParams::default()).unwrap();
        let mut quad = vec![7u16; 1_200];
        side.fill(&mut quad);
        for (q, f) in quad.chunks(4).zip(expected.chunks(2)) {
            assert_eq!(q[0], u16::from_sample(f[0]));
            assert_eq!(q[1], u16::from_sample(f[1]));
            assert_eq!(&q[2..], &[32_768, 32_768], "u16 silence is mid-scale");
        }
        assert!(quad.chunks(4).any(|q| q[0] != 32_768 && q[0] != q[1]));
    }

    #[test]
    fn i16_output_is_the_mix_converted() {
        let sound = stereo_sound();
        let expected = offline(400, &sound);
        let (engine, mut side) = make_side(2, 512);
        engine.play(&sound, PlayParams::default()).unwrap();
        let mut out = vec![0i16; 800];
        side.fill(&mut out);
        let want: Vec<i16> = expected.iter().map(|&s| i16::from_sample(s)).collect();
        assert_eq!(out, want);
        assert!(out.iter().any(|&s| s > 8_000) && out.iter().any(|&s| s < -4_000));
    }

    #[test]
    fn a_partial_trailing_frame_is_silenced_not_a_panic() {
        let (_engine, mut side) = make_side(3, 256);
        let mut out = vec![5i16; 3 * 10 + 2];
        side.fill(&mut out);
        assert_eq!(&out[30..], &[0, 0]);
    }

    #[test]
    fn every_callback_is_counted_with_its_budget() {
        let (engine, mut side) = make_side(2, 256);
        side.fill(&mut [0.0f32; 2 * 480]);
        side.fill(&mut [0.0f32; 2 * 240]);
        let s = engine.stats();
        assert_eq!(s.callbacks, 2);
        // The last callback's 240 frames at 48 kHz.
        assert_eq!(s.callback_budget, std::time::Duration::from_micros(5_000));
        assert!(s.worst_callback > std::time::Duration::ZERO);
        assert!(
            s.callback_time >= s.worst_callback && s.callback_time <= 2 * s.worst_callback,
            "the two callbacks' total: {:?}, the worst {:?}",
            s.callback_time,
            s.worst_callback
        );
        assert!(s.late_callbacks <= 2);
    }

    #[test]
    fn a_taken_slot_plays_silence_and_the_side_comes_out_once() {
        let sound = stereo_sound();
        let (engine, side) = make_side(2, 256);
        engine.play(&sound, PlayParams::default()).unwrap();
        let slot = Slot::new(Box::new(side));
        let mut out = vec![0.0f32; 64];
        slot.fill(&mut out);
        assert!(out.iter().any(|&s| s != 0.0), "the side plays while lent");
        let side = slot.take(std::time::Duration::ZERO).expect("the side");
        assert_eq!(side.mixer.frames_rendered(), 32);
        let mut out = vec![1.0f32; 64];
        slot.fill(&mut out);
        assert!(out.iter().all(|&s| s == 0.0), "a taken slot is silent");
        assert!(matches!(slot.try_take(), Take::Empty));
    }

    #[test]
    fn errors_are_sorted_into_lost_underrun_and_other() {
        let (engine, _side) = make_side(2, 256);
        let (_, counters) = engine.stream_error_sink(4);
        let flags = StreamFlags::default();
        let backend = |text: &str| cpal::StreamError::BackendSpecific {
            err: cpal::BackendSpecificError {
                description: text.into(),
            },
        };
        for err in [
            cpal::StreamError::DeviceNotAvailable,
            backend("JACK was shut down for reason: server went away"),
            backend("ALSA function 'snd_pcm_status' failed with error 'ENODEV: No such device'"),
            backend("xrun (buffer over or under run)"),
            backend("buffer size changed to: 512"),
        ] {
            flags.report(&err, &counters);
        }
        assert_eq!(flags.lost.load(Relaxed), 3);
        assert_eq!(flags.backend.load(Relaxed), 1);
        assert_eq!(engine.stats().underruns, 1);
    }
}
