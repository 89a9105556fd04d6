//! [`Voice`]: one playing instance of a sound, rendering itself into a block.
//!
//! Real-time contract: everything here runs on the audio thread. A voice is a
//! plain value (the only heap reference is an `Arc` of sample data whose last
//! reference is always held by the game side); rendering allocates nothing,
//! takes no lock, and indexes only within the bounds its segment arithmetic
//! proves.

use std::sync::Arc;

use crate::params::ValidParams;
use crate::sound::SoundData;

/// Fractional bits of a source position (32.32 fixed point).
const FRAC_BITS: u32 = 32;
const FRAC_ONE: u64 = 1 << FRAC_BITS;
const FRAC_MASK: u64 = FRAC_ONE - 1;
const FRAC_SCALE: f32 = 1.0 / FRAC_ONE as f32;

/// Where a voice is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Sounding normally.
    Playing,
    /// Fading to silence (stopped, or stolen and moved to a tail slot); it
    /// ends when its gain ramp reaches zero.
    Stopping,
}

/// One playing instance. Built whole by [`Voice::new`]: a reused pool slot is
/// overwritten with a complete new value, never patched field by field.
pub(crate) struct Voice {
    sound: Arc<SoundData>,
    /// The game-side handle id; ids are never reused, so they double as the
    /// slot's generation: a stale handle matches no slot.
    pub(crate) id: u64,
    /// Start order (for "ties go to the oldest" and `StealPolicy::Oldest`).
    pub(crate) order: u64,
    /// Output frame at which the voice started.
    pub(crate) start_frame: u64,
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
    pitch: f32,
    pub(crate) priority: u8,
    pub(crate) protected: bool,
    looping: bool,
    pub(crate) phase: Phase,
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
        (angle.cos(), angle.sin())
    } else {
        let l = if p > 0.0 {
            (p * std::f64::consts::FRAC_PI_2).cos()
        } else {
            1.0
        };
        let r = if p < 0.0 {
            (-p * std::f64::consts::FRAC_PI_2).cos()
        } else {
            1.0
        };
        (l, r)
    };
    let exact = |g: f64, silent: bool| if silent { 0.0 } else { (v * g) as f32 };
    [exact(l, p >= 1.0), exact(r, p <= -1.0)]
}

/// 32.32 step for a sound at `src_rate` played at `pitch` into `out_rate`.
fn step_for(src_rate: u32, out_rate: u32, pitch: f32) -> u64 {
    let step = f64::from(src_rate) / f64::from(out_rate) * f64::from(pitch);
    ((step * FRAC_ONE as f64).round() as u64).max(1)
}

