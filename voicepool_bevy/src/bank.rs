//! Sound banks as Bevy assets: [`BankAsset`] (a `.bank.toml` file, in
//! voicepool's bank format, and the sounds it names) and its loader, and
//! [`SoundBanks`], each loaded bank built on the engine: its cues played
//! by name ([`crate::SoundPlayer::cue`]), its parameters and snapshots.
//!
//! A bank's sounds are read by the asset server, relative to the bank's
//! own path, and decoded whole. With Bevy's `file_watcher` feature (this
//! crate's `hot_reload` feature turns it on), a changed bank file, or a
//! changed sound it names, is loaded and built again while the game runs:
//! plays already sounding go on as they were, new plays use the new
//! version, and parameters keep their handles and values (they are found
//! by name). A bank that fails to build again leaves the last good
//! version in use, and its problems are logged and kept
//! ([`SoundBanks::error`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetEvent, AssetId, AssetLoader, AssetPath, Assets, LoadContext};
use bevy_ecs::prelude::*;
use bevy_reflect::TypePath;
use voicepool::{Bank, BankError, BankSource, Sound, SoundError};

use crate::control::VoicepoolEngine;

/// A sound bank file (`*.bank.toml`, voicepool's bank format: see
/// voicepool's guide, "Sound banks") and the sounds it names, loaded.
/// Built on the engine by the plugin ([`SoundBanks`]).
///
/// ```no_run
/// # use bevy_asset::{AssetServer, Handle};
/// # use bevy_ecs::prelude::*;
/// use voicepool_bevy::{BankAsset, SoundPlayer};
/// fn footstep(mut commands: Commands, assets: Res<AssetServer>) {
///     let bank: Handle<BankAsset> = assets.load("sfx/world.bank.toml");
///     commands.spawn(SoundPlayer::cue(bank, "footstep"));
/// }
/// ```
#[derive(Asset, TypePath, Debug)]
pub struct BankAsset {
    source: BankSource,
    /// Each sound's path (as [`BankSource::sound_paths`] gives it), and
    /// the sound or why it did not load.
    sounds: HashMap<PathBuf, Result<Sound, String>>,
}

impl BankAsset {
    /// The bank's file, parsed.
    ///
    /// ```
    /// # use voicepool_bevy::BankAsset;
    /// fn names_a_sound(bank: &BankAsset) -> bool { !bank.source().sound_paths().is_empty() }
    /// ```
    pub fn source(&self) -> &BankSource {
        &self.source
    }

    /// Builds it on `engine`, its buses by the engine's labels.
    fn build(&self, engine: &VoicepoolEngine) -> Result<Bank, BankError> {
        let sounds = |path: &Path| match self.sounds.get(path) {
            Some(Ok(sound)) => Ok(sound.clone()),
            Some(Err(why)) => Err(SoundError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::other(why.clone()),
            }),
            None => Err(SoundError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            }),
        };
        self.source.build(engine, sounds, |label| engine.bus(label))
    }
}

/// Loads [`BankAsset`]s from `*.bank.toml` files.
#[derive(Default, TypePath)]
pub struct BankLoader;

/// A bank file that could not be read or parsed: the file, the line and
/// the field (voicepool's [`BankError`] text), one problem a line.
#[derive(Debug)]
pub struct BankLoadError(pub String);

impl std::fmt::Display for BankLoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BankLoadError {}

impl AssetLoader for BankLoader {
    type Asset = BankAsset;
    type Settings = ();
    type Error = BankLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<BankAsset, BankLoadError> {
        let file = load_context.path().path().to_path_buf();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| BankLoadError(format!("{}: cannot read: {e}", file.display())))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| BankLoadError(format!("{}: not UTF-8 text: {e}", file.display())))?;
        let source = BankSource::parse(&file, &text).map_err(|e| BankLoadError(e.to_string()))?;
        let mut sounds = HashMap::new();
        for path in source.sound_paths() {
            // (Read through the asset server: a changed sound reloads the
            // bank too.)
            let read = load_context
                .read_asset_bytes(AssetPath::from_path_buf(path.clone()))
                .await;
            let sound = match read {
                Ok(bytes) => Sound::from_bytes(&bytes).map_err(|e| e.for_file(&path).to_string()),
                Err(e) => Err(format!("{}: cannot read: {e}", path.display())),
            };
            sounds.insert(path, sound);
        }
        Ok(BankAsset { source, sounds })
    }

    fn extensions(&self) -> &[&str] {
        &["bank.toml"]
    }
}

