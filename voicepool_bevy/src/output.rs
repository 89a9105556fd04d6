//! Where the mix goes: a sound device ([`AudioOutput::Live`]) or a buffer
//! rendered on the app's schedule ([`AudioOutput::Offline`]), and the
//! engine behind either.

use std::ops::Deref;
use std::path::Path;

use bevy_ecs::reflect::ReflectResource;
use bevy_ecs::resource::Resource;
use bevy_platform::cell::SyncCell;
use bevy_reflect::prelude::*;
use voicepool::{AudioEngine, Controller, EngineError, EngineSettings, Event, OfflineEngine};

/// Where [`crate::VoicepoolPlugin`] sends the mix.
///
/// ```
/// use voicepool_bevy::{AudioOutput, OfflineOutput};
/// let live = AudioOutput::Live; // the default
/// let test = AudioOutput::Offline(OfflineOutput { frames_per_update: 800, keep_samples: true });
/// assert_ne!(live, test);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AudioOutput {
    /// The default sound device, through voicepool's [`AudioEngine`]. When
    /// there is none, or it refuses the stream (a server, CI), the plugin
    /// logs the reason and mixes anyway, silently, paced by the app's real
    /// clock (`Time<Real>`, from Bevy's `TimePlugin`: without it nothing is
    /// rendered and sounds never end), so that events, stealing and
    /// virtual voices still work.
    #[default]
    Live,
    /// No device: every app update renders a fixed number of frames, after
    /// the plugin's other systems, into [`RenderedAudio`]. The same app
    /// makes the same samples every run: for tests and headless renders.
    Offline(OfflineOutput),
    /// No device, for a game that steps in `FixedUpdate`: every app update
    /// renders as much audio as the fixed clock (`Time<Fixed>`, from Bevy's
    /// `TimePlugin`) advanced since the last, so that sound keeps time
    /// with the game's steps however many ran in the update (64 Hz steps
    /// at 48 kHz: 750 frames each). With the virtual clock advanced by a
    /// fixed amount per update (`TimeUpdateStrategy::ManualDuration`), the
    /// same app makes the same samples every run.
    ///
    /// ```
    /// use voicepool_bevy::{AudioOutput, VoicepoolPlugin};
    /// let plugin = VoicepoolPlugin::default().output(AudioOutput::OfflineFixedStep { keep_samples: true });
    /// # let _ = plugin;
    /// ```
    OfflineFixedStep {
        /// As [`OfflineOutput::keep_samples`].
        keep_samples: bool,
    },
}

/// The settings of [`AudioOutput::Offline`].
///
/// ```
/// use voicepool_bevy::OfflineOutput;
/// // 60 updates a second at 48 kHz
/// let output = OfflineOutput { frames_per_update: 48_000 / 60, ..Default::default() };
/// assert!(output.keep_samples);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfflineOutput {
    /// Frames rendered per app update (default 800: 60 updates a second
    /// at 48 kHz).
    pub frames_per_update: usize,
    /// Keep every rendered sample in [`RenderedAudio`] (default true: for
    /// tests and renders of a few minutes; it grows by 384 KB per second
    /// at 48 kHz, so clear it or turn this off for long headless runs).
    /// Off, only the last update's frames are kept there.
    pub keep_samples: bool,
}

impl Default for OfflineOutput {
    fn default() -> Self {
        OfflineOutput {
            frames_per_update: 800,
            keep_samples: true,
        }
    }
}

/// What the offline output rendered, interleaved stereo at
/// [`RenderedAudio::sample_rate`]: every update's frames appended (or only
/// the last update's, see [`OfflineOutput::keep_samples`]). Present with
/// [`AudioOutput::Offline`] and [`AudioOutput::OfflineFixedStep`] (not
/// with a live output, nor its silent fallback).
///
/// ```
/// use voicepool_bevy::RenderedAudio;
/// fn loudest(audio: &RenderedAudio) -> f32 {
///     audio.samples.iter().fold(0.0, |peak, s| peak.max(s.abs()))
/// }
/// ```
#[derive(Resource, Debug, Default, Reflect)]
#[reflect(Resource, Debug, Default)]
pub struct RenderedAudio {
    /// Interleaved stereo samples.
    pub samples: Vec<f32>,
    /// Frames per second.
    pub sample_rate: u32,
}

