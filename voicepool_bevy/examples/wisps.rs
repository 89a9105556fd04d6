//! Wisps: a small Bevy scene that shows voicepool at work.
//!
//! Four wisps circle the listener, each humming a loop that may go
//! virtual, over a wind streamed from disk; every 1.5 s a burst of
//! sparkles and swishes lands around the listener, more than the pool's 12
//! voices hold, so the quietest voices (far away, fading, small) are
//! stolen, and each spell also rings in a cave reverb (a bus made by a
//! startup system, fed by sends); from 5 s to 7 s a pause menu pauses the
//! world bus (the cave and the wind with it) and chimes on its own bus.
//! Each wisp hums ahead of itself (a cone, facing the way it flies, and
//! the air's loss over distance), and is muffled while it passes behind
//! the wall north of the listener (a `SoundOcclusion`).
//!
//! ```sh
//! # headless: the offline output, 10 s rendered to a WAV, a summary printed
//! cargo run -p voicepool_bevy --example wisps -- --headless --frames 480000 --out out/wisps.wav
//! # in a window (needs a display; builds all of Bevy): Space bursts, Escape pauses
//! cargo run -p voicepool_bevy --features window --example wisps
//! ```

use std::f32::consts::TAU;
use std::path::PathBuf;

use bevy_app::{App, PostUpdate, Startup, TaskPoolPlugin, Update};
use bevy_asset::{AssetPlugin, AssetServer, Handle, LoadState};
use bevy_ecs::prelude::*;
use bevy_transform::components::Transform;
use bevy_transform::TransformPlugin;
use voicepool_bevy::prelude::*;
use voicepool_bevy::voicepool::EngineSettings;
use voicepool_bevy::{OfflineOutput, RenderedAudio, SoundLoaderSettings, VoicepoolSystems};

/// Frames per update offline: 60 updates a second at 48 kHz.
const FRAMES_PER_UPDATE: usize = 800;
const RATE: f32 = 48_000.0;

fn main() {
    let args = match Args::parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("wisps: {e}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return;
    }
    if args.headless {
        if let Err(e) = headless(&args) {
            eprintln!("wisps: {e}");
            std::process::exit(1);
        }
    } else {
        windowed();
    }
}

const USAGE: &str = "\
wisps: voicepool in a Bevy scene (moving emitters, bursts that steal, a pause menu)

USAGE: wisps [--headless] [--frames N] [--out FILE]

  --headless   no window: render offline, write a WAV, print a summary
  --frames N   frames to render headless (default 480000: 10 s at 48 kHz)
  --out FILE   the WAV to write headless (default out/wisps.wav)
  --help       this text";

struct Args {
    headless: bool,
    frames: usize,
    out: PathBuf,
    help: bool,
}

impl Args {
    fn parse() -> Result<Args, String> {
        let mut args = Args {
            headless: false,
            frames: 480_000,
            out: PathBuf::from("out/wisps.wav"),
            help: false,
        };
        let mut it = std::env::args().skip(1);
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--headless" => args.headless = true,
                "--help" | "-h" => args.help = true,
                "--frames" => {
                    let n = it.next().ok_or("--frames needs a number")?;
                    args.frames = n
                        .parse()
                        .map_err(|_| format!("--frames: not a number: {n}"))?;
                }
                "--out" => args.out = it.next().ok_or("--out needs a file")?.into(),
                other => return Err(format!("unknown argument `{other}`")),
            }
        }
        Ok(args)
    }
}

/// The scene's plugin: what both the window and the headless run share.
fn scene(app: &mut App) {
    app.init_resource::<Clock>()
        .init_resource::<Tally>()
        .add_systems(Startup, setup)
        .add_systems(Update, (start_when_loaded, orbit, wall, script).chain())
        .add_systems(PostUpdate, tally.after(VoicepoolSystems));
}

fn plugin() -> VoicepoolPlugin {
    VoicepoolPlugin::default()
        .settings(EngineSettings {
            voices: 12,
            virtual_voices: 16,
            ..Default::default()
        })
        .bus("world", BusSettings::default())
        .bus("menu", BusSettings::default())
}

/// The sounds, loaded from the repository's samples folder.
#[derive(Resource)]
struct Sounds {
    wind: Handle<SoundAsset>,
    hum: Handle<SoundAsset>,
    swish: Handle<SoundAsset>,
    sparkles: Vec<Handle<SoundAsset>>,
}

