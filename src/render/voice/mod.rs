//! [`Voice`]: how one playing instance of a sound sounds: its position,
//! pitch, gains and fades, and the rendering of itself into a block. Who it
//! is (id, priority, protection) is the voice manager's business, not kept
//! here.
//!
//! Real-time contract: everything here runs on the audio thread. A voice is a
//! plain value (the only heap reference is an `Arc` of sample data whose last
//! reference is always held by the game side); rendering allocates nothing,
//! takes no lock, and indexes only within the bounds its segment arithmetic
//! proves.

use std::sync::Arc;

use crate::protocol::ValidParams;
use crate::sound::SoundData;

use super::kernel::{self, Gain, FRAC_BITS, FRAC_ONE};
use crate::math::Libm;
use crate::simd::Isa;
use crate::stream::reader::StreamReaders;

mod control;
mod pair;
mod segment;
mod silent;
mod streamed;

/// The most cache lines (of 16 samples) [`Voice::prefetch`] asks for: a
/// 480-frame block of a 44.1 kHz mono sound spans 28, a stereo one 56.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const PREFETCH_LINES: usize = 64;

/// Where a voice is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Sounding normally.
    Playing,
    /// Fading to silence (stopped, or stolen and moved to a tail slot); it
    /// ends when its gain ramp reaches zero.
    Stopping,
    /// Fading to silence for a pause; paused when the ramp ends.
    Pausing,
    /// Holding its position, rendering nothing, until resumed.
    Paused,
}

/// One playing instance's DSP state. Built whole by [`Voice::new`]: a reused
/// pool slot is overwritten with a complete new value, never patched field
/// by field.
///
/// At most one 64-byte cache line (aligned to it): rendering a voice, and
/// acquiring or releasing its slot, touches one line.
#[derive(Clone)]
#[repr(align(64))]
pub(crate) struct Voice {
    sound: Arc<SoundData>,
    /// Source position, 32.32 fixed point, in source frames.
    pos: u64,
    /// Source frames advanced per output frame, 32.32 fixed point.
    step: u64,
    /// Gain per output channel now, and where the current ramp is heading.
    gain: [f32; 2],
    target: [f32; 2],
    /// Output frames left in the current gain ramp (0: gain == target).
    ramp_left: u32,
    volume: f32,
    pan: f32,
    /// While pausing or paused: the frames that were left of the gain ramp
    /// in progress when the pause began (a fade-in, a volume fade), so a
    /// resume finishes it rather than cutting it short.
    resume_ramp: u32,
    /// Output frames of silence left before its first sample (a start
    /// scheduled with `start_at`, within or beyond the current block).
    delay: u32,
    /// The bus it plays on (its index; 0 is the master; at most 255).
    bus: u8,
    /// For a streamed play, its stream slot + 1 (0: it plays `sound`'s
    /// samples).
    stream: u8,
    looping: bool,
    phase: Phase,
}

/// Constant-power gains for (left, right).
///
/// Mono sources are panned with a sine/cosine law (centre is -3 dB per side);
/// stereo sources are balanced (centre leaves both channels at `volume`,
/// moving right attenuates the left channel). Pan -1 and +1 silence the other
/// side exactly.
fn pan_gains(volume: f32, pan: f32, channels: usize) -> [f32; 2] {
    let v = f64::from(volume);
    let p = f64::from(pan);
    let (l, r) = if channels == 1 {
        let angle = (p + 1.0) * std::f64::consts::FRAC_PI_4;
        (angle.lm_cos(), angle.lm_sin())
    } else {
        let l = if p > 0.0 {
            (p * std::f64::consts::FRAC_PI_2).lm_cos()
        } else {
            1.0
        };
        let r = if p < 0.0 {
            (-p * std::f64::consts::FRAC_PI_2).lm_cos()
        } else {
            1.0
        };
        (l, r)
    };
    let exact = |g: f64, silent: bool| if silent { 0.0 } else { (v * g) as f32 };
    [exact(l, p >= 1.0), exact(r, p <= -1.0)]
}

