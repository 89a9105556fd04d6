//! Snapshots: named mix states (bus volumes, effect parameters) a game
//! moves the whole mix into and out of: underwater, a pause menu, a
//! slow-motion moment. A [`Snapshot`] is built on the game side; the
//! engine blends its values in and out over a fade (volumes linearly in
//! dB, cutoffs in log frequency); where two set one value, the one started
//! last wins; stopping the last returns the value to what the game set.
//!
//! This file holds the public type and its values; the calls and the mix
//! state are in `control.rs`. Nothing here runs on the audio thread: a
//! snapshot sends the bus-volume and effect-parameter glides the game could
//! send itself.

use crate::bus::EffectParam;
use crate::handle::BusHandle;

pub(crate) mod control;

pub use crate::handle::SnapshotHandle;

/// A mix state: bus volumes and effect parameters, applied together by
/// `start_snapshot` and taken back by `stop_snapshot`.
///
/// ```
/// use std::time::Duration;
/// use voicepool::{BusSettings, Effect, EffectParam, EngineSettings, OfflineEngine, Snapshot};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let music = engine.create_bus()?;
/// let world = engine.create_bus_with(BusSettings {
///     effects: vec![Effect::LowPass { cutoff_hz: 20_000.0 }],
///     ..Default::default()
/// })?;
/// let underwater = engine.create_snapshot(
///     Snapshot::new()
///         .bus_volume(music, 0.5)
///         .effect_param(world, 0, EffectParam::CutoffHz(500.0)),
/// )?;
/// engine.start_snapshot(underwater, Duration::from_millis(500))?;
/// engine.stop_snapshot(underwater, Duration::from_millis(800))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub(crate) values: Vec<Setting>,
}

/// One value a snapshot sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Setting {
    Volume(BusHandle, f32),
    Effect(BusHandle, usize, EffectParam),
}

impl Snapshot {
    /// A snapshot that sets nothing yet.
    ///
    /// ```
    /// use voicepool::Snapshot;
    /// assert_eq!(Snapshot::new(), Snapshot::default());
    /// ```
    pub fn new() -> Snapshot {
        Snapshot::default()
    }

    /// Sets `bus`'s volume (the master bus too) to `volume`, checked and
    /// clamped as `set_bus_volume` does when the snapshot is made. A
    /// second value for the same bus replaces the first.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, Snapshot};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let paused = Snapshot::new().bus_volume(engine.master_bus(), 0.3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bus_volume(mut self, bus: BusHandle, volume: f32) -> Snapshot {
        self.values.push(Setting::Volume(bus, volume));
        self
    }

    /// Sets parameter `param` of effect `index` on `bus`, checked as
    /// `set_effect_param` does when the snapshot is made (the effect must
    /// take it). A second value for the same parameter replaces the
    /// first.
    ///
    /// ```
    /// # use voicepool::{BusSettings, Effect, EffectParam, EngineSettings, OfflineEngine, Snapshot};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let hall = engine.create_bus_with(BusSettings { effects: vec![Effect::Reverb { room: 0.5, damping: 0.5, wet: 0.2 }], ..Default::default() })?;
    /// let cave = Snapshot::new().effect_param(hall, 0, EffectParam::Wet(0.7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn effect_param(mut self, bus: BusHandle, index: usize, param: EffectParam) -> Snapshot {
        self.values.push(Setting::Effect(bus, index, param));
        self
    }
}
