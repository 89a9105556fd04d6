//! The scenarios: seeded, game-like scripts of plays.

use std::path::Path;

use super::*;

/// A scenario: its name, the pool's size (real and virtual voices), and
/// its plays in the order they start.
pub struct Scenario {
    pub name: &'static str,
    pub voices: usize,
    pub virtual_voices: usize,
    /// The audible window it runs with.
    pub window: Option<f32>,
    /// Runs of one scene with and without the window share this name.
    pub pair: Option<&'static str>,
    /// Its steals are scored by regret (not for a scene scored by the
    /// share of the most audible plays that are real).
    pub scored: bool,
    pub plays: Vec<Play>,
}

impl Scenario {
    fn new(name: &'static str, voices: usize, plays: Vec<Play>) -> Scenario {
        Scenario {
            name,
            voices,
            virtual_voices: 0,
            window: None,
            pair: None,
            scored: true,
            plays,
        }
    }
}

/// The scenarios, `seconds` long.
pub fn scenarios(seed: u64, seconds: f32) -> Vec<Scenario> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let sparkles: Vec<Sound> = (1..=6)
        .map(|i| load(&dir, &format!("sparkle_{i}")))
        .collect();
    let (swish, ambience, step) = (
        load(&dir, "swish"),
        load(&dir, "ambience"),
        load(&dir, "footstep"),
    );
    let blocks = (seconds * 100.0) as usize;
    let mut rng = Rng((0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D)) | 1);
    let pan = |rng: &mut Rng| PlayParams::default().pan(rng.range(-0.8, 0.8));
    let mut all = Vec::new();

    // Gunfire: shots 80 to 250 ms apart, each echoing after a gap; ambience.
    let mut plays = vec![at(
        0,
        ambience.clone(),
        0.5,
        PlayParams::default().looping(true),
    )];
    let mut b = 5;
    while b < blocks {
        let shot = synth::gunshot(&mut rng, 0.15, 0.35);
        plays.push(at(b, shot, rng.range(0.3, 1.0), pan(&mut rng)));
        b += 8 + rng.pick(17);
    }
    all.push(Scenario::new("gunfire", 4, plays));

    // Spell burst: swishes, sparkles and ping trains, many at once.
    let mut plays = Vec::new();
    let mut b = 0;
    while b < blocks {
        let play = match rng.pick(4) {
            0 => at(b, swish.clone(), rng.range(0.4, 1.0), pan(&mut rng)),
            1 => at(
                b,
                synth::ping_train(&mut rng),
                rng.range(0.2, 0.9),
                pan(&mut rng),
            ),
            _ => {
                let params = pan(&mut rng).pitch(rng.range(0.8, 1.5));
                at(
                    b,
                    sparkles[rng.pick(6)].clone(),
                    rng.range(0.2, 1.0),
                    params,
                )
            }
        };
        plays.push(play);
        b += 2 + rng.pick(6);
    }
    all.push(Scenario::new("spell burst", 8, plays));

    // Dialogue under fire: radio lines over gunshots and pain cries.
    let mut plays = Vec::new();
    let (mut b, mut next_line) = (0, 0);
    while b < blocks {
        if b >= next_line {
            let line = synth::dialogue(&mut rng);
            next_line = b + (line.duration_seconds() * 100.0) as usize + 20;
            plays.push(at(b, line, rng.range(0.6, 1.0), pan(&mut rng)));
        }
        let play = if rng.pick(4) == 0 {
            at(b, synth::pain(&mut rng), rng.range(0.4, 1.0), pan(&mut rng))
        } else {
            let shot = synth::gunshot(&mut rng, 0.1, 0.35);
            at(b, shot, rng.range(0.2, 0.9), pan(&mut rng))
        };
        plays.push(play);
        b += 6 + rng.pick(15);
    }
    all.push(Scenario::new("dialogue under fire", 4, plays));

    // Rumble and sparkle: low rumbles against high sparkles.
    let mut plays = Vec::new();
    let mut b = 0;
    while b < blocks {
        let play = if rng.pick(2) == 0 {
            at(
                b,
                synth::rumble(&mut rng),
                rng.range(0.5, 1.0),
                pan(&mut rng),
            )
        } else {
            at(
                b,
                sparkles[rng.pick(6)].clone(),
                rng.range(0.3, 1.0),
                pan(&mut rng),
            )
        };
        plays.push(play);
        b += 4 + rng.pick(10);
    }
    all.push(Scenario::new("rumble and sparkle", 6, plays));

    // Battle: everything, with running footsteps and swells.
    let looped = PlayParams::default().looping(true);
    let mut plays = vec![
        at(0, ambience.clone(), 0.4, looped),
        at(0, synth::running(&step, 0.3), 0.8, looped),
    ];
    let mut b = 3;
    while b < blocks {
        let (sound, lo, hi) = match rng.pick(7) {
            0 => (synth::explosion(&mut rng), 0.5, 1.0),
            1 => (synth::swell(&mut rng), 0.3, 0.9),
            2 => (synth::pain(&mut rng), 0.4, 1.0),
            3 => (swish.clone(), 0.3, 0.9),
            4 => (synth::ping_train(&mut rng), 0.2, 0.7),
            _ => (synth::gunshot(&mut rng, 0.1, 0.35), 0.3, 1.0),
        };
        plays.push(at(b, sound, rng.range(lo, hi), pan(&mut rng)));
        b += 4 + rng.pick(14);
    }
    all.push(Scenario::new("battle", 8, plays));

    // Endings under bursts: held notes that stop (and then hold a little
    // silence) while bursts of three to five sparkles and pings arrive at
    // once; the best victims are often notes in their last moments.
    let mut plays = Vec::new();
    let (mut b, mut next_burst) = (0, 30);
    while b < blocks {
        plays.push(at(
            b,
            synth::held_note(&mut rng),
            rng.range(0.5, 1.0),
            pan(&mut rng),
        ));
        if b >= next_burst {
            for _ in 0..3 + rng.pick(3) {
                let sound = if rng.pick(3) == 0 {
                    synth::ping_train(&mut rng)
                } else {
                    sparkles[rng.pick(6)].clone()
                };
                plays.push(at(b, sound, rng.range(0.2, 0.8), pan(&mut rng)));
            }
            next_burst = b + 20 + rng.pick(20);
        }
        b += 6 + rng.pick(10);
    }
    all.push(Scenario::new("endings under bursts", 6, plays));

    // Loud sounds under a burst: short sounds every 10 to 20 ms into 4
    // voices for the whole scenario, and every 1.2 to 2 s an engine of 3 to
    // 6 s, loud, that asks to virtualize: the stealing rules' preference
    // for older voices sends the engines virtual, and they must come back
    // while the burst goes on.
    let mut plays = Vec::new();
    let (mut b, mut next_engine) = (0, 0);
    while b < blocks {
        if b >= next_engine {
            let params = pan(&mut rng).virtualize(true);
            plays.push(at(b, synth::engine(&mut rng), rng.range(0.6, 1.0), params));
            next_engine = b + 120 + rng.pick(80);
        }
        let sound = match rng.pick(3) {
            0 => synth::held_note(&mut rng),
            1 => synth::ping_train(&mut rng),
            _ => sparkles[rng.pick(6)].clone(),
        };
        plays.push(at(b, sound, rng.range(0.05, 0.3), pan(&mut rng)));
        b += 1 + rng.pick(2);
    }
    let mut loops = Scenario::new("loud sounds under a burst", 4, plays);
    loops.virtual_voices = 8;
    loops.scored = false;
    all.push(loops);

    // A dense scene under a few loud sounds: explosions and engines over
    // 40 quiet ambient loops (fountains, fires, 35 to 80 dB down) and
    // mid-level sparkles, into 32 voices; run without and with a 50 dB
    // audible window.
    let mut plays = Vec::new();
    for _ in 0..40 {
        let volume = 10f32.powf(-rng.range(35.0, 80.0) / 20.0);
        let params = pan(&mut rng).looping(true).virtualize(rng.pick(2) == 0);
        plays.push(at(0, synth::steady(&mut rng), volume, params));
    }
    let mut b = 1;
    while b < blocks {
        let play = match rng.pick(6) {
            0 => at(
                b,
                synth::explosion(&mut rng),
                rng.range(0.7, 1.0),
                pan(&mut rng),
            ),
            1 => at(
                b,
                synth::engine(&mut rng),
                rng.range(0.5, 0.9),
                pan(&mut rng),
            ),
            _ => {
                let volume = 10f32.powf(-rng.range(10.0, 40.0) / 20.0);
                at(b, sparkles[rng.pick(6)].clone(), volume, pan(&mut rng))
            }
        };
        plays.push(play);
        b += 8 + rng.pick(12);
    }
    for window in [None, Some(50.0)] {
        let name = if window.is_some() {
            "dense scene, window 50 dB"
        } else {
            "dense scene"
        };
        let mut dense = Scenario::new(name, 32, plays.clone());
        dense.virtual_voices = 64;
        dense.window = window;
        dense.pair = Some("dense scene");
        all.push(dense);
    }

    // Traffic: vehicles pass on roads 4 to 30 m away at 8 to 40 m/s, some
    // coming, some going; fountains and fires stand 3 to 25 m away.
    let mut plays = Vec::new();
    for _ in 0..4 {
        let angle = rng.range(0.0, std::f32::consts::TAU);
        let d = rng.range(3.0, 25.0);
        let fountain = synth::steady(&mut rng);
        let mut p = moving(
            0,
            fountain,
            rng.range(0.3, 0.8),
            [d * angle.cos(), 0.0, d * angle.sin()],
            [0.0; 3],
        );
        p.params = p.params.looping(true);
        plays.push(p);
    }
    let mut b = 2;
    while b < blocks {
        let lane = rng.range(4.0, 30.0) * if rng.pick(2) == 0 { -1.0 } else { 1.0 };
        let speed = rng.range(8.0, 40.0);
        // Starts up to 80 m up the road, heading along it.
        let from = rng.range(-80.0, 80.0);
        let dir = if rng.pick(2) == 0 {
            -from.signum()
        } else {
            from.signum()
        };
        let car = synth::engine(&mut rng);
        plays.push(moving(
            b,
            car,
            rng.range(0.5, 1.0),
            [from, 0.0, lane],
            [dir * speed, 0.0, 0.0],
        ));
        b += 20 + rng.pick(40);
    }
    all.push(Scenario::new("traffic", 4, plays));

    // Incoming: projectiles fly at the listener from 40 to 120 m at 40 to
    // 90 m/s (some pass wide), among near torches and far ones.
    let mut plays = Vec::new();
    for k in 0..6 {
        let angle = rng.range(0.0, std::f32::consts::TAU);
        let d = if k < 3 {
            rng.range(2.0, 8.0)
        } else {
            rng.range(20.0, 60.0)
        };
        let torch = synth::steady(&mut rng);
        let mut p = moving(
            0,
            torch,
            rng.range(0.2, 0.6),
            [d * angle.cos(), 0.0, d * angle.sin()],
            [0.0; 3],
        );
        p.params = p.params.looping(true);
        plays.push(p);
    }
    let mut b = 3;
    while b < blocks {
        let angle = rng.range(0.0, std::f32::consts::TAU);
        let d = rng.range(40.0, 120.0);
        let speed = rng.range(40.0, 90.0);
        let miss = rng.range(0.0, 10.0);
        let from = [d * angle.cos(), 0.0, d * angle.sin()];
        // Aimed `miss` metres to the side of the listener.
        let aim = [
            -angle.sin() * miss - from[0],
            0.0,
            angle.cos() * miss - from[2],
        ];
        let len = (aim[0] * aim[0] + aim[2] * aim[2]).sqrt();
        let v = [aim[0] / len * speed, 0.0, aim[2] / len * speed];
        let what = if rng.pick(3) == 0 {
            synth::engine(&mut rng)
        } else {
            synth::whoosh(&mut rng)
        };
        plays.push(moving(b, what, rng.range(0.6, 1.0), from, v));
        b += 8 + rng.pick(20);
    }
    all.push(Scenario::new("incoming", 4, plays));

    // Walls: the listener walks down a street at 1.5 m/s (here: the street
    // moves past the listener) past machines humming behind its north
    // walls and in the open south, while footsteps, swishes and shots come
    // and go near it.
    let mut plays = Vec::new();
    for k in 0..10 {
        let x = rng.range(-20.0, 40.0);
        let z = if k % 3 == 2 {
            rng.range(4.0, 10.0)
        } else {
            rng.range(-16.0, -7.0)
        };
        let machine = synth::steady(&mut rng);
        let mut p = moving(
            0,
            machine,
            rng.range(0.3, 0.8),
            [x, 0.0, z],
            [-WALK, 0.0, 0.0],
        );
        p.params = p.params.looping(true);
        p.walled = z < 0.0;
        plays.push(p);
    }
    let mut b = 4;
    while b < blocks {
        let what = match rng.pick(3) {
            0 => swish.clone(),
            1 => step.clone(),
            _ => synth::gunshot(&mut rng, 0.1, 0.25),
        };
        let angle = rng.range(0.0, std::f32::consts::TAU);
        let d = rng.range(1.0, 6.0);
        plays.push(moving(
            b,
            what,
            rng.range(0.2, 0.7),
            [d * angle.cos(), 0.0, d * angle.sin()],
            [0.0; 3],
        ));
        b += 15 + rng.pick(30);
    }
    all.push(Scenario::new("walls", 4, plays));

    // Horde: 30 zombies 3 to 40 m away (some beyond 10 m shambling closer
    // at 0.3 to 0.8 m/s), each groaning again 0 to 300 ms after its last
    // groan ends, into 16 voices; a gunshot 2 to 15 m away every 1 to 2 s.
    let mut plays = Vec::new();
    for _ in 0..30 {
        let angle = rng.range(0.0, std::f32::consts::TAU);
        let d = rng.range(3.0, 40.0);
        let home = [d * angle.cos(), 0.0, d * angle.sin()];
        let speed = if d > 10.0 && rng.pick(2) == 0 {
            rng.range(0.3, 0.8)
        } else {
            0.0
        };
        let v = home.map(|x| -x / d * speed);
        let mut b = rng.pick(50);
        while b < blocks {
            let groan = synth::groan(&mut rng);
            let len = (groan.duration_seconds() * 100.0) as usize;
            let t = (b * BLOCK) as f32 / RATE as f32;
            let p = [home[0] + v[0] * t, 0.0, home[2] + v[2] * t];
            plays.push(moving(b, groan, rng.range(0.5, 0.7), p, v));
            b += len + rng.pick(30);
        }
    }
    let mut b = 50 + rng.pick(50);
    while b < blocks {
        let (angle, d) = (rng.range(0.0, std::f32::consts::TAU), rng.range(2.0, 15.0));
        let shot = synth::gunshot(&mut rng, 0.1, 0.3);
        let p = [d * angle.cos(), 0.0, d * angle.sin()];
        plays.push(moving(b, shot, rng.range(0.5, 0.9), p, [0.0; 3]));
        b += 100 + rng.pick(100);
    }
    plays.sort_by_key(|p| p.block);
    all.push(Scenario::new("horde", 16, plays));

    // Hum under music: a loud music bed (chords, 200 Hz to 2 kHz) over
    // four quiet hums in its band (300 to 600 Hz) and four sounds as quiet
    // high up where nothing masks them (hiss, chimes: 6 to 10 kHz),
    // each 20 to 30 dB below the music (K-weighted) and sounding again 0
    // to 200 ms after it ends; swishes, footsteps and shots come and go;
    // 8 voices. A hum under the music should go before a sound up high.
    let mut plays = vec![at(0, synth::music(&mut rng), 0.8, looped)];
    for k in 0..8 {
        let mut b = rng.pick(30);
        while b < blocks {
            let sound = if k < 4 {
                synth::hum(&mut rng)
            } else {
                synth::high(&mut rng)
            };
            let len = (sound.duration_seconds() * 100.0) as usize;
            let volume = 0.8 * 10f32.powf(-rng.range(20.0, 30.0) / 20.0);
            plays.push(at(b, sound, volume, pan(&mut rng)));
            b += len + rng.pick(20);
        }
    }
    let mut b = 10;
    while b < blocks {
        let sound = match rng.pick(3) {
            0 => swish.clone(),
            1 => step.clone(),
            _ => synth::gunshot(&mut rng, 0.05, 0.2),
        };
        plays.push(at(b, sound, rng.range(0.3, 0.8), pan(&mut rng)));
        b += 10 + rng.pick(30);
    }
    plays.sort_by_key(|p| p.block);
    all.push(Scenario::new("hum under music", 8, plays));
    all
}

