//! Sounds loaded from files by the asset server: decoded, streamed, and
//! files that are missing or corrupt (a load error naming the file, and
//! the waiting player rejected; no panic).

mod support;

use bevy_app::{App, Last};
use bevy_asset::{AssetEvent, AssetLoadFailedEvent, AssetServer, Assets, Handle};
use bevy_ecs::prelude::*;
use support::*;
use voicepool_bevy::{
    PlayingVoice, RejectReason, SoundAsset, SoundEvent, SoundLoaderSettings, SoundPlayer,
};

/// Every load failure's message.
#[derive(Resource, Default)]
struct Failures(Vec<String>);

fn failures(
    mut reader: MessageReader<AssetLoadFailedEvent<SoundAsset>>,
    mut seen: ResMut<Failures>,
) {
    seen.0.extend(reader.read().map(|e| e.error.to_string()));
}

fn asset_app(dir: &TempDir) -> App {
    let mut app = app(&dir.0, plugin(8));
    app.init_resource::<Failures>().add_systems(Last, failures);
    app
}

/// Updates until `done`, at most 2,000 times (loading runs on other
/// threads).
fn run_until(app: &mut App, done: impl Fn(&App) -> bool) {
    for _ in 0..2_000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("not done after 2,000 updates");
}

#[test]
fn sounds_from_files_play_decoded_or_streamed() {
    for stream in [false, true] {
        let dir = TempDir::new(if stream { "streamed" } else { "decoded" });
        std::fs::create_dir_all(dir.0.join("sfx")).unwrap();
        write_wav(&dir.0.join("sfx/beep.wav"), 0.5, 0.5);
        let mut app = asset_app(&dir);
        let handle: Handle<SoundAsset> = app
            .world()
            .resource::<AssetServer>()
            .load_builder()
            .with_settings(move |s: &mut SoundLoaderSettings| s.stream = stream)
            .load("sfx/beep.wav");
        let entity = app.world_mut().spawn(SoundPlayer::new(handle)).id();
        run_until(&mut app, |app| {
            app.world().get::<PlayingVoice>(entity).is_some()
        });
        run(&mut app, 20);
        let out = rendered(&app);
        let played = out.chunks(2).filter(|f| f[0].abs() > 0.1).count();
        assert!(
            played > 1_000,
            "stream {stream}: the file's tone is in the output"
        );
        assert!(app.world().resource::<Failures>().0.is_empty());
    }
}

#[test]
fn a_missing_or_corrupt_file_is_a_load_error_naming_it() {
    // (file, its bytes (None: no file), what the error must say)
    let cases: [(&str, Option<&[u8]>, &str); 3] = [
        ("missing.wav", None, "missing.wav"),
        (
            "corrupt.wav",
            Some(b"RIFF\x10\0\0\0WAVEjunkjunkjunk"),
            "corrupt.wav",
        ),
        ("noise.ogg", Some(&[7u8; 4_000]), "noise.ogg"),
    ];
    for (file, bytes, named) in cases {
        let dir = TempDir::new("bad_files");
        if let Some(bytes) = bytes {
            std::fs::write(dir.0.join(file), bytes).unwrap();
        }
        let mut app = asset_app(&dir);
        let handle = app.world().resource::<AssetServer>().load(file.to_owned());
        let entity = app.world_mut().spawn(SoundPlayer::new(handle)).id();
        run_until(&mut app, |app| {
            !app.world().resource::<Failures>().0.is_empty()
        });
        run(&mut app, 2);
        let errors = &app.world().resource::<Failures>().0;
        assert!(errors[0].contains(named), "{file}: {errors:?}");
        // No placeholder for the data's origin: the file is named.
        assert!(!errors[0].contains("<bytes>"), "{file}: {errors:?}");
        let told = events(&app).into_iter().find_map(|e| match e {
            SoundEvent::Rejected {
                entity: e,
                reason: RejectReason::AssetFailed { path, error },
            } if e == entity => Some((path, error)),
            _ => None,
        });
        let (path, error) = told.unwrap_or_else(|| panic!("{file}: the player is told"));
        assert_eq!(path, file);
        assert!(error.contains(named), "{file}: {error}");
    }
}

/// How many times a `SoundAsset` was modified (loaded again).
#[derive(Resource, Default)]
struct Modified(usize);