impl RenderedAudio {
    /// Frames held (samples / 2).
    ///
    /// ```
    /// # use voicepool_bevy::RenderedAudio;
    /// let audio = RenderedAudio { samples: vec![0.0; 960], sample_rate: 48_000 };
    /// assert_eq!(audio.frames(), 480);
    /// ```
    pub fn frames(&self) -> usize {
        self.samples.len() / 2
    }

    /// Writes the samples held to a 32-bit float stereo WAV file. Errors
    /// name the file.
    ///
    /// ```no_run
    /// # use voicepool_bevy::RenderedAudio;
    /// # fn save(audio: &RenderedAudio) -> std::io::Result<()> {
    /// audio.write_wav("out/scene.wav")?;
    /// # Ok(()) }
    /// ```
    pub fn write_wav(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        let path = path.as_ref();
        let named = |e: hound::Error| {
            std::io::Error::other(format!("could not write `{}`: {e}", path.display()))
        };
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: self.sample_rate,
            bits_per_sample: 32,
            sample_format: hound::SampleFormat::Float,
        };
        let mut writer = hound::WavWriter::create(path, spec).map_err(named)?;
        for &s in &self.samples {
            writer.write_sample(s).map_err(named)?;
        }
        writer.finalize().map_err(named)
    }
}

/// The engine behind the plugin, whichever the output: its game side as a
/// [`Controller`] (shared by every system), and the engine itself, which
/// only the plugin's own systems touch, one at a time.
pub(crate) struct Backend {
    controller: Controller,
    rate: u32,
    kind: Kind,
}

enum Kind {
    Live(Box<AudioEngine>),
    /// Rendered on the schedule: a fixed count per update, or (`paced`)
    /// as many frames as the app's clock advanced, when a live device
    /// could not be opened. (The offline engine holds the mixer, which is
    /// `Send` but not `Sync`: the cell gives it to `&mut` only.)
    Offline {
        engine: SyncCell<Box<OfflineEngine>>,
        output: OfflineOutput,
        pace: Pace,
    },
}

/// What an offline backend's updates render.
#[derive(Clone, Copy, Debug)]
enum Pace {
    /// `frames_per_update` each update.
    Updates,
    /// As much as the real clock advanced (a live output with no device);
    /// the fraction of a frame owed.
    Real { owed: f64 },
    /// As much as the fixed clock advanced since `last` (its elapsed
    /// seconds then); the fraction of a frame owed.
    Fixed { owed: f64, last: f64 },
}

impl Pace {
    /// Frames owed after `seconds` more, keeping the fraction.
    fn due(owed: &mut f64, seconds: f64, rate: f64) -> usize {
        // At most a second at once (an app that stalled).
        let due = (*owed + seconds.max(0.0) * rate).min(rate);
        let whole = due.floor();
        *owed = due - whole;
        whole as usize
    }
}

