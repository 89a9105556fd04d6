//! [`process_batch`]: up to [`BATCH`] voices' direct-sound filters run
//! at once, one lane per voice and channel: each filter's frame hangs on
//! its last, and sixteen lanes side by side fill that wait. The same
//! arithmetic as [`DirectFilter::process`], bit for bit; the AVX2 rows
//! (`avx2.rs`) turn lanes into rows in registers.
//!
//! Real-time contract: arrays on the stack, nothing allocated, no lock,
//! no panic.

use super::{glide_ratio, DirectFilter, Matrix, GLIDE_STEP};
use crate::simd::Isa;

/// Voices filtered at once by [`process_batch`] (two lanes each: left and
/// right): while one frame's state waits on the last, the others' work
/// fills the time.
pub(crate) const BATCH: usize = 8;
pub(crate) const LANES: usize = 2 * BATCH;

/// Filters up to [`BATCH`] voices' planar pairs at once, each through its
/// own filter of `filters` (gliding as [`DirectFilter::process`] does,
/// with the same arithmetic, so a voice comes out as it would alone):
/// lane `j`'s `frames` frames at `buf[j * stride..]` (voice `j / 2`, left
/// then right). A filter that is off leaves its lanes as they are.
pub(crate) fn process_batch(
    isa: Isa,
    filters: &mut [DirectFilter; BATCH],
    buf: &mut [f32],
    stride: usize,
    frames: usize,
) {
    if frames > stride || buf.len() < LANES * stride {
        return; // (never: the mixer's batch is made to fit)
    }
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the token proves the CPU has AVX2; the function only
        // vectorizes the portable code (no FMA: the same results).
        Isa::Avx2(_) => unsafe { process_batch_avx2(filters, buf, stride, frames) },
        // (The portable code, which the compiler vectorizes for SIMD128.)
        _ => process_lanes(filters, buf, (stride, frames), |c, s, buf, rows| {
            run_rows(c, s, buf, stride, rows);
        }),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn process_batch_avx2(
    filters: &mut [DirectFilter; BATCH],
    buf: &mut [f32],
    stride: usize,
    frames: usize,
) {
    process_lanes(filters, buf, (stride, frames), |c, s, buf, rows| {
        // SAFETY: this runs within `process_batch_avx2`, which only runs
        // with the AVX2 token in hand; `rows` lies within every lane
        // (`process_lanes` checked the sizes).
        unsafe { super::avx2::rows(c, s, buf, stride, rows) }
    });
}

/// [`process_batch`]'s body: per glide step (16 frames), each lane's
/// coefficients, then `rows` runs every lane's recursion over the step's
/// frames ([`run_rows`], or the AVX2 one).
#[inline(always)]
fn process_lanes(
    filters: &mut [DirectFilter; BATCH],
    buf: &mut [f32],
    (stride, frames): (usize, usize),
    mut rows: impl FnMut(&Coefficients, &mut State, &mut [f32], std::ops::Range<usize>),
) {
    let steps = frames.div_ceil(GLIDE_STEP).max(1);
    let mut s = State::default();
    let (mut g, mut ratio) = ([0.0f32; LANES], [1.0f32; LANES]);
    let mut on = [false; LANES];
    for (v, f) in filters.iter_mut().enumerate() {
        if f.fresh {
            let first = |j: usize| buf.get(j * stride).copied();
            f.prime(first(2 * v), first(2 * v + 1));
        }
    }
    for (j, f) in filters.iter().flat_map(|f| [f, f]).enumerate() {
        on[j] = f.on;
        s.s1[j] = f.s1[j % 2];
        s.s2[j] = f.s2[j % 2];
        g[j] = f.g;
        ratio[j] = glide_ratio(f.g, f.to, steps);
    }
    for k in 0..steps {
        let (start, end) = (k * GLIDE_STEP, ((k + 1) * GLIDE_STEP).min(frames));
        // The coefficients, lane by lane, as columns.
        let mut c = Coefficients::default();
        for j in 0..LANES {
            g[j] *= ratio[j];
            let m = if on[j] {
                Matrix::of(g[j])
            } else {
                Matrix::PASS
            };
            c.set(j, &m);
        }
        rows(&c, &mut s, buf, start..end);
    }
    let settle = |v: f32| {
        if v.is_finite() && v.abs() > 1e-20 {
            v
        } else {
            0.0
        }
    };
    for (v, f) in filters.iter_mut().enumerate() {
        if !f.on {
            continue;
        }
        f.s1 = [settle(s.s1[2 * v]), settle(s.s1[2 * v + 1])];
        f.s2 = [settle(s.s2[2 * v]), settle(s.s2[2 * v + 1])];
        f.g = f.to;
        if f.to_open {
            *f = DirectFilter::OFF;
        }
    }
}

/// Every lane's filter state.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) s1: [f32; LANES],
    pub(crate) s2: [f32; LANES],
}

/// Runs every lane's recursion over frames `rows` of `buf` (lane `j` at
/// `buf[j * stride..]`): the lanes' frames gathered into a tile (a row per
/// frame, a column per lane), the rows run lane by lane (vectorized
/// across lanes: the arithmetic of [`Matrix::out`] and [`Matrix::next`]),
/// and the tile put back.
#[inline(always)]
pub(crate) fn run_rows(
    c: &Coefficients,
    s: &mut State,
    buf: &mut [f32],
    stride: usize,
    rows: std::ops::Range<usize>,
) {
    let mut tile = [[0.0f32; LANES]; GLIDE_STEP];
    let (start, end) = (rows.start, rows.end.min(rows.start + GLIDE_STEP));
    for (j, lane) in buf.chunks_exact(stride).take(LANES).enumerate() {
        for (row, &x) in tile.iter_mut().zip(&lane[start..end]) {
            row[j] = x;
        }
    }
    for row in tile.iter_mut().take(end - start) {
        let x = *row;
        for j in 0..LANES {
            let (s1, s2) = (s.s1[j], s.s2[j]);
            let v = x[j] - s2;
            row[j] = (c.c1[j] * s1 + s2) + c.d[j] * v;
            s.s1[j] = c.m11[j] * s1 + c.b1[j] * v;
            s.s2[j] = (c.b1[j] * s1 + s2) + c.b2[j] * v;
        }
    }
    for (j, lane) in buf.chunks_exact_mut(stride).take(LANES).enumerate() {
        for (row, y) in tile.iter().zip(&mut lane[start..end]) {
            *y = row[j];
        }
    }
}

/// [`Matrix`] per lane, field by field (so that a lane-wise loop over
/// them vectorizes).
#[derive(Default)]
pub(crate) struct Coefficients {
    pub(crate) m11: [f32; LANES],
    pub(crate) b1: [f32; LANES],
    pub(crate) b2: [f32; LANES],
    pub(crate) c1: [f32; LANES],
    pub(crate) d: [f32; LANES],
}

impl Coefficients {
    #[inline(always)]
    fn set(&mut self, j: usize, m: &Matrix) {
        self.m11[j] = m.m11;
        self.b1[j] = m.b1;
        self.b2[j] = m.b2;
        self.c1[j] = m.c1;
        self.d[j] = m.d;
    }
}
