//! How good is stealing? Replays seeded game-like scenarios and, at every
//! steal, scores each voice the rules allowed to be taken by what the
//! listener would lose if it were cut: its perceived (BS.1770 K-weighted)
//! loudness over what it would have played next. An oracle that knows the
//! future takes the least loss; a choice's *regret* is how much more it
//! loses than the oracle, in dB.
//!
//! Every scenario runs twice on the same seed, with the engine's
//! masking-aware stealing off and on (`EngineSettings::masking`). Four
//! rankings are scored on the same states, those of the run with masking
//! on (the default) and `StealPolicy::Quietest`: the engine's own choice,
//! the oldest candidate (`StealPolicy::Oldest`), the lowest *set* volume,
//! ties to the oldest (how FMOD, Wwise and Unreal rank 2D voices), and the
//! lowest set volume times the distance gain where the voice is now (how
//! FMOD and Wwise rank 3D voices). Oracles look 100 ms, 300 ms and 1 s
//! ahead; the 300 ms one is the headline.
//!
//! A second measure, *masked regret* (300 ms), counts of each candidate
//! only what would stay audible above the masking made by the other voices
//! sounding after the steal (per critical band: the example's own simple
//! model, independent of the engine's; see `masking.rs`). It is given for
//! the four rankings; then a table sets the engine's own choice with
//! masking off against on (each run on its own states), by plain and by
//! masked regret.
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
//! Two are about masking: a horde (30 zombies at varied distances groaning
//! over and over, similar groans into 16 voices, a gunshot now and then)
//! and hum under music (quiet hums under a loud music bed, sounds as quiet
//! up high where nothing masks them, transient effects coming and going,
//! into 8 voices: a hum under the music should go first).
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
//! footsteps, zombie groans, a music bed, hums, hiss and chimes. Only the
//! public API is used: each voice's future is what it renders alone, in
//! an engine of its own, from the same start.

use std::collections::HashMap;

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

fn secs(s: f32) -> usize {
    (s * RATE as f32) as usize
}

mod masking;
mod report;
mod scenarios;
mod synth;
use masking::{Bands, Sounding, HOP};
use report::{
    report_masking, report_regrets, report_shares, report_windows, score, sounding, Regrets,
    Shares, Windowed,
};
use scenarios::{scenarios, Scenario};
use synth::Rng;

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

/// A voice's future as it renders alone: K-weighted power (both channels
/// summed) per [`WINDOW`], as running sums; and its band powers per
/// [`HOP`] over its first `hops` (for the masked measure).
struct Future {
    prefix: Vec<f64>,
    bands: Bands,
}

impl Future {
    fn render(play: &Play, frames: usize, hops: usize) -> Future {
        let mut e = OfflineEngine::new(EngineSettings {
            voices: 1,
            ..Default::default()
        })
        .expect("engine");
        let h = e.play(&play.sound, play.params).expect("play");
        let (blocks, mut l, mut r) = (frames.div_ceil(BLOCK), vec![], vec![]);
        for k in 0..blocks {
            move_on(&e, play.block + k, [(h, play)].into_iter());
            for f in e.render(BLOCK).chunks_exact(2) {
                l.push(f64::from(f[0]));
                r.push(f64::from(f[1]));
            }
            // Once it has ended, the rest is silence.
            let events = e.drain_timed_events();
            if events
                .iter()
                .any(|t| matches!(t.event, Event::Ended { .. }))
            {
                break;
            }
        }
        let mono: Vec<f64> = l.iter().zip(&r).map(|(a, b)| a + b).collect();
        let bands = Bands::analyse(&mono, hops);
        // The K-weighting rings on after the sound (under 1e-50 by 0.5 s).
        let end = (l.len() + secs(0.5)).min(blocks * BLOCK);
        l.resize(blocks * BLOCK, 0.0);
        r.resize(blocks * BLOCK, 0.0);
        k_weight(&mut l[..end]);
        k_weight(&mut r[..end]);
        let mut prefix = vec![0.0];
        for (wl, wr) in l.chunks(WINDOW).zip(r.chunks(WINDOW)) {
            let p: f64 = wl.iter().chain(wr).map(|y| y * y).sum::<f64>() / WINDOW as f64;
            prefix.push(prefix.last().unwrap() + p);
        }
        Future { prefix, bands }
    }

    /// Mean K-weighted power over `len` frames from frame `from` of its life.
    fn loss(&self, from: usize, len: usize) -> f64 {
        let w = self.prefix.len() - 1;
        let (a, b) = ((from / WINDOW).min(w), ((from + len) / WINDOW).min(w));
        (self.prefix[b] - self.prefix[a]) / (len / WINDOW) as f64
    }
}