/// A sound of the project's own (`samples/`).
pub fn load(dir: &Path, name: &str) -> Sound {
    Sound::from_wav_file(dir.join(format!("{name}.wav")))
        .expect("samples/ (cargo run --example make_samples)")
}

/// The listener's walking speed in the walls scenario (m/s).
const WALK: f32 = 1.5;
/// The walls north of the street (z = -5), as x ranges where the street
/// starts; they move past the listener with it.
const WALLS: [(f32, f32); 3] = [(-30.0, -8.0), (-4.0, 12.0), (16.0, 45.0)];

/// What the walls make of a play at `p` (the listener at the origin),
/// `block` blocks into the walls scenario: a wall between muffles it, as
/// a game's ray cast would say.
pub fn occlusion(p: [f32; 3], block: usize) -> voicepool::Occlusion {
    let walked = WALK * (block * BLOCK) as f32 / RATE as f32;
    // Where the line from the listener to the play crosses z = -5.
    let behind = p[2] < -5.0;
    let x = p[0] * (-5.0 / p[2]);
    let wall = WALLS
        .iter()
        .any(|&(a, b)| (a - walked..=b - walked).contains(&x));
    if behind && wall {
        voicepool::Occlusion {
            gain: 0.3,
            lowpass_hz: 700.0,
        }
    } else {
        voicepool::Occlusion::NONE
    }
}
