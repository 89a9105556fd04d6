//! [`crate::AudioEngine`] in a browser (`wasm32-unknown-unknown`): the mixer
//! on Web Audio.
//!
//! # How it plays
//!
//! The engine makes an `AudioContext` at the page's default rate and a
//! `ScriptProcessorNode` (no input, two output channels) connected to its
//! destination. The browser calls the node's `onaudioprocess` on the page's
//! thread for every buffer it needs; the handler calls the real-time entry
//! point, [`AudioSide::fill`], into a stereo buffer made when the engine
//! started, and copies the two channels into the event's output buffer.
//! With streamed plays in flight (the stream loader runs inline here: there
//! is no thread to run it on), it renders the buffer in pieces as the
//! offline engine does ([`AudioSide::fill_with`]): before each, queued
//! plays and seeks are taken, the rings filled, what earlier plays left in
//! them dropped, and filled again; each piece reads at most three quarters
//! of a ring at the fastest stream's step, so no ring runs dry however
//! large the buffer or high the pitch.
//!
//! Why this node, and not the others a Rust crate could use:
//!
//! - An `AudioWorklet` runs on the browser's audio thread in a global scope
//!   of its own. The mixer and the game side share memory (the lock-free
//!   command and event queues), so the mixer could only run there in a wasm
//!   module whose memory is shared with the page's: WebAssembly threads,
//!   which stable Rust's standard library for `wasm32-unknown-unknown` does
//!   not offer, on a page served cross-origin isolated. A second module in
//!   the worklet that gets its commands by `postMessage` would be a second
//!   engine, not this one.
//! - cpal 0.16's web backend (`AudioBufferSourceNode`s chained from their
//!   `onended`) also renders on the page's thread, but it panics when Web
//!   Audio refuses a call, and starting it a second time (what resuming
//!   after a user gesture is) runs two chains at once.
//!
//! The mix therefore shares the page's thread with the game: a game frame
//! that holds that thread for longer than the buffer lasts makes the
//! browser play a gap. [`crate::EngineSettings::buffer_frames`] sets the
//! buffer (a power of two from 256 to 16 384; the default, 2048 frames, is
//! 43 ms at 48 kHz).
//!
//! # Starting after a gesture
//!
//! A browser lets an `AudioContext` make sound only once the user has
//! interacted with the page. An engine started before that is
//! [`OutputState::Suspended`]: it takes plays, and nothing renders (its
//! clock holds, plays wait where they are). The engine listens on the
//! page's window (capturing, so a game's own handlers cannot hide them)
//! for the events that count as a gesture (`click`, `keydown`,
//! `pointerup`, `touchend`) and resumes the context on each while it is
//! not running: the first click or key starts the sound, and one after the
//! browser suspended it (some do for a tab in the background) starts it
//! again. [`crate::AudioEngine::resume_output`] does the same on demand. A
//! suspended context holds the clock.
//!
//! # A context closed under the engine
//!
//! The engine closes its context when it is shut down. One closed by the
//! page's own code (reached through [`crate::AudioEngine::audio_context`])
//! is the device lost: the game gets one `Event::StreamError { kind:
//! DeviceLost }`, nothing renders any more, and shutting the engine down
//! ends every play in flight, as natively with device recovery off.
//!
//! # Everything on one thread
//!
//! The context, the node and its handler are JavaScript objects, which stay
//! on the thread that made them: they are kept here, in a registry local to
//! that thread, and the engine holds only its index (so it stays `Send` and
//! `Sync`, as a Bevy resource must be). Without WebAssembly threads there
//! is no other thread; with them, keep an engine on the thread that
//! started it: elsewhere its index means nothing (it finds no output, or
//! another engine's).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{AudioContext, AudioContextState, AudioProcessingEvent, ScriptProcessorNode, Window};

use super::cpal::report::{Reporter, STREAM_EVENT_CAPACITY};
use super::cpal::side::AudioSide;
use super::cpal::AudioEngine;
use super::cpal::{CallbackHook, DeviceSampleFormat, OutputState, StreamInfo};
use crate::control::settings::EngineSettings;
use crate::control::{Controller, Engine};
use crate::error::EngineError;
use crate::output::offline::fill_streams;