/// Time since every sound loaded: `seconds` stands still while the menu
/// is open (the wisps stop), `wall` does not.
#[derive(Resource, Default)]
struct Clock {
    started: bool,
    seconds: f32,
    wall: f32,
    bursts: u32,
    menu_open: bool,
    rng: u64,
}

impl Clock {
    fn unit(&mut self) -> f32 {
        self.rng = self
            .rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.rng >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A wisp circling the listener.
#[derive(Component)]
struct Wisp {
    radius: f32,
    speed: f32,
    phase: f32,
}

/// What happened, counted from the plugin's messages.
#[derive(Resource, Default, Debug)]
struct Tally {
    started: u32,
    stolen: u32,
    ended: u32,
    virtualized: u32,
    resumed: u32,
    rejected: u32,
}

fn setup(mut commands: Commands, assets: Res<AssetServer>, audio: Voicepool) {
    // A cave reverb the spells send to; it feeds the world bus, so the
    // pause menu pauses it too.
    let cave = BusSettings {
        effects: vec![Effect::Reverb {
            room: 0.75,
            damping: 0.4,
            wet: 1.0,
        }],
        output: audio.bus("world"),
        ..Default::default()
    };
    if let Err(e) = audio.create_labelled_bus("cave", cave) {
        eprintln!("wisps: {e}");
    }
    commands.insert_resource(Sounds {
        // Long sounds stream from disk instead of being decoded whole.
        wind: assets
            .load_builder()
            .with_settings(|s: &mut SoundLoaderSettings| s.stream = true)
            .load("ambience.ogg"),
        hum: assets.load("ambience.wav"),
        swish: assets.load("swish.wav"),
        sparkles: (1..=6)
            .map(|i| assets.load(format!("sparkle_{i}.wav")))
            .collect(),
    });
    commands.spawn((SoundListener, Transform::default()));
}

fn start_when_loaded(
    mut commands: Commands,
    mut clock: ResMut<Clock>,
    sounds: Res<Sounds>,
    assets: Res<AssetServer>,
    audio: Option<ResMut<RenderedAudio>>,
) {
    if clock.started {
        return;
    }
    let all = [&sounds.wind, &sounds.hum]
        .into_iter()
        .chain([&sounds.swish])
        .chain(&sounds.sparkles);
    let mut loaded = true;
    for handle in all {
        match assets.load_state(handle) {
            LoadState::Loaded => {}
            LoadState::Failed(e) => {
                eprintln!("wisps: {e}");
                std::process::exit(1);
            }
            _ => loaded = false,
        }
    }
    if !loaded {
        return;
    }
    clock.started = true;
    clock.rng = 0x5EED;
    if let Some(mut audio) = audio {
        audio.samples.clear(); // the silence while loading
    }
    // The wind: never stolen, not placed; kept (not despawned) if stopped.
    commands.spawn(
        SoundPlayer::new(sounds.wind.clone())
            .params(
                PlayParams::default()
                    .looping(true)
                    .volume(0.25)
                    .protected(true),
            )
            .bus("world")
            .on_end(OnEnd::Remove),
    );
    for i in 0..4 {
        let i = i as f32;
        commands.spawn((
            SoundPlayer::new(sounds.hum.clone())
                .params(
                    PlayParams::default()
                        .looping(true)
                        .volume(0.5)
                        .pitch(0.8 + 0.2 * i)
                        .virtualize(true)
                        .priority(100)
                        .spatial(Spatial {
                            cone: Some(Cone {
                                inner_deg: 120.0,
                                outer_deg: 300.0,
                                outer_gain: 0.4,
                                outer_lowpass_hz: 3_000.0,
                            }),
                            air_absorption: 1.0,
                            ..Spatial::default()
                        }),
                )
                .bus("world"),
            Wisp {
                radius: 3.0 + 4.0 * i,
                speed: 0.6 - 0.1 * i,
                phase: i * TAU / 4.0,
            },
            Transform::default(),
        ));
    }
}

fn orbit(clock: Res<Clock>, mut wisps: Query<(&Wisp, &mut Transform)>) {
    if clock.menu_open {
        return;
    }
    for (wisp, mut transform) in &mut wisps {
        let angle = wisp.phase + wisp.speed * clock.seconds;
        let (sin, cos) = angle.sin_cos();
        transform.translation = bevy_math::Vec3::new(wisp.radius * cos, 0.0, wisp.radius * sin);
        // Facing the way it flies (its cone points ahead).
        let ahead = bevy_math::Vec3::new(-sin, 0.0, cos) * wisp.speed.signum();
        transform.look_to(ahead, bevy_math::Vec3::Y);
    }
}

/// The wall north of the listener (from 2 m on, toward -Z): a wisp behind
/// it is muffled.
fn wall(mut commands: Commands, wisps: Query<(Entity, &Transform), With<Wisp>>) {
    for (entity, transform) in &wisps {
        let occlusion = if transform.translation.z < -2.0 {
            SoundOcclusion {
                gain: 0.5,
                lowpass_hz: 900.0,
            }
        } else {
            SoundOcclusion::NONE
        };
        commands.entity(entity).insert(occlusion);
    }
}

/// Spawns a burst of sparkles and swishes around the listener.
fn burst(commands: &mut Commands, clock: &mut Clock, sounds: &Sounds) {
    clock.bursts += 1;
    for _ in 0..20 {
        let angle = clock.unit() * TAU;
        let distance = 2.0 + 18.0 * clock.unit();
        let sparkle = (clock.unit() * sounds.sparkles.len() as f32) as usize;
        let sound = if clock.unit() < 0.25 {
            sounds.swish.clone()
        } else {
            sounds.sparkles[sparkle.min(sounds.sparkles.len() - 1)].clone()
        };
        let params = PlayParams::default()
            .volume(0.3 + 0.7 * clock.unit())
            .pitch(0.8 + 0.5 * clock.unit());
        commands.spawn((
            SoundPlayer::new(sound)
                .params(params)
                .bus("world")
                .send("cave", 0.3),
            Transform::from_xyz(distance * angle.cos(), 0.0, distance * angle.sin()),
        ));
    }
}

/// Toggles the pause menu: the world bus paused, a chime on the menu bus.
fn toggle_menu(commands: &mut Commands, clock: &mut Clock, sounds: &Sounds, audio: &Voicepool) {
    clock.menu_open = !clock.menu_open;
    let result = if clock.menu_open {
        audio.pause_bus("world")
    } else {
        audio.resume_bus("world")
    };
    if let Err(e) = result {
        eprintln!("wisps: {e}");
    }
    commands.spawn(
        SoundPlayer::new(sounds.swish.clone())
            .params(
                PlayParams::default()
                    .pitch(if clock.menu_open { 2.0 } else { 1.5 })
                    .volume(0.6),
            )
            .bus("menu"),
    );
}

/// The headless script: a burst every 1.5 s, the menu from 5 s to 7 s.
/// (In a window, keys do the same; see `windowed`.)
fn script(
    mut commands: Commands,
    mut clock: ResMut<Clock>,
    sounds: Res<Sounds>,
    audio: Voicepool,
    scripted: Option<Res<Scripted>>,
    time: Option<Res<bevy_time::Time>>,
) {
    if !clock.started {
        return;
    }
    let step = match (&scripted, &time) {
        (Some(_), _) => FRAMES_PER_UPDATE as f32 / RATE,
        (None, Some(time)) => time.delta_secs(),
        (None, None) => 0.0,
    };
    let before = clock.wall;
    clock.wall += step;
    if !clock.menu_open {
        clock.seconds += step;
    }
    if scripted.is_none() {
        return;
    }
    let now = clock.wall;
    let menu_time = (5.0..7.0).contains(&now);
    if menu_time != clock.menu_open {
        toggle_menu(&mut commands, &mut clock, &sounds, &audio);
    }
    if !clock.menu_open && (before == 0.0 || (now / 1.5).floor() > (before / 1.5).floor()) {
        burst(&mut commands, &mut clock, &sounds);
    }
}

/// Marks the headless run: the script drives the scene.
#[derive(Resource)]
struct Scripted;

fn tally(mut events: MessageReader<SoundEvent>, mut tally: ResMut<Tally>) {
    for event in events.read() {
        match event {
            SoundEvent::Started { .. } => tally.started += 1,
            SoundEvent::Stolen { .. } => tally.stolen += 1,
            SoundEvent::Ended { .. } => tally.ended += 1,
            SoundEvent::Virtualized { .. } => tally.virtualized += 1,
            SoundEvent::Resumed { .. } => tally.resumed += 1,
            SoundEvent::Rejected { .. } => tally.rejected += 1,
        }
    }
}

fn samples_folder() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../samples").to_owned()
}

fn headless(args: &Args) -> Result<(), String> {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: samples_folder(),
            ..Default::default()
        },
        TransformPlugin,
        plugin().offline(OfflineOutput {
            frames_per_update: FRAMES_PER_UPDATE,
            keep_samples: true,
        }),
    ))
    .insert_resource(Scripted);
    scene(&mut app);
    // Loading happens on other threads: wait for it (at most 10 s).
    let waited = std::time::Instant::now();
    while !app.world().resource::<Clock>().started {
        if waited.elapsed().as_secs() > 10 {
            return Err("the sounds did not load within 10 s".into());
        }
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let updates = args.frames.div_ceil(FRAMES_PER_UPDATE);
    for _ in 0..updates {
        app.update();
    }
    let audio = app.world().resource::<RenderedAudio>();
    let peak = audio.samples.iter().fold(0.0f32, |p, s| p.max(s.abs()));
    let rms = (audio.samples.iter().map(|s| s * s).sum::<f32>()
        / audio.samples.len().max(1) as f32)
        .sqrt();
    if let Some(parent) = args.out.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    audio.write_wav(&args.out).map_err(|e| e.to_string())?;
    let tally = app.world().resource::<Tally>();
    let clock = app.world().resource::<Clock>();
    println!(
        "wisps: {:.1} s rendered to {} ({} bursts): peak {:.3}, rms {:.4}",
        audio.frames() as f32 / RATE,
        args.out.display(),
        clock.bursts,
        peak,
        rms
    );
    println!(
        "events: started {} stolen {} ended {} virtualized {} resumed {} rejected {}",
        tally.started, tally.stolen, tally.ended, tally.virtualized, tally.resumed, tally.rejected
    );
    Ok(())
}

