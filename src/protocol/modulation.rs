//! What a cue's parameter maps become once checked, as the audio side
//! reads them: [`Mods`] (a voice's maps, each a parameter, a target and a
//! piecewise-linear curve), and [`Glide`], a value moving linearly in
//! time toward a new one (a parameter's, global or a play's own).
//!
//! Plain data: a `Mods` is made on the game side, shared by every voice
//! of its cue in an `Arc` the game side keeps alive (the audio side only
//! moves and decrements it), and never changed after.

/// The most maps one voice follows (its cue's and the cues above it).
pub(crate) const MAX_MAPS: usize = 4;
/// The most points a curve has.
pub(crate) const MAX_POINTS: usize = 16;
/// The most parameters an engine holds.
pub(crate) const MAX_PARAMS: usize = 256;

/// What a map drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TargetKind {
    /// dB added to the play's volume.
    VolumeDb,
    /// A factor on its pitch.
    Pitch,
    /// The cutoff of its low-pass, in Hz.
    LowPassHz,
    /// The level it sends to this bus (by index) at.
    Send(u16),
}

/// One checked map: a parameter's value through a curve to a target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ValidMap {
    pub(crate) param: u16,
    pub(crate) target: TargetKind,
    /// Sorted by x; the first `n` are used (at least 1).
    pub(crate) points: [(f32, f32); MAX_POINTS],
    pub(crate) n: u8,
}

impl ValidMap {
    /// The curve at `x`: linear between points, the end values outside
    /// them.
    pub(crate) fn at(&self, x: f32) -> f32 {
        let points = &self.points[..usize::from(self.n).clamp(1, MAX_POINTS)];
        let (first, last) = (points[0], points[points.len() - 1]);
        if x <= first.0 {
            return first.1;
        }
        if x >= last.0 {
            return last.1;
        }
        for w in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if x <= x1 {
                let t = if x1 > x0 { (x - x0) / (x1 - x0) } else { 1.0 };
                return y0 + (y1 - y0) * t;
            }
        }
        last.1
    }
}

/// A voice's maps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mods {
    pub(crate) maps: [ValidMap; MAX_MAPS],
    pub(crate) n: u8,
}

impl Mods {
    pub(crate) fn maps(&self) -> &[ValidMap] {
        &self.maps[..usize::from(self.n).min(MAX_MAPS)]
    }

    /// The bus its `Send` maps name (checked to be one), if any.
    pub(crate) fn send_bus(&self) -> Option<u16> {
        self.maps().iter().find_map(|m| match m.target {
            TargetKind::Send(b) => Some(b),
            _ => None,
        })
    }
}

/// A value gliding linearly from `from` to `to` over `frames` output
/// frames from frame `start` (at once for 0 frames).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Glide {
    pub(crate) from: f32,
    pub(crate) to: f32,
    pub(crate) start: u64,
    pub(crate) frames: u32,
}

impl Glide {
    /// Holding `value`.
    pub(crate) const fn at_rest(value: f32) -> Glide {
        Glide {
            from: value,
            to: value,
            start: 0,
            frames: 0,
        }
    }

    /// The value at frame `now`.
    pub(crate) fn at(&self, now: u64) -> f32 {
        let gone = now.saturating_sub(self.start);
        if gone >= u64::from(self.frames) {
            return self.to;
        }
        let t = gone as f32 / self.frames as f32;
        self.from + (self.to - self.from) * t
    }

    /// Whether it is still on its way at frame `now`.
    pub(crate) fn moving(&self, now: u64) -> bool {
        now < self.start + u64::from(self.frames)
    }

    /// Heads for `to` over `frames` from where it is at `now`.
    pub(crate) fn head_for(&mut self, to: f32, now: u64, frames: u32) {
        *self = Glide {
            from: self.at(now),
            to,
            start: now,
            frames,
        };
    }
}

/// A voice's own parameter settings (`set_play_param`): per map, a glide
/// that overrides the global value, if `set` has its bit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Own {
    pub(crate) glides: [Glide; MAX_MAPS],
    pub(crate) set: u8,
}

impl Own {
    pub(crate) const NONE: Own = Own {
        glides: [Glide::at_rest(0.0); MAX_MAPS],
        set: 0,
    };

    /// Param `param` heads for `value` over `frames` from `now`, for this
    /// voice only (every map of `mods` that follows it). Returns whether
    /// any map does.
    pub(crate) fn set_param(
        &mut self,
        mods: &Mods,
        global: f32,
        param: u16,
        value: f32,
        now: u64,
        frames: u32,
    ) -> bool {
        let mut any = false;
        for (k, map) in mods.maps().iter().enumerate() {
            if map.param != param {
                continue;
            }
            let bit = 1u8 << k;
            if self.set & bit == 0 {
                // From wherever the global value (`global`) has it now.
                self.glides[k] = Glide::at_rest(global);
                self.set |= bit;
            }
            self.glides[k].head_for(value, now, frames);
            any = true;
        }
        any
    }

    /// Whether one of its own values moves at frame `now`.
    pub(crate) fn moving(&self, now: u64) -> bool {
        (0..MAX_MAPS).any(|k| self.set & (1 << k) != 0 && self.glides[k].moving(now))
    }
}

/// `e^x` for `|x|` up to about 700, within 1e-11 of it (far finer than
/// the `f32`s it becomes), from additions and multiplications alone: the
/// same bits on every platform (a library `exp` may round differently
/// from one libm to another, and a seeded render must be bit-identical
/// everywhere), in a few nanoseconds, and safe on the audio thread.
pub(crate) fn exp(x: f64) -> f64 {
    /// 1 / n!, n = 9 down to 2.
    const INVERSE_FACTORIALS: [f64; 8] = [
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        1.0 / 2.0,
    ];
    let x = x.clamp(-700.0, 700.0);
    // e^x = 2^k e^r, with r = x - k ln 2 in [-ln 2 / 2, ln 2 / 2].
    let k = (x * std::f64::consts::LOG2_E).round();
    let r = x - k * std::f64::consts::LN_2;
    // Taylor to the 9th power: the remainder is below 1e-11 for |r| < 0.35.
    let mut p = 0.0;
    for c in INVERSE_FACTORIALS {
        p = (p + c) * r;
    }
    let p = (p + 1.0) * r + 1.0;
    p * f64::from_bits(((k as i64 + 1023) as u64) << 52)
}

/// A gain of `db` decibels.
pub(crate) fn db_to_gain(db: f32) -> f32 {
    if db == 0.0 {
        1.0
    } else {
        exp(f64::from(db) * (std::f64::consts::LN_10 / 20.0)) as f32
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn exp_is_the_library_exp_within_1e_11() {
        let mut x = -60.0f64;
        while x < 60.0 {
            let (ours, lib) = (super::exp(x), x.exp());
            assert!((ours - lib).abs() <= 1e-11 * lib, "{x}: {ours} {lib}");
            x += 0.001_37;
        }
        assert_eq!(super::exp(0.0), 1.0);
    }

    #[test]
    fn a_curve_is_linear_between_its_points_and_holds_its_ends() {
        let mut m = super::ValidMap {
            param: 0,
            target: super::TargetKind::VolumeDb,
            points: [(0.0, 0.0); super::MAX_POINTS],
            n: 3,
        };
        m.points[..3].copy_from_slice(&[(0.0, -10.0), (10.0, 0.0), (10.0, 5.0)]);
        assert_eq!(m.at(-1.0), -10.0);
        assert_eq!(m.at(5.0), -5.0);
        assert_eq!(m.at(10.0), 5.0);
        assert_eq!(m.at(11.0), 5.0);
    }
}
