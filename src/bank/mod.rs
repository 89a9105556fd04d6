//! Sound banks: cues, parameters and snapshots described in a TOML file
//! (the format: `docs/guide/banks.md`), naming sounds by path, so that a
//! sound designer changes a game's sounds without touching its code.
//!
//! [`Controller::load_bank`] reads a bank from a file and its sounds
//! from theirs; [`BankSource`] is the same in two steps (the text parsed,
//! then built with sounds the caller loads), which the Bevy plugin's bank
//! asset uses. Every problem is reported at once, each with the file, the
//! line and column, and the field ([`BankError`]); a bank with a problem
//! makes nothing.
//!
//! Game side only: building a bank makes [`Cue`]s and calls
//! `create_param` and `create_snapshot`, as game code would.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::control::Controller;
use crate::cue::Cue;
use crate::error::SoundError;
use crate::handle::{BusHandle, ParamHandle, SnapshotHandle};
use crate::sound::Sound;

mod build;
mod format;
mod problems;

use format::FileSpec;
use problems::Problems;
pub use problems::{BankError, BankProblem};

/// A bank's file parsed, not yet built: the sounds it names
/// ([`BankSource::sound_paths`]) for the caller to load, then
/// [`BankSource::build`] on an engine.
///
/// ```
/// use voicepool::{BankSource, EngineSettings, OfflineEngine, PlayParams, Sound};
/// let text = r#"
///     [cues.step]
///     sounds = ["footstep.wav"]
///     pitch_range = [0.95, 1.05]
/// "#;
/// let source = BankSource::parse("samples/bank.toml", text)?;
/// assert_eq!(source.sound_paths(), [std::path::Path::new("samples/footstep.wav")]);
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let bank = source.build(&engine.controller(), |path| Sound::from_file(path), |_bus| None)?;
/// engine.play_cue(bank.cue("step").expect("a cue"), PlayParams::default())?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct BankSource {
    file: PathBuf,
    text: String,
    spec: FileSpec,
}

impl BankSource {
    /// Parses `text`, the contents of the bank file `file` (named in
    /// errors; the sounds' paths are relative to its folder). A syntax
    /// error, a value of the wrong type or an unknown key is a
    /// [`BankError`] naming its line and field.
    ///
    /// ```
    /// use voicepool::BankSource;
    /// let err = BankSource::parse("banks/ui.toml", "[cues.click]\nsounds = [\"click.wav\"]\npich_range = [1.0, 1.1]\n").unwrap_err();
    /// let problem = &err.problems()[0];
    /// assert_eq!((problem.line, problem.field.as_str()), (3, "cues.click.pich_range"));
    /// assert!(err.to_string().starts_with("banks/ui.toml:3:1: cues.click.pich_range: unknown field"));
    /// ```
    pub fn parse(file: impl Into<PathBuf>, text: &str) -> Result<BankSource, BankError> {
        let file = file.into();
        match toml::from_str::<FileSpec>(text) {
            Ok(spec) => Ok(BankSource {
                file,
                text: text.to_owned(),
                spec,
            }),
            Err(e) => {
                let mut problems = Problems::new(&file, text);
                let at = e.span().map_or(0, |s| s.start);
                let field = problems::field_at(text, at);
                problems.at(at, field, e.message().trim().to_owned());
                Err(problems
                    .into_error()
                    .unwrap_or_else(|| BankError::whole(&file, "unreadable")))
            }
        }
    }

    /// The file it was parsed as.
    ///
    /// ```
    /// # use voicepool::BankSource;
    /// assert_eq!(BankSource::parse("a/b.toml", "")?.file(), std::path::Path::new("a/b.toml"));
    /// # Ok::<(), voicepool::BankError>(())
    /// ```
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Every sound it names, each once, in the order written: each path
    /// as written, relative to the bank file's folder.
    ///
    /// ```
    /// # use voicepool::BankSource;
    /// let source = BankSource::parse("sfx/bank.toml", "[cues.a]\nsounds = [\"x.wav\", \"y.ogg\", \"x.wav\"]\n")?;
    /// assert_eq!(source.sound_paths(), [std::path::Path::new("sfx/x.wav"), std::path::Path::new("sfx/y.ogg")]);
    /// # Ok::<(), voicepool::BankError>(())
    /// ```
    pub fn sound_paths(&self) -> Vec<PathBuf> {
        let mut spans: Vec<(usize, PathBuf)> = Vec::new();
        for cue in self.spec.cues.values() {
            build::each_sound(cue, &mut |s| {
                spans.push((s.span().start, self.resolve(s.get_ref())))
            });
        }
        spans.sort_by_key(|(at, _)| *at);
        let mut out: Vec<PathBuf> = Vec::new();
        for (_, p) in spans {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// A sound's path as written in the bank, relative to its folder.
    fn resolve(&self, written: &str) -> PathBuf {
        match self.file.parent() {
            Some(dir) => dir.join(written),
            None => PathBuf::from(written),
        }
    }

    /// Builds the bank on `engine`: its sounds from `sounds` (given each
    /// path of [`BankSource::sound_paths`]), its buses by name from
    /// `buses` (`"master"` is the master bus unless `buses` names another).
    /// Parameters the engine has already (by name: a bank loaded again)
    /// are used as they are; the others are made at their first value.
    /// Every problem is reported, each at its line; a bank with one makes
    /// nothing (every value is checked before any parameter, cue or
    /// snapshot is made). Snapshots are made anew at each build.
    ///
    /// ```
    /// use voicepool::{BankSource, EngineSettings, OfflineEngine, Sound};
    /// let text = "[cues.hum]\nsounds = [\"hum.wav\", \"missing.wav\"]\n";
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.1; 480])?;
    /// let source = BankSource::parse("bank.toml", text)?;
    /// let err = source.build(&engine.controller(), |path| {
    ///     if path.ends_with("hum.wav") { Ok(hum.clone()) } else { Sound::from_file(path) }
    /// }, |_| None).unwrap_err();
    /// assert_eq!(err.problems()[0].field, "cues.hum.sounds[1]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(
        &self,
        engine: &Controller,
        mut sounds: impl FnMut(&Path) -> Result<Sound, SoundError>,
        buses: impl Fn(&str) -> Option<BusHandle>,
    ) -> Result<Bank, BankError> {
        build::build(self, engine, &mut sounds, &buses)
    }
}