impl Voice {
    /// A new voice at the start of `sound`, with `params` already validated.
    pub(crate) fn new(
        sound: Arc<SoundData>,
        id: u64,
        order: u64,
        start_frame: u64,
        params: &ValidParams,
        out_rate: u32,
        fade_in_frames: u32,
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
            id,
            order,
            start_frame,
            pos: 0,
            gain,
            target,
            ramp_left,
            volume: params.volume,
            pan: params.pan,
            pitch: params.pitch,
            priority: params.priority,
            protected: params.protected,
            looping: params.looping,
            phase: Phase::Playing,
        }
    }

    /// Changes volume, ramping over `ramp` frames. Ignored while stopping.
    pub(crate) fn set_volume(&mut self, volume: f32, ramp: u32) {
        self.volume = volume;
        self.retarget(ramp);
    }

    /// Changes pan, ramping over `ramp` frames. Ignored while stopping.
    pub(crate) fn set_pan(&mut self, pan: f32, ramp: u32) {
        self.pan = pan;
        self.retarget(ramp);
    }

    /// Changes pitch from the next frame on.
    pub(crate) fn set_pitch(&mut self, pitch: f32, out_rate: u32) {
        self.pitch = pitch;
        self.step = step_for(self.sound.sample_rate, out_rate, pitch);
    }

    fn retarget(&mut self, ramp: u32) {
        if self.phase != Phase::Playing {
            return;
        }
        self.ramp_to(pan_gains(self.volume, self.pan, self.sound.channels), ramp);
    }

    fn ramp_to(&mut self, target: [f32; 2], ramp: u32) {
        self.target = target;
        self.ramp_left = ramp;
        if ramp == 0 {
            self.gain = target;
        }
    }

    /// Starts a fade to silence over `frames`; the voice ends when it is silent.
    /// A voice already stopping keeps the shorter of the two fades.
    pub(crate) fn stop(&mut self, frames: u32) {
        if self.phase == Phase::Stopping && self.ramp_left <= frames {
            return;
        }
        self.phase = Phase::Stopping;
        self.ramp_to([0.0; 2], frames);
    }

    /// True once a stopping voice has faded to silence.
    pub(crate) fn is_finished(&self) -> bool {
        self.phase == Phase::Stopping && self.ramp_left == 0
    }

    /// How loud the voice is right now, squared: gain (volume, pan, fades)
    /// times the sound's measured level at the current position.
    pub(crate) fn audible_power(&self) -> f32 {
        let g = self.gain[0] * self.gain[0] + self.gain[1] * self.gain[1];
        let g = if self.sound.channels == 2 { g * 0.5 } else { g };
        g * self.sound.mean_square_at((self.pos >> FRAC_BITS) as usize)
    }

    /// Largest per-channel gain right now.
    pub(crate) fn peak_gain(&self) -> f32 {
        self.gain[0].max(self.gain[1])
    }

    /// Adds the next `out.len() / 2` frames into `out` (interleaved stereo).
    /// Returns `false` when the voice has ended (reached the end of a one-shot
    /// sound or finished fading); the rest of `out` is then left untouched.
    pub(crate) fn render(&mut self, mut out: &mut [f32]) -> bool {
        let frames_src = self.sound.frames as u64;
        loop {
            if self.is_finished() {
                return false;
            }
            let frames = out.len() / 2;
            if frames == 0 {
                return true;
            }
            let idx = self.pos >> FRAC_BITS;
            // The bulk loop interpolates between frame idx and idx + 1; for a
            // one-shot sound idx + 1 may be the zero guard frame, for a loop
            // the frame after the last one is the first, handled one frame at
            // a time below.
            let limit = if self.looping {
                frames_src - 1
            } else {
                frames_src
            };
            if idx >= limit {
                if !self.looping {
                    return false;
                }
                self.render_loop_seam(&mut out[..2]);
                out = &mut out[2..];
                continue;
            }
            let until_limit = ((limit << FRAC_BITS) - self.pos).div_ceil(self.step);
            let mut n = (frames as u64).min(until_limit) as usize;
            if self.ramp_left > 0 {
                n = n.min(self.ramp_left as usize);
            }
            let (seg, rest) = out.split_at_mut(n * 2);
            self.render_segment(seg, n);
            out = rest;
        }
    }

    /// Renders `n` frames that never read past the sound's last frame + 1.
    fn render_segment(&mut self, out: &mut [f32], n: usize) {
        let d = self.ramp_delta();
        let data = &self.sound.samples[..];
        let exact = self.step == FRAC_ONE && self.pos & FRAC_MASK == 0;
        match (self.sound.channels, exact) {
            (1, true) => mix_exact::<1>(data, self.pos, out, self.gain, d),
            (1, false) => mix_interp::<1>(data, self.pos, self.step, out, self.gain, d),
            (_, true) => mix_exact::<2>(data, self.pos, out, self.gain, d),
            (_, false) => mix_interp::<2>(data, self.pos, self.step, out, self.gain, d),
        }
        self.pos += self.step * n as u64;
        self.advance_ramp(n as u32, d);
    }

    /// Renders one frame across the loop point (last frame to first).
    fn render_loop_seam(&mut self, out: &mut [f32]) {
        let ch = self.sound.channels;
        let data = &self.sound.samples;
        let last = (self.sound.frames - 1) * ch;
        let frac = (self.pos & FRAC_MASK) as f32 * FRAC_SCALE;
        for (c, o) in out.iter_mut().enumerate() {
            let sc = c.min(ch - 1);
            let (a, b) = (data[last + sc], data[sc]);
            *o += (a + (b - a) * frac) * self.gain[c];
        }
        let d = self.ramp_delta();
        self.advance_ramp(1, d);
        let len = (self.sound.frames as u64) << FRAC_BITS;
        self.pos = (self.pos + self.step) % len;
    }

    fn ramp_delta(&self) -> [f32; 2] {
        if self.ramp_left == 0 {
            return [0.0; 2];
        }
        let n = self.ramp_left as f32;
        [
            (self.target[0] - self.gain[0]) / n,
            (self.target[1] - self.gain[1]) / n,
        ]
    }

    fn advance_ramp(&mut self, n: u32, d: [f32; 2]) {
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

/// Step 1.0 at an integer position: a straight copy with gain.
#[inline(always)]
fn mix_exact<const CH: usize>(data: &[f32], pos: u64, out: &mut [f32], g: [f32; 2], d: [f32; 2]) {
    let n = out.len() / 2;
    let start = (pos >> FRAC_BITS) as usize * CH;
    let src = &data[start..start + n * CH];
    for (i, (o, s)) in out
        .chunks_exact_mut(2)
        .zip(src.chunks_exact(CH))
        .enumerate()
    {
        let fi = i as f32;
        let (l, r) = if CH == 1 {
            (s[0], s[0])
        } else {
            (s[0], s[CH - 1])
        };
        o[0] += l * (g[0] + d[0] * fi);
        o[1] += r * (g[1] + d[1] * fi);
    }
}

/// Any step: linear interpolation between neighbouring source frames.
#[inline(always)]
fn mix_interp<const CH: usize>(
    data: &[f32],
    pos: u64,
    step: u64,
    out: &mut [f32],
    g: [f32; 2],
    d: [f32; 2],
) {
    let mut p = pos;
    for (i, o) in out.chunks_exact_mut(2).enumerate() {
        let idx = (p >> FRAC_BITS) as usize * CH;
        let frac = (p & FRAC_MASK) as f32 * FRAC_SCALE;
        let fi = i as f32;
        let a = &data[idx..idx + 2 * CH];
        let l = a[0] + (a[CH] - a[0]) * frac;
        let r = if CH == 1 {
            l
        } else {
            a[CH - 1] + (a[2 * CH - 1] - a[CH - 1]) * frac
        };
        o[0] += l * (g[0] + d[0] * fi);
        o[1] += r * (g[1] + d[1] * fi);
        p += step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pan_law_is_constant_power_and_exact_at_the_ends() {
        let [l, r] = pan_gains(1.0, 0.0, 1);
        assert!((l * l + r * r - 1.0).abs() < 1e-6);
        assert_eq!(pan_gains(1.0, -1.0, 1)[1], 0.0);
        assert_eq!(pan_gains(1.0, 1.0, 1)[0], 0.0);
        assert_eq!(pan_gains(0.5, 0.0, 2), [0.5, 0.5]);
        assert_eq!(pan_gains(1.0, -1.0, 2)[1], 0.0);
    }

    #[test]
    fn step_is_rate_ratio_times_pitch() {
        assert_eq!(step_for(48_000, 48_000, 1.0), FRAC_ONE);
        assert_eq!(step_for(48_000, 48_000, 2.0), 2 * FRAC_ONE);
        let s = step_for(44_100, 48_000, 1.0) as f64 / FRAC_ONE as f64;
        assert!((s - 0.91875).abs() < 1e-9);
    }
}