/// Every loaded [`BankAsset`] built on the engine: what a game plays cues
/// from, sets parameters and starts snapshots with.
///
/// ```
/// # use bevy_asset::Handle;
/// # use bevy_ecs::prelude::*;
/// use std::time::Duration;
/// use voicepool_bevy::{BankAsset, SoundBanks, Voicepool};
///
/// #[derive(Resource)]
/// struct WorldBank(Handle<BankAsset>);
///
/// fn go_underwater(banks: Res<SoundBanks>, bank: Res<WorldBank>, audio: Voicepool) {
///     let Some(snapshot) = banks.get(&bank.0).and_then(|b| b.snapshot("underwater")) else { return };
///     let _ = audio.controller().start_snapshot(snapshot, Duration::from_millis(500));
/// }
/// ```
#[derive(Resource, Default)]
pub struct SoundBanks {
    built: HashMap<AssetId<BankAsset>, Built>,
}

struct Built {
    bank: Option<Bank>,
    error: Option<BankError>,
    builds: u32,
}

impl SoundBanks {
    /// The bank built from this asset (its last good version), once it
    /// has loaded and built.
    ///
    /// ```
    /// # use voicepool_bevy::{BankAsset, SoundBanks};
    /// let banks = SoundBanks::default();
    /// assert!(banks.get(bevy_asset::AssetId::<BankAsset>::default()).is_none());
    /// ```
    pub fn get(&self, id: impl Into<AssetId<BankAsset>>) -> Option<&Bank> {
        self.built.get(&id.into())?.bank.as_ref()
    }

    /// Why its last build failed, if it did (every problem, each with the
    /// file, line and field).
    ///
    /// ```
    /// # use voicepool_bevy::{BankAsset, SoundBanks};
    /// let banks = SoundBanks::default();
    /// assert!(banks.error(bevy_asset::AssetId::<BankAsset>::default()).is_none());
    /// ```
    pub fn error(&self, id: impl Into<AssetId<BankAsset>>) -> Option<&BankError> {
        self.built.get(&id.into())?.error.as_ref()
    }

    /// How many times it has been built (each load and reload), good or
    /// not: 0 before it has loaded.
    ///
    /// ```
    /// # use voicepool_bevy::{BankAsset, SoundBanks};
    /// assert_eq!(SoundBanks::default().builds(bevy_asset::AssetId::<BankAsset>::default()), 0);
    /// ```
    pub fn builds(&self, id: impl Into<AssetId<BankAsset>>) -> u32 {
        self.built.get(&id.into()).map_or(0, |b| b.builds)
    }
}

/// Builds each bank asset that loaded or changed (`PostUpdate`, before
/// players start).
pub(crate) fn build_banks(
    mut events: MessageReader<AssetEvent<BankAsset>>,
    assets: Res<Assets<BankAsset>>,
    engine: Res<VoicepoolEngine>,
    mut banks: ResMut<SoundBanks>,
) {
    for event in events.read() {
        match *event {
            AssetEvent::Added { id } | AssetEvent::Modified { id } => {
                let Some(asset) = assets.get(id) else {
                    continue;
                };
                let built = banks.built.entry(id).or_insert(Built {
                    bank: None,
                    error: None,
                    builds: 0,
                });
                built.builds += 1;
                match asset.build(&engine) {
                    Ok(bank) => {
                        built.bank = Some(bank);
                        built.error = None;
                    }
                    Err(e) => {
                        log::error!("voicepool: sound bank not built:\n{e}");
                        built.error = Some(e);
                    }
                }
            }
            AssetEvent::Removed { id } | AssetEvent::Unused { id } => {
                banks.built.remove(&id);
            }
            _ => {}
        }
    }
}
