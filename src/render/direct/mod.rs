//! [`DirectFilters`]: each positioned play's own low-pass, for what its
//! cone, occlusion and the air take from its direct sound. A two-pole
//! state-variable filter (topology-preserving, Butterworth: -3 dB at the
//! cutoff, 12 dB per octave above), one per cell of the emitter table,
//! kept outside the voice's 64-byte line; a cutoff change glides over the
//! next render in steps of 16 frames, evenly in log frequency, and a
//! filter turned on starts from its input, not from silence.
//!
//! Real-time contract: the filters are allocated with the engine (one per
//! emitter cell) and never grow; running one is a few multiplies a frame
//! and allocates, locks and panics on nothing. A play whose cutoff is
//! open ([`OPEN_HZ`]) runs no filter at all.

use crate::math::Libm;
use crate::protocol::space::OPEN_HZ;
use crate::sound::bands::BAND_HZ;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod batch;

pub(crate) use batch::{process_batch, BATCH};

/// Frames per step of a cutoff glide.
pub(crate) const GLIDE_STEP: usize = 16;
/// Butterworth damping (1 / Q, Q = 1/√2).
const K: f32 = std::f32::consts::SQRT_2;

/// One play's filter: its state per output channel, and its cutoff as a
/// warped coefficient `g = tan(π f / rate)`, now and where it heads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DirectFilter {
    s1: [f32; 2],
    s2: [f32; 2],
    g: f32,
    to: f32,
    /// Filtering (else the voice's output passes untouched).
    on: bool,
    /// The cutoff it heads for is open: once reached, it stops filtering.
    to_open: bool,
    /// Just turned on: its state is taken from its first input (as if
    /// that had been playing through it), not from silence, which would
    /// ring.
    fresh: bool,
}

impl DirectFilter {
    /// No filter.
    pub(crate) const OFF: DirectFilter = DirectFilter {
        s1: [0.0; 2],
        s2: [0.0; 2],
        g: 0.0,
        to: 0.0,
        on: false,
        to_open: true,
        fresh: false,
    };

    /// Whether it filters.
    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// Heads for cutoff `hz` over the next render (at once if `now`: a
    /// voice starting, or coming back from the virtual pool).
    pub(crate) fn head_for(&mut self, hz: f32, rate: u32, now: bool) {
        let open = hz >= OPEN_HZ;
        if now || !self.on {
            if open {
                *self = DirectFilter::OFF;
                return;
            }
            let from = if now { hz } else { OPEN_HZ };
            *self = DirectFilter {
                g: warp(from, rate),
                to: warp(hz, rate),
                on: true,
                to_open: false,
                fresh: true,
                ..DirectFilter::OFF
            };
            return;
        }
        self.to = warp(hz.min(OPEN_HZ), rate);
        self.to_open = open;
    }

    /// Filters the planar pair `l`, `r` in place, gliding to the cutoff it
    /// heads for over them (evenly in log frequency, a step every 16
    /// frames). A filter just turned on starts from its first input
    /// ([`DirectFilter::prime`]). The recursion is [`Matrix`]'s, the two
    /// channels interleaved; [`process_batch`] runs the same arithmetic
    /// for eight voices at once.
    pub(crate) fn process(&mut self, l: &mut [f32], r: &mut [f32]) {
        let frames = l.len().min(r.len());
        let steps = frames.div_ceil(GLIDE_STEP).max(1);
        let step = glide_ratio(self.g, self.to, steps);
        let mut g = self.g;
        if self.fresh {
            self.prime(l.first().copied(), r.first().copied());
        }
        let (mut s1, mut s2) = (self.s1, self.s2);
        for (l, r) in l[..frames]
            .chunks_mut(GLIDE_STEP)
            .zip(r[..frames].chunks_mut(GLIDE_STEP))
        {
            g *= step;
            let m = Matrix::of(g);
            for (x, y) in l.iter_mut().zip(r.iter_mut()) {
                let (ol, or) = (m.out(s1[0], s2[0], *x), m.out(s1[1], s2[1], *y));
                let (n1l, n2l) = m.next(s1[0], s2[0], *x);
                let (n1r, n2r) = m.next(s1[1], s2[1], *y);
                s1 = [n1l, n1r];
                s2 = [n2l, n2r];
                *x = ol;
                *y = or;
            }
        }
        self.g = self.to;
        // Decayed to nothing: no denormals left to crawl through; a state
        // gone bad (it cannot, from finite input) is cleared.
        let settle = |v: f32| {
            if v.is_finite() && v.abs() > 1e-20 {
                v
            } else {
                0.0
            }
        };
        self.s1 = s1.map(settle);
        self.s2 = s2.map(settle);
        if self.to_open {
            *self = DirectFilter::OFF;
        }
    }
}

