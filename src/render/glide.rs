//! [`StepGlides`]: a positioned play's doppler pitch, glided across the
//! block its change is heard in, so that a passing car's pitch falls
//! smoothly rather than in a step at each block's start; and the level
//! its send is heard at (a parameter's `Send` map), glided frame by frame
//! across the block ([`SendGlide`]). The voice renders
//! the block in pieces of [`GLIDE_PIECE`] frames, each at the step of its
//! middle, from the old step toward the new (phase-continuous: the
//! position runs on from piece to piece); the next block starts at the new
//! step.
//!
//! Real-time contract: one entry per emitter cell, allocated with the
//! engine, never grown; rendering in pieces calls the voice's own render,
//! which allocates, locks and panics on nothing.

use super::voice::Voice;
use crate::protocol::SendTo;
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

/// A cell's send level (a factor on its play's): where it is, where it
/// heads, by how much a frame, for how many frames more.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SendGlide {
    level: f32,
    to: f32,
    step: f32,
    left: u32,
}

impl SendGlide {
    const AT_ONE: SendGlide = SendGlide {
        level: 1.0,
        to: 1.0,
        step: 0.0,
        left: 0,
    };
}

/// Each emitter cell's pending glide and send level, made with the engine.
pub(crate) struct StepGlides {
    glides: Box<[Option<StepGlide>]>,
    sends: Box<[SendGlide]>,
}

impl StepGlides {
    /// One entry per cell, none pending, every send level at 1.
    pub(crate) fn new(cells: usize) -> StepGlides {
        StepGlides {
            glides: vec![None; cells].into_boxed_slice(),
            sends: vec![SendGlide::AT_ONE; cells].into_boxed_slice(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.glides) + std::mem::size_of_val(&*self.sends)
    }

    /// Cell `e`'s send level heads for `to` over the next `frames`
    /// rendered (at once for 0).
    pub(crate) fn head_send(&mut self, e: u32, to: f32, frames: u32) {
        if let Some(g) = self.sends.get_mut(e as usize) {
            *g = if frames == 0 || g.level == to {
                SendGlide {
                    level: to,
                    to,
                    step: 0.0,
                    left: 0,
                }
            } else {
                SendGlide {
                    level: g.level,
                    to,
                    step: (to - g.level) / frames as f32,
                    left: frames,
                }
            };
        }
    }

    /// `send`, the send of the voice at cell `e` (or none), at the level
    /// it is heard at now, gliding as it glides over a render of `frames`
    /// (reaching its end there if it has fewer left; 0: held, as a
    /// fade-out tail keeps it).
    #[inline]
    pub(crate) fn send_of(&self, e: u32, send: SendTo, frames: usize) -> SendTo {
        match self.sends.get(e as usize) {
            Some(g) if send.is_some() => {
                let step = match g.left as usize {
                    0 => 0.0,
                    _ if frames == 0 => 0.0,
                    left if left >= frames => g.step,
                    _ => (g.to - g.level) / frames as f32,
                };
                SendTo {
                    bus: send.bus,
                    level: send.level * g.level,
                    step: send.level * step,
                }
            }
            _ => send,
        }
    }

    /// Cell `e`'s send level after `frames` more frames rendered.
    #[inline]
    pub(crate) fn advance_send(&mut self, e: u32, frames: usize) {
        if let Some(g) = self.sends.get_mut(e as usize) {
            if frames >= g.left as usize {
                (g.level, g.left) = (g.to, 0);
            } else {
                g.level += g.step * frames as f32;
                g.left -= frames as u32;
            }
        }
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