#[cfg(not(feature = "window"))]
fn windowed() {
    eprintln!(
        "wisps: this build has no window; run it with --headless, or build with \
         `--features window` (all of Bevy) for a window"
    );
    std::process::exit(2);
}

#[cfg(feature = "window")]
fn windowed() {
    window::run();
}

/// The windowed scene, seen from above (the listener at the centre facing
/// up the screen): wisps and bursts drawn as spheres, keys for the burst
/// (Space) and the menu (Escape).
#[cfg(feature = "window")]
mod window {
    use super::*;
    use bevy::prelude::{
        default, Assets, ButtonInput, Camera3d, Color, DefaultPlugins, KeyCode, Mesh, Mesh3d,
        MeshMaterial3d, PluginGroup, ResMut, Sphere, StandardMaterial, Text, Vec3,
    };

    pub(super) fn run() {
        let mut app = App::new();
        app.add_plugins((
            DefaultPlugins
                .set(AssetPlugin {
                    file_path: samples_folder(),
                    ..default()
                })
                .build()
                .disable::<bevy::audio::AudioPlugin>(),
            plugin(),
        ));
        scene(&mut app);
        app.add_systems(Startup, camera)
            .add_systems(Update, (keys, draw).after(script))
            .run();
    }

    fn camera(mut commands: Commands) {
        commands.spawn((
            Camera3d::default(),
            Transform::from_xyz(0.0, 45.0, 0.0).looking_at(Vec3::ZERO, Vec3::NEG_Z),
        ));
        commands.spawn(Text::new(
            "Space: a burst of spells   Escape: the pause menu",
        ));
    }