/// The node's buffer when the settings name none, in frames.
pub(crate) const DEFAULT_FRAMES: u32 = 2048;
/// The buffer sizes a `ScriptProcessorNode` takes: powers of two in this range.
pub(crate) const FRAMES_RANGE: std::ops::RangeInclusive<u32> = 256..=16_384;
/// The events that give a page user activation, on which the engine
/// resumes its context.
const GESTURES: [&str; 4] = ["click", "keydown", "pointerup", "touchend"];

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `performance.now()`: milliseconds on the page's monotonic clock (in a
    /// window or a worker). A call into JavaScript; nothing is allocated.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Nanoseconds since the page's time origin, for the callback's deadline
/// accounting.
pub(crate) fn now_ns() -> u64 {
    // Saturating float-to-int cast: a clock that read NaN gives 0.
    (performance_now() * 1e6) as u64
}

/// The buffer a `ScriptProcessorNode` is made with for `asked` frames: the
/// next power of two, within [`FRAMES_RANGE`].
pub(crate) fn node_frames(asked: Option<u32>) -> u32 {
    asked.map_or(DEFAULT_FRAMES, |n| {
        n.checked_next_power_of_two()
            .unwrap_or(*FRAMES_RANGE.end())
            .clamp(*FRAMES_RANGE.start(), *FRAMES_RANGE.end())
    })
}

/// One engine's Web Audio objects, kept on the thread that made them.
struct WebStream {
    ctx: AudioContext,
    node: ScriptProcessorNode,
    /// The node's `onaudioprocess` handler; dropped only after the node
    /// lets go of it.
    _on_process: Closure<dyn FnMut(AudioProcessingEvent)>,
    /// The audio side, lent to the handler.
    side: Rc<RefCell<Option<Box<AudioSide>>>>,
    /// The window's gesture listener, where there is a window (not in a
    /// worker).
    gesture: Option<(Window, Closure<dyn FnMut()>)>,
    /// The context's `onstatechange` handler (a close the engine did not
    /// make is reported).
    _on_state: Closure<dyn FnMut()>,
}

thread_local! {
    static STREAMS: RefCell<Vec<Option<WebStream>>> = const { RefCell::new(Vec::new()) };
}

/// What an [`crate::AudioEngine`] holds of its web output: an index into
/// this thread's registry.
#[derive(Debug)]
pub(crate) struct WebOutput {
    index: usize,
}

