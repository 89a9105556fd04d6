//! A headless Bevy app with the offline output, and helpers to drive it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, Assets, Handle};
use bevy_ecs::prelude::*;
use bevy_transform::TransformPlugin;
use voicepool::PlayParams;
use voicepool::{EngineSettings, Sound};
use voicepool_bevy::{
    OfflineOutput, RenderedAudio, SoundAsset, SoundEvent, SoundPlayer, Voicepool, VoicepoolPlugin,
};

/// Frames each update renders: 10 ms.
pub const FRAMES: usize = 480;

/// A folder of its own under the system's temp folder, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("voicepool_bevy_{}_{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An app with assets from `assets` (a folder), transforms, and the plugin
/// rendering `FRAMES` per update.
pub fn app(assets: &Path, plugin: VoicepoolPlugin) -> App {
    app_watching(assets, plugin, false)
}

/// [`app`], watching its asset folder for changes if `watch` (hot
/// reloading).
pub fn app_watching(assets: &Path, plugin: VoicepoolPlugin, watch: bool) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(watch),
            ..Default::default()
        },
        TransformPlugin,
        plugin.offline(OfflineOutput {
            frames_per_update: FRAMES,
            keep_samples: true,
        }),
    ));
    app.init_resource::<Heard>();
    app.add_systems(bevy_app::Last, hear);
    app
}

/// The plugin with `voices` voices.
pub fn plugin(voices: usize) -> VoicepoolPlugin {
    VoicepoolPlugin::default().settings(EngineSettings {
        voices,
        ..Default::default()
    })
}

/// Every `SoundEvent` so far.
#[derive(Resource, Default)]
pub struct Heard(pub Vec<SoundEvent>);

/// The system that fills [`Heard`], for apps made by hand.
pub fn hear_system() -> impl FnMut(MessageReader<SoundEvent>, ResMut<Heard>) {
    hear
}

fn hear(mut reader: MessageReader<SoundEvent>, mut heard: ResMut<Heard>) {
    heard.0.extend(reader.read().cloned());
}

pub fn events(app: &App) -> Vec<SoundEvent> {
    app.world().resource::<Heard>().0.clone()
}

/// A 440 Hz-ish tone of `seconds` at `amplitude`, 48 kHz mono.
pub fn tone(seconds: f32, amplitude: f32) -> Sound {
    let frames = (seconds * 48_000.0) as usize;
    let samples = (0..frames)
        .map(|i| (i as f32 * 0.0576).sin() * amplitude)
        .collect();
    Sound::from_samples(1, 48_000, samples).unwrap()
}

pub fn add_sound(app: &mut App, sound: Sound) -> Handle<SoundAsset> {
    app.world_mut()
        .resource_mut::<Assets<SoundAsset>>()
        .add(SoundAsset::from(sound))
}

/// Spawns an entity playing a looped 2 s tone (amplitude 0.5, full
/// volume), its player shaped by `shape`.
pub fn spawn_loop(app: &mut App, shape: impl FnOnce(SoundPlayer) -> SoundPlayer) -> Entity {
    let hum = add_sound(app, tone(2.0, 0.5));
    let player = SoundPlayer::new(hum).params(PlayParams::default().looping(true));
    app.world_mut().spawn(shape(player)).id()
}

/// Runs `call` with the `Voicepool` system parameter, on `entity`.
pub fn control(app: &mut App, entity: Entity, call: fn(&Voicepool, Entity)) {
    use bevy_ecs::system::RunSystemOnce;
    app.world_mut()
        .run_system_once_with(
            move |In(e): In<Entity>, audio: Voicepool| call(&audio, e),
            entity,
        )
        .unwrap();
}

/// Runs `updates` updates.
pub fn run(app: &mut App, updates: usize) {
    for _ in 0..updates {
        app.update();
    }
}

/// Everything rendered so far, interleaved stereo.
pub fn rendered(app: &App) -> Vec<f32> {
    app.world().resource::<RenderedAudio>().samples.clone()
}

/// RMS of the left and right channels over frames `from..to`.
pub fn rms(samples: &[f32], from: usize, to: usize) -> (f32, f32) {
    let frames = &samples[from * 2..to * 2];
    let n = (to - from).max(1) as f32;
    let (l, r) = frames
        .chunks(2)
        .fold((0.0, 0.0), |(l, r), f| (l + f[0] * f[0], r + f[1] * f[1]));
    ((l / n).sqrt(), (r / n).sqrt())
}

/// Writes a 16-bit mono 48 kHz WAV of `sound`'s tone.
pub fn write_wav(path: &Path, seconds: f32, amplitude: f32) {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 48_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(path, spec).unwrap();
    for i in 0..(seconds * 48_000.0) as usize {
        let s = (i as f32 * 0.0576).sin() * amplitude;
        writer.write_sample((s * 32_767.0) as i16).unwrap();
    }
    writer.finalize().unwrap();
}
