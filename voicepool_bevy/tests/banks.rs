//! Sound banks as assets: a cue played by name from a `.bank.toml` file,
//! the file changed while the app runs and its new version heard (hot
//! reloading) without stopping what plays; a broken bank or an unknown
//! cue rejected, naming why.

mod support;

use std::time::{Duration, Instant};

use bevy_asset::{AssetServer, Handle};
use bevy_ecs::prelude::*;
use support::*;
use voicepool::PlayParams;
use voicepool_bevy::{BankAsset, PlayingVoice, RejectReason, SoundBanks, SoundEvent, SoundPlayer};

/// Updates until `done`, sleeping a little between, for at most `limit`.
fn run_until(app: &mut App, limit: Duration, done: impl Fn(&App) -> bool) {
    let start = Instant::now();
    while start.elapsed() < limit {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("not done after {limit:?}");
}

use bevy_app::App;

/// The loudest sample rendered after frame `from`.
fn peak_after(app: &App, from: usize) -> f32 {
    rendered(app)[from * 2..]
        .iter()
        .fold(0.0f32, |m, s| m.max(s.abs()))
}

#[test]
fn a_cue_plays_by_name_and_a_changed_bank_is_heard_without_stopping_what_plays() {
    let dir = TempDir::new("bank_reload");
    std::fs::create_dir_all(dir.0.join("sfx")).unwrap();
    write_wav(&dir.0.join("sfx/tone.wav"), 2.0, 0.5);
    let bank_file = dir.0.join("sfx/world.bank.toml");
    std::fs::write(&bank_file, "[cues.hit]\nsounds = [\"tone.wav\"]\n").unwrap();
    let mut app = app_watching(&dir.0, plugin(8), true);
    let bank: Handle<BankAsset> = app
        .world()
        .resource::<AssetServer>()
        .load("sfx/world.bank.toml");
    // A looping play of the first version, kept through the reload.
    let first = app
        .world_mut()
        .spawn(
            SoundPlayer::cue(bank.clone(), "hit")
                .params(PlayParams::default().looping(true))
                .non_spatial(),
        )
        .id();
    run_until(&mut app, Duration::from_secs(20), |app| {
        app.world().get::<PlayingVoice>(first).is_some()
    });
    run(&mut app, 10);
    let before = peak_after(&app, rendered(&app).len() / 2 - 4_800);
    assert!(before > 0.3, "the first version is heard: {before}");
    // The sound designer turns it down 20 dB and saves.
    std::fs::write(
        &bank_file,
        "[cues.hit]\nsounds = [\"tone.wav\"]\nvolume_range_db = [-20.0, -20.0]\n",
    )
    .unwrap();
    run_until(&mut app, Duration::from_secs(30), |app| {
        app.world().resource::<SoundBanks>().builds(&bank) >= 2
    });
    assert!(app.world().resource::<SoundBanks>().error(&bank).is_none());
    // What played goes on.
    run(&mut app, 5);
    assert!(
        app.world().get::<PlayingVoice>(first).is_some(),
        "the loop was stopped"
    );
    let kept = peak_after(&app, rendered(&app).len() / 2 - 2_400);
    assert!(
        (kept - before).abs() < 0.05 * before,
        "{before} then {kept}"
    );
    // It stops; a new play sounds the new version.
    app.world_mut().despawn(first);
    run(&mut app, 10);
    let second = app
        .world_mut()
        .spawn(SoundPlayer::cue(bank.clone(), "hit").non_spatial())
        .id();
    let from = rendered(&app).len() / 2;
    run(&mut app, 1);
    assert!(app.world().get::<PlayingVoice>(second).is_some());
    run(&mut app, 10);
    let after = peak_after(&app, from);
    assert!(
        (after / before - 0.1).abs() < 0.02,
        "-20 dB: {before} then {after}"
    );
}

#[test]
fn a_broken_bank_or_an_unknown_cue_is_rejected_naming_why() {
    let dir = TempDir::new("bank_broken");
    write_wav(&dir.0.join("tone.wav"), 0.5, 0.5);
    std::fs::write(
        dir.0.join("ok.bank.toml"),
        "[cues.hit]\nsounds = [\"tone.wav\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.0.join("broken.bank.toml"),
        "[cues.hit]\nsounds = [\"tone.wav\", \"gone.wav\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.0.join("typo.bank.toml"),
        "[cues.hit]\nsound = [\"tone.wav\"]\n",
    )
    .unwrap();
    let mut app = app(&dir.0, plugin(8));
    let server = app.world().resource::<AssetServer>().clone();
    let cases = [
        ("ok.bank.toml", "miss", "no cue `miss`"),
        ("broken.bank.toml", "hit", "broken.bank.toml:2:"),
        (
            "typo.bank.toml",
            "hit",
            "typo.bank.toml:2:1: cues.hit.sound",
        ),
    ];
    let entities: Vec<Entity> = cases
        .iter()
        .map(|(file, cue, _)| {
            let bank: Handle<BankAsset> = server.load(*file);
            app.world_mut().spawn(SoundPlayer::cue(bank, *cue)).id()
        })
        .collect();
    run_until(&mut app, Duration::from_secs(20), |app| {
        let rejected = events(app)
            .iter()
            .filter(|e| matches!(e, SoundEvent::Rejected { .. }))
            .count();
        rejected == cases.len()
    });
    for (entity, (file, _, says)) in entities.iter().zip(cases) {
        let reason = events(&app)
            .into_iter()
            .find_map(|e| match e {
                SoundEvent::Rejected { entity: x, reason } if x == *entity => Some(reason),
                _ => None,
            })
            .expect("rejected");
        let text = reason.to_string();
        assert!(text.contains(says), "{file}: {text}");
        if file.starts_with("ok") {
            assert_eq!(reason, RejectReason::UnknownCue("miss".into()));
        }
    }
}
