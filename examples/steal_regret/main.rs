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
//! Three scenarios are in space: traffic (vehicles passing on roads among
//! fountains and fires), incoming (projectiles flying at the listener
//! among near and far torches) and walls (the listener walks down a street
//! past machines behind walls with gaps: each is occluded, muffled, while
//! a wall stands between, as the game's ray casts would say). The game
//! moves (and occludes) every positioned play every block; a voice's
//! future, rendered alone, moves the same way, so the oracle knows each
//! voice's actual future gain.
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

use k_weighting::k_weight;
use voicepool_testkit::k_weighting;

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
mod report;
mod scenarios;
mod synth;
use report::{report_windows, stats, Windowed};
use scenarios::{scenarios, Scenario};

/// A play in a scenario: when (block), what, how, its set volume, and for
/// a positioned play where it starts and its velocity (the game moves it
/// on every block).
#[derive(Clone)]
struct Play {
    block: usize,
    sound: Sound,
    params: PlayParams,
    volume: f32,
    motion: Option<([f32; 3], [f32; 3])>,
    /// Behind the walls of the walls scenario (occluded while one stands
    /// between it and the listener).
    walled: bool,
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
        walled: false,
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
            if play.walled {
                e.set_occlusion(h, scenarios::occlusion(p, block))
                    .expect("an occlusion");
            }
        }
    }
}

