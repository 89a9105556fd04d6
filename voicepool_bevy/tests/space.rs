//! Emitters and the listener from transforms: a sound passing in front of
//! the listener gets louder as it comes and pans from left to right.

mod support;

use bevy_app::Update;
use bevy_ecs::prelude::*;
use bevy_transform::components::Transform;
use support::*;
use voicepool::PlayParams;
use voicepool_bevy::{PlayingVoice, SoundListener, SoundPlayer};

/// Moves along +X at this many metres per update.
#[derive(Component)]
struct Slide(f32);

fn slide(mut movers: Query<(&Slide, &mut Transform)>) {
    for (slide, mut transform) in &mut movers {
        transform.translation.x += slide.0;
    }
}

#[test]
fn a_passing_emitter_gets_louder_as_it_comes_and_pans_as_it_passes() {
    let dir = TempDir::new("passing");
    let mut app = app(&dir.0, plugin(8));
    app.add_systems(Update, slide);
    let hum = add_sound(&mut app, tone(1.0, 0.5));
    // The listener at the origin, facing -Z (Bevy's forward); the emitter
    // 3 m in front, passing from 40 m left to 40 m right at 20 m/s.
    app.world_mut().spawn((SoundListener, Transform::default()));
    let car = app
        .world_mut()
        .spawn((
            SoundPlayer::new(hum).params(PlayParams::default().looping(true)),
            Transform::from_xyz(-40.0, 0.0, -3.0),
            Slide(0.2), // 20 m/s at 100 updates a second
        ))
        .id();
    run(&mut app, 400);
    assert!(app.world().get::<PlayingVoice>(car).is_some());
    let out = rendered(&app);
    // The five updates around the one at which the car is at `x`.
    let at = |x: f32| {
        let update = ((x + 40.0) / 0.2).round() as usize;
        rms(&out, (update - 2) * FRAMES, (update + 3) * FRAMES)
    };
    let level = |(l, r): (f32, f32)| (l * l + r * r).sqrt();
    let (far, near, closest) = (at(-35.0), at(-10.0), at(0.0));
    assert!(
        level(far) * 2.0 < level(near),
        "louder as it comes: {far:?} {near:?}"
    );
    assert!(
        level(near) * 1.5 < level(closest),
        "loudest in front: {near:?} {closest:?}"
    );
    let (left, right) = (at(-20.0), at(20.0));
    assert!(
        left.0 > 3.0 * left.1,
        "on the left, heard on the left: {left:?}"
    );
    assert!(
        right.1 > 3.0 * right.0,
        "on the right, heard on the right: {right:?}"
    );
    assert!(
        (closest.0 / closest.1 - 1.0).abs() < 0.2,
        "in front, centred: {closest:?}"
    );
}

#[test]
fn a_turned_listener_hears_the_same_emitter_on_its_other_side() {
    let render = |facing: Transform| {
        let dir = TempDir::new("turned");
        let mut app = app(&dir.0, plugin(8));
        let hum = add_sound(&mut app, tone(1.0, 0.5));
        app.world_mut().spawn((SoundListener, facing));
        app.world_mut().spawn((
            SoundPlayer::new(hum).params(PlayParams::default().looping(true)),
            Transform::from_xyz(-5.0, 0.0, 0.0),
        ));
        run(&mut app, 20);
        rms(&rendered(&app), 10 * FRAMES, 20 * FRAMES)
    };
    let facing_z = render(Transform::default());
    let facing_back =
        render(Transform::default().looking_to(bevy_math::Vec3::Z, bevy_math::Vec3::Y));
    assert!(
        facing_z.0 > 3.0 * facing_z.1,
        "facing -Z, -X is left: {facing_z:?}"
    );
    assert!(
        facing_back.1 > 3.0 * facing_back.0,
        "facing +Z, -X is right: {facing_back:?}"
    );
}

