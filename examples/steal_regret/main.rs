//! How good is stealing? Replays seeded game-like scenarios and, at every
//! steal, scores each voice the rules allowed to be taken by what the
//! listener would lose if it were cut: its perceived (BS.1770 K-weighted)
//! loudness over what it would have played next. An oracle that knows the
//! future takes the least loss; a choice's *regret* is how much more it
//! loses than the oracle, in dB.
//!
//! Four rankings are scored on the same states (those of a run with
//! `StealPolicy::Quietest`): the engine's own choice, the oldest candidate
//! (`StealPolicy::Oldest`), the lowest *set* volume, ties to the oldest
//! (how FMOD, Wwise and Unreal rank 2D voices), and the lowest set volume
//! times the distance gain where the voice is now (how FMOD and Wwise rank
//! 3D voices). Oracles look 100 ms, 300 ms and 1 s ahead; the 300 ms one is
//! the headline.
//!
//! Two scenarios are in space: traffic (vehicles passing on roads among
//! fountains and fires) and incoming (projectiles flying at the listener
//! among near and far torches). The game moves every positioned play every
//! block; a voice's future, rendered alone, moves the same way, so the
//! oracle knows each voice's actual future gain.
//!
//! ```text
//! cargo run --release --example steal_regret            # all scenarios, 4 seeds
//! cargo run --release --example steal_regret -- 10      # 10 seeds
//! ```
//!
//! Sounds: the project's own (`samples/`) and game-like ones synthesized
//! here, deterministically: gunshots with an echo after a gap, explosions
//! with long tails, dialogue (syllables and pauses), trains of pings 90 ms
//! apart, slow swells, rumble, a pain cry that opens with silence, running
//! footsteps. Only the public API is used: each voice's future is what it
//! renders alone, in an engine of its own, from the same start.

use std::collections::HashMap;
use std::path::Path;

use voicepool::{
    EngineSettings, Event, OfflineEngine, PlayParams, Sound, StealPolicy, VoiceHandle,
};

#[path = "../../tests/support/k_weighting.rs"]
mod k_weighting;
use k_weighting::k_weight;

const RATE: u32 = 48_000;
const BLOCK: usize = 480;
/// Loudness is kept per 5 ms window (240 frames): steals and starts fall
/// on 10 ms blocks, so windows line up with both.
const WINDOW: usize = 240;
const HORIZONS_MS: [usize; 3] = [100, 300, 1_000];
/// Losses below this K-weighted power (-60 dB) count as this: nobody hears
/// the difference between two inaudible voices under a new sound.
const FLOOR: f64 = 1e-6;

/// Deterministic xorshift.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn noise(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

/// One-pole low-pass over `x` at `cutoff` Hz.
fn low_pass(x: &mut [f32], cutoff: f32) {
    let a = (-std::f32::consts::TAU * cutoff / RATE as f32).exp();
    let mut y = 0.0;
    for s in x.iter_mut() {
        y = (1.0 - a) * *s + a * y;
        *s = y;
    }
}

fn secs(s: f32) -> usize {
    (s * RATE as f32) as usize
}

fn mono(s: Vec<f32>, name: &str) -> Sound {
    Sound::from_samples(1, RATE, s)
        .expect("valid")
        .with_name(name)
}

/// The synthesized sounds, varied by `rng`.
mod synth;

/// A play in a scenario: when (block), what, how, its set volume, and for
/// a positioned play where it starts and its velocity (the game moves it
/// on every block).
struct Play {
    block: usize,
    sound: Sound,
    params: PlayParams,
    volume: f32,
    motion: Option<([f32; 3], [f32; 3])>,
}

impl Play {
    /// Where it is `frames` after it started, and its velocity.
    fn place(&self, frames: u64) -> Option<([f32; 3], [f32; 3])> {
        let (p, v) = self.motion?;
        let t = frames as f32 / RATE as f32;
        Some(([p[0] + v[0] * t, p[1] + v[1] * t, p[2] + v[2] * t], v))
    }

    /// Its set volume times the distance gain where it is `frames` after it
    /// started (the default `Spatial`: inverse distance, 1 to 100 m): what
    /// FMOD and Wwise rank a 3D voice by.
    fn heard_now(&self, frames: u64) -> f32 {
        let gain = self.place(frames).map_or(1.0, |(p, _)| {
            let d = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
                .sqrt()
                .clamp(1.0, 100.0);
            1.0 / d
        });
        self.volume * gain
    }
}

/// A play at `block` of `sound` at `volume`, panned by `params`.
fn at(block: usize, sound: Sound, volume: f32, params: PlayParams) -> Play {
    Play {
        block,
        sound,
        params: params.volume(volume),
        volume,
        motion: None,
    }
}