/// A sound bank built on an engine: its cues, parameters and snapshots by
/// name. Made by [`Controller::load_bank`] (on every engine type) or
/// [`BankSource::build`].
///
/// ```
/// use std::time::Duration;
/// use voicepool::{EngineSettings, OfflineEngine, PlayParams};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let hall = engine.create_bus()?;
/// let bank = engine.load_bank("samples/bank.toml", &[("hall", hall)])?;
/// engine.play_cue(bank.cue("cast").expect("cast"), PlayParams::default())?;
/// let wind = bank.param("wind").expect("wind");
/// engine.set_param(wind, 0.8, Duration::from_millis(300))?;
/// engine.render(4_800);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Bank {
    file: PathBuf,
    cues: BTreeMap<String, Cue>,
    params: BTreeMap<String, ParamHandle>,
    snapshots: BTreeMap<String, SnapshotHandle>,
}

impl Bank {
    /// The cue named `name`, if the bank has one.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let hall = engine.create_bus()?;
    /// let bank = engine.load_bank("samples/bank.toml", &[("hall", hall)])?;
    /// assert!(bank.cue("footstep").is_some());
    /// assert!(bank.cue("no such cue").is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cue(&self, name: &str) -> Option<&Cue> {
        self.cues.get(name)
    }

    /// The parameter named `name`, if the bank declares one.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let hall = engine.create_bus()?;
    /// let bank = engine.load_bank("samples/bank.toml", &[("hall", hall)])?;
    /// assert_eq!(bank.param("wind"), engine.param_named("wind"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn param(&self, name: &str) -> Option<ParamHandle> {
        self.params.get(name).copied()
    }

    /// The snapshot named `name`, if the bank has one.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use voicepool::{EngineSettings, OfflineEngine};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let hall = engine.create_bus()?;
    /// let bank = engine.load_bank("samples/bank.toml", &[("hall", hall)])?;
    /// engine.start_snapshot(bank.snapshot("muffled").expect("muffled"), Duration::from_millis(500))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn snapshot(&self, name: &str) -> Option<SnapshotHandle> {
        self.snapshots.get(name).copied()
    }

    /// Its cues' names, sorted.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let hall = engine.create_bus()?;
    /// let bank = engine.load_bank("samples/bank.toml", &[("hall", hall)])?;
    /// assert!(bank.cue_names().any(|n| n == "cast"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cue_names(&self) -> impl Iterator<Item = &str> {
        self.cues.keys().map(String::as_str)
    }

    /// The file it was read from.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let hall = engine.create_bus()?;
    /// let bank = engine.load_bank("samples/bank.toml", &[("hall", hall)])?;
    /// assert_eq!(bank.file(), std::path::Path::new("samples/bank.toml"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn file(&self) -> &Path {
        &self.file
    }
}

impl Controller {
    /// Reads the sound bank at `path` and every sound it names (paths
    /// relative to the bank's folder), and builds it on this engine (see
    /// [`BankSource::build`]): its buses by name from `buses` (`"master"`
    /// is the master bus). Every problem is reported at once, each with
    /// the file, line and field ([`BankError`]).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hall = engine.create_bus()?;
    /// let bank = engine.load_bank("samples/bank.toml", &[("hall", hall)])?;
    /// engine.play_cue(bank.cue("footstep").expect("footstep"), PlayParams::default())?;
    /// let missing = engine.load_bank("samples/no_such_bank.toml", &[]).unwrap_err();
    /// assert!(missing.to_string().starts_with("samples/no_such_bank.toml: cannot read"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_bank(
        &self,
        path: impl AsRef<Path>,
        buses: &[(&str, BusHandle)],
    ) -> Result<Bank, BankError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| BankError::whole(path, &format!("cannot read: {e}")))?;
        let source = BankSource::parse(path, &text)?;
        source.build(
            self,
            |p| Sound::from_file(p),
            |name| buses.iter().find(|(n, _)| *n == name).map(|&(_, b)| b),
        )
    }
}
