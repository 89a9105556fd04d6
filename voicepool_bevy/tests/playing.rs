//! Headless apps with the offline output: entities that play, end, get
//! stolen, stop when despawned, and buses paused by label.

mod support;

use std::time::Duration;

use bevy_ecs::prelude::*;
use support::*;
use voicepool::{BusSettings, PlayParams};
use voicepool_bevy::{OnEnd, PlayingVoice, RejectReason, SoundEvent, SoundPlayer, Voicepool};

#[test]
fn a_spawned_sound_plays_and_its_entity_ends_as_set() {
    // (what the entity is set to do, whether it exists after, whether it
    // still has its SoundPlayer)
    let cases = [
        (OnEnd::Despawn, false, false),
        (OnEnd::Remove, true, false),
        (OnEnd::Keep, true, true),
    ];
    for (on_end, exists, has_player) in cases {
        let dir = TempDir::new("ends");
        let mut app = app(&dir.0, plugin(8));
        let beep = add_sound(&mut app, tone(0.1, 0.5));
        let entity = app
            .world_mut()
            .spawn(SoundPlayer::new(beep).on_end(on_end))
            .id();
        run(&mut app, 5);
        assert!(
            app.world().get::<PlayingVoice>(entity).is_some(),
            "{on_end:?}: playing"
        );
        run(&mut app, 15); // the 100 ms tone is over
        let out = rendered(&app);
        let (l, r) = rms(&out, 0, 4_800);
        assert!(
            l > 0.2 && r > 0.2,
            "{on_end:?}: the tone is in the output ({l}, {r})"
        );
        assert_eq!(
            rms(&out, 5_000, 9_600),
            (0.0, 0.0),
            "{on_end:?}: then silence"
        );
        let world = app.world();
        assert_eq!(world.get_entity(entity).is_ok(), exists, "{on_end:?}");
        if exists {
            assert_eq!(
                world.get::<SoundPlayer>(entity).is_some(),
                has_player,
                "{on_end:?}"
            );
            assert!(
                world.get::<PlayingVoice>(entity).is_none(),
                "{on_end:?}: no voice left"
            );
        }
        assert_eq!(
            events(&app),
            [SoundEvent::Started { entity }, SoundEvent::Ended { entity }],
            "{on_end:?}"
        );
    }
}

#[test]
fn a_burst_into_a_full_pool_steals_and_names_the_thief() {
    let dir = TempDir::new("burst");
    let mut app = app(&dir.0, plugin(2));
    let hum = add_sound(&mut app, tone(2.0, 0.5));
    let params = |volume| PlayParams::default().volume(volume).looping(true);
    let loud = app
        .world_mut()
        .spawn(SoundPlayer::new(hum.clone()).params(params(1.0)))
        .id();
    let faint = app
        .world_mut()
        .spawn(SoundPlayer::new(hum.clone()).params(params(0.05)))
        .id();
    run(&mut app, 10);
    let thief = app
        .world_mut()
        .spawn(SoundPlayer::new(hum).params(params(0.5)))
        .id();
    run(&mut app, 3);
    let stolen: Vec<_> = events(&app)
        .into_iter()
        .filter(|e| matches!(e, SoundEvent::Stolen { .. }))
        .collect();
    assert_eq!(
        stolen,
        [SoundEvent::Stolen {
            entity: faint,
            by: Some(thief)
        }]
    );
    assert!(
        app.world().get_entity(faint).is_err(),
        "the victim's entity is despawned"
    );
    assert!(app.world().get::<PlayingVoice>(loud).is_some());
    assert!(app.world().get::<PlayingVoice>(thief).is_some());
}

#[test]
fn despawning_a_playing_entity_stops_its_voice() {
    let dir = TempDir::new("despawn");
    let mut app = app(&dir.0, plugin(8));
    let hum = add_sound(&mut app, tone(2.0, 0.5));
    let entity = app
        .world_mut()
        .spawn(SoundPlayer::new(hum).params(PlayParams::default().looping(true)))
        .id();
    run(&mut app, 10);
    app.world_mut().despawn(entity);
    run(&mut app, 10);
    let out = rendered(&app);
    assert!(rms(&out, 0, 4_800).0 > 0.2, "it played");
    assert_eq!(
        rms(&out, 6_000, 9_600),
        (0.0, 0.0),
        "silent after the stop fade"
    );
    assert_eq!(events(&app).last(), Some(&SoundEvent::Ended { entity }));
}

#[test]
fn removing_the_player_stops_the_voice_and_keeps_the_entity() {
    let dir = TempDir::new("remove");
    let mut app = app(&dir.0, plugin(8));
    let hum = add_sound(&mut app, tone(2.0, 0.5));
    let entity = app
        .world_mut()
        .spawn(SoundPlayer::new(hum).params(PlayParams::default().looping(true)))
        .id();
    run(&mut app, 10);
    app.world_mut().entity_mut(entity).remove::<SoundPlayer>();
    run(&mut app, 10);
    assert_eq!(rms(&rendered(&app), 6_000, 9_600), (0.0, 0.0));
    assert!(
        app.world().get_entity(entity).is_ok(),
        "a detached voice's end leaves the entity alone"
    );
}

