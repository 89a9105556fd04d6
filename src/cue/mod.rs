//! Cues: what a game triggers instead of one sound file. A [`Cue`] picks
//! one of its variations per play ([`Pick`]), varies its pitch and level a
//! little, and may sound several layers at once, each with a delay of its
//! own. It is built on the game side (where allocating is fine) and played
//! with `play_cue` as cheaply as a sound; a cue play is one play with one
//! handle, whatever its layers (see `cue::control`).
//!
//! This file holds the plain public types and their checks; the picking
//! is in `pick.rs`, the game side of a layered play in `plays.rs`, the
//! call in `control.rs`.

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use crate::error::PlayError;
use crate::handle::{ParamHandle, MAX_LAYERS};
use crate::math::Libm;
use crate::param::{valid_map, Curve, Target};
use crate::protocol::modulation::{Mods, ValidMap};
use crate::sound::Sound;

mod check;
pub(crate) mod control;
pub(crate) mod pick;
pub(crate) mod plays;

use check::{same_engine, valid_db_range, valid_pitch_range, valid_weights, voice_mods};

/// The most voices one cue play may sound at once: the cue and all its
/// layers (nested layers counted).
pub const MAX_CUE_VOICES: usize = MAX_LAYERS;
/// The quietest a cue's [`Cue::volume_range_db`] reaches: lower ends are
/// clamped to it.
pub const MIN_CUE_DB: f32 = -100.0;
/// The longest a [`Cue::delay`] is: longer ones are clamped to it.
pub const MAX_CUE_DELAY: Duration = Duration::from_secs(60);
/// The loudest a cue's [`Cue::volume_range_db`] reaches: upper ends are
/// clamped to it (the play's volume times the cue's gain is then clamped
/// to [`crate::limits::MAX_VOLUME`], as any volume is).
pub const MAX_CUE_DB: f32 = 12.0;

/// How a cue chooses which of its variations a play sounds.
///
/// ```
/// use voicepool::{Cue, Pick, Sound};
/// let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
/// let step = Cue::new([take(0.1)?, take(0.2)?, take(0.3)?]).pick(Pick::Shuffle);
/// assert_eq!(step.get_pick(), Pick::Shuffle);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pick {
    /// At random, each play on its own, in proportion to the cue's
    /// [`Cue::weights`] (all equal if it has none). The same one may
    /// come twice in a row.
    Random,
    /// Every variation once, in a random order, before any repeats; a new
    /// order then begins, and never with the one that ended the last, so
    /// no variation plays twice in a row (with two or more). The footstep
    /// rule.
    #[default]
    Shuffle,
    /// In the order given, round and round.
    Sequence,
}

/// What a game triggers: one of several takes of a sound, varied a
/// little each time, with layers sounding alongside. Cheap to clone
/// (shared); a clone is the same cue (its shuffle goes on), while every
/// builder call makes a new one.
///
/// The random choices come from a generator seeded by
/// `EngineSettings::seed`: the same script renders bit-identically.
///
/// ```
/// use std::time::Duration;
/// use voicepool::{Cue, EngineSettings, OfflineEngine, Pick, PlayParams, Sound};
/// let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
/// let step = Cue::new([take(0.1)?, take(0.2)?, take(0.3)?, take(0.4)?])
///     .pick(Pick::Shuffle)
///     .pitch_range(0.95..=1.05)
///     .volume_range_db(-3.0..=0.0);
/// let body = Cue::new([take(0.5)?]);
/// let shot = body.layer(Cue::new([take(0.2)?]).delay(Duration::from_millis(30)));
///
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let h = engine.play_cue(&step, PlayParams::default())?;
/// let bang = engine.play_cue(&shot, PlayParams::default().volume(0.8))?; // two voices, one handle
/// engine.stop(bang)?; // stops both
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Cue {
    data: Arc<CueData>,
}