/// [`pan_gains`] in `f32`: the same laws, cheaper, for gains set every
/// block (positioned voices); within about 1e-7 of it.
fn pan_gains_f32(volume: f32, pan: f32, channels: usize) -> [f32; 2] {
    let (l, r) = if channels == 1 {
        // cos and sin of pi/4 (1 + pan).
        let (s, c) = sin_cos_within_quarter(pan * std::f32::consts::FRAC_PI_4);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        ((c - s) * h, (c + s) * h)
    } else {
        let side = |p: f32| {
            if p > 0.0 {
                // cos(pi/2 p) = cos(pi/4 + z), z = pi/4 (2p - 1).
                let (s, c) =
                    sin_cos_within_quarter((2.0 * p.min(1.0) - 1.0) * std::f32::consts::FRAC_PI_4);
                (c - s) * std::f32::consts::FRAC_1_SQRT_2
            } else {
                1.0
            }
        };
        (side(pan), side(-pan))
    };
    let exact = |g: f32, silent: bool| if silent { 0.0 } else { volume * g };
    [exact(l, pan >= 1.0), exact(r, pan <= -1.0)]
}

/// `(sin z, cos z)` for `z` within `[-pi/4, pi/4]`, by their Taylor
/// series to the 9th and 10th power (off by under 2e-9 before rounding):
/// a few multiplies where the library's `sin_cos` takes a call and a
/// range reduction.
fn sin_cos_within_quarter(z: f32) -> (f32, f32) {
    // 1/3!, 1/5!, ... and 1/2!, 1/4!, ...
    const S: [f32; 4] = [1.0 / 6.0, 1.0 / 120.0, 1.0 / 5040.0, 1.0 / 362_880.0];
    const C: [f32; 5] = [
        0.5,
        1.0 / 24.0,
        1.0 / 720.0,
        1.0 / 40_320.0,
        1.0 / 3_628_800.0,
    ];
    let z2 = z * z;
    let s = z * (1.0 - z2 * (S[0] - z2 * (S[1] - z2 * (S[2] - z2 * S[3]))));
    let c = 1.0 - z2 * (C[0] - z2 * (C[1] - z2 * (C[2] - z2 * (C[3] - z2 * C[4]))));
    (s, c)
}

/// 32.32 step for a sound at `src_rate` played at `pitch` into `out_rate`.
fn step_for(src_rate: u32, out_rate: u32, pitch: f32) -> u64 {
    let step = f64::from(src_rate) / f64::from(out_rate) * f64::from(pitch);
    // Rounded to nearest (the step is positive): `round` is a library call,
    // and this runs for every moving positioned voice every block.
    ((step * FRAC_ONE as f64 + 0.5) as u64).max(1)
}

impl Voice {
    /// A new voice at the start of `sound`, with `params` already
    /// validated, sounding its first sample after `delay` output frames;
    /// reading stream slot `stream` if it is a streamed play.
    pub(crate) fn new(
        sound: Arc<SoundData>,
        params: &ValidParams,
        out_rate: u32,
        fade_in_frames: u32,
        delay: u32,
        stream: Option<usize>,
    ) -> Voice {
        let target = pan_gains(params.volume, params.pan, sound.channels);
        let (gain, ramp_left) = if fade_in_frames > 0 {
            ([0.0; 2], fade_in_frames)
        } else {
            (target, 0)
        };
        Voice {
            step: step_for(sound.sample_rate, out_rate, params.pitch),
            sound,
            pos: 0,
            gain,
            target,
            ramp_left,
            volume: params.volume,
            pan: params.pan,
            resume_ramp: 0,
            delay,
            // Bus indices are below `MAX_BUSES + 1` = 256, stream slots
            // below `MAX_STREAMS` = 255 (settings validation).
            bus: params.bus as u8,
            stream: stream.map_or(0, |k| k as u8 + 1),
            looping: params.looping,
            phase: Phase::Playing,
        }
    }

    /// The bus it plays on.
    #[inline]
    pub(crate) fn bus(&self) -> u16 {
        u16::from(self.bus)
    }

