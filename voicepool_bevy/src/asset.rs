//! Sounds as Bevy assets: [`SoundAsset`] and its loader for WAV, OGG Vorbis,
//! FLAC and MP3.
//!
//! A file is decoded whole when it loads (`asset_server.load("swish.ogg")`),
//! the way short effects should be. Long music or dialogue can instead be
//! streamed from disk as it plays, an explicit choice made per load with
//! [`SoundLoaderSettings::stream`]:
//!
//! ```no_run
//! # use bevy_asset::{AssetServer, Handle};
//! # use voicepool_bevy::{SoundAsset, SoundLoaderSettings};
//! # fn load(asset_server: &AssetServer) -> Handle<SoundAsset> {
//! asset_server
//!     .load_builder()
//!     .with_settings(|s: &mut SoundLoaderSettings| s.stream = true)
//!     .load("music/theme.ogg")
//! # }
//! ```
//!
//! Bevy keeps one asset per path: the first load of a path decides how it
//! loads, and a later load of the same path with other settings gets the
//! same asset (Bevy does not load it again). So make the choice the file's
//! own, in a `.meta` file beside it (`music/theme.ogg.meta`), naming this
//! module's [`SoundLoader`]:
//!
//! ```text
//! (
//!     meta_format_version: "1.0",
//!     asset: Load(
//!         loader: "voicepool_bevy::asset::SoundLoader",
//!         settings: (stream: true),
//!     ),
//! )
//! ```
//!
//! Streaming reads the file itself from the asset folder on disk, so it
//! works for assets from Bevy's default file source only; anything else is
//! a load error naming the asset. With Bevy's `file_watcher` feature, a
//! changed file is loaded again (hot reloading): new plays use the new
//! sound, plays already sounding go on with the old one.

use std::path::PathBuf;

use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetLoader, LoadContext};
use bevy_reflect::TypePath;
use serde::{Deserialize, Serialize};
use voicepool::{Sound, SoundError};

/// A sound to play: voicepool's [`Sound`] as a Bevy asset.
///
/// Loaded from a file by the asset server, or made from a `Sound` in code:
///
/// ```
/// use bevy_asset::Assets;
/// use voicepool_bevy::voicepool::Sound;
/// use voicepool_bevy::SoundAsset;
///
/// let beep = Sound::from_samples(1, 48_000, vec![0.25; 4_800])?;
/// let mut sounds = Assets::<SoundAsset>::default();
/// let handle = sounds.add(SoundAsset::from(beep));
/// assert_eq!(sounds.get(&handle).unwrap().sound().duration_seconds(), 0.1);
/// # Ok::<(), voicepool_bevy::voicepool::SoundError>(())
/// ```
#[derive(Asset, TypePath, Clone)]
pub struct SoundAsset {
    sound: Sound,
}

impl SoundAsset {
    /// The sound itself (cheap to clone: the samples are shared).
    ///
    /// ```
    /// # use voicepool_bevy::voicepool::Sound;
    /// # use voicepool_bevy::SoundAsset;
    /// let asset = SoundAsset::from(Sound::from_samples(2, 44_100, vec![0.0; 882])?);
    /// assert_eq!(asset.sound().channels(), 2);
    /// # Ok::<(), voicepool_bevy::voicepool::SoundError>(())
    /// ```
    pub fn sound(&self) -> &Sound {
        &self.sound
    }
}

impl From<Sound> for SoundAsset {
    fn from(sound: Sound) -> SoundAsset {
        SoundAsset { sound }
    }
}

/// How [`SoundLoader`] loads a file; set per load with
/// `AssetServer::load_builder`, or in the file's `.meta` file.
///
/// ```
/// use voicepool_bevy::SoundLoaderSettings;
/// assert!(!SoundLoaderSettings::default().stream); // decoded whole by default
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SoundLoaderSettings {
    /// Stream the file from disk as it plays instead of decoding it whole
    /// at load ([`Sound::stream_file`]): for music and long dialogue. Each
    /// play of a streamed sound reads the file on its own.
    pub stream: bool,
}

