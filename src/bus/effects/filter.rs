//! [`Filter`]: the two-pole low-pass and high-pass of [`Effect::LowPass`]
//! and [`Effect::HighPass`], a state-variable filter in the topology-
//! preserving (trapezoidal) form, which stays stable and free of zipper
//! noise while its cutoff moves: the cutoff glides exponentially (evenly
//! in pitch), and the coefficients follow it every [`COEFF_FRAMES`] frames.
//!
//! Real-time contract: `process` and `set_param` allocate nothing, take no
//! lock and cannot panic; a filter fully open (a low-pass at its highest
//! cutoff, a high-pass at its lowest) is a wire and costs a comparison.
//!
//! [`Effect::LowPass`]: crate::Effect::LowPass
//! [`Effect::HighPass`]: crate::Effect::HighPass

use crate::bus::{max_cutoff, CustomEffect, EffectParam, MIN_CUTOFF};
use crate::math::Libm;

/// Frames between coefficient updates while the cutoff glides.
const COEFF_FRAMES: usize = 16;

/// 1 / Q: Butterworth.
const K: f32 = std::f32::consts::SQRT_2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    Low,
    High,
}

/// One channel's two integrator states.
#[derive(Clone, Copy, Default)]
struct State {
    ic1: f32,
    ic2: f32,
}

pub(crate) struct Filter {
    pass: Pass,
    rate: f32,
    /// The cutoff now and where it is heading, in Hz.
    cutoff: f32,
    target: f32,
    /// The glide: where it started, its length and the frames left of it.
    /// The cutoff at each step is computed from the start (evenly in
    /// pitch), never by compounding a per-frame factor: rounding then
    /// cannot carry it past either end, however long the glide.
    from: f32,
    frames: u32,
    left: u32,
    /// Coefficients for `cutoff`.
    a: [f32; 3],
    state: [State; 2],
}

impl Filter {
    pub(crate) fn new(pass: Pass, cutoff_hz: f32, rate: u32) -> Filter {
        let cutoff = cutoff_hz.clamp(MIN_CUTOFF, max_cutoff(rate));
        let mut f = Filter {
            pass,
            rate: rate as f32,
            cutoff,
            target: cutoff,
            from: cutoff,
            frames: 0,
            left: 0,
            a: [0.0; 3],
            state: [State::default(); 2],
        };
        f.coefficients();
        f
    }

    fn coefficients(&mut self) {
        // (Always within range: a stable filter whatever arrived.)
        self.cutoff = self.cutoff.clamp(MIN_CUTOFF, max_cutoff(self.rate as u32));
        let g = (std::f32::consts::PI * self.cutoff / self.rate).lm_tan();
        let a1 = 1.0 / (1.0 + g * (g + K));
        let a2 = g * a1;
        self.a = [a1, a2, g * a2];
    }

    /// At its most open and not moving: a wire.
    fn is_open(&self) -> bool {
        let edge = match self.pass {
            Pass::Low => max_cutoff(self.rate as u32),
            Pass::High => MIN_CUTOFF,
        };
        self.left == 0 && self.cutoff == edge
    }

    /// The magnitude squared of its response at `hz` (for ranking).
    fn power_at(&self, hz: f32) -> f32 {
        // The analog prototype at the target cutoff: 1 / (1 + (f/fc)^4)
        // for the low-pass, mirrored for the high-pass.
        let x = (hz / self.target).lm_powi(4);
        match self.pass {
            Pass::Low => 1.0 / (1.0 + x),
            Pass::High => x / (1.0 + x),
        }
    }

    /// One sample through the filter: the trapezoidal SVF's `v1` and `v2`
    /// written straight from the states and the input (the same values as
    /// `v3 = v0 - ic2; v1 = a1 ic1 + a2 v3; v2 = ic2 + a2 ic1 + a3 v3`,
    /// with fewer steps between one sample's states and the next's).
    #[inline(always)]
    fn tick(a: &[f32; 3], s: &mut State, v0: f32, pass: Pass) -> f32 {
        let [a1, a2, a3] = *a;
        let v1 = a1 * s.ic1 + a2 * (v0 - s.ic2);
        let v2 = (a2 * s.ic1 + a3 * v0) + (1.0 - a3) * s.ic2;
        s.ic1 = 2.0 * v1 - s.ic1;
        s.ic2 = 2.0 * v2 - s.ic2;
        match pass {
            Pass::Low => v2,
            Pass::High => v0 - K * v1 - v2,
        }
    }

