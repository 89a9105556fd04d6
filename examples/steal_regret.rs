//! How good is stealing? Replays seeded game-like scenarios and, at every
//! steal, scores each voice the rules allowed to be taken by what the
//! listener would lose if it were cut: its perceived (BS.1770 K-weighted)
//! loudness over what it would have played next. An oracle that knows the
//! future takes the least loss; a choice's *regret* is how much more it
//! loses than the oracle, in dB.
//!
//! Three rankings are scored on the same states (those of a run with
//! `StealPolicy::Quietest`): the engine's own choice, the oldest candidate
//! (`StealPolicy::Oldest`), and the lowest *set* volume, ties to the oldest
//! (how FMOD, Wwise and Unreal rank). Oracles look 100 ms, 300 ms and 1 s
//! ahead; the 300 ms one is the headline.
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

#[path = "../tests/support/k_weighting.rs"]
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
mod synth {
    use super::*;

    /// A crack, a gap of `lo..hi` seconds, an echo.
    pub fn gunshot(rng: &mut Rng, lo: f32, hi: f32) -> Sound {
        let gap = rng.range(lo, hi);
        let crack = secs(0.04);
        let mut s = vec![0.0; crack + secs(gap) + secs(0.3)];
        for (i, v) in s.iter_mut().enumerate().take(crack) {
            *v = rng.noise() * 0.9 * (-(i as f32) / secs(0.012) as f32).exp();
        }
        let echo_at = crack + secs(gap);
        let mut echo: Vec<f32> = (0..secs(0.3))
            .map(|i| rng.noise() * 0.35 * (-(i as f32) / secs(0.1) as f32).exp())
            .collect();
        low_pass(&mut echo, 2_500.0);
        s[echo_at..].copy_from_slice(&echo);
        mono(s, "gunshot")
    }

    /// A boom with a long rumbling tail.
    pub fn explosion(rng: &mut Rng) -> Sound {
        let mut s: Vec<f32> = (0..secs(2.5))
            .map(|i| rng.noise() * (-(i as f32) / secs(0.5) as f32).exp())
            .collect();
        low_pass(&mut s, 400.0);
        s.iter_mut().for_each(|v| *v *= 3.0);
        mono(s, "explosion")
    }

    /// A vowel-like syllable: harmonics of `f0` under a smooth envelope.
    fn syllable(f0: f32, len: usize, out: &mut Vec<f32>) {
        for i in 0..len {
            let t = i as f32 / RATE as f32;
            let env = (std::f32::consts::PI * i as f32 / len as f32).sin();
            let v: f32 = (1..=12)
                .map(|h| {
                    let f = f0 * h as f32;
                    let formant = (-((f - 700.0) / 400.0).powi(2)).exp()
                        + 0.6 * (-((f - 2_200.0) / 500.0).powi(2)).exp();
                    (std::f32::consts::TAU * f * t).sin() * formant
                })
                .sum();
            out.push(0.25 * env * v);
        }
    }

    /// A line of dialogue: phrases of syllables, pauses between them.
    pub fn dialogue(rng: &mut Rng) -> Sound {
        let mut s = Vec::new();
        let f0 = rng.range(110.0, 210.0);
        for phrase in 0..rng.pick(3) + 2 {
            if phrase > 0 {
                s.extend(std::iter::repeat_n(0.0, secs(rng.range(0.15, 0.45))));
            }
            for _ in 0..rng.pick(5) + 3 {
                syllable(
                    f0 * rng.range(0.9, 1.15),
                    secs(rng.range(0.08, 0.2)),
                    &mut s,
                );
                s.extend(std::iter::repeat_n(0.0, secs(rng.range(0.01, 0.06))));
            }
        }
        mono(s, "dialogue")
    }

    /// A pain cry opening with 40 to 160 ms of silence.
    pub fn pain(rng: &mut Rng) -> Sound {
        let mut s = vec![0.0; secs(rng.range(0.04, 0.16))];
        syllable(rng.range(250.0, 350.0), secs(0.35), &mut s);
        mono(s, "pain")
    }

    /// Glassy pings 90 ms apart (a sparkle burst).
    pub fn ping_train(rng: &mut Rng) -> Sound {
        let f = rng.range(2_500.0, 4_500.0);
        let mut s = Vec::new();
        for _ in 0..rng.pick(6) + 4 {
            s.extend((0..secs(0.09)).map(|i| {
                let t = i as f32 / RATE as f32;
                0.5 * (std::f32::consts::TAU * f * t).sin() * (-t / 0.008).exp()
            }));
        }
        mono(s, "pings")
    }

    /// Quiet for its first 200 ms, then swelling to full.
    pub fn swell(rng: &mut Rng) -> Sound {
        let f = rng.range(200.0, 600.0);
        let s = (0..secs(2.0))
            .map(|i| {
                let t = i as f32 / RATE as f32;
                let env = if t < 0.2 {
                    0.01
                } else {
                    (0.01 + (t - 0.2) * 1.2).min(0.7)
                };
                env * ((std::f32::consts::TAU * f * t).sin() + 0.3 * rng.noise())
            })
            .collect();
        mono(s, "swell")
    }

    /// Low rumble (mostly below 60 Hz), loopable.
    pub fn rumble(rng: &mut Rng) -> Sound {
        let mut s: Vec<f32> = (0..secs(3.0)).map(|_| rng.noise() * 4.0).collect();
        low_pass(&mut s, 60.0);
        low_pass(&mut s, 60.0);
        mono(s, "rumble")
    }

    /// One footstep then silence: a running loop of steps `period` apart.
    pub fn running(step: &Sound, period: f32) -> Sound {
        let mut s: Vec<f32> = step
            .samples()
            .iter()
            .step_by(step.channels() as usize)
            .copied()
            .collect();
        s.resize(secs(period), 0.0);
        mono(s, "running")
    }
}

/// A play in a scenario: when (block), what, how, and its set volume.
struct Play {
    block: usize,
    sound: Sound,
    params: PlayParams,
    volume: f32,
}

/// A play at `block` of `sound` at `volume`, panned by `params`.
fn at(block: usize, sound: Sound, volume: f32, params: PlayParams) -> Play {
    Play {
        block,
        sound,
        params: params.volume(volume),
        volume,
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
        e.play(&play.sound, play.params).expect("play");
        let mut l = Vec::with_capacity(frames);
        let mut r = Vec::with_capacity(frames);
        for _ in 0..frames.div_ceil(BLOCK) {
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
    // regrets[horizon][ranking] per scenario name.
    let mut by_scenario: Vec<(&str, [[Vec<f64>; 3]; 3])> = Vec::new();
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
                    for (k, choice) in [Some(s.chosen), oldest, set_volume].into_iter().enumerate()
                    {
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
            "| scenario | steals | voicepool Quietest | set volume (FMOD-style) | oldest first |"
        );
        println!("| --- | --- | --- | --- | --- |");
        let mut totals: [Vec<f64>; 3] = Default::default();
        for (name, r) in &by_scenario {
            println!(
                "| {name} | {} | {} | {} | {} |",
                r[h][0].len(),
                stats(r[h][0].clone()),
                stats(r[h][2].clone()),
                stats(r[h][1].clone())
            );
            for k in 0..3 {
                totals[k].extend(&r[h][k]);
            }
        }
        println!(
            "| **all** | {} | {} | {} | {} |\n",
            totals[0].len(),
            stats(totals[0].clone()),
            stats(totals[2].clone()),
            stats(totals[1].clone())
        );
    }
}
