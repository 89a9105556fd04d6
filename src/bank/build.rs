//! A parsed bank built on an engine: every name resolved and every sound
//! loaded first (each problem noted at its line), then the parameters
//! made or found, the cues built field by field (a field the cue refuses
//! is a problem at that field), and the snapshots made, only if nothing
//! before went wrong.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;

use super::format::{CueSpec, EffectParamSpec, MapSpec, PickSpec, SnapshotSpec, TargetSpec};
use super::problems::Problems;
use super::{Bank, BankError, BankSource};
use crate::bus::EffectParam;
use crate::control::Controller;
use crate::cue::{Cue, Pick, MAX_CUE_DELAY};
use crate::error::SoundError;
use crate::handle::{BusHandle, ParamHandle};
use crate::param::{Curve, Target};
use crate::snapshot::Snapshot;
use crate::sound::Sound;

/// Calls `f` with every sound path `cue` and its layers name.
pub(super) fn each_sound<'a>(cue: &'a CueSpec, f: &mut impl FnMut(&'a Spanned<String>)) {
    cue.sounds.get_ref().iter().for_each(&mut *f);
    for layer in &cue.layers {
        each_sound(layer, f);
    }
}

/// What building needs at hand.
struct Builder<'a> {
    source: &'a BankSource,
    problems: Problems<'a>,
    sounds: BTreeMap<PathBuf, Sound>,
    /// The bank's parameters, once made or found.
    params: BTreeMap<String, ParamHandle>,
    /// Checking only: a parameter not made yet maps as a stand-in handle
    /// of this engine (the cue is checked, not kept).
    checking: bool,
    buses: &'a dyn Fn(&str) -> Option<BusHandle>,
    master: BusHandle,
}

pub(super) fn build(
    source: &BankSource,
    engine: &Controller,
    load: &mut dyn FnMut(&Path) -> Result<Sound, SoundError>,
    buses: &dyn Fn(&str) -> Option<BusHandle>,
) -> Result<Bank, BankError> {
    let mut b = Builder {
        source,
        problems: Problems::new(&source.file, &source.text),
        sounds: BTreeMap::new(),
        params: BTreeMap::new(),
        checking: true,
        buses,
        master: engine.master_bus(),
    };
    let spec = &source.spec;
    // Everything checked first, every problem noted; nothing made.
    for (name, cue) in &spec.cues {
        b.load_sounds(&format!("cues.{name}"), cue, load);
    }
    for (name, cue) in &spec.cues {
        b.check_names(&format!("cues.{name}"), cue, engine);
    }
    b.check_param_room(engine);
    for (name, cue) in &spec.cues {
        b.cue(&format!("cues.{name}"), cue, engine);
    }
    let mut snapshots = Vec::new();
    for (name, snap) in &spec.snapshots {
        if let Some(made) = b.snapshot(name, snap, engine) {
            snapshots.push((name, made));
        }
    }
    if !b.problems.is_empty() {
        return Err(b.problems.into_error().expect("problems"));
    }
    // Then made: parameters found by name or made at their first value,
    // cues, snapshots.
    b.checking = false;
    for (name, value) in &spec.params {
        let made = match engine.param_named(name) {
            Some(p) => Ok(p),
            None => engine.create_param(name, *value.get_ref()),
        };
        match made {
            Ok(p) => {
                b.params.insert(name.clone(), p);
            }
            Err(e) => b
                .problems
                .at(value.span().start, format!("params.{name}"), e.to_string()),
        }
    }
    let mut cues = BTreeMap::new();
    for (name, cue) in &spec.cues {
        if let Some(c) = b.cue(&format!("cues.{name}"), cue, engine) {
            cues.insert(name.clone(), c);
        }
    }
    let mut made = BTreeMap::new();
    if b.problems.is_empty() {
        for (name, snap) in snapshots {
            match engine.create_snapshot(snap) {
                Ok(h) => {
                    made.insert(name.clone(), h);
                }
                Err(e) => b.problems.at(0, format!("snapshots.{name}"), e.to_string()),
            }
        }
    }
    if let Some(e) = b.problems.into_error() {
        return Err(e);
    }
    let params = spec
        .params
        .keys()
        .filter_map(|n| Some((n.clone(), b.params.get(n).copied()?)))
        .collect();
    Ok(Bank {
        file: source.file.clone(),
        cues,
        params,
        snapshots: made,
    })
}