/// What a [`Cue`] holds.
#[derive(Clone)]
pub(crate) struct CueData {
    /// Which cue this is, for its picking state (new with every change).
    pub(crate) id: u64,
    pub(crate) variations: Vec<Sound>,
    pub(crate) pick: Pick,
    /// Running sums of the weights (`Pick::Random`); empty: all equal.
    pub(crate) cumulative: Vec<f64>,
    /// Pitch factors, lowest and highest, and their natural logarithms.
    pub(crate) pitch: (f32, f32),
    pub(crate) pitch_ln: (f64, f64),
    /// Gains in dB, lowest and highest.
    pub(crate) volume_db: (f32, f32),
    pub(crate) looping: bool,
    /// After the play's start (as a layer: after its parent's).
    pub(crate) delay: Duration,
    pub(crate) layers: Vec<Cue>,
    /// Voices a play sounds: 1 and its layers'.
    pub(crate) voices: usize,
    /// Its own parameter maps (they apply to its layers too).
    maps: Vec<ValidMap>,
    /// The engine its parameters (and those of its layers) are of.
    pub(crate) engine: Option<u32>,
    /// Each voice's maps, in the order a play sounds them (its own
    /// voice's, then each layer's, depth first): its cue's and those of
    /// the cues above it.
    pub(crate) voice_mods: Vec<Option<Arc<Mods>>>,
    /// The first bad value given, reported by `play_cue`.
    pub(crate) error: Option<PlayError>,
}

impl std::fmt::Debug for Cue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = &self.data;
        let names: Vec<&str> = d.variations.iter().map(Sound::name).collect();
        f.debug_struct("Cue")
            .field("variations", &names)
            .field("pick", &d.pick)
            .field("pitch", &d.pitch)
            .field("volume_db", &d.volume_db)
            .field("looping", &d.looping)
            .field("delay", &d.delay)
            .field("layers", &d.layers)
            .field("error", &d.error)
            .finish()
    }
}

fn next_cue_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Relaxed)
}

