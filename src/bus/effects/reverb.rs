//! [`Reverb`]: the stereo algorithmic reverb of [`Effect::Reverb`], a
//! feedback delay network of eight lines of mutually prime lengths (about
//! 30 to 80 ms, scaled by the room), mixed through a Householder matrix,
//! each line damped by a one-pole low-pass and scaled for the decay time
//! the room asks for (0.3 s to 4 s to fall 60 dB).
//!
//! Real-time contract: every line is allocated in [`Reverb::new`], on the
//! game side; `process` allocates nothing, takes no lock and cannot panic
//! (indices wrap within each line). Values that decay toward denormals are
//! flushed to zero; once the input is silent and the tail has fallen below
//! -140 dB the lines are cleared and the effect is idle, and the bus skips
//! it until sound reaches it again.
//!
//! [`Effect::Reverb`]: crate::Effect::Reverb

use crate::bus::mix::peak_of_both;
use crate::bus::{CustomEffect, EffectParam};

use super::guard::CEILING;
use crate::math::Libm;
use crate::render::ramp::Ramp;

const LINES: usize = 8;

/// Line lengths at 48 kHz for a room of size 1 (primes, 29.9 to 58.3 ms).
const LENGTHS: [usize; LINES] = [1433, 1601, 1867, 2053, 2251, 2399, 2617, 2797];

/// Below this the tail is silence (-140 dB).
const SILENT: f32 = 1e-7;

pub(crate) struct Reverb {
    /// All eight lines, one after the other.
    memory: Box<[f32]>,
    /// Each line's start in `memory`, its length and where it is.
    start: [usize; LINES],
    len: [usize; LINES],
    pos: [usize; LINES],
    /// Each line's damping state.
    low: [f32; LINES],
    /// Per line, the gain that makes the room's decay time.
    feedback: [f32; LINES],
    room: Ramp,
    damping: Ramp,
    wet: Ramp,
    rate: f32,
    /// The tail has died out and the lines are clear.
    idle: bool,
    /// Frames in a row with silence in and everything read from the lines
    /// below silence: once a whole longest line, nothing is left.
    quiet: usize,
}

impl Reverb {
    pub(crate) fn new(room: f32, damping: f32, wet: f32, rate: u32) -> Reverb {
        let room = room.clamp(0.0, 1.0);
        // The size is the room's when made: 0.6 to 1.4 times the lengths.
        let scale = (0.6 + 0.8 * room) * rate as f32 / 48_000.0;
        let len = LENGTHS.map(|l| ((l as f32 * scale) as usize).max(1));
        let mut start = [0; LINES];
        let mut at = 0;
        for (s, l) in start.iter_mut().zip(len) {
            *s = at;
            at += l;
        }
        let mut r = Reverb {
            memory: vec![0.0; at].into_boxed_slice(),
            start,
            len,
            pos: [0; LINES],
            low: [0.0; LINES],
            feedback: [0.0; LINES],
            room: Ramp::steady(room),
            damping: Ramp::steady(damping.clamp(0.0, 1.0)),
            wet: Ramp::steady(wet.clamp(0.0, 1.0)),
            rate: rate as f32,
            idle: true,
            quiet: 0,
        };
        r.decay();
        r
    }

    /// Empties the lines and rests.
    fn clear(&mut self) {
        self.memory.fill(0.0);
        self.low = [0.0; LINES];
        self.idle = true;
        self.quiet = 0;
    }

    /// Seconds to fall 60 dB for `room`: 0.3 s to 4 s, evenly in ratio.
    fn decay_time(room: f32) -> f32 {
        0.3 * (4.0f32 / 0.3).lm_powf(room)
    }

    fn decay(&mut self) {
        let t60 = Self::decay_time(self.room.value) * self.rate;
        for (g, &l) in self.feedback.iter_mut().zip(&self.len) {
            *g = 10f32.lm_powf(-3.0 * l as f32 / t60);
        }
    }

    /// Mixes the reverberation of `left` and `right` in, its share
    /// gliding from `wet.0` to `wet.1`; returns the loudest value read
    /// from the lines. Runs in stretches within which no line wraps, so
    /// the inner loop has no wrap test.
    fn run(&mut self, left: &mut [f32], right: &mut [f32], wet: (f32, f32)) -> f32 {
        let n = left.len().min(right.len());
        let dw = (wet.1 - wet.0) / (n as f32).max(1.0);
        let mut w = wet.0;
        let mut loudest = 0u32;
        let mut done = 0;
        while done < n {
            let room = (0..LINES)
                .map(|k| self.len[k].saturating_sub(self.pos[k]))
                .min()
                .unwrap_or(0)
                .max(1);
            let m = room.min(n - done);
            let (l, r) = (&mut left[done..done + m], &mut right[done..done + m]);
            loudest = loudest.max(self.stretch(l, r, &mut w, dw));
            for k in 0..LINES {
                self.pos[k] += m;
                if self.pos[k] >= self.len[k] {
                    self.pos[k] = 0;
                }
            }
            done += m;
        }
        // Flushed once a stretch: what decays toward denormals.
        for low in &mut self.low {
            if low.abs() < 1e-20 {
                *low = 0.0;
            }
        }
        f32::from_bits(loudest)
    }

