//! One stretch of a voice's sound rendered into the bus: how far it may
//! go in one go (to its end, a loop seam, a scheduled start or the block's
//! end), its gain ramp, and the mixing kernel call; the loop seam's one
//! interpolated frame. Audio side, under the renderer's real-time contract.

use super::*;

impl Voice {
    /// Renders `l.len()` frames that never read past the last frame + 1 of
    /// the data they read (the sound, or its loop tile when `tiled`).
    #[inline(always)]
    pub(super) fn render_segment(&mut self, l: &mut [f32], r: &mut [f32], isa: Isa, tiled: bool) {
        let sound = &*self.sound;
        let data = match sound.loop_tile().filter(|_| tiled) {
            Some(tile) => &tile.samples,
            None => &sound.samples,
        };
        let d = self.mix_segment(data, self.pos, l, r, isa);
        self.advance(l.len(), d);
    }

    /// Silence for the frames (of `total`) still before a scheduled start;
    /// returns how many. A paused voice's wait holds.
    #[inline(always)]
    pub(super) fn wait_for_start(&mut self, total: usize) -> usize {
        if self.delay == 0 || self.phase == Phase::Paused {
            return 0;
        }
        let wait = (self.delay as usize).min(total);
        self.delay -= wait as u32;
        wait
    }

    /// Output frames of the next segment: at most `left`, none past the
    /// frame whose interpolation would read past source frame `limit`,
    /// none past the end of a gain ramp.
    #[inline(always)]
    pub(super) fn segment_frames(&self, left: usize, limit: u64) -> usize {
        let until_limit = ((limit << FRAC_BITS) - self.pos).div_ceil(self.step);
        let n = (left as u64).min(until_limit) as usize;
        if self.ramp_left > 0 {
            n.min(self.ramp_left as usize)
        } else {
            n
        }
    }

    /// Mixes `l.len()` frames of `data` (interleaved, the sound's channels)
    /// from position `pos` (32.32, in `data`'s frames) into `l`, `r` with
    /// the voice's gain and ramp; returns the ramp's per-frame step for
    /// [`Voice::advance`]. The segment arithmetic must keep the reads
    /// within `data` (asserted in debug builds).
    #[inline(always)]
    pub(super) fn mix_segment(
        &self,
        data: &[f32],
        pos: u64,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
    ) -> [f32; 2] {
        let gain = self.segment_gain();
        let ok = kernel::mix(
            isa,
            self.sound.channels,
            data,
            pos,
            self.step,
            l,
            r,
            gain,
            self.ramp_left > 0,
        );
        debug_assert!(ok, "segment arithmetic let a segment read past its data");
        [gain.dl, gain.dr]
    }

    /// The gain a segment starts at, with the ramp's per-frame step (0 when
    /// no ramp runs).
    #[inline(always)]
    pub(super) fn segment_gain(&self) -> Gain {
        let d = self.ramp_delta();
        Gain {
            l: self.gain[0],
            r: self.gain[1],
            dl: d[0],
            dr: d[1],
        }
    }

    /// Moves the position and the gain ramp on by `n` rendered frames.
    #[inline(always)]
    pub(super) fn advance(&mut self, n: usize, d: [f32; 2]) {
        self.pos += self.step * n as u64;
        self.advance_ramp(n as u32, d);
    }

    /// Renders the one frame that interpolates from a loop's last frame to
    /// its first (the position's frame must be the sound's last).
    pub(super) fn render_loop_seam(&mut self, l: &mut f32, r: &mut f32) {
        let ch = self.sound.channels;
        let data = &self.sound.samples;
        let last = (self.sound.frames - 1) * ch;
        let f = kernel::frac(self.pos);
        let vl = kernel::lerp(data[last], data[0], f);
        let vr = kernel::lerp(data[last + ch - 1], data[ch - 1], f);
        *l += vl * self.gain[0];
        *r += vr * self.gain[1];
        let d = self.ramp_delta();
        self.advance_ramp(1, d);
        let len = (self.sound.frames as u64) << FRAC_BITS;
        self.pos = (self.pos + self.step) % len;
    }

    pub(super) fn ramp_delta(&self) -> [f32; 2] {
        if self.ramp_left == 0 {
            return [0.0; 2];
        }
        let n = self.ramp_left as f32;
        [
            (self.target[0] - self.gain[0]) / n,
            (self.target[1] - self.gain[1]) / n,
        ]
    }

    pub(super) fn advance_ramp(&mut self, n: u32, d: [f32; 2]) {
        if self.ramp_left == 0 {
            return;
        }
        self.ramp_left -= n.min(self.ramp_left);
        if self.ramp_left == 0 {
            self.gain = self.target;
        } else {
            self.gain[0] += d[0] * n as f32;
            self.gain[1] += d[1] * n as f32;
        }
    }
}
