//! Headless apps with the offline output: entities that play, end, get
//! stolen, stop when despawned, and buses paused by label.

mod support;

use std::time::Duration;

use bevy_ecs::prelude::*;
use support::*;
use voicepool::{BusSettings, PlayParams};
use voicepool_bevy::{OnEnd, PlayingVoice, RejectReason, SoundEvent, SoundPlayer};

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
fn despawning_or_removing_the_player_stops_the_voice() {
    // (removing only the player: the entity stays)
    for only_the_player in [false, true] {
        let dir = TempDir::new("despawn");
        let mut app = app(&dir.0, plugin(8));
        let entity = spawn_loop(&mut app, |p| p);
        run(&mut app, 10);
        if only_the_player {
            app.world_mut().entity_mut(entity).remove::<SoundPlayer>();
        } else {
            app.world_mut().despawn(entity);
        }
        run(&mut app, 10);
        let out = rendered(&app);
        assert!(rms(&out, 0, 4_800).0 > 0.2, "it played");
        assert_eq!(
            rms(&out, 6_000, 9_600),
            (0.0, 0.0),
            "silent after the stop fade"
        );
        // Stopped by the game: no end to report to an entity that moved on.
        assert_eq!(events(&app), [SoundEvent::Started { entity }]);
        if only_the_player {
            let world = app.world();
            assert!(world.get_entity(entity).is_ok(), "the entity stays");
            assert!(
                world.get::<PlayingVoice>(entity).is_none(),
                "no voice left on it"
            );
        }
    }
}

#[test]
fn a_player_despawned_in_the_update_it_starts_leaves_nothing_playing() {
    #[derive(Component)]
    struct Doomed;
    // Despawns in PostUpdate, in no order with the plugin's systems.
    fn doom(mut commands: Commands, doomed: Query<Entity, With<Doomed>>) {
        for e in &doomed {
            commands.entity(e).despawn();
        }
    }
    let dir = TempDir::new("doomed");
    let mut app = app(&dir.0, plugin(8));
    app.add_systems(bevy_app::PostUpdate, doom);
    let entity = spawn_loop(&mut app, |p| p);
    app.world_mut().entity_mut(entity).insert(Doomed);
    run(&mut app, 20);
    let out = rendered(&app);
    assert!(rms(&out, 4_800, 9_600).0 < 1e-6, "nothing plays for nobody");
    assert!(app.world().get_entity(entity).is_err());
}

#[test]
fn a_replaced_player_plays_the_new_sound_and_reports_only_its_own() {
    let dir = TempDir::new("replace");
    let mut app = app(&dir.0, plugin(8));
    let entity = spawn_loop(&mut app, |p| p.on_end(OnEnd::Keep));
    run(&mut app, 10);
    let first = app.world().get::<PlayingVoice>(entity).copied();
    let chirp = add_sound(&mut app, tone(0.1, 0.25));
    app.world_mut()
        .entity_mut(entity)
        .insert(SoundPlayer::new(chirp).on_end(OnEnd::Keep));
    run(&mut app, 20);
    let out = rendered(&app);
    let (before, after) = (rms(&out, 0, 4_800).0, rms(&out, 5_400, 9_600).0);
    assert!(
        before > 0.2 && after > 0.1 && after < 0.15,
        "the new, quieter sound: {before} {after}"
    );
    assert_eq!(
        rms(&out, 10_500, 14_400),
        (0.0, 0.0),
        "then silence: the old voice is gone"
    );
    assert_eq!(
        events(&app),
        [
            SoundEvent::Started { entity },
            SoundEvent::Started { entity },
            SoundEvent::Ended { entity }
        ]
    );
    let now = app.world().get::<PlayingVoice>(entity).copied();
    assert!(
        first.is_some() && now.is_none(),
        "kept, without a voice, after the new sound"
    );
}

#[test]
fn a_paused_bus_is_silent_and_resumes() {
    let dir = TempDir::new("bus");
    let mut app = app(&dir.0, plugin(8).bus("world", BusSettings::default()));
    let entity = spawn_loop(&mut app, |p| p.bus("world"));
    run(&mut app, 10);
    control(&mut app, entity, |audio, _| {
        audio.pause_bus("world").unwrap()
    });
    run(&mut app, 10);
    control(&mut app, entity, |audio, _| {
        audio.resume_bus("world").unwrap()
    });
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
    control(&mut app, entity, |audio, e| audio.pause(e).unwrap());
    run(&mut app, 30);
    assert!(
        app.world().get::<PlayingVoice>(entity).is_some(),
        "paused, not ended"
    );
    control(&mut app, entity, |audio, e| audio.resume(e).unwrap());
    // 15 updates of tone were left: it plays them, no more, no fewer.
    run(&mut app, 13);
    assert!(
        app.world().get::<PlayingVoice>(entity).is_some(),
        "resumed where it was"
    );
    run(&mut app, 5);
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
    let entity = spawn_loop(&mut app, |p| p);
    run(&mut app, 5);
    control(&mut app, entity, |audio, e| {
        audio
            .fade_volume(e, 0.25, Duration::from_millis(50))
            .unwrap()
    });
    run(&mut app, 20);
    let out = rendered(&app);
    let before = rms(&out, 0, 2_400).0;
    let after = rms(&out, 7_200, 9_600).0;
    assert!((after / before - 0.25).abs() < 0.02, "{before} -> {after}");
}