fn modified(mut reader: MessageReader<AssetEvent<SoundAsset>>, mut seen: ResMut<Modified>) {
    seen.0 += reader
        .read()
        .filter(|e| matches!(e, AssetEvent::Modified { .. }))
        .count();
}

#[test]
fn a_changed_file_loaded_again_plays_the_new_sound() {
    let dir = TempDir::new("reload");
    write_wav(&dir.0.join("zap.wav"), 0.2, 0.2);
    let mut app = asset_app(&dir);
    app.init_resource::<Modified>().add_systems(Last, modified);
    let handle: Handle<SoundAsset> = app.world().resource::<AssetServer>().load("zap.wav");
    let loaded = |app: &App, handle: &Handle<SoundAsset>| {
        app.world()
            .resource::<Assets<SoundAsset>>()
            .get(handle)
            .map(|a| a.sound().duration_seconds())
    };
    let first = handle.clone();
    run_until(&mut app, move |app| loaded(app, &first).is_some());
    // The file changes (Bevy's `file_watcher` feature reloads it by
    // itself; here the reload is asked for).
    write_wav(&dir.0.join("zap.wav"), 0.4, 0.8);
    app.world().resource::<AssetServer>().reload("zap.wav");
    run_until(&mut app, |app| app.world().resource::<Modified>().0 > 0);
    assert_eq!(loaded(&app, &handle), Some(0.4));
    let entity = app.world_mut().spawn(SoundPlayer::new(handle)).id();
    run(&mut app, 3);
    assert!(app.world().get::<PlayingVoice>(entity).is_some());
    let start = rendered(&app).len() / 2 - 3 * FRAMES;
    let (l, _) = rms(&rendered(&app), start, start + 3 * FRAMES);
    assert!(
        l > 0.3,
        "the new, louder file plays (the old one: 0.1): rms {l}"
    );
}

#[test]
fn a_stop_while_the_sound_loads_cancels_the_play() {
    // (what the entity does once its play is over)
    for (on_end, kept) in [
        (voicepool_bevy::OnEnd::Despawn, false),
        (voicepool_bevy::OnEnd::Keep, true),
    ] {
        let dir = TempDir::new("stop-while-loading");
        write_wav(&dir.0.join("late.wav"), 0.5, 0.5);
        let mut app = asset_app(&dir);
        let handle: Handle<SoundAsset> = app.world().resource::<AssetServer>().load("late.wav");
        let entity = app
            .world_mut()
            .spawn(SoundPlayer::new(handle.clone()).on_end(on_end))
            .id();
        // Before its first update: still loading.
        control(&mut app, entity, |audio, e| audio.stop(e).unwrap());
        run_until(&mut app, |app| {
            app.world()
                .resource::<Assets<SoundAsset>>()
                .get(&handle)
                .is_some()
        });
        run(&mut app, 20);
        let events = events(&app);
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, SoundEvent::Started { .. })),
            "{on_end:?}: it played after its stop: {events:?}"
        );
        assert_eq!(
            events,
            [SoundEvent::Rejected {
                entity,
                reason: RejectReason::Stopped
            }],
            "{on_end:?}"
        );
        assert_eq!(app.world().get_entity(entity).is_ok(), kept, "{on_end:?}");
        assert!(rendered(&app).iter().all(|&s| s == 0.0));
    }
}

#[test]
fn a_meta_file_naming_the_loader_makes_a_file_stream() {
    let dir = TempDir::new("meta-stream");
    write_wav(&dir.0.join("theme.wav"), 0.5, 0.5);
    std::fs::write(
        dir.0.join("theme.wav.meta"),
        r#"(
    meta_format_version: "1.0",
    asset: Load(
        loader: "voicepool_bevy::asset::SoundLoader",
        settings: (stream: true),
    ),
)"#,
    )
    .unwrap();
    let mut app = asset_app(&dir);
    let handle: Handle<SoundAsset> = app.world().resource::<AssetServer>().load("theme.wav");
    run_until(&mut app, |app| {
        app.world()
            .resource::<Assets<SoundAsset>>()
            .get(&handle)
            .is_some()
            || !app.world().resource::<Failures>().0.is_empty()
    });
    assert!(
        app.world().resource::<Failures>().0.is_empty(),
        "{:?}",
        app.world().resource::<Failures>().0
    );
    let sounds = app.world().resource::<Assets<SoundAsset>>();
    assert!(sounds.get(&handle).unwrap().sound().is_streamed());
}