/// Text for a JavaScript exception.
fn describe(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Makes the context and the node, and starts the engine on them: playing
/// if the page may already make sound, else suspended until
/// [`WebOutput::resume`].
pub(crate) fn start(
    settings: &EngineSettings,
    hook: CallbackHook,
) -> Result<(Engine, StreamInfo, WebOutput), EngineError> {
    let ctx = AudioContext::new().map_err(|e| {
        EngineError::NoDevice(format!(
            "this page cannot make a Web Audio AudioContext ({}); render with OfflineEngine instead",
            describe(&e)
        ))
    })?;
    let fail = |what: &str, e: JsValue, ctx: &AudioContext| {
        let _ = ctx.close();
        EngineError::Device(format!("Web Audio: {what}: {}", describe(&e)))
    };
    let rate = ctx.sample_rate();
    let rate = if rate.is_finite() && rate >= 1.0 {
        rate.round() as u32
    } else {
        let _ = ctx.close();
        return Err(EngineError::Device(format!(
            "Web Audio: the AudioContext runs at {rate} Hz"
        )));
    };
    let frames = node_frames(settings.buffer_frames);
    let node = ctx
        .create_script_processor_with_buffer_size_and_number_of_input_channels_and_number_of_output_channels(frames, 0, 2)
        .map_err(|e| fail("cannot make a ScriptProcessorNode", e, &ctx))?;
    let (engine, mixer) = match Engine::with_rate(settings.clone(), rate) {
        Ok(made) => made,
        Err(e) => {
            let _ = ctx.close();
            return Err(e);
        }
    };
    // No thread to decode streams on: the handler does it before each mix.
    engine.stream_loader_inline();
    let (events, counters) = engine.stream_error_sink(STREAM_EVENT_CAPACITY);
    let reporter = Rc::new(RefCell::new(Reporter { events, counters }));
    let block = frames as usize;
    let side = Rc::new(RefCell::new(Some(Box::new(AudioSide {
        mixer,
        scratch: vec![0.0; block * 2].into_boxed_slice(),
        channels: 2,
        hook,
        counters: Arc::clone(&reporter.borrow().counters),
        rate,
    }))));
    let mut handler = Handler {
        side: Rc::clone(&side),
        controller: engine.controller(),
        mix: vec![0.0; block * 2].into_boxed_slice(),
        channel: vec![0.0; block].into_boxed_slice(),
        reporter: Rc::clone(&reporter),
        ring: settings.stream_buffer_frames,
    };
    let on_process =
        Closure::<dyn FnMut(AudioProcessingEvent)>::new(move |e: AudioProcessingEvent| {
            handler.process(&e)
        });
    node.set_onaudioprocess(Some(on_process.as_ref().unchecked_ref()));
    if let Err(e) = node.connect_with_audio_node(&ctx.destination()) {
        node.set_onaudioprocess(None);
        return Err(fail("cannot connect the output node", e, &ctx));
    }
    let info = StreamInfo {
        device: "Web Audio".into(),
        sample_rate: rate,
        channels: 2,
        sample_format: DeviceSampleFormat::F32,
        buffer_frames: Some(frames),
        max_block_frames: block,
    };
    let gesture = listen_for_gestures(&ctx);
    let on_state = {
        let ctx = ctx.clone();
        Closure::<dyn FnMut()>::new(move || {
            if ctx.state() == AudioContextState::Closed {
                if let Ok(mut r) = reporter.try_borrow_mut() {
                    r.lost(1);
                }
            }
        })
    };
    ctx.set_onstatechange(Some(on_state.as_ref().unchecked_ref()));
    let stream = WebStream {
        ctx,
        node,
        _on_process: on_process,
        side,
        gesture,
        _on_state: on_state,
    };
    let index = STREAMS.with(|s| {
        let mut s = s.borrow_mut();
        match s.iter().position(Option::is_none) {
            Some(free) => {
                s[free] = Some(stream);
                free
            }
            None => {
                s.push(Some(stream));
                s.len() - 1
            }
        }
    });
    // A context the page may already play on runs from here; one it may
    // not is suspended until a gesture.
    Ok((engine, info, WebOutput { index }))
}

/// Resumes `ctx` on every user gesture while it is not running (from the
/// window's capturing listeners; none in a worker, which has no window).
fn listen_for_gestures(ctx: &AudioContext) -> Option<(Window, Closure<dyn FnMut()>)> {
    let window = web_sys::window()?;
    let ctx = ctx.clone();
    let resume = Closure::<dyn FnMut()>::new(move || {
        // Suspended, or a state newer than web-sys knows ("interrupted").
        if !matches!(
            ctx.state(),
            AudioContextState::Running | AudioContextState::Closed
        ) {
            let _ = ctx.resume();
        }
    });
    for kind in GESTURES {
        let _ = window.add_event_listener_with_callback_and_bool(
            kind,
            resume.as_ref().unchecked_ref(),
            true,
        );
    }
    Some((window, resume))
}

/// What the node's handler owns.
struct Handler {
    side: Rc<RefCell<Option<Box<AudioSide>>>>,
    controller: Controller,
    /// Interleaved stereo, the node's buffer.
    mix: Box<[f32]>,
    /// One channel of it.
    channel: Box<[f32]>,
    reporter: Rc<RefCell<Reporter>>,
    /// A stream's ring, in frames.
    ring: usize,
}

impl Handler {
    /// One `onaudioprocess`: streams decoded (game-side work, on the page's
    /// thread), then the mix (the real-time entry point) copied out.
    fn process(&mut self, e: &AudioProcessingEvent) {
        let Ok(out) = e.output_buffer() else {
            return self.refused();
        };
        let frames = (out.length() as usize).min(self.channel.len());
        let streaming = self.controller.pump_streams();
        let (controller, ring) = (&self.controller, self.ring);
        let mix = &mut self.mix[..frames * 2];
        match self.side.try_borrow_mut() {
            Ok(mut side) => match side.as_deref_mut() {
                Some(side) if streaming => {
                    side.fill_with(mix, |mixer| fill_streams(mixer, controller, ring))
                }
                Some(side) => side.fill(mix),
                None => mix.fill(0.0),
            },
            Err(_) => mix.fill(0.0),
        }
        let mut refused = false;
        for ch in 0..out.number_of_channels().min(2) {
            let c = ch as usize;
            for (o, f) in self.channel[..frames].iter_mut().zip(mix.chunks_exact(2)) {
                *o = f[c];
            }
            refused |= out
                .copy_to_channel(&self.channel[..frames], ch as i32)
                .is_err();
        }
        if refused {
            self.refused();
        }
    }

    /// Web Audio refused a call.
    fn refused(&mut self) {
        if let Ok(mut r) = self.reporter.try_borrow_mut() {
            r.backend_errors(1);
        }
    }
}

impl WebOutput {
    fn with<R>(&self, f: impl FnOnce(&WebStream) -> R) -> Option<R> {
        STREAMS.with(|s| {
            let s = s.try_borrow().ok()?;
            s.get(self.index)?.as_ref().map(f)
        })
    }

    /// Asks the context to play (`AudioContext.resume()`).
    pub(crate) fn resume(&self) -> Result<(), EngineError> {
        match self.with(|s| s.ctx.resume()) {
            None => Err(EngineError::Device("the engine's output is closed".into())),
            Some(Err(e)) => Err(EngineError::Device(format!(
                "Web Audio refused to resume: {}",
                describe(&e)
            ))),
            // The promise settles later; a refusal leaves the state suspended.
            Some(Ok(_promise)) => Ok(()),
        }
    }

    pub(crate) fn state(&self) -> OutputState {
        match self.with(|s| s.ctx.state()) {
            Some(AudioContextState::Running) => OutputState::Playing,
            Some(AudioContextState::Closed) | None => OutputState::Closed,
            // Suspended, or a state newer than web-sys knows ("interrupted").
            Some(_) => OutputState::Suspended,
        }
    }

    pub(crate) fn context(&self) -> Option<AudioContext> {
        self.with(|s| s.ctx.clone())
    }

    pub(crate) fn node(&self) -> Option<web_sys::AudioNode> {
        self.with(|s| s.node.clone().into())
    }

    /// Stops the node, closes the context and takes the audio side back.
    pub(crate) fn close(self) -> Option<Box<AudioSide>> {
        let stream = STREAMS.with(|s| s.try_borrow_mut().ok()?.get_mut(self.index)?.take())?;
        stream.node.set_onaudioprocess(None);
        // The engine's own close is not a lost device.
        stream.ctx.set_onstatechange(None);
        if let Some((window, resume)) = &stream.gesture {
            for kind in GESTURES {
                let _ = window.remove_event_listener_with_callback_and_bool(
                    kind,
                    resume.as_ref().unchecked_ref(),
                    true,
                );
            }
        }
        let _ = stream.node.disconnect();
        // (Closing a closed context rejects its promise, which the page's
        // console would show.)
        if stream.ctx.state() != AudioContextState::Closed {
            let _ = stream.ctx.close();
        }
        let side = stream.side.try_borrow_mut().ok()?.take();
        side
    }
}

/// The browser-only calls.
impl AudioEngine {
    /// In a browser: the page's `AudioContext` the engine plays in, for
    /// routing its output through a page's own Web Audio graph (with
    /// [`AudioEngine::output_node`]); `None` once shut down. Closing the
    /// context ends the engine's sound for good: shut the engine down
    /// instead.
    ///
    /// ```ignore
    /// let ctx = engine.audio_context().expect("running");
    /// let analyser = ctx.create_analyser()?;
    /// ```
    pub fn audio_context(&self) -> Option<web_sys::AudioContext> {
        self.web.as_ref()?.context()
    }

    /// In a browser: the node the engine's stereo output comes from, which
    /// is connected to the context's destination. Connect it to another
    /// node (an analyser, a `MediaStreamAudioDestinationNode` for
    /// recording) to have the output there too; `None` once shut down.
    ///
    /// ```ignore
    /// let analyser = engine.audio_context().unwrap().create_analyser()?;
    /// engine.output_node().unwrap().connect_with_audio_node(&analyser)?;
    /// ```
    pub fn output_node(&self) -> Option<web_sys::AudioNode> {
        self.web.as_ref()?.node()
    }
}