impl Builder<'_> {
    /// Whether the engine has room for the parameters the bank would
    /// make: a problem at the first one too many (in the file's order).
    fn check_param_room(&mut self, engine: &Controller) {
        let mut new: Vec<(&String, usize)> = (self.source.spec.params.iter())
            .filter(|(n, _)| engine.param_named(n).is_none())
            .map(|(n, v)| (n, v.span().start))
            .collect();
        new.sort_by_key(|&(_, at)| at);
        let room = crate::param::MAX_PARAMS.saturating_sub(engine.param_count());
        if let Some(&(name, at)) = new.get(room) {
            self.problems.at(
                at,
                format!("params.{name}"),
                format!(
                    "more parameters than an engine holds ({})",
                    crate::param::MAX_PARAMS
                ),
            );
        }
    }

    /// A `[low, high]` value: its place and two values, none if not
    /// given, or an error (noted) if it is not two values.
    fn pair(
        &mut self,
        value: Option<&Spanned<Vec<f32>>>,
        field: &str,
    ) -> Result<Option<(usize, f32, f32)>, ()> {
        let Some(v) = value else {
            return Ok(None);
        };
        match v.get_ref()[..] {
            [lo, hi] => Ok(Some((v.span().start, lo, hi))),
            _ => {
                let why = "two values: [low, high]".to_owned();
                self.problems.at(v.span().start, field.to_owned(), why);
                Err(())
            }
        }
    }

    fn load_sounds(
        &mut self,
        field: &str,
        cue: &CueSpec,
        load: &mut dyn FnMut(&Path) -> Result<Sound, SoundError>,
    ) {
        if cue.sounds.get_ref().is_empty() {
            self.problems.at(
                cue.sounds.span().start,
                format!("{field}.sounds"),
                "a cue needs at least one sound".to_owned(),
            );
        }
        for (k, s) in cue.sounds.get_ref().iter().enumerate() {
            let path = self.source.resolve(s.get_ref());
            if self.sounds.contains_key(&path) {
                continue;
            }
            match load(&path) {
                Ok(sound) => {
                    self.sounds.insert(path, sound);
                }
                Err(e) => self.problems.at(
                    s.span().start,
                    format!("{field}.sounds[{k}]"),
                    e.to_string(),
                ),
            }
        }
        for (k, layer) in cue.layers.iter().enumerate() {
            self.load_sounds(&format!("{field}.layers[{k}]"), layer, load);
        }
    }

    fn check_names(&mut self, field: &str, cue: &CueSpec, engine: &Controller) {
        for (k, m) in cue.maps.iter().enumerate() {
            let field = format!("{field}.maps[{k}]");
            let name = m.param.get_ref();
            if !self.source.spec.params.contains_key(name) && engine.param_named(name).is_none() {
                self.problems.at(
                    m.param.span().start,
                    format!("{field}.param"),
                    format!("no parameter named \"{name}\" (declare it under [params])"),
                );
            }
            match (m.target.get_ref(), &m.bus) {
                (TargetSpec::Send, None) => self.problems.at(
                    m.target.span().start,
                    format!("{field}.bus"),
                    "a send map names its bus".to_owned(),
                ),
                (TargetSpec::Send, Some(bus)) => {
                    self.bus(bus, &format!("{field}.bus"));
                }
                (_, Some(bus)) => self.problems.at(
                    bus.span().start,
                    format!("{field}.bus"),
                    "only a send map names a bus".to_owned(),
                ),
                (_, None) => {}
            }
        }
        for (k, layer) in cue.layers.iter().enumerate() {
            self.check_names(&format!("{field}.layers[{k}]"), layer, engine);
        }
    }

    /// The bus the game gave the bank as `name` (`"master"`: the master
    /// bus, unless the game named another so).
    fn find_bus(&self, name: &str) -> Option<BusHandle> {
        (self.buses)(name).or((name == "master").then_some(self.master))
    }

    /// Bus `name`, or a problem at byte `at` naming `field`.
    fn bus_at(&mut self, name: &str, at: usize, field: String) -> Option<BusHandle> {
        let found = self.find_bus(name);
        if found.is_none() {
            let why = format!("no bus named \"{name}\" was given to the bank");
            self.problems.at(at, field, why);
        }
        found
    }

    /// Bus `name`, or a problem at it.
    fn bus(&mut self, name: &Spanned<String>, field: &str) -> Option<BusHandle> {
        self.bus_at(name.get_ref(), name.span().start, field.to_owned())
    }

    /// Cue `spec` built, each field checked as it is applied.
    fn cue(&mut self, field: &str, spec: &CueSpec, engine: &Controller) -> Option<Cue> {
        let paths: Vec<PathBuf> = (spec.sounds.get_ref().iter())
            .map(|s| self.source.resolve(s.get_ref()))
            .collect();
        if paths.is_empty() || paths.iter().any(|p| !self.sounds.contains_key(p)) {
            return None; // (a problem noted already, at the sounds)
        }
        let takes: Vec<Sound> = paths
            .iter()
            .filter_map(|p| self.sounds.get(p).cloned())
            .collect();
        let mut cue = Cue::new(takes);
        let mut ok = true;
        let pitch = self.pair(spec.pitch_range.as_ref(), &format!("{field}.pitch_range"));
        let volume = self.pair(
            spec.volume_range_db.as_ref(),
            &format!("{field}.volume_range_db"),
        );
        ok &= pitch.is_ok() && volume.is_ok();
        // Weights are for a random pick: with none named, they imply it.
        let pick = match (&spec.pick, &spec.weights) {
            (Some(p), Some(w)) if !matches!(p.get_ref(), PickSpec::Random) => {
                let why = "weights are for pick = \"random\" (or no pick: weights imply it)";
                self.problems
                    .at(w.span().start, format!("{field}.weights"), why.to_owned());
                ok = false;
                None
            }
            (Some(p), _) => Some((p.span().start, *p.get_ref())),
            (None, Some(w)) => Some((w.span().start, PickSpec::Random)),
            (None, None) => None,
        };
        let mut step = |cue: &mut Cue, at: usize, name: &str, f: &dyn Fn(Cue) -> Cue| {
            let next = f(cue.clone());
            match next.check() {
                Ok(()) => *cue = next,
                Err(e) => {
                    self.problems
                        .at(at, format!("{field}.{name}"), e.to_string());
                    ok = false;
                }
            }
        };
        if let Some((at, p)) = pick {
            let pick = match p {
                PickSpec::Shuffle => Pick::Shuffle,
                PickSpec::Random => Pick::Random,
                PickSpec::Sequence => Pick::Sequence,
            };
            step(&mut cue, at, "pick", &|c| c.pick(pick));
        }
        if let Some(w) = &spec.weights {
            step(&mut cue, w.span().start, "weights", &|c| {
                c.weights(w.get_ref().iter().copied())
            });
        }
        if let Ok(Some((at, lo, hi))) = pitch {
            step(&mut cue, at, "pitch_range", &|c| c.pitch_range(lo..=hi));
        }
        if let Ok(Some((at, lo, hi))) = volume {
            step(&mut cue, at, "volume_range_db", &|c| {
                c.volume_range_db(lo..=hi)
            });
        }
        if spec.looping {
            cue = cue.looping(true);
        }
        if let Some(d) = &spec.delay_ms {
            let ms = *d.get_ref();
            if ms.is_finite() && (0.0..=MAX_CUE_DELAY.as_secs_f64() * 1e3).contains(&ms) {
                let delay = Duration::from_secs_f64(ms / 1e3);
                step(&mut cue, d.span().start, "delay_ms", &|c| c.delay(delay));
            } else {
                self.problems.at(
                    d.span().start,
                    format!("{field}.delay_ms"),
                    format!("a delay from 0 to {} ms", MAX_CUE_DELAY.as_millis()),
                );
                ok = false;
            }
        }
        for (k, m) in spec.maps.iter().enumerate() {
            let Some((param, target)) = self.map_ends(m, engine) else {
                ok = false;
                continue;
            };
            let at = m.curve.span().start;
            if m.curve.get_ref().iter().any(|p| p.len() != 2) {
                let why = "each point of a curve is two values: [x, y]".to_owned();
                self.problems
                    .at(at, format!("{field}.maps[{k}].curve"), why);
                ok = false;
                continue;
            }
            let curve = Curve::linear(m.curve.get_ref().iter().map(|p| (p[0], p[1])));
            let mut failed = None;
            let next = cue.clone().map(param, target, curve);
            if let Err(e) = next.check() {
                failed = Some(e);
            } else {
                cue = next;
            }
            if let Some(e) = failed {
                self.problems
                    .at(at, format!("{field}.maps[{k}].curve"), e.to_string());
                ok = false;
            }
        }
        for (k, layer) in spec.layers.iter().enumerate() {
            let name = format!("{field}.layers[{k}]");
            match self.cue(&name, layer, engine) {
                Some(l) => {
                    let next = cue.clone().layer(l);
                    match next.check() {
                        Ok(()) => cue = next,
                        Err(e) => {
                            let at = layer.sounds.span().start;
                            self.problems.at(at, name, e.to_string());
                            ok = false;
                        }
                    }
                }
                None => ok = false,
            }
        }
        ok.then_some(cue)
    }

    /// Map `m`'s parameter and target (names resolved already).
    fn map_ends(&mut self, m: &MapSpec, engine: &Controller) -> Option<(ParamHandle, Target)> {
        let name = m.param.get_ref();
        let param = self
            .params
            .get(name)
            .copied()
            .or_else(|| engine.param_named(name))
            .or_else(|| {
                // (Declared under [params], not made yet: checking only.)
                let declared = self.source.spec.params.contains_key(name);
                (self.checking && declared).then(|| ParamHandle::new(engine.shared.engine, 0))
            })?;
        let target = match m.target.get_ref() {
            TargetSpec::VolumeDb => Target::VolumeDb,
            TargetSpec::Pitch => Target::Pitch,
            TargetSpec::LowPassHz => Target::LowPassHz,
            // (An unknown bus was noted by `check_names`.)
            TargetSpec::Send => Target::Send(self.find_bus(m.bus.as_ref()?.get_ref())?),
        };
        Some((param, target))
    }

    /// Snapshot `spec`, each value checked for `engine` as it is added
    /// (its bus named, its value one the bus takes), or a problem at each
    /// value that is not.
    fn snapshot(
        &mut self,
        name: &str,
        spec: &SnapshotSpec,
        engine: &Controller,
    ) -> Option<Snapshot> {
        let mut snap = Snapshot::new();
        let mut ok = true;
        for (bus, volume) in &spec.bus_volumes {
            let field = format!("snapshots.{name}.bus_volumes.{bus}");
            let at = volume.span().start;
            let Some(b) = self.bus_at(bus, at, field.clone()) else {
                ok = false;
                continue;
            };
            let one = Snapshot::new().bus_volume(b, *volume.get_ref());
            match engine.snapshot_values(&one) {
                Ok(_) => snap = snap.bus_volume(b, *volume.get_ref()),
                Err(e) => {
                    self.problems.at(at, field, e.to_string());
                    ok = false;
                }
            }
        }
        for (k, e) in spec.effect_params.iter().enumerate() {
            let field = format!("snapshots.{name}.effect_params[{k}]");
            let Some(bus) = self.bus(&e.bus, &format!("{field}.bus")) else {
                ok = false;
                continue;
            };
            let v = *e.value.get_ref();
            let param = match e.param.get_ref() {
                EffectParamSpec::CutoffHz => EffectParam::CutoffHz(v),
                EffectParamSpec::Wet => EffectParam::Wet(v),
                EffectParamSpec::Room => EffectParam::Room(v),
                EffectParamSpec::Damping => EffectParam::Damping(v),
            };
            let index = *e.effect.get_ref();
            let one = Snapshot::new().effect_param(bus, index, param);
            match engine.snapshot_values(&one) {
                Ok(_) => snap = snap.effect_param(bus, index, param),
                Err(err) => {
                    self.problems
                        .at(e.param.span().start, field, err.to_string());
                    ok = false;
                }
            }
        }
        ok.then_some(snap)
    }
}
