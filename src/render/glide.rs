//! [`StepGlides`]: a positioned play's doppler pitch, glided across the
//! block its change is heard in, so that a passing car's pitch falls
//! smoothly rather than in a step at each block's start. The voice renders
//! the block in pieces of [`GLIDE_PIECE`] frames, each at the step of its
//! middle, from the old step toward the new (phase-continuous: the
//! position runs on from piece to piece); the next block starts at the new
//! step.
//!
//! Real-time contract: one entry per emitter cell, allocated with the
//! engine, never grown; rendering in pieces calls the voice's own render,
//! which allocates, locks and panics on nothing.

use super::voice::Voice;
use crate::simd::Isa;
use crate::stream::reader::StreamReaders;

/// Frames per piece of a glide (a 480-frame block: 8 pieces).
pub(crate) const GLIDE_PIECE: usize = 64;

/// A change of step (32.32 fixed point) to glide across the next render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StepGlide {
    pub(crate) from: u64,
    pub(crate) to: u64,
}

/// Each emitter cell's pending glide, made with the engine.
pub(crate) struct StepGlides {
    glides: Box<[Option<StepGlide>]>,
}

impl StepGlides {
    /// One entry per cell, none pending.
    pub(crate) fn new(cells: usize) -> StepGlides {
        StepGlides {
            glides: vec![None; cells].into_boxed_slice(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.glides)
    }

    /// Cell `e`'s voice glides from step `from` to `to` across its next
    /// render (`None`: it holds its step).
    pub(crate) fn set(&mut self, e: u32, glide: Option<StepGlide>) {
        if let Some(g) = self.glides.get_mut(e as usize) {
            *g = glide;
        }
    }

    /// Cell `e`'s pending glide, taken.
    #[inline]
    pub(crate) fn take(&mut self, e: u32) -> Option<StepGlide> {
        self.glides.get_mut(e as usize).and_then(Option::take)
    }

    /// Whether cell `e` has a glide pending.
    #[inline]
    pub(crate) fn pending(&self, e: u32) -> bool {
        self.glides.get(e as usize).is_some_and(Option::is_some)
    }
}

/// Renders `voice` into `l`, `r` (as [`Voice::render`] does) with its
/// step gliding as `glide` says, if it says; it ends at `glide.to`.
#[inline]
pub(crate) fn render(
    voice: &mut Voice,
    l: &mut [f32],
    r: &mut [f32],
    glide: Option<StepGlide>,
    isa: Isa,
    streams: &mut StreamReaders,
) -> Option<usize> {
    let Some(StepGlide { from, to }) = glide else {
        return voice.render(l, r, isa, streams);
    };
    let n = l.len().min(r.len());
    let pieces = n.div_ceil(GLIDE_PIECE).max(1);
    let (a, b) = (from as f64, to as f64);
    let mut ended = None;
    for k in 0..pieces {
        let (start, end) = (k * GLIDE_PIECE, ((k + 1) * GLIDE_PIECE).min(n));
        // The step at the piece's middle (positive: both ends are).
        let t = (k as f64 + 0.5) / pieces as f64;
        voice.set_step((a + (b - a) * t) as u64);
        if let Some(done) = voice.render(&mut l[start..end], &mut r[start..end], isa, streams) {
            ended = Some(start + done);
            break;
        }
    }
    voice.set_step(to);
    ended
}
