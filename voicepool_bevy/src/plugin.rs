//! [`VoicepoolPlugin`]: the engine, the asset type, and the systems.

use std::sync::Arc;

use bevy_app::{App, Plugin, PostUpdate};
#[cfg(not(target_arch = "wasm32"))]
use bevy_asset::io::file::FileAssetReader;
use bevy_asset::{AssetApp, AssetPlugin, Assets};
use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Real, Time};
use bevy_transform::TransformSystems;
use voicepool::{BusSettings, Effect, EngineSettings, GroupSettings};

use crate::asset::{SoundAsset, SoundLoader};
use crate::control::VoicepoolEngine;
use crate::events::{dispatch_events, SoundEvent, VoicepoolEvent};
use crate::label::AsLabel;
use crate::output::{AudioOutput, Backend, OfflineOutput, RenderedAudio};
use crate::player::start_players;
use crate::space::{move_emitters, move_listener, occlude_emitters, ListenerState};

/// The plugin: starts voicepool's engine from [`EngineSettings`] (pool
/// size, steal policy, virtual voices, ...) on an [`AudioOutput`], adds the
/// [`SoundAsset`] type and its loader, and the systems that play
/// [`crate::SoundPlayer`]s, move emitters and the listener, render offline
/// and send [`SoundEvent`]s.
///
/// Needs Bevy's `AssetPlugin` (added before it, as `DefaultPlugins` does),
/// and `TransformPlugin` for emitters. Labelled buses and groups can be
/// declared here, or made from systems with [`crate::Voicepool`].
///
/// ```no_run
/// use bevy_app::App;
/// use voicepool_bevy::voicepool::{EngineSettings, GroupSettings, StealPolicy};
/// use voicepool_bevy::VoicepoolPlugin;
/// # fn default_plugins(app: &mut App) {}
///
/// let mut app = App::new();
/// # default_plugins(&mut app);
/// app.add_plugins(
///     VoicepoolPlugin::default()
///         .settings(EngineSettings { voices: 48, virtual_voices: 256, ..Default::default() })
///         .group("footsteps", GroupSettings { max_voices: 4, ..Default::default() }),
/// );
/// ```
///
/// If the settings are refused (voicepool's checks, see
/// [`EngineSettings`]), the plugin logs why and starts with the default
/// settings instead, rather than stopping the game.
#[derive(Clone)]
pub struct VoicepoolPlugin {
    /// The engine's settings.
    pub settings: EngineSettings,
    /// Where the mix goes.
    pub output: AudioOutput,
    buses: Vec<(String, BusMaker)>,
    groups: Vec<(String, GroupSettings)>,
}

/// How a declared bus's settings are had each time the plugin builds an
/// app: made anew (built-in effects are plain values), or, for a game's
/// own effect (which cannot be copied), handed over once.
#[derive(Clone)]
enum BusMaker {
    Make(Arc<dyn Fn() -> BusSettings + Send + Sync>),
    Once(crossbeam_channel::Receiver<BusSettings>),
}

impl BusMaker {
    fn of(settings: BusSettings) -> BusMaker {
        let builtins: Option<Vec<Builtin>> = settings.effects.iter().map(Builtin::of).collect();
        match builtins {
            Some(builtins) => {
                let BusSettings {
                    output,
                    duck,
                    volume,
                    ..
                } = settings;
                BusMaker::Make(Arc::new(move || BusSettings {
                    output,
                    effects: builtins.iter().map(|b| b.effect()).collect(),
                    duck,
                    volume,
                }))
            }
            None => {
                let (tx, rx) = crossbeam_channel::bounded(1);
                let _ = tx.send(settings);
                BusMaker::Once(rx)
            }
        }
    }

    fn settings(&self) -> Option<BusSettings> {
        match self {
            BusMaker::Make(make) => Some(make()),
            BusMaker::Once(rx) => rx.try_recv().ok(),
        }
    }
}

/// A built-in effect as plain values (copied for each app).
#[derive(Clone, Copy)]
enum Builtin {
    LowPass(f32),
    HighPass(f32),
    Reverb(f32, f32, f32),
}

impl Builtin {
    /// `None` for a game's own effect.
    fn of(effect: &Effect) -> Option<Builtin> {
        match *effect {
            Effect::LowPass { cutoff_hz } => Some(Builtin::LowPass(cutoff_hz)),
            Effect::HighPass { cutoff_hz } => Some(Builtin::HighPass(cutoff_hz)),
            Effect::Reverb { room, damping, wet } => Some(Builtin::Reverb(room, damping, wet)),
            _ => None,
        }
    }

    fn effect(self) -> Effect {
        match self {
            Builtin::LowPass(cutoff_hz) => Effect::LowPass { cutoff_hz },
            Builtin::HighPass(cutoff_hz) => Effect::HighPass { cutoff_hz },
            Builtin::Reverb(room, damping, wet) => Effect::Reverb { room, damping, wet },
        }
    }
}