/// A play at `block` of `sound` at `volume`, from `position` moving at
/// `velocity`.
fn moving(block: usize, sound: Sound, volume: f32, position: [f32; 3], velocity: [f32; 3]) -> Play {
    let params = PlayParams::default().position(position).velocity(velocity);
    Play {
        motion: Some((position, velocity)),
        ..at(block, sound, volume, params)
    }
}

/// Moves every positioned play of `live` (handle, play) on to where it is
/// `block` blocks into the scenario.
fn move_on<'a>(
    e: &OfflineEngine,
    block: usize,
    live: impl Iterator<Item = (VoiceHandle, &'a Play)>,
) {
    for (h, play) in live {
        let frames = ((block - play.block) * BLOCK) as u64;
        if let Some((p, v)) = play.place(frames) {
            e.set_position(h, p, v).expect("a position");
        }
    }
}

fn load(dir: &Path, name: &str) -> Sound {
    Sound::from_wav_file(dir.join(format!("{name}.wav")))
        .expect("samples/ (cargo run --example make_samples)")
}

/// The scenarios: (name, pool size, plays), `seconds` long.
fn scenarios(seed: u64, seconds: f32) -> Vec<(&'static str, usize, Vec<Play>)> {
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
    all.push(("gunfire", 4, plays));

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
    all.push(("spell burst", 8, plays));

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
    all.push(("dialogue under fire", 4, plays));

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
    all.push(("rumble and sparkle", 6, plays));

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
    all.push(("battle", 8, plays));

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
    all.push(("endings under bursts", 6, plays));

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
    all.push(("traffic", 4, plays));

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
    all.push(("incoming", 4, plays));
    all
}

/// A voice's future as it renders alone: K-weighted power (both channels
/// summed) per [`WINDOW`], as running sums.
struct Future {
    prefix: Vec<f64>,
}

impl Future {
    fn render(play: &Play, frames: usize) -> Future {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 1,
            ..Default::default()
        })
        .expect("engine");
        let h = e.play(&play.sound, play.params).expect("play");
        let mut l = Vec::with_capacity(frames);
        let mut r = Vec::with_capacity(frames);
        for k in 0..frames.div_ceil(BLOCK) {
            move_on(&e, play.block + k, [(h, play)].into_iter());
            for f in e.render(BLOCK).chunks_exact(2) {
                l.push(f64::from(f[0]));
                r.push(f64::from(f[1]));
            }
        }
        k_weight(&mut l);
        k_weight(&mut r);
        let mut prefix = vec![0.0];
        for (wl, wr) in l.chunks(WINDOW).zip(r.chunks(WINDOW)) {
            let p: f64 = wl.iter().chain(wr).map(|y| y * y).sum::<f64>() / WINDOW as f64;
            prefix.push(prefix.last().unwrap() + p);
        }
        Future { prefix }
    }

    /// Mean K-weighted power over `len` frames from frame `from` of its life.
    fn loss(&self, from: usize, len: usize) -> f64 {
        let w = self.prefix.len() - 1;
        let (a, b) = ((from / WINDOW).min(w), ((from + len) / WINDOW).min(w));
        (self.prefix[b] - self.prefix[a]) / (len / WINDOW) as f64
    }
}

/// One steal: each candidate's (order, set volume, start frame, future).
struct Steal {
    frame: u64,
    chosen: usize,
    candidates: Vec<(u64, f32, u64, usize)>,
}

/// Runs one scenario with `Quietest` and returns its steals.
fn run(voices: usize, plays: &[Play], blocks: usize) -> Vec<Steal> {
    let settings = EngineSettings {
        voices,
        steal_policy: StealPolicy::Quietest,
        ..Default::default()
    };
    let min_age = (settings.min_voice_age.as_secs_f64() * f64::from(RATE)) as u64;
    let mut e = OfflineEngine::new(settings).expect("engine");
    let mut which: HashMap<VoiceHandle, usize> = HashMap::new();
    // Live voices: handle -> (start order, start frame).
    let mut live: HashMap<VoiceHandle, (u64, u64)> = HashMap::new();
    let mut order = 0u64;
    let mut steals = Vec::new();
    let mut next = 0;
    for block in 0..blocks {
        while next < plays.len() && plays[next].block == block {
            let h = e
                .play(&plays[next].sound, plays[next].params)
                .expect("queue");
            which.insert(h, next);
            next += 1;
        }
        move_on(&e, block, which.iter().map(|(&h, &i)| (h, &plays[i])));
        e.render(BLOCK);
        for te in e.drain_timed_events() {
            match te.event {
                Event::Started { voice } => {
                    live.insert(voice, (order, te.frame));
                    order += 1;
                }
                Event::Stolen { victim, .. } => {
                    let all: Vec<_> = live.iter().map(|(h, &(o, s))| (which[h], o, s)).collect();
                    let old: Vec<_> = all
                        .iter()
                        .copied()
                        .filter(|c| te.frame - c.2 >= min_age)
                        .collect();
                    let allowed = if old.is_empty() { all } else { old };
                    steals.push(Steal {
                        frame: te.frame,
                        chosen: which[&victim],
                        candidates: allowed
                            .iter()
                            .map(|&(i, o, s)| (o, plays[i].volume, s, i))
                            .collect(),
                    });
                    live.remove(&victim);
                }
                Event::Ended { voice } => {
                    live.remove(&voice);
                }
                _ => {}
            }
        }
    }
    steals
}

