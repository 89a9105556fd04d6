//! Two voices in one pass over the bus: where two voices that follow each
//! other in the pool both render a whole chunk as one segment of a mono or
//! stereo sound at a step of at most 1 (the common case: looping or playing
//! effects resampled from 44.1 kHz), [`mix_pair`] adds both in one loop
//! instead of two. Each bus sample is loaded and stored once instead of
//! twice, and two voices' sample data is read side by side (two memory
//! streams in flight, which helps when the data is not in cache).
//!
//! Every output sample is `(bus + a * gain_a) + b * gain_b`, the same
//! operations in the same order as rendering the voices one after the
//! other, so the output is bit-identical to that (and to the portable
//! kernels, which render them one after the other).
//!
//! Real-time contract: as the other kernels: no allocation, no panics; one
//! bounds check per voice up front, then unchecked loads it justifies.

#[cfg_attr(not(target_arch = "x86_64"), allow(unused_imports))]
use super::{interp, is_copy, last_frame, Gain, FRAC_BITS, FRAC_MASK, FRAC_ONE, FRAC_SCALE};
use crate::simd::Isa;

/// One voice's segment for [`mix_pair`]: a mono or stereo sound's samples,
/// the 32.32 position of the first frame and the step, the gain and whether
/// it ramps.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Segment<'a> {
    pub(crate) data: &'a [f32],
    pub(crate) channels: usize,
    pub(crate) pos: u64,
    pub(crate) step: u64,
    pub(crate) gain: Gain,
    pub(crate) ramp: bool,
}

impl Segment<'_> {
    /// Whether the AVX2 pair kernel may render `n` frames of it (`n >= 1`):
    /// one or two channels, a step of at most 1 that is not a straight copy
    /// (what [`super::mix`] renders with `MODE_PERMUTE8`), and every sample
    /// its windows load (9 frames from each group's first) within `data`.
    fn fits(&self, n: usize) -> bool {
        let ch = self.channels;
        if ch.wrapping_sub(1) > 1
            || self.step == 0
            || self.step > FRAC_ONE
            || is_copy(self.pos, self.step)
        {
            return false;
        }
        last_frame(self.pos, self.step, n)
            .and_then(|i| i.checked_add(9))
            // (end * ch <= len, for ch 1 or 2, without an overflow check)
            .is_some_and(|end| end <= self.data.len() >> (ch - 1))
    }
}

/// Adds `a` then `b` into `l` and `r` (`min(l.len(), r.len())` frames), in
/// one pass. Returns false and adds nothing where the pair kernel does not
/// apply (no AVX2, or a segment it does not take: see [`Segment::fits`]);
/// the caller then renders the voices one by one.
pub(crate) fn mix_pair(isa: Isa, a: &Segment, b: &Segment, l: &mut [f32], r: &mut [f32]) -> bool {
    let n = l.len().min(r.len());
    if n == 0 || !a.fits(n) || !b.fits(n) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if let Isa::Avx2(_) = isa {
        let (l, r) = (&mut l[..n], &mut r[..n]);
        // SAFETY: the CPU has AVX2 (an `Avx2` token), and both segments
        // fit: every window the kernel loads is within their data.
        unsafe {
            match (a.channels, b.channels) {
                (1, 1) => pair_ramps::<1, 1>(a, b, l, r),
                (1, _) => pair_ramps::<1, 2>(a, b, l, r),
                (_, 1) => pair_ramps::<2, 1>(a, b, l, r),
                _ => pair_ramps::<2, 2>(a, b, l, r),
            }
        }
        return true;
    }
    let _ = isa;
    false
}

/// [`pair_avx2`] for the segments' ramps.
///
/// # Safety
/// As [`pair_avx2`]'s.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn pair_ramps<const CA: usize, const CB: usize>(
    a: &Segment,
    b: &Segment,
    l: &mut [f32],
    r: &mut [f32],
) {
    // SAFETY: the caller's contract is `pair_avx2`'s.
    unsafe {
        match (a.ramp, b.ramp) {
            (false, false) => pair_avx2::<CA, CB, false, false>(a, b, l, r),
            (false, true) => pair_avx2::<CA, CB, false, true>(a, b, l, r),
            (true, false) => pair_avx2::<CA, CB, true, false>(a, b, l, r),
            (true, true) => pair_avx2::<CA, CB, true, true>(a, b, l, r),
        }
    }
}