    /// `left.len()` frames, every line read and written from its position
    /// on without wrapping; the loudest magnitude read, as bits.
    #[inline(always)]
    fn stretch(&mut self, left: &mut [f32], right: &mut [f32], w: &mut f32, dw: f32) -> u32 {
        let d = 0.7 * self.damping.value;
        let mut loudest = 0u32;
        let (feedback, start, pos) = (self.feedback, self.start, self.pos);
        let mut low = self.low;
        for (i, (l, r)) in left.iter_mut().zip(right.iter_mut()).enumerate() {
            let input = 0.35 * (*l + *r);
            let mut y = [0.0f32; LINES];
            for k in 0..LINES {
                let out = self
                    .memory
                    .get(start[k] + pos[k] + i)
                    .copied()
                    .unwrap_or(0.0);
                loudest = loudest.max(out.to_bits() & 0x7fff_ffff);
                // Damped: a one-pole low-pass in the loop.
                low[k] = out + d * (low[k] - out);
                y[k] = low[k] * feedback[k];
            }
            let house = y.iter().sum::<f32>() * (2.0 / LINES as f32);
            for (k, &yk) in y.iter().enumerate() {
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                if let Some(m) = self.memory.get_mut(start[k] + pos[k] + i) {
                    *m = yk - house + sign * input;
                }
            }
            let out_l = 0.3 * (y[0] + y[1] - y[2] - y[3] + y[4] + y[5] - y[6] - y[7]);
            let out_r = 0.3 * (y[0] - y[1] + y[2] - y[3] + y[4] - y[5] + y[6] - y[7]);
            *l = *l * (1.0 - *w) + out_l * *w;
            *r = *r * (1.0 - *w) + out_r * *w;
            *w += dw;
        }
        self.low = low;
        loudest
    }
}

impl CustomEffect for Reverb {
    fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
        let n = left.len().min(right.len());
        let (left, right) = (&mut left[..n], &mut right[..n]);
        let from = self.wet.value;
        self.wet.advance(n);
        let to = self.wet.value;
        if self.room.left > 0 {
            self.room.advance(n);
            self.decay();
        }
        self.damping.advance(n);
        let loudest_in = peak_of_both(left, right);
        if loudest_in.is_nan() || loudest_in > CEILING {
            // Overflowed on its way here: lost, rather than fed to the
            // lines.
            left.fill(0.0);
            right.fill(0.0);
        }
        let quiet_in = !(SILENT..=CEILING).contains(&loudest_in);
        if self.idle && quiet_in {
            // Nothing in, nothing ringing: the dry share only.
            let dry = |x: &mut f32| *x *= 1.0 - to;
            left.iter_mut().for_each(dry);
            right.iter_mut().for_each(dry);
            return;
        }
        self.idle = false;
        let loudest = self.run(left, right, (from, to));
        if loudest.is_nan() || loudest > 1e34 {
            // An input too loud for `f32` overflowed the lines:
            // start afresh, as if silent till now.
            self.clear();
            return;
        }
        if quiet_in && loudest < SILENT {
            self.quiet += n;
        } else {
            self.quiet = 0;
        }
        if self.quiet >= self.len.iter().copied().max().unwrap_or(0) {
            // Every value in the lines was read below silence: clear them
            // (they are no more than that) and rest.
            self.clear();
        }
    }

    fn set_param(&mut self, param: EffectParam, frames: u32) {
        match param {
            EffectParam::Wet(v) => self.wet.to(v.clamp(0.0, 1.0), frames),
            EffectParam::Room(v) => {
                self.room.to(v.clamp(0.0, 1.0), frames);
                self.decay();
            }
            EffectParam::Damping(v) => self.damping.to(v.clamp(0.0, 1.0), frames),
            EffectParam::CutoffHz(_) => {}
        }
    }

    fn is_idle(&self) -> bool {
        // A glide under way is not idle: it must move on with time.
        self.idle && self.wet.left == 0 && self.room.left == 0 && self.damping.left == 0
    }
}