fn load(dir: &Path, name: &str) -> Sound {
    Sound::from_wav_file(dir.join(format!("{name}.wav")))
        .expect("samples/ (cargo run --example make_samples)")
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

/// What a scenario's run gives: its steals, and (with virtual voices) how
/// much of the time the most audible voices were the ones sounding.
struct Outcome {
    steals: Vec<Steal>,
    /// Per block with a play alive: the share of the most audible plays
    /// alive (as many as the pool has voices, or all of them if fewer; by
    /// the oracle's next 300 ms) that were real, not virtual.
    shares: Vec<(f64, bool)>,
    /// The mix, interleaved stereo, and the seconds spent rendering it.
    mix: Vec<f32>,
    rendering: f64,
}

/// Runs one scenario with `Quietest` and returns its steals (of real
/// voices: a voice that goes virtual is not lost) and, with virtual
/// voices, the share of the most audible that are real.
fn run(sc: &Scenario, futures: &[Future], blocks: usize) -> Outcome {
    let (voices, plays) = (sc.voices, &sc.plays);
    let settings = EngineSettings {
        voices,
        virtual_voices: sc.virtual_voices,
        audible_window: sc.window,
        steal_policy: StealPolicy::Quietest,
        ..Default::default()
    };
    let min_age = (settings.min_voice_age.as_secs_f64() * f64::from(RATE)) as u64;
    let mut e = OfflineEngine::new(settings).expect("engine");
    let mut which: HashMap<VoiceHandle, usize> = HashMap::new();
    // Real voices: handle -> (start order, start frame).
    let mut live: HashMap<VoiceHandle, (u64, u64)> = HashMap::new();
    // Plays alive, real or virtual: handle -> the frame they started.
    let mut alive: HashMap<VoiceHandle, u64> = HashMap::new();
    let mut order = 0u64;
    let mut steals = Vec::new();
    let mut shares = Vec::new();
    let (mut mix, mut rendering) = (Vec::with_capacity(blocks * BLOCK * 2), 0.0);
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
        let t = std::time::Instant::now();
        let block_out = e.render(BLOCK);
        rendering += t.elapsed().as_secs_f64();
        mix.extend_from_slice(block_out);
        for te in e.drain_timed_events() {
            match te.event {
                Event::Started { voice } => {
                    live.insert(voice, (order, te.frame));
                    alive.insert(voice, te.frame);
                    order += 1;
                }
                Event::Resumed { voice } => {
                    live.insert(voice, (order, te.frame));
                    order += 1;
                }
                Event::Virtualized { voice } => {
                    live.remove(&voice);
                }
                Event::Stolen { victim, .. } if live.contains_key(&victim) => {
                    let all: Vec<_> = live.iter().map(|(h, &(o, s))| (which[h], o, s)).collect();
                    let old: Vec<_> = all
                        .iter()
                        .copied()
                        .filter(|c| te.frame - c.2 >= min_age)
                        .collect();
                    let allowed = if old.is_empty() { all } else { old };
                    let start_of =
                        |i: usize| alive.iter().find(|(h, _)| which[*h] == i).map(|(_, &f)| f);
                    steals.push(Steal {
                        frame: te.frame,
                        chosen: which[&victim],
                        candidates: allowed
                            .iter()
                            .map(|&(i, o, s)| (o, plays[i].volume, start_of(i).unwrap_or(s), i))
                            .collect(),
                    });
                    live.remove(&victim);
                    alive.remove(&victim);
                }
                Event::Stolen { victim: voice, .. }
                | Event::Ended { voice }
                | Event::Rejected { voice } => {
                    live.remove(&voice);
                    alive.remove(&voice);
                }
                _ => {}
            }
        }
        if sc.virtual_voices > 0 && !alive.is_empty() {
            let now = ((block + 1) * BLOCK) as u64;
            let mut heard: Vec<(f64, bool)> = alive
                .iter()
                .map(|(h, &start)| {
                    let loss = futures[which[h]].loss((now - start) as usize, secs(0.3));
                    (loss, live.contains_key(h))
                })
                .collect();
            heard.sort_by(|a, b| b.0.total_cmp(&a.0));
            let top = voices.min(heard.len());
            let real = heard.iter().take(top).filter(|h| h.1).count();
            shares.push((real as f64 / top as f64, alive.len() > voices));
        }
    }
    Outcome {
        steals,
        shares,
        mix,
        rendering,
    }
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
    // Per scenario with virtual voices: the share of the most audible
    // plays that were real, per block under pressure.
    let mut most_audible: Vec<(&str, Vec<(f64, bool)>)> = Vec::new();
    // Scenarios run with and without the audible window: (pair name,
    // seed, window, mix, seconds per block).
    let mut windows: Vec<Windowed> = Vec::new();
    for seed in 0..seeds {
        for sc in scenarios(seed, seconds) {
            let (name, plays) = (sc.name, &sc.plays);
            let futures: Vec<Future> = plays
                .iter()
                .map(|p| Future::render(p, (blocks - p.block) * BLOCK + secs(1.0)))
                .collect();
            let Outcome {
                steals,
                shares,
                mix,
                rendering,
            } = run(&sc, &futures, blocks);
            if let Some(pair) = sc.pair {
                windows.push((pair, seed, sc.window, mix, rendering / blocks as f64));
            }
            let slot = match by_scenario.iter().position(|s| s.0 == name) {
                Some(i) => i,
                None => {
                    by_scenario.push((name, Default::default()));
                    by_scenario.len() - 1
                }
            };
            if !shares.is_empty() && sc.window.is_none() {
                match most_audible.iter_mut().find(|m| m.0 == name) {
                    Some(m) => m.1.extend(shares),
                    None => most_audible.push((name, shares)),
                }
            }
            // (Steals that send a voice virtual lose nothing and are not
            // counted; a scene made to test comebacks is scored by the
            // share of the most audible plays that are real instead.)
            let scored = if sc.scored { &steals[..] } else { &[] };
            for s in scored.iter().filter(|s| s.candidates.len() > 1) {
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
    for (name, shares) in &most_audible {
        let share = |only_pressed: bool| {
            let picked: Vec<f64> = shares
                .iter()
                .filter(|s| s.1 || !only_pressed)
                .map(|s| s.0)
                .collect();
            let n = picked.len().max(1) as f64;
            (100.0 * picked.iter().sum::<f64>() / n, picked.len())
        };
        let ((all, blocks), (pressed, pressed_blocks)) = (share(false), share(true));
        println!(
            "virtual voices, {name}: of the most audible plays alive (as many as the pool has \
             voices; by the oracle's next 300 ms), {all:.1} % were real, time-weighted over \
             {blocks} blocks; {pressed:.1} % over the {pressed_blocks} blocks with more plays \
             alive than voices"
        );
    }
    report_windows(&windows, &by_scenario);
}