/// Loads [`SoundAsset`]s from `.wav`, `.ogg`, `.oga`, `.flac` and `.mp3`
/// files; added by [`crate::VoicepoolPlugin`].
///
/// The format is found from the data, not the extension. A file that is
/// corrupt or in a format voicepool does not play fails to load with a
/// [`SoundLoadError`] naming it; a missing one fails before the loader
/// runs, with the asset server's own error (which names the path too).
/// Either way the asset server reports it (`AssetLoadFailedEvent<SoundAsset>`,
/// `LoadState::Failed`), and a [`crate::SoundPlayer`] waiting for it ends
/// with [`crate::RejectReason::AssetFailed`], which carries the path and
/// the error (and is logged as a warning).
#[derive(TypePath, Debug, Clone)]
pub struct SoundLoader {
    /// The asset folder on disk, for streamed sounds.
    pub(crate) asset_folder: PathBuf,
}

/// Why a sound file did not load: the asset's path and voicepool's reason.
///
/// ```
/// # use voicepool_bevy::SoundLoadError;
/// # fn describe(e: &SoundLoadError) -> String {
/// e.to_string() // "could not load sound `sfx/swish.ogg`: ..."
/// # }
/// ```
#[derive(Debug)]
pub struct SoundLoadError {
    /// The asset path, as given to the asset server.
    pub path: String,
    /// What went wrong.
    pub kind: SoundLoadErrorKind,
}

/// What went wrong in a [`SoundLoadError`].
#[derive(Debug)]
#[non_exhaustive]
pub enum SoundLoadErrorKind {
    /// The asset source could not be read.
    Read(std::io::Error),
    /// voicepool could not decode (or open, for streaming) the data.
    Decode(SoundError),
    /// A streamed sound from an asset source that is not the file system
    /// (any, in a browser).
    NotAFile,
}

impl std::fmt::Display for SoundLoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "could not load sound `{}`: ", self.path)?;
        match &self.kind {
            SoundLoadErrorKind::Read(e) => write!(f, "{e}"),
            SoundLoadErrorKind::Decode(e) => write!(f, "{e}"),
            SoundLoadErrorKind::NotAFile => {
                f.write_str("only sounds in the default (file) asset source can be streamed, and none in a browser")
            }
        }
    }
}

impl std::error::Error for SoundLoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            SoundLoadErrorKind::Read(e) => Some(e),
            SoundLoadErrorKind::Decode(e) => Some(e),
            SoundLoadErrorKind::NotAFile => None,
        }
    }
}

impl AssetLoader for SoundLoader {
    type Asset = SoundAsset;
    type Settings = SoundLoaderSettings;
    type Error = SoundLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &SoundLoaderSettings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<SoundAsset, SoundLoadError> {
        let asset_path = load_context.path().clone();
        let error = |kind| SoundLoadError {
            path: asset_path.to_string(),
            kind,
        };
        if settings.stream {
            // (In a browser the default source is the network, not files.)
            if asset_path.source().as_str().is_some() || cfg!(target_arch = "wasm32") {
                return Err(error(SoundLoadErrorKind::NotAFile));
            }
            let file = self.asset_folder.join(asset_path.path());
            return Sound::stream_file(&file)
                .map(SoundAsset::from)
                .map_err(|e| error(SoundLoadErrorKind::Decode(e)));
        }
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| error(SoundLoadErrorKind::Read(e)))?;
        Sound::from_bytes(&bytes)
            .map(SoundAsset::from)
            .map_err(|e| error(SoundLoadErrorKind::Decode(e.for_file(asset_path.path()))))
    }

    fn extensions(&self) -> &[&str] {
        &["wav", "ogg", "oga", "flac", "mp3"]
    }
}