impl Default for VoicepoolPlugin {
    fn default() -> Self {
        VoicepoolPlugin {
            settings: EngineSettings::default(),
            output: AudioOutput::Live,
            buses: Vec::new(),
            groups: Vec::new(),
        }
    }
}

impl VoicepoolPlugin {
    /// With these engine settings.
    ///
    /// ```
    /// use voicepool_bevy::voicepool::EngineSettings;
    /// use voicepool_bevy::VoicepoolPlugin;
    /// let plugin = VoicepoolPlugin::default().settings(EngineSettings { voices: 16, ..Default::default() });
    /// assert_eq!(plugin.settings.voices, 16);
    /// ```
    pub fn settings(mut self, settings: EngineSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Rendering offline on the app's schedule: see [`AudioOutput::Offline`].
    ///
    /// ```
    /// use voicepool_bevy::{AudioOutput, OfflineOutput, VoicepoolPlugin};
    /// let plugin = VoicepoolPlugin::default().offline(OfflineOutput::default());
    /// assert!(matches!(plugin.output, AudioOutput::Offline(_)));
    /// ```
    pub fn offline(mut self, output: OfflineOutput) -> Self {
        self.output = AudioOutput::Offline(output);
        self
    }

    /// Sends the mix to `output` (see [`AudioOutput`]).
    ///
    /// ```
    /// use voicepool_bevy::{AudioOutput, VoicepoolPlugin};
    /// let plugin = VoicepoolPlugin::default().output(AudioOutput::Live);
    /// # let _ = plugin;
    /// ```
    pub fn output(mut self, output: AudioOutput) -> Self {
        self.output = output;
        self
    }

    /// Declares a labelled bus, made when the plugin is added, in the order
    /// declared. (A bus that feeds or ducks another needs that one's
    /// handle: make those from a startup system with
    /// [`crate::Voicepool::create_labelled_bus`].)
    ///
    /// ```
    /// use voicepool_bevy::voicepool::{BusSettings, Effect};
    /// use voicepool_bevy::VoicepoolPlugin;
    /// let plugin = VoicepoolPlugin::default()
    ///     .bus("music", BusSettings::default())
    ///     .bus("cave", BusSettings { effects: vec![Effect::Reverb { room: 0.8, damping: 0.3, wet: 1.0 }], ..Default::default() });
    /// ```
    ///
    /// The plugin can be cloned, its buses with it; a bus with a game's
    /// own effect ([`Effect::Custom`], which cannot be copied) is made in
    /// the first app the plugin builds only: declare it with
    /// [`VoicepoolPlugin::bus_with`] to have it in every one.
    pub fn bus(mut self, label: impl AsLabel, settings: BusSettings) -> Self {
        let label = label.as_label().into_owned();
        self.buses.push((label, BusMaker::of(settings)));
        self
    }

    /// Declares a labelled bus whose settings `make` makes, each time the
    /// plugin builds an app (for effects of the game's own).
    ///
    /// ```
    /// use voicepool_bevy::voicepool::{BusSettings, CustomEffect, Effect};
    /// use voicepool_bevy::VoicepoolPlugin;
    /// struct Crush;
    /// impl CustomEffect for Crush {
    ///     fn process(&mut self, l: &mut [f32], r: &mut [f32]) {
    ///         for x in l.iter_mut().chain(r) { *x = (*x * 8.0).round() / 8.0; }
    ///     }
    /// }
    /// let plugin = VoicepoolPlugin::default().bus_with("radio", || BusSettings {
    ///     effects: vec![Effect::Custom(Box::new(Crush))],
    ///     ..Default::default()
    /// });
    /// let again = plugin.clone(); // both make the bus, each with its own effect
    /// # let _ = again;
    /// ```
    pub fn bus_with(
        mut self,
        label: impl AsLabel,
        make: impl Fn() -> BusSettings + Send + Sync + 'static,
    ) -> Self {
        let label = label.as_label().into_owned();
        self.buses.push((label, BusMaker::Make(Arc::new(make))));
        self
    }

    /// Declares a labelled group (instance limit, retrigger interval).
    ///
    /// ```
    /// use voicepool_bevy::voicepool::GroupSettings;
    /// use voicepool_bevy::VoicepoolPlugin;
    /// let plugin = VoicepoolPlugin::default().group("spells", GroupSettings { max_voices: 8, ..Default::default() });
    /// ```
    pub fn group(mut self, label: impl AsLabel, settings: GroupSettings) -> Self {
        self.groups.push((label.as_label().into_owned(), settings));
        self
    }
}

/// The plugin's systems, in `PostUpdate` after transform propagation:
/// order your own against them (a system reading [`SoundEvent`]s sees an
/// update's events after this set).
///
/// ```
/// use bevy_app::{App, PostUpdate};
/// use bevy_ecs::prelude::*;
/// use voicepool_bevy::VoicepoolSystems;
/// fn react() {}
/// App::new().add_systems(PostUpdate, react.after(VoicepoolSystems));
/// ```
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VoicepoolSystems;

impl Plugin for VoicepoolPlugin {
    fn build(&self, app: &mut App) {
        // The asset type, its loader and the messages come first, whatever
        // happens to the engine: systems that name them never find them
        // missing. (Added before `AssetPlugin`, the asset type waits for
        // `finish`, which `App::run` calls once every plugin is built.)
        app.add_message::<SoundEvent>()
            .add_message::<VoicepoolEvent>()
            .register_type::<crate::SoundPlayer>()
            .register_type::<crate::OnEnd>()
            .register_type::<crate::PlayingVoice>()
            .register_type::<crate::SoundListener>()
            .register_type::<crate::SoundVelocity>()
            .register_type::<crate::SoundOcclusion>()
            .register_type::<RenderedAudio>();
        if app.is_plugin_added::<AssetPlugin>() {
            register_assets(app);
        }
        let backend = Backend::start(self.settings.clone(), self.output).or_else(|e| {
            log::error!("voicepool: engine settings refused ({e}); starting with the defaults");
            Backend::start(EngineSettings::default(), self.output)
        });
        let backend = match backend {
            Ok(backend) => backend,
            Err(e) => {
                // Not seen: the defaults are valid, and a live output that
                // fails falls back to a silent one.
                log::error!("voicepool: no engine could start: {e}");
                return;
            }
        };
        if backend.renders_offline() {
            app.insert_resource(RenderedAudio {
                samples: Vec::new(),
                sample_rate: backend.sample_rate(),
            });
        }
        let engine = VoicepoolEngine::new(backend);
        for (label, maker) in &self.buses {
            let Some(settings) = maker.settings() else {
                log::error!(
                    "voicepool: bus `{label}` not made: its game's own effect went to the first \
                     app this plugin built (declare it with VoicepoolPlugin::bus_with)"
                );
                continue;
            };
            if let Err(e) = engine.create_labelled_bus(label, settings) {
                log::error!("voicepool: bus `{label}` not made: {e}");
            }
        }
        for (label, settings) in &self.groups {
            if let Err(e) = engine.create_labelled_group(label, *settings) {
                log::error!("voicepool: group `{label}` not made: {e}");
            }
        }
        app.insert_resource(engine)
            .init_resource::<ListenerState>()
            .configure_sets(
                PostUpdate,
                VoicepoolSystems.after(TransformSystems::Propagate),
            )
            .add_systems(
                PostUpdate,
                (
                    crate::bank::build_banks,
                    start_players,
                    (move_emitters, move_listener, occlude_emitters),
                    render,
                    dispatch_events,
                )
                    .chain()
                    .in_set(VoicepoolSystems),
            );
    }