#[test]
fn refusals_say_why() {
    use voicepool::{GroupSettings, StealPolicy};
    let dir = TempDir::new("refusals");
    let group = GroupSettings {
        max_voices: 1,
        policy: StealPolicy::Reject,
        ..Default::default()
    };
    let mut app = app(&dir.0, plugin(8).group("one", group));
    let first = spawn_loop(&mut app, |p| p.group("one"));
    let second = spawn_loop(&mut app, |p| p.group("one"));
    // A handle to nothing: neither loaded nor loading.
    let nothing = app
        .world_mut()
        .spawn(SoundPlayer::new(Default::default()))
        .id();
    run(&mut app, 3);
    let heard = events(&app);
    assert!(heard.contains(&SoundEvent::Started { entity: first }));
    assert!(heard.contains(&SoundEvent::Rejected {
        entity: second,
        reason: RejectReason::Refused
    }));
    // A handle to nothing: no path, nothing loading.
    assert!(heard.contains(&SoundEvent::Rejected {
        entity: nothing,
        reason: RejectReason::AssetFailed {
            path: String::new(),
            error: String::new()
        }
    }));
    assert!(
        app.world().get_entity(nothing).is_err(),
        "despawned, not waiting for ever"
    );
}

#[test]
fn the_plugin_works_added_before_the_asset_plugin() {
    use bevy_app::TaskPoolPlugin;
    use bevy_asset::AssetPlugin;
    use voicepool_bevy::{OfflineOutput, RenderedAudio, SoundAsset, VoicepoolPlugin};
    let mut app = bevy_app::App::new();
    app.add_plugins((
        VoicepoolPlugin::default().offline(OfflineOutput {
            frames_per_update: 480,
            keep_samples: true,
        }),
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
    ));
    // What `App::run` does once every plugin is built.
    app.finish();
    app.cleanup();
    let beep = app
        .world_mut()
        .resource_mut::<bevy_asset::Assets<SoundAsset>>()
        .add(SoundAsset::from(tone(0.05, 0.5)));
    app.world_mut().spawn(SoundPlayer::new(beep));
    run(&mut app, 5);
    let audio = app.world().resource::<RenderedAudio>();
    assert!(audio.samples.iter().any(|&s| s.abs() > 0.2));
}

#[test]
#[should_panic(expected = "VoicepoolPlugin needs bevy_asset's AssetPlugin")]
fn without_the_asset_plugin_it_says_what_to_add() {
    let mut app = bevy_app::App::new();
    app.add_plugins(voicepool_bevy::VoicepoolPlugin::default());
    app.finish();
}

/// What the entity observers saw, in order: (entity, what, still there).
#[derive(Resource, Default)]
struct Observed(Vec<(Entity, String, bool)>);

/// Observes every per-entity sound event on `entity`, noting whether the
/// entity still existed when its observer ran.
fn watch(app: &mut bevy_app::App, entity: Entity) {
    use voicepool_bevy::{
        SoundEnded, SoundRejected, SoundResumed, SoundStarted, SoundStolen, SoundVirtualized,
    };
    fn note(world: &mut World, entity: Entity, what: String) {
        let there = world.get_entity(entity).is_ok();
        world
            .resource_mut::<Observed>()
            .0
            .push((entity, what, there));
    }
    let mut e = app.world_mut().entity_mut(entity);
    e.observe(|ev: On<SoundStarted>, mut c: Commands| {
        let entity = ev.entity;
        c.queue(move |w: &mut World| note(w, entity, "started".into()));
    });
    e.observe(|ev: On<SoundEnded>, mut c: Commands| {
        let entity = ev.entity;
        c.queue(move |w: &mut World| note(w, entity, "ended".into()));
    });
    e.observe(|ev: On<SoundStolen>, mut c: Commands| {
        let (entity, by) = (ev.entity, ev.by);
        c.queue(move |w: &mut World| note(w, entity, format!("stolen by {by:?}")));
    });
    e.observe(|ev: On<SoundRejected>, mut c: Commands| {
        let (entity, reason) = (ev.entity, ev.reason.clone());
        c.queue(move |w: &mut World| note(w, entity, format!("rejected: {reason}")));
    });
    e.observe(|ev: On<SoundVirtualized>, mut c: Commands| {
        let entity = ev.entity;
        c.queue(move |w: &mut World| note(w, entity, "virtualized".into()));
    });
    e.observe(|ev: On<SoundResumed>, mut c: Commands| {
        let entity = ev.entity;
        c.queue(move |w: &mut World| note(w, entity, "resumed".into()));
    });
}