/// The AVX2 pair loop: eight frames at a time, each voice's frames fetched
/// as `interp_avx2`'s `MODE_PERMUTE8` does (`permute8!`), then the
/// remainder with [`interp`], voice `a` first.
///
/// # Safety
/// The CPU must support AVX2, segment `a` must have `CA` channels and `b`
/// `CB`, both must [`Segment::fits`] `l.len()` frames, and
/// `l.len() == r.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pair_avx2<const CA: usize, const CB: usize, const RA: bool, const RB: bool>(
    a: &Segment,
    b: &Segment,
    l: &mut [f32],
    r: &mut [f32],
) {
    use std::arch::x86_64::*;

    let n = l.len();
    let groups = n / 8;
    let scale = _mm256_set1_ps(FRAC_SCALE);
    let eight = _mm256_set1_ps(8.0);
    // Where frame r of 8 lands after a stereo window's deinterleaving.
    let order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    let mut kf = _mm256_setr_ps(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);
    // Per voice: the lane offsets k * step (ordered as `positions8!` wants
    // them), its gains and their steps.
    struct Lanes {
        off_a: __m256i,
        off_b: __m256i,
        gl: __m256,
        gr: __m256,
        dl: __m256,
        dr: __m256,
    }
    let lanes = |s: &Segment| {
        let st = s.step as i64;
        Lanes {
            off_a: _mm256_set_epi64x(5 * st, 4 * st, st, 0),
            off_b: _mm256_set_epi64x(7 * st, 6 * st, 3 * st, 2 * st),
            gl: _mm256_set1_ps(s.gain.l),
            gr: _mm256_set1_ps(s.gain.r),
            dl: _mm256_set1_ps(s.gain.dl),
            dr: _mm256_set1_ps(s.gain.dr),
        }
    };
    let (la, lb) = (lanes(a), lanes(b));
    let gains = |ln: &Lanes, ramp: bool, kf: __m256| {
        if ramp {
            (
                _mm256_add_ps(ln.gl, _mm256_mul_ps(ln.dl, kf)),
                _mm256_add_ps(ln.gr, _mm256_mul_ps(ln.dr, kf)),
            )
        } else {
            (ln.gl, ln.gr)
        }
    };
    let (base_a, base_b) = (a.data.as_ptr(), b.data.as_ptr());
    let (mut pa, mut pb) = (a.pos, b.pos);
    for j in 0..groups {
        let (ia, rel_a, fa) = positions8!(pa, la.off_a, la.off_b, scale);
        let (ib, rel_b, fb) = positions8!(pb, lb.off_a, lb.off_b, scale);
        // SAFETY: frame ia is the frame of a position at most segment a's
        // last, whose step is at most 1, so its windows (frames ia .. ia + 9)
        // lie within its data (`Segment::fits`: (last frame + 9) * channels
        // <= data.len()); likewise for b.
        let ((al, ar), (bl, br)) = unsafe {
            (
                if CA == 2 {
                    permute8!(2, base_a, ia, rel_a, fa, order)
                } else {
                    permute8!(1, base_a, ia, rel_a, fa, order)
                },
                if CB == 2 {
                    permute8!(2, base_b, ib, rel_b, fb, order)
                } else {
                    permute8!(1, base_b, ib, rel_b, fb, order)
                },
            )
        };
        let (gla, gra) = gains(&la, RA, kf);
        let (glb, grb) = gains(&lb, RB, kf);
        kf = _mm256_add_ps(kf, eight);
        // SAFETY: j < n / 8, so elements 8j .. 8j + 8 of `l` and `r` exist.
        unsafe {
            let ol = l.as_mut_ptr().add(8 * j);
            let or = r.as_mut_ptr().add(8 * j);
            let sl = _mm256_add_ps(_mm256_loadu_ps(ol), _mm256_mul_ps(al, gla));
            let sr = _mm256_add_ps(_mm256_loadu_ps(or), _mm256_mul_ps(ar, gra));
            _mm256_storeu_ps(ol, _mm256_add_ps(sl, _mm256_mul_ps(bl, glb)));
            _mm256_storeu_ps(or, _mm256_add_ps(sr, _mm256_mul_ps(br, grb)));
        }
        pa = pa.wrapping_add(8 * a.step);
        pb = pb.wrapping_add(8 * b.step);
    }
    let done = groups * 8;
    // SAFETY: the remaining positions are a tail of each segment, whose
    // frames (and the next) are within its data (`Segment::fits`).
    unsafe {
        let (tl, tr) = (&mut l[done..], &mut r[done..]);
        interp::<CA, RA>(a.data, pa, a.step, tl, tr, a.gain, done);
        interp::<CB, RB>(b.data, pb, b.step, tl, tr, b.gain, done);
    }
}
