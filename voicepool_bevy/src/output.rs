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
/// [`AudioOutput::Offline`] only.
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
        paced: Option<f64>,
    },
}

impl Backend {
    pub(crate) fn start(
        settings: EngineSettings,
        output: AudioOutput,
    ) -> Result<Backend, EngineError> {
        let offline = |settings, output, paced| -> Result<Backend, EngineError> {
            let engine = Box::new(OfflineEngine::new(settings)?);
            Ok(Backend {
                controller: engine.controller(),
                rate: engine.sample_rate(),
                kind: Kind::Offline {
                    engine: SyncCell::new(engine),
                    output,
                    paced,
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
                    offline(settings, output, Some(0.0))
                }
            },
            AudioOutput::Offline(output) => offline(settings, output, None),
        }
    }

    /// Renders on the schedule into [`RenderedAudio`] (offline, not paced).
    pub(crate) fn renders_offline(&self) -> bool {
        matches!(self.kind, Kind::Offline { paced: None, .. })
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

    /// Seconds of audio one update renders offline, for emitters' velocity;
    /// `None` live (the app's clock tells).
    pub(crate) fn fixed_update_seconds(&self) -> Option<f32> {
        match &self.kind {
            Kind::Offline {
                output,
                paced: None,
                ..
            } => Some(output.frames_per_update as f32 / self.sample_rate() as f32),
            _ => None,
        }
    }

    /// Renders what this update owes: the fixed count offline, or the
    /// clock's `elapsed` seconds when paced.
    pub(crate) fn render(&mut self, elapsed: f64, audio: Option<&mut RenderedAudio>) {
        let Kind::Offline {
            engine,
            output,
            paced,
        } = &mut self.kind
        else {
            return;
        };
        let engine = engine.get();
        let rate = f64::from(engine.sample_rate());
        let frames = match paced {
            Some(owed) => {
                // At most a second at once (an app that stalled).
                let due = (*owed + elapsed * rate).min(rate);
                let whole = due.floor();
                *owed = due - whole;
                whole as usize
            }
            None => output.frames_per_update,
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
