//! Choosing what a cue play sounds, on the game side: [`Rng`] (the
//! engine's generator, seeded by `EngineSettings::seed`), the picking
//! state each cue keeps per engine (a shuffle's bag, a sequence's place),
//! and [`Picks::choose`], which turns a cue and its layers into the voices
//! to play.

use std::time::Duration;

use std::sync::{Arc, Weak};

use super::{Cue, CueData, Pick, MAX_CUE_VOICES};
use crate::control::voice_info::IdMap;
use crate::protocol::modulation::exp;
use crate::sound::Sound;

/// SplitMix64 (Steele, Lea and Flood, 2014): small, fast, and the same
/// numbers on every platform, so a seeded render is bit-identical
/// anywhere.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, 53 bits.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (`n` > 0; the bias, n / 2^64, is far below
    /// anything a test could see).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// What a cue remembers between plays on one engine.
#[derive(Debug)]
enum State {
    /// `bag[at..]` are still to play in this round; `last` played last.
    Shuffle {
        bag: Vec<u32>,
        at: usize,
        last: Option<u32>,
    },
    /// The next to play.
    Sequence { next: usize },
}

/// One voice of a cue play, as chosen.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chosen<'a> {
    pub(crate) sound: &'a Sound,
    /// Factors on the play's volume and pitch.
    pub(crate) volume: f32,
    pub(crate) pitch: f32,
    pub(crate) looping: bool,
    /// After the play's start.
    pub(crate) delay: Duration,
}

/// The engine's generator and every cue's picking state.
#[derive(Debug)]
pub(crate) struct Picks {
    rng: Rng,
    states: States,
}

/// Each cue's state, with the cue (weakly: a cue dropped has its state
/// dropped, at the next clean-up).
#[derive(Debug, Default)]
struct States {
    by_cue: IdMap<(Weak<CueData>, State)>,
    /// States made since the last clean-up of dropped cues'.
    made: usize,
}

impl Picks {
    pub(crate) fn new(seed: u64) -> Picks {
        Picks {
            rng: Rng::new(seed),
            states: States::default(),
        }
    }

    /// How many cues' states are kept (tests).
    #[cfg(test)]
    pub(crate) fn states(&self) -> usize {
        self.states.by_cue.len()
    }

    /// The voices a play of `cue` sounds, the cue's own first and then
    /// each layer's, depth first, into `out` (room for
    /// [`MAX_CUE_VOICES`]); returns how many.
    pub(crate) fn choose<'a>(
        &mut self,
        cue: &'a Cue,
        out: &mut [Option<Chosen<'a>>; MAX_CUE_VOICES],
    ) -> usize {
        let mut n = 0;
        self.choose_into(cue, Duration::ZERO, out, &mut n);
        n
    }

    fn choose_into<'a>(
        &mut self,
        cue: &'a Cue,
        after: Duration,
        out: &mut [Option<Chosen<'a>>; MAX_CUE_VOICES],
        n: &mut usize,
    ) {
        let Some(slot) = out.get_mut(*n) else {
            return;
        };
        let chosen = self.choose_one(cue, after);
        *slot = Some(chosen);
        *n += 1;
        for layer in &cue.data().layers {
            self.choose_into(layer, chosen.delay, out, n);
        }
    }

    /// The voice `cue` itself sounds in a play (not its layers), `after`
    /// the play's start and its own delay.
    pub(crate) fn choose_one<'a>(&mut self, cue: &'a Cue, after: Duration) -> Chosen<'a> {
        let d = cue.data();
        let variation = self.variation(cue);
        Chosen {
            // (`variation` is below the count, which is at least 1.)
            sound: &d.variations[variation.min(d.variations.len() - 1)],
            volume: self.volume(d.volume_db),
            pitch: self.pitch(d.pitch, d.pitch_ln),
            looping: d.looping,
            delay: after.saturating_add(d.delay),
        }
    }

    /// The index of the variation this play of `cue` sounds.
    fn variation(&mut self, cue: &Cue) -> usize {
        let d = cue.data();
        let n = d.variations.len();
        if n <= 1 {
            return 0;
        }
        match d.pick {
            Pick::Random => match d.cumulative.last() {
                Some(&total) => {
                    let x = self.rng.unit() * total;
                    // The first whose running sum passes x (never a
                    // weight of 0).
                    d.cumulative.partition_point(|&c| c <= x).min(n - 1)
                }
                None => self.rng.below(n),
            },
            Pick::Sequence => {
                let State::Sequence { next } = self.states.get(cue, || State::Sequence { next: 0 })
                else {
                    return 0;
                };
                let k = *next % n;
                *next = (k + 1) % n;
                k
            }
            Pick::Shuffle => {
                let fresh = || State::Shuffle {
                    bag: (0..n as u32).collect(),
                    at: n,
                    last: None,
                };
                let rng = &mut self.rng;
                let State::Shuffle { bag, at, last } = self.states.get(cue, fresh) else {
                    return 0;
                };
                if *at >= bag.len() {
                    // Fisher-Yates.
                    for i in (1..bag.len()).rev() {
                        bag.swap(i, rng.below(i + 1));
                    }
                    // Never the one that ended the last round first.
                    if bag.first().copied() == *last {
                        let other = 1 + rng.below(n - 1);
                        bag.swap(0, other);
                    }
                    *at = 0;
                }
                let k = bag[*at];
                *at += 1;
                *last = Some(k);
                k as usize
            }
        }
    }

    /// A gain uniform in dB over `(lo, hi)`.
    fn volume(&mut self, (lo, hi): (f32, f32)) -> f32 {
        if lo == hi && lo == 0.0 {
            return 1.0;
        }
        let db = f64::from(lo) + self.rng.unit() * f64::from(hi - lo);
        exp(db * (std::f64::consts::LN_10 / 20.0)) as f32
    }

    /// A factor uniform in cents over `(lo, hi)`, whose logarithms are
    /// `(a, b)`.
    fn pitch(&mut self, (lo, hi): (f32, f32), (a, b): (f64, f64)) -> f32 {
        if lo == hi {
            return lo;
        }
        exp(a + self.rng.unit() * (b - a)) as f32
    }
}

impl States {
    /// The state of `cue`, made by `new` if it has none yet.
    fn get(&mut self, cue: &Cue, new: impl FnOnce() -> State) -> &mut State {
        let id = cue.data().id;
        if !self.by_cue.contains_key(&id) {
            // A game that builds a cue per play leaves a state per play:
            // those of dropped cues go, now and then.
            self.made += 1;
            if self.made >= 64.max(self.by_cue.len()) {
                self.by_cue.retain(|_, (cue, _)| cue.strong_count() > 0);
                self.made = 0;
            }
        }
        &mut self
            .by_cue
            .entry(id)
            .or_insert_with(|| (Arc::downgrade(cue.arc()), new()))
            .1
    }
}
