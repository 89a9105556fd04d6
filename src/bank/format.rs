//! A sound bank's file as written: TOML read with serde into these types,
//! the values a bank builds from kept with where they are in the text
//! (`Spanned`), so that a problem is reported at its line. The format is
//! documented in `docs/guide/banks.md`; unknown keys are errors (a typo
//! is not silently ignored).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSpec {
    /// Parameters: name = first value.
    #[serde(default)]
    pub(super) params: BTreeMap<String, Spanned<f32>>,
    #[serde(default)]
    pub(super) cues: BTreeMap<String, CueSpec>,
    #[serde(default)]
    pub(super) snapshots: BTreeMap<String, SnapshotSpec>,
}

/// A cue (or a layer of one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CueSpec {
    /// Paths of its variations, relative to the bank's file.
    pub(super) sounds: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub(super) pick: Option<Spanned<PickSpec>>,
    #[serde(default)]
    pub(super) weights: Option<Spanned<Vec<f32>>>,
    /// [low, high] (checked to be two values).
    #[serde(default)]
    pub(super) pitch_range: Option<Spanned<Vec<f32>>>,
    #[serde(default)]
    pub(super) volume_range_db: Option<Spanned<Vec<f32>>>,
    #[serde(default)]
    pub(super) looping: bool,
    /// Its delay after the play's start, in milliseconds (a layer's).
    #[serde(default)]
    pub(super) delay_ms: Option<Spanned<f64>>,
    #[serde(default)]
    pub(super) layers: Vec<CueSpec>,
    #[serde(default)]
    pub(super) maps: Vec<MapSpec>,
}

/// How a cue picks.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum PickSpec {
    Shuffle,
    Random,
    Sequence,
}

/// What a map drives.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum TargetSpec {
    VolumeDb,
    Pitch,
    LowPassHz,
    /// The send to the map's `bus`.
    Send,
}

/// A parameter mapped through a curve.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MapSpec {
    pub(super) param: Spanned<String>,
    pub(super) target: Spanned<TargetSpec>,
    /// The bus of a `send` map.
    #[serde(default)]
    pub(super) bus: Option<Spanned<String>>,
    /// [x, y] points (checked to be two values each).
    pub(super) curve: Spanned<Vec<Vec<f32>>>,
}

/// A snapshot.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SnapshotSpec {
    /// Bus name = volume.
    #[serde(default)]
    pub(super) bus_volumes: BTreeMap<String, Spanned<f32>>,
    #[serde(default)]
    pub(super) effect_params: Vec<EffectSpec>,
}

/// An effect parameter a snapshot sets.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EffectSpec {
    pub(super) bus: Spanned<String>,
    /// The effect's index in the bus's chain.
    pub(super) effect: Spanned<usize>,
    pub(super) param: Spanned<EffectParamSpec>,
    pub(super) value: Spanned<f32>,
}

/// Which effect parameter.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum EffectParamSpec {
    CutoffHz,
    Wet,
    Room,
    Damping,
}