#[test]
fn a_non_spatial_player_on_a_placed_entity_is_not_placed() {
    let dir = TempDir::new("non_spatial");
    let mut app = app(&dir.0, plugin(8));
    let hum = add_sound(&mut app, tone(1.0, 0.5));
    app.world_mut().spawn((SoundListener, Transform::default()));
    app.world_mut().spawn((
        SoundPlayer::new(hum)
            .params(PlayParams::default().looping(true))
            .non_spatial(),
        Transform::from_xyz(-500.0, 0.0, 0.0),
    ));
    run(&mut app, 10);
    let (l, r) = rms(&rendered(&app), 5 * FRAMES, 10 * FRAMES);
    assert!(
        l > 0.2 && (l / r - 1.0).abs() < 0.01,
        "full level, centred: {l} {r}"
    );
}

#[test]
fn a_non_spatial_player_keeps_the_position_its_params_give() {
    let dir = TempDir::new("own_position");
    let mut app = app(&dir.0, plugin(8));
    app.add_systems(Update, slide);
    let hum = add_sound(&mut app, tone(1.0, 0.5));
    app.world_mut().spawn((SoundListener, Transform::default()));
    // Placed 5 m to the left by its parameters, on an entity sliding far
    // to the right: the entity's place is not its.
    let params = PlayParams::default()
        .looping(true)
        .position([-5.0, 0.0, 0.0]);
    app.world_mut().spawn((
        SoundPlayer::new(hum).params(params).non_spatial(),
        Transform::from_xyz(0.0, 0.0, -1.0),
        Slide(1.0),
    ));
    run(&mut app, 30);
    let (l, r) = rms(&rendered(&app), 20 * FRAMES, 30 * FRAMES);
    assert!(l > 3.0 * r, "still on the left: {l} {r}");
}

#[test]
fn a_degenerate_listener_is_skipped_not_a_panic() {
    let dir = TempDir::new("degenerate");
    let mut app = app(&dir.0, plugin(8));
    let hum = add_sound(&mut app, tone(1.0, 0.5));
    for scale in [bevy_math::Vec3::ZERO, bevy_math::Vec3::NAN] {
        app.world_mut()
            .spawn((SoundListener, Transform::default().with_scale(scale)));
    }
    app.world_mut().spawn((
        SoundPlayer::new(hum).params(PlayParams::default().looping(true)),
        Transform::from_xyz(-5.0, 0.0, 0.0),
    ));
    run(&mut app, 10);
    let (l, r) = rms(&rendered(&app), 5 * FRAMES, 10 * FRAMES);
    assert!(
        l > 3.0 * r,
        "heard from the default listener at the origin: {l} {r}"
    );
}

/// Zero crossings of the left channel of `out` (a tone's pitch, by count).
fn crossings(out: &[f32]) -> usize {
    let left: Vec<f32> = out.chunks(2).map(|f| f[0]).collect();
    left.windows(2)
        .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
        .count()
}

#[test]
fn a_velocity_the_game_gives_is_heard_as_doppler() {
    // (the emitter's given velocity, m/s toward the listener, or none: it
    // stands still; how its pitch compares with a still one's)
    let mut counts = Vec::new();
    for toward in [None, Some(100.0f32), Some(-100.0)] {
        let dir = TempDir::new("given-velocity");
        let mut app = app(&dir.0, plugin(8));
        let hum = add_sound(&mut app, tone(1.0, 0.5));
        app.world_mut().spawn((SoundListener, Transform::default()));
        let mut e = app.world_mut().spawn((
            SoundPlayer::new(hum).params(PlayParams::default().looping(true)),
            Transform::from_xyz(0.0, 0.0, -10.0),
        ));
        if let Some(speed) = toward {
            // From -Z toward the origin is +Z.
            e.insert(voicepool_bevy::SoundVelocity(bevy_math::Vec3::Z * speed));
        }
        run(&mut app, 20);
        let out = rendered(&app);
        counts.push(crossings(&out[out.len() / 2..]) as f64);
    }
    // OpenAL's doppler at 343.3 m/s: c / (c - 100) coming, c / (c + 100) going.
    let c = 343.3;
    let coming = counts[1] / counts[0];
    let going = counts[2] / counts[0];
    assert!((coming - c / (c - 100.0)).abs() < 0.03, "{counts:?}");
    assert!((going - c / (c + 100.0)).abs() < 0.03, "{counts:?}");
}