fn stats(mut regrets: Vec<f64>) -> String {
    if regrets.is_empty() {
        return "n/a".into();
    }
    regrets.sort_by(f64::total_cmp);
    let n = regrets.len();
    let mean = regrets.iter().sum::<f64>() / n as f64;
    let within = regrets.iter().filter(|&&r| r <= 1.0).count() as f64 / n as f64;
    format!(
        "{mean:5.1} | {:5.1} | {:5.1} | {:3.0} %",
        regrets[n / 2],
        regrets[(n * 9 / 10).min(n - 1)],
        100.0 * within
    )
}

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let seconds = 8.0;
    let blocks = (seconds * 100.0) as usize;
    // regrets[horizon][ranking] per scenario name; rankings: voicepool,
    // oldest, set volume, set volume x distance gain now.
    let mut by_scenario: Vec<(&str, [[Vec<f64>; 4]; 3])> = Vec::new();
    let mut steals_total = 0;
    for seed in 0..seeds {
        for (name, voices, plays) in scenarios(seed, seconds) {
            let futures: Vec<Future> = plays
                .iter()
                .map(|p| Future::render(p, (blocks - p.block) * BLOCK + secs(1.0)))
                .collect();
            let steals = run(voices, &plays, blocks);
            let slot = match by_scenario.iter().position(|s| s.0 == name) {
                Some(i) => i,
                None => {
                    by_scenario.push((name, Default::default()));
                    by_scenario.len() - 1
                }
            };
            for s in steals.iter().filter(|s| s.candidates.len() > 1) {
                steals_total += 1;
                let oldest = s.candidates.iter().min_by_key(|c| c.0).map(|c| c.3);
                let set_volume = s
                    .candidates
                    .iter()
                    .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
                    .map(|c| c.3);
                let heard_now = |c: &(u64, f32, u64, usize)| plays[c.3].heard_now(s.frame - c.2);
                let distance_now = s
                    .candidates
                    .iter()
                    .min_by(|a, b| heard_now(a).total_cmp(&heard_now(b)).then(a.0.cmp(&b.0)))
                    .map(|c| c.3);
                for (h, &ms) in HORIZONS_MS.iter().enumerate() {
                    let len = secs(ms as f32 / 1000.0);
                    let loss = |i: usize, start: u64| {
                        futures[i].loss((s.frame - start) as usize, len).max(FLOOR)
                    };
                    let start_of = |i: usize| {
                        s.candidates
                            .iter()
                            .find(|c| c.3 == i)
                            .map(|c| c.2)
                            .unwrap_or(s.frame)
                    };
                    let best = s
                        .candidates
                        .iter()
                        .map(|c| loss(c.3, c.2))
                        .fold(f64::INFINITY, f64::min);
                    let choices = [Some(s.chosen), oldest, set_volume, distance_now];
                    for (k, choice) in choices.into_iter().enumerate() {
                        if let Some(i) = choice {
                            let regret = 10.0 * (loss(i, start_of(i)) / best).log10();
                            by_scenario[slot].1[h][k].push(regret);
                        }
                    }
                }
            }
        }
    }
    println!("steal regret: {seeds} seeds x {} scenarios of {seconds} s, {steals_total} steals with a choice\n", by_scenario.len());
    for (h, ms) in HORIZONS_MS.iter().enumerate() {
        println!(
            "oracle horizon {ms} ms: regret in dB (mean | median | p90 | share within 1 dB)\n"
        );
        println!(
            "| scenario | steals | voicepool Quietest | set volume x distance now (FMOD, Wwise) | set volume | oldest first |"
        );
        println!("| --- | --- | --- | --- | --- | --- |");
        let mut totals: [Vec<f64>; 4] = Default::default();
        for (name, r) in &by_scenario {
            println!(
                "| {name} | {} | {} | {} | {} | {} |",
                r[h][0].len(),
                stats(r[h][0].clone()),
                stats(r[h][3].clone()),
                stats(r[h][2].clone()),
                stats(r[h][1].clone())
            );
            for k in 0..4 {
                totals[k].extend(&r[h][k]);
            }
        }
        println!(
            "| **all** | {} | {} | {} | {} | {} |\n",
            totals[0].len(),
            stats(totals[0].clone()),
            stats(totals[3].clone()),
            stats(totals[2].clone()),
            stats(totals[1].clone())
        );
    }
}