/// The two-pole low-pass at one cutoff as a recursion on its state: the
/// topology-preserving state-variable filter (`v3 = x - s2`,
/// `v1 = a1 s1 + a2 v3`, `v2 = s2 + a2 s1 + a3 v3`, `s1' = 2 v1 - s1`,
/// `s2' = 2 v2 - s2`, `y = v2`) multiplied out: with `v = x - s2`,
/// `s1' = (2 a1 - 1) s1 + 2 a2 v`, `s2' = (2 a2 s1 + s2) + 2 a3 v`,
/// `y = (a2 s1 + s2) + a3 v`. Each frame's state hangs on the last through
/// a subtraction, a multiply and an add.
#[derive(Clone, Copy)]
pub(crate) struct Matrix {
    pub(crate) m11: f32,
    pub(crate) b1: f32,
    pub(crate) b2: f32,
    pub(crate) c1: f32,
    pub(crate) d: f32,
}

impl Matrix {
    /// A wire: the input out, a state at rest left at rest (a filter that
    /// is off, in a batch).
    pub(crate) const PASS: Matrix = Matrix {
        m11: 1.0,
        b1: 0.0,
        b2: 0.0,
        c1: 0.0,
        d: 1.0,
    };

    #[inline(always)]
    pub(crate) fn of(g: f32) -> Matrix {
        let a1 = 1.0 / (1.0 + g * (g + K));
        let (a2, a3) = (g * a1, g * g * a1);
        Matrix {
            m11: 2.0 * a1 - 1.0,
            b1: 2.0 * a2,
            b2: 2.0 * a3,
            c1: a2,
            d: a3,
        }
    }

    #[inline(always)]
    fn out(&self, s1: f32, s2: f32, x: f32) -> f32 {
        (self.c1 * s1 + s2) + self.d * (x - s2)
    }

    #[inline(always)]
    fn next(&self, s1: f32, s2: f32, x: f32) -> (f32, f32) {
        let v = x - s2;
        (
            self.m11 * s1 + self.b1 * v,
            (self.b1 * s1 + s2) + self.b2 * v,
        )
    }
}

impl DirectFilter {
    /// A filter just turned on takes its state from its first input `l`,
    /// `r`: the state of a low-pass a steady input has been passing
    /// through (`s1` 0, `s2` the input), so that it starts where its input
    /// is rather than from silence (a step that rings).
    #[inline]
    pub(crate) fn prime(&mut self, l: Option<f32>, r: Option<f32>) {
        self.fresh = false;
        self.s1 = [0.0; 2];
        self.s2 = [l.unwrap_or(0.0), r.unwrap_or(0.0)];
    }
}

/// The factor a cutoff's warped coefficient moves by at each of `steps`
/// steps from `g` to `to`: a glide even in log frequency (in a straight
/// line, most of a glide up would come at once).
#[inline]
pub(crate) fn glide_ratio(g: f32, to: f32, steps: usize) -> f32 {
    if g == to || g <= 0.0 || to <= 0.0 {
        return 1.0;
    }
    let r = (to / g).lm_powf(1.0 / steps as f32);
    if r.is_finite() {
        r
    } else {
        1.0
    }
}

/// `tan(π hz / rate)`, the cutoff kept below 0.45 of the rate.
fn warp(hz: f32, rate: u32) -> f32 {
    let rate = rate.max(1) as f32;
    (std::f32::consts::PI * hz.clamp(1.0, 0.45 * rate) / rate).lm_tan()
}

/// What a low-pass at `hz` lets through of each of the sound bands
/// ([`BAND_HZ`]), as power: what stealing hears of it.
pub(crate) fn band_power(hz: f32) -> [f32; 4] {
    if hz >= OPEN_HZ {
        return [1.0; 4];
    }
    BAND_HZ.map(|f| {
        let x = f / hz.max(1.0);
        1.0 / (1.0 + x * x * x * x)
    })
}

/// Every emitter cell's filter, made with the engine.
pub(crate) struct DirectFilters {
    filters: Box<[DirectFilter]>,
}

impl DirectFilters {
    /// One filter per cell, all off.
    pub(crate) fn new(cells: usize) -> DirectFilters {
        DirectFilters {
            filters: vec![DirectFilter::OFF; cells].into_boxed_slice(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.filters)
    }

    /// Whether cell `e`'s filter is on.
    #[inline]
    pub(crate) fn is_on(&self, e: u32) -> bool {
        self.filters.get(e as usize).is_some_and(|f| f.on)
    }

    /// Cell `e`'s filter heads for `hz` (see [`DirectFilter::head_for`]).
    pub(crate) fn head_for(&mut self, e: u32, hz: f32, rate: u32, now: bool) {
        if let Some(f) = self.filters.get_mut(e as usize) {
            f.head_for(hz, rate, now);
        }
    }

    /// Sets cell `e`'s filter (one a batch ran).
    pub(crate) fn put(&mut self, e: u32, filter: DirectFilter) {
        if let Some(f) = self.filters.get_mut(e as usize) {
            *f = filter;
        }
    }

    /// A copy of cell `e`'s filter, for the voice's fade-out tail.
    pub(crate) fn get(&self, e: u32) -> DirectFilter {
        self.filters
            .get(e as usize)
            .copied()
            .unwrap_or(DirectFilter::OFF)
    }
}

#[cfg(test)]
mod tests;