    /// Source frames it moves on per output frame now.
    pub(crate) fn source_step(&self) -> f64 {
        self.step as f64 / FRAC_ONE as f64
    }

    /// The stream slot it reads, for a streamed play.
    #[inline]
    pub(crate) fn stream_slot(&self) -> Option<usize> {
        self.stream.checked_sub(1).map(usize::from)
    }

    /// True once a stopping voice has faded to silence.
    pub(crate) fn is_finished(&self) -> bool {
        self.phase == Phase::Stopping && self.ramp_left == 0
    }

    /// Source position in frames of the sound (for a loop read from its
    /// tile, possibly several periods in).
    pub(crate) fn position(&self) -> f64 {
        // Positions stay far below 2^63 (frames are u32-sized), and an i64
        // converts in one instruction on x86-64 where a u64 takes several.
        self.pos as i64 as f64 / FRAC_ONE as f64
    }

    /// Source frames per output frame.
    pub(crate) fn step(&self) -> f64 {
        self.step as i64 as f64 / FRAC_ONE as f64
    }

    /// Whether the voice loops.
    pub(crate) fn looping(&self) -> bool {
        self.looping
    }

    /// Per output channel, the gain now and the gain the ramp in progress
    /// heads for, and the output frames left in that ramp. For a paused
    /// (or pausing) voice, the gain it will have when resumed: it ranks by
    /// what it will play then.
    pub(crate) fn gain_path(&self) -> ([f32; 2], [f32; 2], u32) {
        match self.phase {
            Phase::Pausing | Phase::Paused => {
                let g = pan_gains(self.volume, self.pan, self.sound.channels);
                (g, g, 0)
            }
            _ => (self.gain, self.target, self.ramp_left),
        }
    }

    /// The sound this voice plays.
    pub(crate) fn sound(&self) -> &SoundData {
        &self.sound
    }

    /// Largest per-channel gain right now.
    pub(crate) fn peak_gain(&self) -> f32 {
        self.gain[0].max(self.gain[1])
    }

    /// Adds the next `l.len()` frames into the planar bus `l`, `r` (which
    /// must be as long as each other). Returns `None` while the voice goes
    /// on, and `Some(frames)` when it has ended (reached the end of a
    /// one-shot sound or finished fading) after sounding `frames` frames of
    /// this call; the rest of the bus is then left untouched. A paused voice
    /// renders nothing and does not move; a pausing one stops moving at the
    /// exact frame its fade ends.
    ///
    /// The block is cut into segments at the sound's end, the loop point and
    /// the end of a gain ramp; each segment is one call of a
    /// [`kernel::mix`] loop with nothing left to decide per frame.
    ///
    /// A looping voice reads the sound's [`crate::sound::loop_tile::LoopTile`] when
    /// it has one (short sounds, so that a loop of a few frames still runs in
    /// long segments), else the sound itself, rendering the one frame that
    /// interpolates from its last frame to its first on its own.
    #[inline(always)]
    pub(crate) fn render(
        &mut self,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
        streams: &mut StreamReaders,
    ) -> Option<usize> {
        if self.stream != 0 {
            return self.render_streamed(l, r, isa, streams);
        }
        let total = l.len().min(r.len());
        let (period, tiled, limit) = self.span();
        let mut done = self.wait_for_start(total);
        loop {
            if self.is_finished() {
                return Some(done);
            }
            if self.phase == Phase::Pausing && self.ramp_left == 0 {
                // The pause's fade ended exactly here: hold this position.
                self.phase = Phase::Paused;
            }
            if done >= total || self.phase == Phase::Paused {
                return None;
            }
            let idx = self.pos >> FRAC_BITS;
            if idx >= limit {
                if !self.looping {
                    return Some(done);
                }
                // One step may carry the position past the end, even past
                // several periods (a short loop at a high pitch): wrap first.
                let len = period << FRAC_BITS;
                if self.pos >= len {
                    self.pos %= len;
                    continue;
                }
                // Here idx is the last frame of a loop read from the sound.
                self.render_loop_seam(&mut l[done], &mut r[done]);
                done += 1;
                continue;
            }
            let end = done + self.segment_frames(total - done, limit);
            self.render_segment(&mut l[done..end], &mut r[done..end], isa, tiled);
            done = end;
        }
    }

