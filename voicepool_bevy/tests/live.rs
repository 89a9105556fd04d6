//! The live output: on a machine with a sound device the sound plays
//! there; without one (CI), the plugin mixes silently on the app's clock.
//! Either way a play starts and ends, in real time.

mod support;

use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::AssetPlugin;
use bevy_time::TimePlugin;
use bevy_transform::TransformPlugin;
use support::*;
use voicepool_bevy::{SoundEvent, SoundPlayer, VoicepoolPlugin};

#[test]
fn a_live_app_plays_a_sound_to_its_end_in_real_time() {
    let dir = TempDir::new("live");
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        AssetPlugin {
            file_path: dir.0.to_string_lossy().into_owned(),
            ..Default::default()
        },
        TransformPlugin,
        VoicepoolPlugin::default(),
    ));
    app.init_resource::<Heard>()
        .add_systems(bevy_app::Last, support::hear_system());
    let beep = add_sound(&mut app, tone(0.05, 0.2));
    let entity = app.world_mut().spawn(SoundPlayer::new(beep)).id();
    let began = Instant::now();
    while !events(&app).contains(&SoundEvent::Ended { entity }) {
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "no end after 10 s: {:?}",
            events(&app)
        );
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(events(&app)[0], SoundEvent::Started { entity });
    assert!(
        began.elapsed() >= Duration::from_millis(40),
        "paced, not rendered at once"
    );
    assert!(
        app.world().get_entity(entity).is_err(),
        "despawned at its end"
    );
}

/// Offline, and in the silent fallback with no sound device, there is no
/// live output to ask about: no state, and resuming does nothing.
#[test]
fn an_offline_engine_has_no_output_state_and_resumes_as_a_no_op() {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
        VoicepoolPlugin::default().offline(voicepool_bevy::OfflineOutput::default()),
    ));
    app.update();
    let engine = app.world().resource::<voicepool_bevy::VoicepoolEngine>();
    assert_eq!(engine.output_state(), None);
    assert!(engine.resume_output().is_ok());
}
