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

use crate::protocol::space::OPEN_HZ;
use crate::simd::Isa;
use crate::sound::bands::BAND_HZ;

/// Frames per step of a cutoff glide.
const GLIDE_STEP: usize = 16;
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
        Isa::Scalar => process_lanes(filters, buf, (stride, frames), |c, s, buf, rows| {
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
        unsafe { super::direct_avx2::rows(c, s, buf, stride, rows) }
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

/// The two-pole low-pass at one cutoff as a recursion on its state: the
/// topology-preserving state-variable filter (`v3 = x - s2`,
/// `v1 = a1 s1 + a2 v3`, `v2 = s2 + a2 s1 + a3 v3`, `s1' = 2 v1 - s1`,
/// `s2' = 2 v2 - s2`, `y = v2`) multiplied out: with `v = x - s2`,
/// `s1' = (2 a1 - 1) s1 + 2 a2 v`, `s2' = (2 a2 s1 + s2) + 2 a3 v`,
/// `y = (a2 s1 + s2) + a3 v`. Each frame's state hangs on the last through
/// a subtraction, a multiply and an add.
#[derive(Clone, Copy)]
struct Matrix {
    m11: f32,
    b1: f32,
    b2: f32,
    c1: f32,
    d: f32,
}

impl Matrix {
    /// A wire: the input out, a state at rest left at rest (a filter that
    /// is off, in a batch).
    const PASS: Matrix = Matrix {
        m11: 1.0,
        b1: 0.0,
        b2: 0.0,
        c1: 0.0,
        d: 1.0,
    };

    #[inline(always)]
    fn of(g: f32) -> Matrix {
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
    fn prime(&mut self, l: Option<f32>, r: Option<f32>) {
        self.fresh = false;
        self.s1 = [0.0; 2];
        self.s2 = [l.unwrap_or(0.0), r.unwrap_or(0.0)];
    }
}

/// The factor a cutoff's warped coefficient moves by at each of `steps`
/// steps from `g` to `to`: a glide even in log frequency (in a straight
/// line, most of a glide up would come at once).
#[inline]
fn glide_ratio(g: f32, to: f32, steps: usize) -> f32 {
    if g == to || g <= 0.0 || to <= 0.0 {
        return 1.0;
    }
    let r = (to / g).powf(1.0 / steps as f32);
    if r.is_finite() {
        r
    } else {
        1.0
    }
}

/// `tan(π hz / rate)`, the cutoff kept below 0.45 of the rate.
fn warp(hz: f32, rate: u32) -> f32 {
    let rate = rate.max(1) as f32;
    (std::f32::consts::PI * hz.clamp(1.0, 0.45 * rate) / rate).tan()
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
mod tests {
    use super::*;

    /// The gain, in dB, of a steady sine at `hz` through a filter at
    /// `cutoff`, at 48 kHz.
    fn gain_db(cutoff: f32, hz: f32) -> f64 {
        let mut f = DirectFilter::OFF;
        f.head_for(cutoff, 48_000, true);
        let n = 48_000;
        let x: Vec<f32> = (0..n)
            .map(|i| (i as f32 * hz * std::f32::consts::TAU / 48_000.0).sin())
            .collect();
        let (mut l, mut r) = (x.clone(), x.clone());
        f.process(&mut l, &mut r);
        let p = |v: &[f32]| {
            v[n / 2..]
                .iter()
                .map(|s| f64::from(*s).powi(2))
                .sum::<f64>()
        };
        10.0 * (p(&l) / p(&x[..])).log10()
    }

    #[test]
    fn it_is_a_butterworth_low_pass() {
        // -3 dB at the cutoff, nothing well below, 12 dB an octave above.
        assert!((gain_db(1_000.0, 1_000.0) + 3.01).abs() < 0.1);
        assert!(gain_db(1_000.0, 100.0).abs() < 0.05);
        let octave = gain_db(1_000.0, 4_000.0) - gain_db(1_000.0, 8_000.0);
        assert!((octave - 12.0).abs() < 1.5, "{octave}");
    }

    #[test]
    fn a_batch_filters_each_voice_as_it_would_alone() {
        // Eight voices with cutoffs gliding every which way (one off),
        // noise in; each voice's lanes against the same filter run alone,
        // bit for bit, with each instruction set this CPU has.
        for frames in [250, 256, 7, 1] {
            batch_against_alone(300, frames);
        }
    }

    fn batch_against_alone(stride: usize, frames: usize) {
        let mut seed = 7u32;
        let mut noise = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let input: Vec<f32> = (0..LANES * stride).map(|_| noise()).collect();
        let mut filters = [DirectFilter::OFF; BATCH];
        for (v, f) in filters.iter_mut().enumerate() {
            if v != 3 {
                f.head_for(200.0 * (v + 1) as f32, 48_000, true);
                f.head_for(9_000.0 / (v + 1) as f32, 48_000, false);
            }
        }
        let mut alone = input.clone();
        let mut each = filters;
        for (v, f) in each.iter_mut().enumerate().filter(|(_, f)| f.is_on()) {
            let (l, rest) = alone[2 * v * stride..].split_at_mut(stride);
            f.process(&mut l[..frames], &mut rest[..frames]);
        }
        let mut isas = vec![Isa::Scalar];
        if Isa::detect() != Isa::Scalar {
            isas.push(Isa::detect());
        }
        for isa in isas {
            let mut together = input.clone();
            let mut batch = filters;
            process_batch(isa, &mut batch, &mut together, stride, frames);
            assert_eq!(batch, each, "{isa:?}: the filters' states");
            for (j, (a, b)) in together
                .chunks(stride)
                .zip(alone.chunks(stride))
                .enumerate()
            {
                assert!(a == b, "{isa:?}, {frames} frames: lane {j} differs");
            }
        }
    }

    #[test]
    fn an_open_cutoff_turns_it_off_after_the_glide() {
        let mut f = DirectFilter::OFF;
        f.head_for(500.0, 48_000, false);
        assert!(f.is_on());
        let (mut l, mut r) = (vec![1.0; 256], vec![1.0; 256]);
        f.process(&mut l, &mut r);
        f.head_for(OPEN_HZ, 48_000, false);
        assert!(f.is_on());
        f.process(&mut l, &mut r);
        assert_eq!(f, DirectFilter::OFF);
        assert_eq!(band_power(OPEN_HZ), [1.0; 4]);
        assert!(band_power(500.0)[3] < 1e-4 && band_power(500.0)[0] > 0.9);
    }
}