    /// What a decoded play reads: the period its position wraps at (the
    /// loop tile's, or the sound's length), whether it reads the tile, and
    /// the frame segments stop before. The bulk loop interpolates between
    /// frame idx and idx + 1: for a one-shot, idx + 1 may be the first zero
    /// guard frame; a tile goes on with the loop's start after its period;
    /// a loop read from the sound itself stops one frame short and crosses
    /// the seam in [`Voice::render`].
    #[inline(always)]
    fn span(&self) -> (u64, bool, u64) {
        let (period, tiled) = match self.looping.then(|| self.sound.loop_tile()) {
            Some(Some(tile)) => (tile.period as u64, true),
            _ => (self.sound.frames as u64, false),
        };
        let limit = if self.looping && !tiled {
            period - 1
        } else {
            period
        };
        (period, tiled, limit)
    }

    /// Where the sample data it reads lies (its address) and its size in
    /// bytes: the sound's samples, or its loop tile's.
    #[inline(always)]
    pub(crate) fn data_span(&self) -> (usize, usize) {
        let data = self.data();
        (data.as_ptr() as usize, std::mem::size_of_val(data))
    }

    /// The sample data it reads: its loop tile when looping and the sound
    /// has one, else the sound's samples.
    #[inline(always)]
    fn data(&self) -> &[f32] {
        let sound = &*self.sound;
        match self.looping.then(|| sound.loop_tile()) {
            Some(Some(tile)) => &tile.samples,
            _ => &sound.samples,
        }
    }

    /// Asks the CPU to start loading the sample data the next `frames`
    /// output frames will read (the first [`PREFETCH_LINES`] cache lines of
    /// it), so that when this voice renders a few voices later, the data is
    /// in cache rather than in memory. Only a hint: it changes nothing that
    /// is rendered, reads nothing, and cannot fault. Does nothing for a
    /// streamed, waiting or paused voice.
    #[inline(always)]
    pub(crate) fn prefetch(&self, frames: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            if self.stream != 0 || self.delay > 0 || self.phase == Phase::Paused {
                return;
            }
            let data = self.data();
            let ch = self.sound.channels;
            let first = ((self.pos >> FRAC_BITS) as usize).saturating_mul(ch);
            let span = ((u128::from(self.step) * frames as u128) >> FRAC_BITS) as usize;
            let end = span
                .saturating_add(2)
                .saturating_mul(ch)
                .saturating_add(first)
                .min(data.len())
                .min(first.saturating_add(PREFETCH_LINES * 16));
            let mut at = first;
            while at < end {
                // SAFETY: a prefetch is a hint that never faults and changes
                // no state the program sees; the address is within `data`
                // anyway (`at < end <= data.len()`).
                unsafe { _mm_prefetch::<_MM_HINT_T0>(data.as_ptr().add(at).cast()) };
                at += 16;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = frames;
    }

    /// Moves to frame `frame` of its sound (a loop's: modulo its length; a
    /// one-shot's past its end: the end, so it ends). A streamed play's
    /// reader is moved by the mixer.
    pub(crate) fn seek(&mut self, frame: u64) {
        let frame = if self.stream != 0 {
            frame
        } else if self.looping {
            frame % (self.sound.frames as u64).max(1)
        } else {
            frame.min(self.sound.frames as u64)
        };
        self.pos = frame.min(u64::from(u32::MAX)) << FRAC_BITS;
    }

    /// [`Voice::render`] for a streamed play: out of line, so the decoded
    /// sounds' path stays as tight as it was.
    #[cold]
    #[inline(never)]
    fn render_streamed(
        &mut self,
        l: &mut [f32],
        r: &mut [f32],
        isa: Isa,
        streams: &mut StreamReaders,
    ) -> Option<usize> {
        match self.stream_slot().and_then(|k| streams.get(k)) {
            Some(reader) => self.render_stream(l, r, isa, reader),
            None => Some(0),
        }
    }
}

#[cfg(test)]
mod tests;
