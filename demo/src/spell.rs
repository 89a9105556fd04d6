//! The spell: the sounds it plays and the script of casts, deterministic.

use std::path::Path;
use std::time::Duration;

use voicepool::{PlayParams, Sound};

/// The sounds, by index: 0 ambience, 1 swish, 2.. sparkles.
pub(crate) struct Bank {
    pub(crate) sounds: Vec<Sound>,
}

pub(crate) const AMBIENCE: usize = 0;
pub(crate) const SWISH: usize = 1;

impl Bank {
    pub(crate) fn load() -> Result<Bank, String> {
        // The repository's samples/, next to this crate's directory.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
        let mut names = vec!["ambience".to_string(), "swish".to_string()];
        names.extend((1..=6).map(|i| format!("sparkle_{i}")));
        let sounds = names
            .iter()
            .map(|n| {
                Sound::from_wav_file(dir.join(format!("{n}.wav"))).map_err(|e| {
                    format!("{e}\n(the samples are made by `cargo run --example make_samples`)")
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Bank { sounds })
    }

    pub(crate) fn name(&self, i: usize) -> &str {
        self.sounds.get(i).map_or("?", |s| s.name())
    }
}

/// One scheduled play.
pub(crate) struct Action {
    pub(crate) at: f64,
    pub(crate) sound: usize,
    pub(crate) params: PlayParams,
    pub(crate) cast: Option<usize>,
}

/// A deterministic pseudo-random sequence.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    pub(crate) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

/// The spell: casts on a rhythm (four per 2.5 s bar: beats 1, 2, 3 and the
/// "and" of 3), each a swish and 20 to 36 sparkles spread over 0.7 s.
pub(crate) fn script(seconds: f64, sparkles: usize) -> (Vec<Action>, usize) {
    let mut rng = Rng(0x5eed);
    let mut actions = vec![Action {
        at: 0.0,
        sound: AMBIENCE,
        params: PlayParams::default()
            .volume(0.35)
            .looping(true)
            // Background: below the spell's sounds, so a full pool takes
            // its voice first; it keeps time and comes back in the gaps.
            .priority(64)
            .virtualize(true)
            .fade_in(Duration::from_secs(1)),
        cast: None,
    }];
    let beat = 0.625;
    let mut casts = 0;
    'bars: for bar in 0.. {
        for offset in [0.0, 1.0, 2.0, 2.5] {
            let t = 0.5 + bar as f64 * 4.0 * beat + offset * beat;
            if t > seconds - 0.5 {
                break 'bars;
            }
            let pan = if casts % 2 == 0 { -0.45 } else { 0.45 };
            actions.push(Action {
                at: t,
                sound: SWISH,
                params: PlayParams::default()
                    .volume(0.9)
                    .pan(pan)
                    .pitch(rng.range(0.9, 1.12))
                    .priority(200),
                cast: Some(casts),
            });
            let burst = 20 + (rng.unit() * 17.0) as usize;
            for _ in 0..burst {
                let u = rng.unit();
                let volume = 0.06 + 0.5 * rng.unit().powi(2);
                actions.push(Action {
                    at: t + 0.08 + f64::from(u.powf(1.5)) * 0.7,
                    sound: 2 + (rng.unit() * sparkles as f32) as usize % sparkles,
                    params: PlayParams::default()
                        .volume(volume)
                        .pitch(rng.range(0.7, 1.7))
                        .pan((pan + rng.range(-0.6, 0.6)).clamp(-1.0, 1.0)),
                    cast: None,
                });
            }
            casts += 1;
        }
    }
    actions.sort_by(|a, b| a.at.total_cmp(&b.at));
    (actions, casts)
}