impl Backend {
    pub(crate) fn start(
        settings: EngineSettings,
        output: AudioOutput,
    ) -> Result<Backend, EngineError> {
        let offline = |settings, output, pace| -> Result<Backend, EngineError> {
            let engine = Box::new(OfflineEngine::new(settings)?);
            Ok(Backend {
                controller: engine.controller(),
                rate: engine.sample_rate(),
                kind: Kind::Offline {
                    engine: SyncCell::new(engine),
                    output,
                    pace,
                },
            })
        };
        match output {
            AudioOutput::Live => match AudioEngine::start(settings.clone()) {
                Ok(engine) => Ok(Backend {
                    controller: engine.controller(),
                    rate: engine.sample_rate(),
                    kind: Kind::Live(Box::new(engine)),
                }),
                Err(EngineError::InvalidSettings(why)) => Err(EngineError::InvalidSettings(why)),
                Err(e) => {
                    // No device, or one that refused the stream: the game
                    // goes on, mixing silently.
                    log::warn!("voicepool: no sound output, mixing silently: {e}");
                    let output = OfflineOutput {
                        frames_per_update: 0,
                        keep_samples: false,
                    };
                    offline(settings, output, Pace::Real { owed: 0.0 })
                }
            },
            AudioOutput::Offline(output) => offline(settings, output, Pace::Updates),
            AudioOutput::OfflineFixedStep { keep_samples } => {
                let output = OfflineOutput {
                    frames_per_update: 0,
                    keep_samples,
                };
                offline(
                    settings,
                    output,
                    Pace::Fixed {
                        owed: 0.0,
                        last: 0.0,
                    },
                )
            }
        }
    }

    /// Renders on the schedule into [`RenderedAudio`] (offline, not paced
    /// by the real clock).
    pub(crate) fn renders_offline(&self) -> bool {
        matches!(
            self.kind,
            Kind::Offline {
                pace: Pace::Updates | Pace::Fixed { .. },
                ..
            }
        )
    }

    pub(crate) fn drain_events(&mut self) -> Vec<Event> {
        match &mut self.kind {
            Kind::Live(engine) => engine.drain_events().collect(),
            Kind::Offline { engine, .. } => engine.get().drain_events().collect(),
        }
    }

    pub(crate) fn sample_rate(&self) -> u32 {
        self.rate
    }

    /// The live engine, where there is one.
    pub(crate) fn live(&self) -> Option<&AudioEngine> {
        match &self.kind {
            Kind::Live(engine) => Some(engine),
            Kind::Offline { .. } => None,
        }
    }

    /// Seconds of audio this update renders offline, for emitters'
    /// velocity (`fixed_elapsed`: the fixed clock's elapsed seconds now);
    /// `None` where the real clock tells.
    pub(crate) fn update_seconds(&self, fixed_elapsed: Option<f64>) -> Option<f32> {
        let Kind::Offline { output, pace, .. } = &self.kind else {
            return None;
        };
        match *pace {
            Pace::Updates => Some(output.frames_per_update as f32 / self.rate as f32),
            Pace::Fixed { last, .. } => {
                Some((fixed_elapsed.unwrap_or(last) - last).max(0.0) as f32)
            }
            Pace::Real { .. } => None,
        }
    }

    /// Renders what this update owes: the fixed count, the real clock's
    /// `real_elapsed` seconds (paced), or what the fixed clock advanced to
    /// `fixed_elapsed` (its elapsed seconds) since the last update.
    pub(crate) fn render(
        &mut self,
        real_elapsed: f64,
        fixed_elapsed: Option<f64>,
        audio: Option<&mut RenderedAudio>,
    ) {
        let Kind::Offline {
            engine,
            output,
            pace,
        } = &mut self.kind
        else {
            return;
        };
        let engine = engine.get();
        let rate = f64::from(engine.sample_rate());
        let frames = match pace {
            Pace::Updates => output.frames_per_update,
            Pace::Real { owed } => Pace::due(owed, real_elapsed, rate),
            Pace::Fixed { owed, last } => {
                let now = fixed_elapsed.unwrap_or(*last);
                let seconds = now - *last;
                *last = now;
                Pace::due(owed, seconds, rate)
            }
        };
        let block = engine.render(frames);
        if let Some(audio) = audio {
            if !output.keep_samples {
                audio.samples.clear();
            }
            audio.samples.extend_from_slice(block);
        }
    }
}

impl Deref for Backend {
    type Target = Controller;
    fn deref(&self) -> &Controller {
        &self.controller
    }
}