#[test]
fn entity_observers_hear_what_happens_to_their_sound() {
    let dir = TempDir::new("observers");
    let mut app = app(&dir.0, plugin(2));
    app.init_resource::<Observed>();
    let hum = add_sound(&mut app, tone(2.0, 0.5));
    let blip = add_sound(&mut app, tone(0.02, 0.5));
    let params = |volume| PlayParams::default().volume(volume).looping(true);
    let short = app.world_mut().spawn(SoundPlayer::new(blip)).id();
    watch(&mut app, short);
    run(&mut app, 10);
    let loud = app
        .world_mut()
        .spawn(SoundPlayer::new(hum.clone()).params(params(1.0)))
        .id();
    let faint = app
        .world_mut()
        .spawn(SoundPlayer::new(hum.clone()).params(params(0.05)))
        .id();
    for e in [loud, faint] {
        watch(&mut app, e);
    }
    run(&mut app, 10);
    let thief = app
        .world_mut()
        .spawn(SoundPlayer::new(hum.clone()).params(PlayParams::default().volume(0.5)))
        .id();
    let missing = app
        .world_mut()
        .spawn(SoundPlayer::new(Default::default()))
        .id();
    watch(&mut app, missing);
    run(&mut app, 3);
    let seen = &app.world().resource::<Observed>().0;
    let of = |e: Entity| -> Vec<(String, bool)> {
        seen.iter()
            .filter(|(x, ..)| *x == e)
            .map(|(_, what, there)| (what.clone(), *there))
            .collect()
    };
    // Each observer ran on its entity, while it was still there.
    let s = |x: &str| (x.to_string(), true);
    assert_eq!(of(short), [s("started"), s("ended")]);
    assert_eq!(of(loud), [s("started")]);
    assert_eq!(
        of(faint),
        [s("started"), s(&format!("stolen by {:?}", Some(thief)))]
    );
    let rejected = of(missing);
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(
        rejected[0].0.starts_with("rejected: its sound asset"),
        "{rejected:?}"
    );
    assert!(
        app.world().get_entity(short).is_err(),
        "despawned after its observers ran"
    );
}

#[test]
fn components_and_resources_are_registered_for_reflection() {
    use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
    use bevy_reflect::{GetPath, Reflect};
    use std::any::TypeId;
    use voicepool_bevy::{RenderedAudio, SoundListener, SoundVelocity};
    let dir = TempDir::new("reflect");
    let mut app = app(&dir.0, plugin(2));
    let hum = add_sound(&mut app, tone(0.5, 0.5));
    let entity = app
        .world_mut()
        .spawn(SoundPlayer::new(hum).on_end(OnEnd::Keep).bus("music"))
        .id();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for (name, id) in [
        ("SoundPlayer", TypeId::of::<SoundPlayer>()),
        ("SoundListener", TypeId::of::<SoundListener>()),
        ("SoundVelocity", TypeId::of::<SoundVelocity>()),
    ] {
        let registration = registry
            .get(id)
            .unwrap_or_else(|| panic!("{name} not registered"));
        assert!(registration.data::<ReflectComponent>().is_some(), "{name}");
    }
    let rendered = registry
        .get(TypeId::of::<RenderedAudio>())
        .expect("RenderedAudio");
    assert!(rendered.data::<ReflectResource>().is_some());
    // What an inspector does: read a field by its path.
    let reflect = registry
        .get(TypeId::of::<SoundPlayer>())
        .unwrap()
        .data::<ReflectComponent>()
        .unwrap();
    let player = reflect.reflect(app.world().entity(entity)).unwrap();
    let on_end = player.reflect_path("on_end").unwrap();
    assert_eq!(on_end.try_downcast_ref::<OnEnd>(), Some(&OnEnd::Keep));
    let _: &dyn Reflect = player.as_reflect();
}

