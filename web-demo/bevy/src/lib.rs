//! A Bevy app playing through voicepool_bevy's live output in a web page:
//! what the browser test (`scripts/web_test.sh`) opens to check that the
//! plugin plays in a browser. The page calls [`run`], which starts the app
//! (Bevy's schedule runner drives it from the browser's event loop), and
//! reads [`report`] as the app writes it every update.
//!
//! The app loads a swish and six sparkles through Bevy's asset server (on
//! the web it fetches them from `assets/`), and every 300 ms of the app's
//! clock spawns a burst of sound players (one swish, ten sparkles) into a
//! pool of eight voices, so that the plugin steals. Its engine starts
//! suspended, and the page's first click starts the sound: the app does
//! nothing for it.
#![cfg(target_arch = "wasm32")]

use std::sync::Mutex;
use std::time::Duration;

use bevy_app::{App, ScheduleRunnerPlugin, Startup, TaskPoolPlugin, Update};
use bevy_asset::{AssetMetaCheck, AssetPlugin, AssetServer, Handle};
use bevy_ecs::message::MessageReader;
use bevy_ecs::prelude::*;
use bevy_time::{Real, Time, TimePlugin};
use bevy_transform::TransformPlugin;
use voicepool::{EngineSettings, OutputState, PlayParams};
use voicepool_bevy::{SoundAsset, SoundEvent, SoundPlayer, VoicepoolEngine, VoicepoolPlugin};
use wasm_bindgen::prelude::*;

/// What the app last wrote for the page, as JSON.
static REPORT: Mutex<String> = Mutex::new(String::new());

#[derive(Resource)]
struct Sounds(Vec<Handle<SoundAsset>>);

#[derive(Resource, Default)]
struct Tally {
    bursts: u64,
    next: f64,
    started: u64,
    stolen: u64,
    ended: u64,
    rejected: u64,
}

/// Starts the app; it runs until the page closes.
#[wasm_bindgen]
pub fn run() {
    let settings = EngineSettings {
        voices: 8,
        ..Default::default()
    };
    App::new()
        .add_plugins((
            TaskPoolPlugin::default(),
            TimePlugin,
            ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(1.0 / 60.0)),
            // No `.meta` files beside the sounds: without this, Bevy asks
            // the server for each (a 404 in the console per sound).
            AssetPlugin {
                meta_check: AssetMetaCheck::Never,
                ..Default::default()
            },
            TransformPlugin,
            VoicepoolPlugin::default().settings(settings),
        ))
        .init_resource::<Tally>()
        .add_systems(Startup, load)
        .add_systems(Update, (burst, tally, write_report).chain())
        .run();
}

/// What the app last wrote: JSON with the output's state, the engine's
/// statistics and the sound events counted.
#[wasm_bindgen]
pub fn report() -> String {
    REPORT.lock().map(|r| r.clone()).unwrap_or_default()
}

fn load(mut commands: Commands, assets: Res<AssetServer>) {
    let mut sounds = vec![assets.load("swish.wav")];
    sounds.extend((1..=6).map(|i| assets.load(format!("sparkle_{i}.wav"))));
    commands.insert_resource(Sounds(sounds));
}

fn burst(
    mut commands: Commands,
    sounds: Res<Sounds>,
    time: Res<Time<Real>>,
    engine: Res<VoicepoolEngine>,
    mut tally: ResMut<Tally>,
) {
    // Bursts only while the sound plays: the app's clock runs before the
    // first click, the engine's does not.
    let now = time.elapsed_secs_f64();
    if engine.output_state() != Some(OutputState::Playing) || now < tally.next {
        return;
    }
    tally.next = now + 0.3;
    tally.bursts += 1;
    commands.spawn(SoundPlayer::new(sounds.0[0].clone()).non_spatial());
    for k in 0..10u64 {
        let i = 1 + ((tally.bursts * 7 + k * 3) % 6) as usize;
        let params = PlayParams::default()
            .volume(0.1 + 0.05 * (k % 5) as f32)
            .pitch(0.8 + 0.08 * (k % 6) as f32);
        commands.spawn(
            SoundPlayer::new(sounds.0[i].clone())
                .params(params)
                .non_spatial(),
        );
    }
}

fn tally(mut events: MessageReader<SoundEvent>, mut tally: ResMut<Tally>) {
    for event in events.read() {
        match event {
            SoundEvent::Started { .. } => tally.started += 1,
            SoundEvent::Stolen { .. } => tally.stolen += 1,
            SoundEvent::Ended { .. } => tally.ended += 1,
            SoundEvent::Rejected { .. } => tally.rejected += 1,
            _ => {}
        }
    }
}

fn write_report(engine: Res<VoicepoolEngine>, tally: Res<Tally>) {
    let state = match engine.output_state() {
        Some(OutputState::Playing) => "playing",
        Some(OutputState::Suspended) => "suspended",
        Some(_) => "closed",
        None => "offline",
    };
    let s = engine.stats();
    let json = format!(
        "{{\"state\":\"{state}\",\"rate\":{},\"frames\":{},\"bursts\":{},\"started\":{},\
         \"stolen\":{},\"ended\":{},\"rejected\":{},\"callbacks\":{},\"lateCallbacks\":{},\
         \"peakVoices\":{}}}",
        engine.sample_rate(),
        s.frames_rendered,
        tally.bursts,
        tally.started,
        tally.stolen,
        tally.ended,
        tally.rejected,
        s.callbacks,
        s.late_callbacks,
        s.peak_active_voices,
    );
    if let Ok(mut report) = REPORT.lock() {
        *report = json;
    }
}