/// Turned half a turn about +Y at this update.
#[derive(Component)]
struct TurnAt(usize);

#[derive(Resource, Default)]
struct Updates(usize);

fn turn(mut n: ResMut<Updates>, mut turners: Query<(&TurnAt, &mut Transform)>) {
    n.0 += 1;
    for (at, mut t) in &mut turners {
        if n.0 == at.0 {
            t.rotate_y(std::f32::consts::PI);
        }
    }
}

#[test]
fn a_cone_faces_where_its_entity_does() {
    let dir = TempDir::new("cone");
    let mut app = app(&dir.0, plugin(8));
    app.init_resource::<Updates>();
    app.add_systems(Update, turn);
    let hum = add_sound(&mut app, tone(1.0, 0.5));
    app.world_mut().spawn((SoundListener, Transform::default()));
    // 2 m ahead of the listener, facing away from it (its -Z is the
    // world's -Z), then turned to face it at update 20.
    let cone = voicepool::Cone {
        inner_deg: 90.0,
        outer_deg: 180.0,
        outer_gain: 0.1,
        outer_lowpass_hz: 20_000.0,
    };
    let spatial = voicepool::Spatial {
        cone: Some(cone),
        ..Default::default()
    };
    app.world_mut().spawn((
        SoundPlayer::new(hum).params(PlayParams::default().looping(true).spatial(spatial)),
        Transform::from_xyz(0.0, 0.0, -2.0),
        TurnAt(20),
    ));
    run(&mut app, 40);
    let out = rendered(&app);
    let level = |from: usize| {
        let (l, r) = rms(&out, from * FRAMES, (from + 10) * FRAMES);
        (l * l + r * r).sqrt()
    };
    let (away, facing) = (level(5), level(28));
    assert!(
        (facing / away - 10.0).abs() < 0.5,
        "facing away a tenth as loud: {away} then {facing}"
    );
}

#[test]
fn the_occlusion_component_muffles_and_its_removal_clears() {
    let dir = TempDir::new("occlusion");
    let mut app = app(&dir.0, plugin(8));
    let hum = add_sound(&mut app, tone(1.0, 0.5));
    app.world_mut().spawn((SoundListener, Transform::default()));
    let e = app
        .world_mut()
        .spawn((
            SoundPlayer::new(hum).params(PlayParams::default().looping(true)),
            Transform::from_xyz(0.0, 0.0, -1.0),
            voicepool_bevy::SoundOcclusion {
                gain: 0.25,
                lowpass_hz: 20_000.0,
            },
        ))
        .id();
    run(&mut app, 10);
    // A bad value is refused and leaves the occlusion as it was.
    app.world_mut()
        .entity_mut(e)
        .insert(voicepool_bevy::SoundOcclusion {
            gain: f32::NAN,
            lowpass_hz: 100.0,
        });
    run(&mut app, 10);
    app.world_mut()
        .entity_mut(e)
        .remove::<voicepool_bevy::SoundOcclusion>();
    run(&mut app, 10);
    let out = rendered(&app);
    let level = |from: usize| rms(&out, from * FRAMES, (from + 8) * FRAMES).0;
    let (occluded, refused, cleared) = (level(2), level(12), level(22));
    assert!(
        (cleared / occluded - 4.0).abs() < 0.05,
        "{occluded} then {cleared}"
    );
    assert!(
        (refused / occluded - 1.0).abs() < 0.01,
        "{occluded} then {refused}"
    );
}
