//! What the game's commands do to a voice: volume, pan and pitch (each
//! reached over a short ramp), fades, pause and resume, stop. Each sets a
//! target and a ramp; [`Voice::render`] and [`Voice::skip`] move toward it.
//!
//! Real-time contract: applied on the audio thread as commands are drained;
//! plain arithmetic on the voice, nothing allocated or locked.

use super::{pan_gains, pan_gains_f32, step_for, Phase, Voice};

impl Voice {
    /// Heads for `volume` over exactly `frames` (a fade the game asked
    /// for: unlike [`Voice::set_volume`], its length is the caller's, and
    /// it replaces a ramp in progress). Linear in amplitude. While paused,
    /// the fade runs on from the resume.
    pub(crate) fn fade_volume(&mut self, volume: f32, frames: u32) {
        self.volume = volume;
        match self.phase {
            Phase::Playing => {
                self.ramp_to(pan_gains(volume, self.pan, self.sound.channels), frames)
            }
            Phase::Pausing | Phase::Paused => self.resume_ramp = frames,
            Phase::Stopping => {}
        }
    }

    /// Fades out over `frames` (scaled by how loud it is now against its
    /// full gain: a voice still silent at the start of a fade-in, or just
    /// paused and resumed, holds at once, never moving on unheard), then
    /// holds its position (rendering nothing) until [`Voice::resume`].
    /// Does nothing unless playing.
    pub(crate) fn pause(&mut self, frames: u32) {
        if self.phase != Phase::Playing {
            return;
        }
        if self.delay > 0 {
            // Not sounding yet: it holds at once, and its wait with it.
            self.resume_ramp = self.ramp_left;
            self.phase = Phase::Paused;
            return;
        }
        let full = pan_gains(self.volume, self.pan, self.sound.channels);
        let full = full[0].max(full[1]);
        let share = if full > 0.0 {
            (self.peak_gain() / full).min(1.0)
        } else {
            0.0
        };
        let frames = (frames as f32 * share).ceil() as u32;
        self.resume_ramp = self.ramp_left;
        self.phase = Phase::Pausing;
        self.ramp_to([0.0; 2], frames);
        if frames == 0 {
            self.phase = Phase::Paused;
        }
    }

    /// Fades back in (over `frames`, or what was left of a fade the pause
    /// interrupted, whichever is longer) from where the pause left it.
    /// Does nothing unless pausing or paused.
    pub(crate) fn resume(&mut self, frames: u32) {
        if !matches!(self.phase, Phase::Pausing | Phase::Paused) {
            return;
        }
        self.phase = Phase::Playing;
        let target = pan_gains(self.volume, self.pan, self.sound.channels);
        self.ramp_to(target, frames.max(self.resume_ramp));
    }

    /// True while it waits for a scheduled start (silent so far).
    pub(crate) fn is_waiting(&self) -> bool {
        self.delay > 0
    }

    /// Output frames it still waits for its scheduled start.
    pub(crate) fn delay(&self) -> u32 {
        self.delay
    }

    /// True while paused or fading for a pause: it would come back silent.
    pub(crate) fn is_held(&self) -> bool {
        matches!(self.phase, Phase::Pausing | Phase::Paused)
    }

    /// True while stopping (fading to its end, or stopped while frozen).
    pub(crate) fn is_stopping(&self) -> bool {
        self.phase == Phase::Stopping
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

    /// A positioned voice heard anew at the start of a block of `block`
    /// frames: `fade_to` is the play's own volume (where a fade in
    /// progress is heading), `was` and `gain` the distance gains it was
    /// and is heard at, `pan` and `pitch` as heard now. `rest` is what is
    /// left of a fade past the ramp under way (see [`Voice::continue_fade`]).
    ///
    /// The change is reached over the block, also during a longer fade:
    /// the gains head for where the fade will be at the block's end, heard
    /// from the new place, and the rest of the fade is returned, to run
    /// on from there ([`Voice::continue_fade`]) so that it keeps its end
    /// time. Otherwise one ramp to the new gains over what is left (at
    /// least the block); returns 0.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn respatialize(
        &mut self,
        fade_to: f32,
        was: f32,
        gain: f32,
        pan: f32,
        pitch: f32,
        block: u32,
        rest: u32,
        out_rate: u32,
    ) -> u32 {
        let left = self.ramp_left.saturating_add(rest);
        let channels = self.sound.channels;
        let plain = self.phase != Phase::Playing || self.delay > 0 || block == 0 || left <= block;
        // The old place's gains (only for a fade to cut: this runs for
        // every moving voice every block): the fade's level now is the
        // gains over them, on the louder side.
        let heard = if plain {
            [0.0; 2]
        } else {
            pan_gains_f32(was, self.pan, channels)
        };
        let c = usize::from(heard[1] > heard[0]);
        if plain || heard[c] <= 0.0 {
            // One ramp to the new gains over all that is left: no fade
            // longer than the block; or waiting for its start (a fade-in
            // has not begun); or heard at once (a virtual voice, block 0:
            // its fade goes on as it keeps time); or the old place was
            // silent by distance (it tells nothing of the fade's level).
            self.volume = fade_to * gain;
            self.pan = pan;
            if self.phase == Phase::Playing {
                let target = pan_gains_f32(self.volume, pan, channels);
                self.ramp_to(target, left.max(block));
            }
            self.set_pitch(pitch, out_rate);
            return 0;
        }
        let now = self.gain[c] / heard[c];
        let then = now + (fade_to - now) * (block as f32 / left as f32);
        self.volume = fade_to * gain;
        self.pan = pan;
        self.ramp_to(pan_gains_f32(then * gain, pan, channels), block);
        self.set_pitch(pitch, out_rate);
        left - block
    }