#[test]
fn typed_labels_name_the_same_bus_as_themselves_and_strings_still_work() {
    use voicepool_bevy::SoundLabel;
    #[derive(Debug, Clone, Copy)]
    enum Bus {
        Music,
        World,
    }
    impl SoundLabel for Bus {}
    let dir = TempDir::new("typed-labels");
    let plugin = plugin(4)
        .bus(Bus::Music, BusSettings::default())
        .bus(Bus::World, BusSettings::default())
        .bus("ui", BusSettings::default());
    let mut app = app(&dir.0, plugin);
    let hum = add_sound(&mut app, tone(1.0, 0.5));
    let on_world = app
        .world_mut()
        .spawn(SoundPlayer::new(hum.clone()).bus(Bus::World))
        .id();
    let on_ui = app.world_mut().spawn(SoundPlayer::new(hum).bus("ui")).id();
    run(&mut app, 3);
    let heard = events(&app);
    for e in [on_world, on_ui] {
        assert!(
            heard.contains(&SoundEvent::Started { entity: e }),
            "{heard:?}"
        );
    }
    // The typed label names its bus; another variant names another.
    control(&mut app, on_world, |audio, _| {
        let (music, world) = (audio.bus(Bus::Music), audio.bus(Bus::World));
        assert!(music.is_some() && world.is_some() && music != world);
        assert_eq!(audio.bus("ui").map(|b| b.index()), Some(3));
        audio.pause_bus(Bus::World).unwrap();
    });
    run(&mut app, 5);
    let out = rendered(&app);
    // Only the ui bus sounds now: half of what both made.
    let before = rms(&out, 2 * 480, 3 * 480).0;
    let after = rms(&out, out.len() / 2 - 480, out.len() / 2).0;
    assert!(
        after < before * 0.8 && after > before * 0.3,
        "{before} -> {after}"
    );
}

#[test]
fn a_cloned_plugin_makes_its_buses_in_every_app() {
    use voicepool::{CustomEffect, Effect};
    struct Quiet;
    impl CustomEffect for Quiet {
        fn process(&mut self, l: &mut [f32], r: &mut [f32]) {
            l.iter_mut().chain(r.iter_mut()).for_each(|x| *x *= 0.5);
        }
    }
    let plugin = plugin(2)
        .bus(
            "plain",
            BusSettings {
                effects: vec![Effect::LowPass { cutoff_hz: 2_000.0 }],
                ..Default::default()
            },
        )
        .bus_with("made", || BusSettings {
            effects: vec![Effect::Custom(Box::new(Quiet))],
            ..Default::default()
        })
        .bus(
            "once",
            BusSettings {
                effects: vec![Effect::Custom(Box::new(Quiet))],
                ..Default::default()
            },
        );
    let copy = plugin.clone();
    let dir = TempDir::new("cloned-plugin");
    for (k, plugin) in [plugin, copy].into_iter().enumerate() {
        let mut app = app(&dir.0, plugin);
        use bevy_ecs::system::RunSystemOnce;
        let made = app
            .world_mut()
            .run_system_once(|audio: voicepool_bevy::Voicepool| {
                ["plain", "made", "once"].map(|label| audio.bus(label).is_some())
            })
            .unwrap();
        // A game's own effect given by value goes to the first app only.
        assert_eq!(made, [true, true, k == 0], "app {k}");
    }
}

#[test]
fn a_fixed_step_output_keeps_time_with_the_fixed_clock() {
    use bevy_app::{FixedUpdate, TaskPoolPlugin};
    use bevy_asset::AssetPlugin;
    use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
    use voicepool_bevy::{AudioOutput, RenderedAudio, SoundAsset, VoicepoolPlugin};

    /// Fixed steps run so far.
    #[derive(Resource, Default)]
    struct Steps(u32);

    let render = || {
        let mut app = bevy_app::App::new();
        app.add_plugins((
            TaskPoolPlugin::default(),
            TimePlugin,
            AssetPlugin::default(),
            VoicepoolPlugin::default().output(AudioOutput::OfflineFixedStep { keep_samples: true }),
        ));
        // 60 updates a second against 64 fixed steps a second: some updates
        // run one step, some two, some none.
        app.insert_resource(TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_secs_f64(1.0 / 60.0),
        ));
        app.init_resource::<Steps>();
        app.add_systems(FixedUpdate, |mut steps: ResMut<Steps>| steps.0 += 1);
        app.finish();
        app.cleanup();
        let hum = app
            .world_mut()
            .resource_mut::<bevy_asset::Assets<SoundAsset>>()
            .add(SoundAsset::from(tone(2.0, 0.5)));
        app.world_mut().spawn(SoundPlayer::new(hum));
        run(&mut app, 90);
        let steps = app.world().resource::<Steps>().0;
        let fixed = app.world().resource::<Time<Fixed>>().elapsed_secs_f64();
        let samples = app.world().resource::<RenderedAudio>().samples.clone();
        (steps, fixed, samples)
    };
    let (steps, fixed, samples) = render();
    // 64 Hz at 48 kHz: 750 frames a step, every step rendered.
    assert!(steps > 80, "{steps} fixed steps");
    assert_eq!(
        samples.len() / 2,
        steps as usize * 750,
        "fixed clock at {fixed} s"
    );
    assert!(samples.iter().any(|&s| s.abs() > 0.2));
    // The same app renders the same samples.
    assert_eq!(render().2, samples);
}
