//! [`OutputState`]: whether a live engine's output is making sound, and
//! asking it to (a browser starts a page's audio only after a gesture).
//! Natively the output thread says whether the device is lost; in a browser
//! the page's `AudioContext` says (`output/web.rs`).

use super::cpal::AudioEngine;
use crate::error::EngineError;

/// Whether an [`AudioEngine`]'s output is making sound: see
/// [`AudioEngine::output_state`].
///
/// ```no_run
/// use voicepool::{AudioEngine, EngineSettings, OutputState};
/// let engine = AudioEngine::start(EngineSettings::default())?;
/// if engine.output_state() == OutputState::Suspended {
///     println!("click to start the sound"); // in a browser, the click starts it by itself
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputState {
    /// The output runs: the mixer renders as the device asks.
    Playing,
    /// Nothing renders for now: plays are taken, and the engine's clock
    /// holds. In a browser, the page's audio is suspended (no user gesture
    /// yet, or the browser suspended it) until the next click, key press
    /// or touch on the page (or [`AudioEngine::resume_output`] after one)
    /// starts it. Natively, the device was lost
    /// ([`crate::Event::StreamError`] with `DeviceLost`) and is not reopened
    /// yet (with [`crate::EngineSettings::recover_device`] off, it never will be:
    /// shut the engine down).
    Suspended,
    /// The output is gone for good ([`AudioEngine::shut_down`], or a
    /// closed Web Audio context).
    Closed,
}

/// The output's state, on every platform.
impl AudioEngine {
    /// Whether the output is making sound. Natively the stream plays from
    /// [`AudioEngine::start`] ([`OutputState::Playing`]) until
    /// [`AudioEngine::shut_down`] ([`OutputState::Closed`]), but for while a
    /// lost device is not reopened ([`OutputState::Suspended`]). In a browser,
    /// the page's `AudioContext`: [`OutputState::Suspended`] until the
    /// user's first click, key press or touch on the page (and whenever the
    /// browser suspends it, until the next), during which plays are taken
    /// and nothing renders, the clock held.
    ///
    /// ```no_run
    /// use voicepool::{AudioEngine, EngineSettings, OutputState};
    /// let engine = AudioEngine::start(EngineSettings::default())?;
    /// match engine.output_state() {
    ///     OutputState::Playing => {}
    ///     OutputState::Suspended => println!("press a key to start the sound"),
    ///     _ => println!("no sound any more"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn output_state(&self) -> OutputState {
        #[cfg(not(web))]
        let state = match self.thread {
            Some(_) if self.device_lost() => OutputState::Suspended,
            Some(_) => OutputState::Playing,
            None => OutputState::Closed,
        };
        #[cfg(web)]
        let state = self
            .web
            .as_ref()
            .map_or(OutputState::Closed, super::web::WebOutput::state);
        state
    }

    /// Asks the output to play. In a browser this resumes the page's
    /// `AudioContext`, which a browser allows once the user has interacted
    /// with the page. The engine already does so by itself on every click,
    /// key press or touch while the context is suspended (it listens on the
    /// page's window), so a game needs this only to resume at another
    /// moment, after the first gesture. It returns at once; the context
    /// starts a moment later ([`AudioEngine::output_state`] then says
    /// [`OutputState::Playing`]), and stays suspended if the browser
    /// refuses. Natively the stream already plays and this does nothing.
    /// Errors: [`EngineError::Device`] when the output is shut down, or Web
    /// Audio refuses the call outright.
    ///
    /// ```no_run
    /// use voicepool::{AudioEngine, EngineSettings, OutputState};
    /// let engine = AudioEngine::start(EngineSettings::default())?;
    /// // ... the player pauses the game, which suspends the page's audio
    /// // through `audio_context()`; on unpausing (after a gesture):
    /// if engine.output_state() == OutputState::Suspended {
    ///     engine.resume_output()?;
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resume_output(&self) -> Result<(), EngineError> {
        #[cfg(not(web))]
        let resumed = match self.thread {
            Some(_) => Ok(()),
            None => Err(EngineError::Device(
                "the engine's output is shut down".into(),
            )),
        };
        #[cfg(web)]
        let resumed = match &self.web {
            Some(web) => web.resume(),
            None => Err(EngineError::Device(
                "the engine's output is shut down".into(),
            )),
        };
        resumed
    }

    /// The output is not yet shut down (its thread or context is held).
    pub(in crate::output) fn has_output(&self) -> bool {
        #[cfg(not(web))]
        let held = self.thread.is_some();
        #[cfg(web)]
        let held = self.web.is_some();
        held
    }
}
