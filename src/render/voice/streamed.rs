//! Rendering a streamed play: the same kernels and the same segment
//! arithmetic as a decoded sound, reading the stretch of the stream its
//! slot has staged (`stream::reader`) instead of the sound's samples.
//! Positions count frames from the start of the stream and only grow: a
//! loop is the loader's business (it decodes the file again from its start
//! after its end), so the voice sees one long stream.

use super::{Phase, Voice};
use crate::render::kernel::FRAC_BITS;
use crate::simd::Isa;
use crate::stream::reader::StreamReader;

/// A streamed play's frame numbers are moved back once they reach this
/// (2^30 frames: 6 hours at 48 kHz), far below where its 32.32 position
/// would overflow (2^32 frames).
const REBASE_FRAMES: u64 = 1 << 30;

impl Voice {
    /// [`Voice::render`] for a streamed play reading `reader`. Until the
    /// loader has filled its ring the voice waits where it is, silent (a
    /// stop ends it at once); where the ring has run dry it goes silent
    /// for the rest of the block, holding its position while its gain
    /// ramps go on, and the reader counts an underrun.
    pub(super) fn render_stream(
        &mut self,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
        reader: &mut StreamReader,
    ) -> Option<usize> {
        let ended = self.render_stream_block(l, r, isa, reader);
        if ended.is_some() {
            reader.silence_reports();
        }
        ended
    }

    fn render_stream_block(
        &mut self,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
        reader: &mut StreamReader,
    ) -> Option<usize> {
        let total = l.len().min(r.len());
        let mut done = self.wait_for_start(total);
        if reader.base() >= REBASE_FRAMES {
            // Hours into a loop: frame numbers moved back together.
            let shift = reader.base();
            self.pos -= shift << FRAC_BITS;
            reader.rebase(shift);
        }
        loop {
            if self.is_finished() {
                return Some(done);
            }
            if self.phase == Phase::Pausing && self.ramp_left == 0 {
                self.phase = Phase::Paused;
            }
            if !reader.ready() {
                // Nothing decoded yet: wait, silent (a stop ends it now).
                return (self.phase == Phase::Stopping).then_some(done);
            }
            if done >= total || self.phase == Phase::Paused {
                return None;
            }
            let idx = self.pos >> FRAC_BITS;
            let window = reader.window(idx);
            let (base, frames, end) = (window.base, window.frames, window.end);
            if end.is_some_and(|end| idx >= end) {
                return Some(done);
            }
            // Interpolation reads idx + 1: within what is staged, or the
            // zeros after the stream's end.
            let limit = end.unwrap_or((base + frames as u64).saturating_sub(1));
            if idx >= limit || idx < base {
                return self.starve(total - done, done, reader);
            }
            let n = self.segment_frames(total - done, limit);
            let from = self.pos - (base << FRAC_BITS);
            let d = self.mix_segment(
                window.data,
                from,
                &mut l[done..done + n],
                &mut r[done..done + n],
                isa,
            );
            reader.fed();
            self.advance(n, d);
            done += n;
        }
    }

    /// The ring ran dry with `n` frames of the block left: they stay
    /// silent, the position holds, gain ramps go on (so a stop or pause
    /// still completes). `Some` if a stop's fade ended within them.
    fn starve(&mut self, n: usize, done: usize, reader: &mut StreamReader) -> Option<usize> {
        reader.underrun();
        let left = self.ramp_left as usize;
        let d = self.ramp_delta();
        self.advance_ramp(n.min(u32::MAX as usize) as u32, d);
        match self.phase {
            Phase::Stopping if left <= n => Some(done + left),
            Phase::Pausing if self.ramp_left == 0 => {
                self.phase = Phase::Paused;
                None
            }
            _ => None,
        }
    }
}