    /// Frames left of the gain ramp under way.
    pub(crate) fn ramp_left(&self) -> u32 {
        self.ramp_left
    }

    /// Goes on with the `rest` of a fade that [`Voice::respatialize`] cut
    /// at a block's end, toward its gains as heard now: once that block's
    /// piece is done if playing; from the resume if paused.
    pub(crate) fn continue_fade(&mut self, rest: u32) {
        match self.phase {
            Phase::Playing => {
                let target = pan_gains_f32(self.volume, self.pan, self.sound.channels);
                self.ramp_to(target, self.ramp_left.saturating_add(rest));
            }
            Phase::Pausing | Phase::Paused => {
                self.resume_ramp = self.resume_ramp.saturating_add(rest);
            }
            Phase::Stopping => {}
        }
    }

    /// True while playing (not pausing, paused or stopping).
    pub(crate) fn is_playing(&self) -> bool {
        self.phase == Phase::Playing
    }

    /// Changes pitch from the next frame on.
    pub(crate) fn set_pitch(&mut self, pitch: f32, out_rate: u32) {
        self.step = step_for(self.sound.sample_rate, out_rate, pitch);
    }

    /// Its step, 32.32 fixed point (what a glide runs between).
    #[inline]
    pub(crate) fn step_raw(&self) -> u64 {
        self.step
    }

    /// Sets its step, 32.32 fixed point (at least one unit), for a piece
    /// of a glide.
    #[inline]
    pub(crate) fn set_step(&mut self, step: u64) {
        self.step = step.max(1);
    }

    /// Heads for the gains of the current volume and pan. A ramp already
    /// under way (a fade-in, or an earlier change) is never shortened: a
    /// fade keeps its end time and goes on toward the new target.
    fn retarget(&mut self, ramp: u32) {
        self.head_for(pan_gains(self.volume, self.pan, self.sound.channels), ramp);
    }

    /// Heads for `target` over `ramp` frames, or what is left of the ramp
    /// under way if that is longer. Only while playing.
    fn head_for(&mut self, target: [f32; 2], ramp: u32) {
        if self.phase != Phase::Playing {
            return;
        }
        self.ramp_to(target, ramp.max(self.ramp_left));
    }

    pub(super) fn ramp_to(&mut self, target: [f32; 2], ramp: u32) {
        self.target = target;
        self.ramp_left = ramp;
        if ramp == 0 {
            self.gain = target;
        }
    }

    /// Starts a fade to silence over `frames`; the voice ends when it is silent.
    /// A voice already stopping (or fading for a pause) keeps the shorter of
    /// the two fades; a paused voice, already silent, ends at once.
    pub(crate) fn stop(&mut self, frames: u32) {
        if self.delay > 0 {
            // Still waiting for its start: silent, so it ends at once.
            self.delay = 0;
            self.phase = Phase::Stopping;
            self.ramp_to([0.0; 2], 0);
            return;
        }
        let frames = match self.phase {
            Phase::Stopping if self.ramp_left <= frames => return,
            Phase::Pausing => frames.min(self.ramp_left),
            Phase::Paused => 0,
            _ => frames,
        };
        self.phase = Phase::Stopping;
        self.ramp_to([0.0; 2], frames);
    }
}