    fn keys(
        mut commands: Commands,
        keys: Res<ButtonInput<KeyCode>>,
        mut clock: ResMut<Clock>,
        sounds: Res<Sounds>,
        audio: Voicepool,
    ) {
        if !clock.started {
            return;
        }
        if keys.just_pressed(KeyCode::Space) && !clock.menu_open {
            burst(&mut commands, &mut clock, &sounds);
        }
        if keys.just_pressed(KeyCode::Escape) {
            toggle_menu(&mut commands, &mut clock, &sounds, &audio);
        }
    }

    /// Placed sounds without a sphere yet.
    type Undrawn = (With<SoundPlayer>, With<Transform>, Without<Mesh3d>);

    /// A sphere for every placed sound: blue for a wisp, white for a spell
    /// (a stolen spell's entity is despawned, and its sphere with it).
    fn draw(
        mut commands: Commands,
        mut meshes: ResMut<Assets<Mesh>>,
        mut materials: ResMut<Assets<StandardMaterial>>,
        new: Query<(Entity, Option<&Wisp>), Undrawn>,
    ) {
        for (entity, wisp) in &new {
            let color = match wisp {
                Some(_) => Color::srgb(0.3, 0.5, 1.0),
                None => Color::WHITE,
            };
            commands.entity(entity).insert((
                Mesh3d(meshes.add(Sphere::new(0.5))),
                MeshMaterial3d(materials.add(StandardMaterial {
                    base_color: color,
                    unlit: true,
                    ..default()
                })),
            ));
        }
    }
}
