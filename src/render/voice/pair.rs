//! Two voices rendered in one pass ([`kernel::mix_pair`]) where both
//! would render the whole chunk as one segment: playing (not waiting,
//! pausing or stopping), a decoded mono or stereo sound, no end, loop point or end
//! of a ramp within the chunk. Anything else is rendered one voice at a
//! time by [`Voice::render`], and so is this when the kernel declines.
//!
//! Real-time contract: as [`Voice::render`]: plain arithmetic, no
//! allocation; the kernel checks its reads.

use super::{Phase, Voice};
use crate::render::kernel::{self, Segment, FRAC_BITS};
use crate::simd::Isa;

impl Voice {
    /// The segment `render` would mix for the next `n` frames, if that is
    /// all of them in one segment of a decoded sound while playing;
    /// with the ramp's per-frame step.
    #[inline(always)]
    fn whole_segment(&self, n: usize) -> Option<(Segment<'_>, [f32; 2])> {
        if self.stream != 0 || self.delay > 0 || self.phase != Phase::Playing || n == 0 {
            return None;
        }
        let (_, _, limit) = self.span();
        if self.pos >> FRAC_BITS >= limit || self.segment_frames(n, limit) != n {
            return None;
        }
        let gain = self.segment_gain();
        let segment = Segment {
            data: self.data(),
            channels: self.sound.channels,
            pos: self.pos,
            step: self.step,
            gain,
            ramp: self.ramp_left > 0,
        };
        Some((segment, [gain.dl, gain.dr]))
    }

    /// Renders `a` then `b` into `l`, `r` (a whole chunk) in one pass if
    /// both allow it (see the module docs); false if not, having rendered
    /// nothing. Neither ends here: after it, both play on exactly as if
    /// [`Voice::render`] had rendered them one after the other.
    #[inline(always)]
    pub(crate) fn render_pair(
        a: &mut Voice,
        b: &mut Voice,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
    ) -> bool {
        let n = l.len().min(r.len());
        let (da, db) = {
            let (Some((sa, da)), Some((sb, db))) = (a.whole_segment(n), b.whole_segment(n)) else {
                return false;
            };
            if !kernel::mix_pair(isa, &sa, &sb, l, r) {
                return false;
            }
            (da, db)
        };
        a.advance(n, da);
        b.advance(n, db);
        true
    }
}