#[test]
fn a_paused_bus_is_silent_and_resumes() {
    let dir = TempDir::new("bus");
    let mut app = app(&dir.0, plugin(8).bus("world", BusSettings::default()));
    let hum = add_sound(&mut app, tone(2.0, 0.5));
    app.world_mut().spawn(
        SoundPlayer::new(hum)
            .params(PlayParams::default().looping(true))
            .bus("world"),
    );
    let pause = |audio: Voicepool| audio.pause_bus("world").unwrap();
    let resume = |audio: Voicepool| audio.resume_bus("world").unwrap();
    run(&mut app, 10);
    app.world_mut().run_system_cached(pause).unwrap();
    run(&mut app, 10);
    app.world_mut().run_system_cached(resume).unwrap();
    run(&mut app, 10);
    let out = rendered(&app);
    assert!(rms(&out, 0, 4_800).0 > 0.2, "playing");
    assert!(rms(&out, 6_000, 9_600).0 < 1e-6, "paused: silent");
    assert!(rms(&out, 11_000, 14_400).0 > 0.2, "resumed");
}

#[test]
fn a_voice_paused_by_entity_holds_its_place() {
    let dir = TempDir::new("pause");
    let mut app = app(&dir.0, plugin(8));
    let beep = add_sound(&mut app, tone(0.2, 0.5)); // 20 updates long
    let entity = app.world_mut().spawn(SoundPlayer::new(beep)).id();
    run(&mut app, 5);
    app.world_mut()
        .run_system_cached_with(
            |In(e): In<Entity>, audio: Voicepool| audio.pause(e).unwrap(),
            entity,
        )
        .unwrap();
    run(&mut app, 30);
    assert!(
        app.world().get::<PlayingVoice>(entity).is_some(),
        "paused, not ended"
    );
    app.world_mut()
        .run_system_cached_with(
            |In(e): In<Entity>, audio: Voicepool| audio.resume(e).unwrap(),
            entity,
        )
        .unwrap();
    run(&mut app, 30);
    assert!(
        app.world().get_entity(entity).is_err(),
        "played out after resuming"
    );
}

#[test]
fn unknown_labels_are_rejected_with_the_label() {
    let dir = TempDir::new("labels");
    let mut app = app(&dir.0, plugin(8));
    let beep = add_sound(&mut app, tone(0.1, 0.5));
    let on_bus = app
        .world_mut()
        .spawn(SoundPlayer::new(beep.clone()).bus("nope"))
        .id();
    let in_group = app
        .world_mut()
        .spawn(SoundPlayer::new(beep).group("missing").on_end(OnEnd::Keep))
        .id();
    run(&mut app, 2);
    let heard = events(&app);
    assert!(heard.contains(&SoundEvent::Rejected {
        entity: on_bus,
        reason: RejectReason::UnknownBus("nope".into())
    }));
    assert!(heard.contains(&SoundEvent::Rejected {
        entity: in_group,
        reason: RejectReason::UnknownGroup("missing".into())
    }));
    assert!(app.world().get_entity(on_bus).is_err());
    assert!(
        app.world().get::<SoundPlayer>(in_group).is_some(),
        "kept, and not retried"
    );
    run(&mut app, 2);
    assert_eq!(events(&app).len(), 2);
}

#[test]
fn the_same_app_renders_the_same_samples() {
    let render = || {
        let dir = TempDir::new("determinism");
        let mut app = app(&dir.0, plugin(3));
        let hum = add_sound(&mut app, tone(0.3, 0.4));
        for i in 0..12 {
            let volume = 0.2 + 0.05 * i as f32;
            app.world_mut()
                .spawn(SoundPlayer::new(hum.clone()).params(PlayParams::default().volume(volume)));
            run(&mut app, 3);
        }
        run(&mut app, 20);
        (rendered(&app), events(&app).len())
    };
    let (a, events_a) = render();
    let (b, events_b) = render();
    assert!(a.iter().any(|&s| s.abs() > 0.1));
    assert_eq!(a, b);
    assert_eq!(events_a, events_b);
}

#[test]
fn a_fade_by_entity_reaches_its_volume() {
    let dir = TempDir::new("fade");
    let mut app = app(&dir.0, plugin(8));
    let hum = add_sound(&mut app, tone(2.0, 0.5));
    let entity = app
        .world_mut()
        .spawn(SoundPlayer::new(hum).params(PlayParams::default().looping(true)))
        .id();
    run(&mut app, 5);
    app.world_mut()
        .run_system_cached_with(
            |In(e): In<Entity>, audio: Voicepool| {
                audio
                    .fade_volume(e, 0.25, Duration::from_millis(50))
                    .unwrap()
            },
            entity,
        )
        .unwrap();
    run(&mut app, 20);
    let out = rendered(&app);
    let before = rms(&out, 0, 2_400).0;
    let after = rms(&out, 7_200, 9_600).0;
    assert!((after / before - 0.25).abs() < 0.02, "{before} -> {after}");
}