/// One steal: each candidate's (order, set volume, start frame, future);
/// the real voices sounding just before it, the victim among them, and
/// the newcomer, as (future, start frame).
struct Steal {
    frame: u64,
    chosen: usize,
    candidates: Vec<(u64, f32, u64, usize)>,
    sounding: Vec<(usize, u64)>,
    by: (usize, u64),
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

/// Runs one scenario with `Quietest` (masking-aware or not) and returns
/// its steals (of real voices: a voice that goes virtual is not lost) and,
/// with virtual voices, the share of the most audible that are real.
fn run(sc: &Scenario, futures: &[Future], blocks: usize, masking: bool) -> Outcome {
    let (voices, plays) = (sc.voices, &sc.plays);
    let settings = EngineSettings {
        voices,
        virtual_voices: sc.virtual_voices,
        audible_window: sc.window,
        steal_policy: StealPolicy::Quietest,
        masking,
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
                Event::Stolen { victim, by } if live.contains_key(&victim) => {
                    let all: Vec<_> = live.iter().map(|(h, &(o, s))| (which[h], o, s)).collect();
                    let old: Vec<_> = all
                        .iter()
                        .copied()
                        .filter(|c| te.frame - c.2 >= min_age)
                        .collect();
                    // (A young victim was allowed: the one older voice
                    // would have gone virtual and come straight back.)
                    let young = all.iter().copied().find(|c| c.0 == which[&victim]);
                    let mut allowed = if old.is_empty() { all } else { old };
                    if let Some(y) = young.filter(|y| !allowed.contains(y)) {
                        allowed.push(y);
                    }
                    let start_of =
                        |i: usize| alive.iter().find(|(h, _)| which[*h] == i).map(|(_, &f)| f);
                    steals.push(Steal {
                        frame: te.frame,
                        chosen: which[&victim],
                        candidates: allowed
                            .iter()
                            .map(|&(i, o, s)| (o, plays[i].volume, start_of(i).unwrap_or(s), i))
                            .collect(),
                        sounding: sounding(&live, &alive, &which),
                        by: (which[&by], alive.get(&by).copied().unwrap_or(te.frame)),
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
    // Per scenario name, with masking off and on: regrets per ranking
    // (voicepool, oldest, set volume, set volume x distance gain now).
    let mut by_scenario: Vec<(&str, [Regrets; 2])> = Vec::new();
    let mut steals_total = [0; 2];
    // Per scenario with virtual voices, masking off and on: the share of
    // the most audible plays that were real, per block.
    let mut most_audible: Vec<Shares> = Vec::new();
    // Scenarios run with and without the audible window (masking on):
    // (pair name, seed, window, mix, seconds per block).
    let mut windows: Vec<Windowed> = Vec::new();
    for seed in 0..seeds {
        for sc in scenarios(seed, seconds) {
            let (name, plays) = (sc.name, &sc.plays);
            let futures: Vec<Future> = plays
                .iter()
                .map(|p| {
                    let frames = (blocks - p.block) * BLOCK;
                    Future::render(p, frames + secs(1.0), (frames + secs(0.3)) / HOP)
                })
                .collect();
            let slot = match by_scenario.iter().position(|s| s.0 == name) {
                Some(i) => i,
                None => {
                    by_scenario.push((name, Default::default()));
                    by_scenario.len() - 1
                }
            };
            for (m, masking) in [false, true].into_iter().enumerate() {
                let Outcome {
                    steals,
                    shares,
                    mix,
                    rendering,
                } = run(&sc, &futures, blocks, masking);
                if let (Some(pair), true) = (sc.pair, masking) {
                    windows.push((pair, seed, sc.window, mix, rendering / blocks as f64));
                }
                if !shares.is_empty() && sc.window.is_none() {
                    match most_audible.iter_mut().find(|m| m.0 == name) {
                        Some(s) => s.1[m].extend(shares),
                        None => {
                            let mut both: [Vec<(f64, bool)>; 2] = Default::default();
                            both[m] = shares;
                            most_audible.push((name, both));
                        }
                    }
                }
                // (Steals that send a voice virtual lose nothing and are
                // not counted; a scene made to test comebacks is scored by
                // the share of the most audible plays that are real.)
                let scored = if sc.scored { &steals[..] } else { &[] };
                steals_total[m] += score(scored, plays, &futures, &mut by_scenario[slot].1[m]);
            }
        }
    }
    println!(
        "steal regret: {seeds} seeds x {} scenarios of {seconds} s, {} steals with a choice \
         (masking on; {} with it off)\n",
        by_scenario.len(),
        steals_total[1],
        steals_total[0]
    );
    report_regrets(&by_scenario);
    report_masking(&by_scenario);
    report_shares(&most_audible);
    report_windows(&windows, &by_scenario);
}
