//! [`Ramp`]: a linear glide in output frames, shared by the buses' gains
//! and the effects' parameters. Plain arithmetic, real-time safe.

/// A value moving linearly to a target over a number of output frames:
/// a bus's volume and pause, an effect parameter's glide.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ramp {
    pub(crate) value: f32,
    pub(crate) target: f32,
    /// Frames left to the target (0: there).
    pub(crate) left: u32,
}

impl Ramp {
    pub(crate) fn steady(value: f32) -> Ramp {
        Ramp {
            value,
            target: value,
            left: 0,
        }
    }

    /// Heads for `target` over `frames` (0: at once), from where it is.
    pub(crate) fn to(&mut self, target: f32, frames: u32) {
        self.target = target;
        self.left = frames;
        if frames == 0 {
            self.value = target;
        }
    }

    pub(crate) fn step(&self) -> f32 {
        if self.left == 0 {
            0.0
        } else {
            (self.target - self.value) / self.left as f32
        }
    }

    /// The gain `i` frames from now.
    #[inline(always)]
    pub(crate) fn at(&self, i: usize, step: f32) -> f32 {
        if i >= self.left as usize {
            self.target
        } else {
            self.value + step * i as f32
        }
    }

    pub(crate) fn advance(&mut self, n: usize) {
        if n >= self.left as usize {
            self.value = self.target;
            self.left = 0;
        } else {
            self.value += self.step() * n as f32;
            self.left -= n as u32;
        }
    }
}