    /// The cutoff `done` frames into the glide: its start times the
    /// ratio to the target raised to the share done (in `f64`), the
    /// target itself at the end.
    fn glide_at(&self, done: u32) -> f32 {
        if done >= self.frames {
            return self.target;
        }
        let share = f64::from(done) / f64::from(self.frames);
        let ratio = f64::from(self.target) / f64::from(self.from);
        (f64::from(self.from) * ratio.lm_powf(share)) as f32
    }

    /// Flushes what decays toward denormals to zero, and starts afresh
    /// from a state that overflowed (an input too loud for `f32` reached
    /// it: that piece is lost, the next is filtered again).
    fn flush(&mut self) {
        let keep = |v: f32| (1e-20..=1e34).contains(&v.abs());
        for s in &mut self.state {
            if !keep(s.ic1) {
                s.ic1 = 0.0;
            }
            if !keep(s.ic2) {
                s.ic2 = 0.0;
            }
        }
    }

    fn run(&mut self, l: &mut [f32], r: &mut [f32]) {
        let pass = self.pass;
        let [sl, sr] = &mut self.state;
        for (x, y) in l.iter_mut().zip(r.iter_mut()) {
            *x = Self::tick(&self.a, sl, *x, pass);
            *y = Self::tick(&self.a, sr, *y, pass);
        }
    }
}

impl CustomEffect for Filter {
    fn process(&mut self, left: &mut [f32], right: &mut [f32]) {
        let n = left.len().min(right.len());
        if self.is_open() {
            // Keep the states where a steady input would have them, so
            // that closing again starts without a jump.
            if let (Some(&l), Some(&r)) = (left[..n].last(), right[..n].last()) {
                let settle = |v: f32| match pass_dc(self.pass) {
                    true => State { ic1: 0.0, ic2: v },
                    false => State::default(),
                };
                self.state = [settle(l), settle(r)];
            }
            return;
        }
        let (left, right) = (&mut left[..n], &mut right[..n]);
        if self.left == 0 {
            self.run(left, right);
            self.flush();
            return;
        }
        let mut done = 0;
        while done < n {
            let m = (n - done).min(COEFF_FRAMES);
            let step = (m as u32).min(self.left);
            self.left -= step;
            self.cutoff = self.glide_at(self.frames - self.left);
            self.coefficients();
            self.run(&mut left[done..done + m], &mut right[done..done + m]);
            done += m;
            if self.left == 0 {
                self.run(&mut left[done..], &mut right[done..]);
                break;
            }
        }
        self.flush();
    }

    fn set_param(&mut self, param: EffectParam, frames: u32) {
        if let EffectParam::CutoffHz(hz) = param {
            let hz = hz.clamp(MIN_CUTOFF, max_cutoff(self.rate as u32));
            self.target = hz;
            if frames == 0 {
                self.cutoff = hz;
                self.left = 0;
                self.coefficients();
            } else {
                self.from = self.cutoff;
                self.frames = frames;
                self.left = frames;
            }
        }
    }

    fn is_idle(&self) -> bool {
        // Fed silence, it rings down to nothing within a few periods of its
        // cutoff; the states are flushed to zero well before that matters.
        // A glide under way is not idle: it must move on with time.
        self.left == 0
            && self
                .state
                .iter()
                .all(|s| s.ic1.abs() < 1e-9 && s.ic2.abs() < 1e-9)
    }

    fn power_gain(&self, hz: f32) -> f32 {
        if self.is_open() {
            1.0
        } else {
            self.power_at(hz)
        }
    }
}

/// Whether the filter passes a steady (DC) input.
fn pass_dc(pass: Pass) -> bool {
    pass == Pass::Low
}