    fn finish(&self, app: &mut App) {
        assert!(
            app.is_plugin_added::<AssetPlugin>(),
            "voicepool_bevy: VoicepoolPlugin needs bevy_asset's AssetPlugin: add \
             DefaultPlugins, or AssetPlugin (with TaskPoolPlugin) next to it"
        );
        register_assets(app);
        if !app.is_plugin_added::<bevy_transform::TransformPlugin>() {
            log::warn!(
                "voicepool_bevy: no TransformPlugin, so no GlobalTransform is updated and \
                 emitters and the listener are not placed: add TransformPlugin (DefaultPlugins has it)"
            );
        }
    }
}

/// Renders this update's frames (offline output only).
/// The sound asset type and its loader (with the asset folder
/// `AssetPlugin` was given), once.
fn register_assets(app: &mut App) {
    if app.world().contains_resource::<Assets<SoundAsset>>() {
        return;
    }
    let asset_folder = app
        .get_added_plugins::<AssetPlugin>()
        .first()
        .map_or_else(|| "assets".to_owned(), |p| p.file_path.clone());
    app.init_asset::<SoundAsset>()
        .register_asset_loader(SoundLoader {
            asset_folder: asset_base().join(asset_folder),
        })
        .init_asset::<crate::bank::BankAsset>()
        .register_asset_loader(crate::bank::BankLoader)
        .init_resource::<crate::bank::SoundBanks>();
}

/// Where the asset folder is: Bevy's base path for files; none in a
/// browser, where assets come over the network and nothing streams from
/// disk (a streamed load is an error naming the asset).
fn asset_base() -> std::path::PathBuf {
    #[cfg(not(target_arch = "wasm32"))]
    return FileAssetReader::get_base_path();
    #[cfg(target_arch = "wasm32")]
    return std::path::PathBuf::new();
}

fn render(
    mut engine: ResMut<VoicepoolEngine>,
    audio: Option<ResMut<RenderedAudio>>,
    time: Option<Res<Time<Real>>>,
    fixed: Option<Res<Time<Fixed>>>,
) {
    let elapsed = time.map_or(0.0, |t| t.delta_secs_f64());
    let fixed = fixed.map(|t| t.elapsed_secs_f64());
    engine
        .backend
        .render(elapsed, fixed, audio.map(|a| a.into_inner()));
}

impl From<OfflineOutput> for AudioOutput {
    fn from(output: OfflineOutput) -> AudioOutput {
        AudioOutput::Offline(output)
    }
}