impl Cue {
    /// A cue playing one of `variations` per play (by [`Pick::Shuffle`]
    /// unless told). No variation is an error, reported when the cue is
    /// played (and by [`Cue::check`]).
    ///
    /// ```
    /// use voicepool::{Cue, PlayError, Sound};
    /// let hit = Cue::new([Sound::from_samples(1, 48_000, vec![0.5; 480])?]);
    /// assert!(hit.check().is_ok());
    /// let none = Cue::new(Vec::<Sound>::new());
    /// assert!(matches!(none.check(), Err(PlayError::Invalid { name: "variations", .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(variations: impl IntoIterator<Item = Sound>) -> Cue {
        let variations: Vec<Sound> = variations.into_iter().collect();
        let error = variations.is_empty().then_some(PlayError::Invalid {
            name: "variations",
            reason: "a cue needs at least one sound",
        });
        Cue {
            data: Arc::new(CueData {
                id: next_cue_id(),
                variations,
                pick: Pick::default(),
                cumulative: Vec::new(),
                pitch: (1.0, 1.0),
                pitch_ln: (0.0, 0.0),
                volume_db: (0.0, 0.0),
                looping: false,
                delay: Duration::ZERO,
                layers: Vec::new(),
                voices: 1,
                maps: Vec::new(),
                engine: None,
                voice_mods: vec![None],
                error,
            }),
        }
    }

    /// A changed copy: a new cue (its own picking state).
    fn with(mut self, change: impl FnOnce(&mut CueData)) -> Cue {
        let d = Arc::make_mut(&mut self.data);
        change(d);
        d.id = next_cue_id();
        match voice_mods(d) {
            Ok(mods) => d.voice_mods = mods,
            Err(e) => Cue::fail(d, e),
        }
        self
    }

    /// Records `e` unless an earlier error is there.
    fn fail(d: &mut CueData, e: PlayError) {
        d.error.get_or_insert(e);
    }

    /// How a play chooses its variation.
    ///
    /// ```
    /// # use voicepool::{Cue, Pick, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// let lines = Cue::new([take(0.1)?, take(0.2)?]).pick(Pick::Sequence);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pick(self, pick: Pick) -> Cue {
        self.with(|d| d.pick = pick)
    }

    /// How often each variation is chosen under [`Pick::Random`] (ignored
    /// by the other picks): one weight per variation, finite, 0 or more,
    /// not all 0. Anything else is an error naming `weights`, reported when
    /// the cue is played.
    ///
    /// ```
    /// # use voicepool::{Cue, Pick, PlayError, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// let cue = Cue::new([take(0.1)?, take(0.2)?]).pick(Pick::Random).weights([3.0, 1.0]);
    /// assert!(cue.check().is_ok());
    /// let short = Cue::new([take(0.1)?, take(0.2)?]).weights([1.0]);
    /// assert!(matches!(short.check(), Err(PlayError::Invalid { name: "weights", .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn weights(self, weights: impl IntoIterator<Item = f32>) -> Cue {
        let weights: Vec<f32> = weights.into_iter().collect();
        self.with(|d| match valid_weights(&weights, d.variations.len()) {
            Ok(cumulative) => d.cumulative = cumulative,
            Err(e) => Cue::fail(d, e),
        })
    }

    /// A pitch factor per play, uniform in cents between the two ends
    /// (`0.95..=1.05`: about a semitone either way), multiplying the play's
    /// own pitch. NaN, infinite, 0 or below is an error naming
    /// `pitch_range`, as is a start above the end; factors are clamped to
    /// [`crate::limits::MIN_PITCH`]`..=`[`crate::limits::MAX_PITCH`].
    ///
    /// ```
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// let step = Cue::new([take(0.1)?]).pitch_range(0.95..=1.05);
    /// assert_eq!(step.get_pitch_range(), 0.95..=1.05);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pitch_range(self, range: RangeInclusive<f32>) -> Cue {
        let (lo, hi) = range.into_inner();
        self.with(|d| match valid_pitch_range(lo, hi) {
            Ok(p) => {
                d.pitch = p;
                d.pitch_ln = (f64::from(p.0).lm_ln(), f64::from(p.1).lm_ln());
            }
            Err(e) => Cue::fail(d, e),
        })
    }

    /// A gain per play in dB, uniform between the two ends (`-3.0..=0.0`),
    /// multiplying the play's own volume. NaN or infinite is an error
    /// naming `volume_range_db`, as is a start above the end; the ends are
    /// clamped to [`MIN_CUE_DB`]`..=`[`MAX_CUE_DB`].
    ///
    /// ```
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// let step = Cue::new([take(0.1)?]).volume_range_db(-3.0..=0.0);
    /// assert_eq!(step.get_volume_range_db(), -3.0..=0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn volume_range_db(self, range: RangeInclusive<f32>) -> Cue {
        let (lo, hi) = range.into_inner();
        self.with(|d| match valid_db_range(lo, hi) {
            Ok(r) => d.volume_db = r,
            Err(e) => Cue::fail(d, e),
        })
    }

    /// Whether this cue's variations loop (a play loops if its cue or its
    /// `PlayParams` say so). A looping play goes on until stopped.
    ///
    /// ```
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 4_800]);
    /// let engine_hum = Cue::new([take(0.1)?]).looping(true);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn looping(self, looping: bool) -> Cue {
        self.with(|d| d.looping = looping)
    }

    /// Starts this cue `delay` after the play's start: used on a layer,
    /// the layer sounds that long after its parent (to the frame); on the
    /// cue played, the whole play waits. Clamped to [`MAX_CUE_DELAY`]. A
    /// voice waiting for its delay holds its place in the pool, as a start
    /// scheduled with `PlayParams::start_at` does.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// let echo = Cue::new([take(0.1)?]).delay(Duration::from_millis(120));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn delay(self, delay: Duration) -> Cue {
        self.with(|d| d.delay = delay.min(MAX_CUE_DELAY))
    }

    /// Adds a layer: another cue sounding with this one in every play
    /// (picking and varying on its own), from the play's start or after
    /// its own [`Cue::delay`]. A play may sound [`MAX_CUE_VOICES`] voices
    /// in all (layers of layers count); more is an error naming `layer`.
    /// A layer's own error is this cue's.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// let gunshot = Cue::new([take(0.6)?, take(0.5)?])           // the body
    ///     .layer(Cue::new([take(0.2)?]).delay(Duration::from_millis(40))) // the tail
    ///     .layer(Cue::new([take(0.3)?, take(0.3)?]));               // the mechanism
    /// assert_eq!(gunshot.voices(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layer(self, layer: Cue) -> Cue {
        self.with(|d| {
            if let Some(e) = layer.data.error {
                Cue::fail(d, e);
            }
            if let Err(e) = same_engine(&mut d.engine, layer.data.engine) {
                Cue::fail(d, e);
            }
            if d.voices + layer.data.voices > MAX_CUE_VOICES {
                Cue::fail(
                    d,
                    PlayError::Invalid {
                        name: "layer",
                        reason: "a cue play sounds at most MAX_CUE_VOICES (16) voices",
                    },
                );
                return;
            }
            d.voices += layer.data.voices;
            d.layers.push(layer);
        })
    }

    /// Lets parameter `param` drive `target` through `curve`, in every
    /// play of this cue and of its layers: the parameter's value (the
    /// engine's, `set_param`, or the play's own, `set_play_param`) is read
    /// through the curve, gliding as the value does. `VolumeDb` maps add
    /// up, `Pitch` maps multiply, and the lowest `LowPassHz` wins. A voice
    /// follows at most [`crate::limits::MAX_CUE_MAPS`] maps (its cue's and
    /// those above it); more is an error naming `map`, as is mixing
    /// parameters of two engines; a bad curve is an error naming `curve`.
    /// Each is reported when the cue is played (and by [`Cue::check`]).
    ///
    /// A play with maps takes a cell of the engine's table of positions
    /// even when it is not positioned (as a positioned play does).
    ///
    /// ```
    /// use voicepool::{Cue, Curve, EngineSettings, OfflineEngine, Sound, Target};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let speed = engine.create_param("speed", 0.0)?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let motor = Cue::new([hum]).looping(true)
    ///     .map(speed, Target::Pitch, Curve::linear([(0.0, 0.8), (100.0, 1.6)]))
    ///     .map(speed, Target::LowPassHz, Curve::linear([(0.0, 800.0), (100.0, 8_000.0)]));
    /// assert!(motor.check().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn map(self, param: ParamHandle, target: Target, curve: Curve) -> Cue {
        self.with(|d| {
            let bus = match target {
                Target::Send(bus) => Some(bus.engine()),
                _ => None,
            };
            let checked = same_engine(&mut d.engine, Some(param.engine()))
                .and_then(|()| same_engine(&mut d.engine, bus))
                .and_then(|()| valid_map(param, target, &curve));
            match checked {
                Ok(map) => d.maps.push(map),
                Err(e) => Cue::fail(d, e),
            }
        })
    }

    /// The first bad value this cue (or a layer) was given, if any: what
    /// `play_cue` would return.
    ///
    /// ```
    /// # use voicepool::{Cue, PlayError, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// let cue = Cue::new([take(0.1)?]).pitch_range(f32::NAN..=1.0);
    /// assert!(matches!(cue.check(), Err(PlayError::InvalidParameter { name: "pitch_range", .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(&self) -> Result<(), PlayError> {
        self.data.error.map_or(Ok(()), Err)
    }

    /// How many voices a play of this cue sounds: 1, and its layers'.
    ///
    /// ```
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// assert_eq!(Cue::new([take(0.1)?]).layer(Cue::new([take(0.2)?])).voices(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn voices(&self) -> usize {
        self.data.voices
    }

    /// Its variations, in the order given.
    ///
    /// ```
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// assert_eq!(Cue::new([take(0.1)?, take(0.2)?]).variations().len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn variations(&self) -> &[Sound] {
        &self.data.variations
    }

    /// How it picks.
    ///
    /// ```
    /// # use voicepool::{Cue, Pick, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// assert_eq!(Cue::new([take(0.1)?]).get_pick(), Pick::Shuffle);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_pick(&self) -> Pick {
        self.data.pick
    }

    /// Its pitch range, as clamped.
    ///
    /// ```
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// assert_eq!(Cue::new([take(0.1)?]).get_pitch_range(), 1.0..=1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_pitch_range(&self) -> RangeInclusive<f32> {
        self.data.pitch.0..=self.data.pitch.1
    }

    /// Its gain range in dB, as clamped.
    ///
    /// ```
    /// # use voicepool::{Cue, Sound};
    /// # let take = |x: f32| Sound::from_samples(1, 48_000, vec![x; 480]);
    /// assert_eq!(Cue::new([take(0.1)?]).volume_range_db(-200.0..=0.0).get_volume_range_db(), -100.0..=0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_volume_range_db(&self) -> RangeInclusive<f32> {
        self.data.volume_db.0..=self.data.volume_db.1
    }

    pub(crate) fn data(&self) -> &CueData {
        &self.data
    }

    pub(crate) fn arc(&self) -> &Arc<CueData> {
        &self.data
    }
}

#[cfg(test)]
mod tests;
