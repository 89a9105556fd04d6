//! Masking: what of a voice the *other* voices hide. A footstep under an
//! explosion, the fifth groan of a horde, a hum under music in its band:
//! each is loud enough alone, and heard little in the mix. Stealing ranks a
//! voice by its loudness ([`super::audibility`]) times the share of it that
//! stays audible above the masking threshold the rest of the mix makes.
//!
//! The model is the classic one of perceptual coders (Johnston 1988;
//! MPEG-1's psychoacoustic model 1), per critical band (`sound::spectrum`):
//!
//! - Every live voice puts its predicted power in each band into the mix
//!   (its loudness over the horizons, spread as its sound's spectrum over
//!   the next 300 ms says, after its own low-pass: cone, occlusion, air).
//! - The threshold a voice faces is the rest of the mix (the total less
//!   its own part: a voice does not mask itself, to within -40 dB) spread
//!   across bands, 10 dB
//!   per band upward and 25 dB per band downward (a low sound masks the
//!   bands above it far more than a high one the bands below), lowered by
//!   10 dB (between a tonal masker's 15 and a noise's 5), and never below
//!   the threshold in quiet (Terhardt's, with a full-scale sine at 90 dB
//!   SPL).
//! - What stays audible of a band of power `P` against a threshold `T`
//!   counts as `P · P / (P + T)`: all of it far above the threshold, half
//!   at it, falling with the signal-to-mask ratio below it (so a masked
//!   voice still ranks by how far under it is). The bands are summed
//!   K-weighted, as loudness is.
//!
//! Cost: the mix is spread across bands once a block (two recursive passes
//! over 24 bands); a voice's share (estimated on its first refresh, then
//! on one in four: `mixer::ranking`) is a few vectorized passes over its
//! bands, about as much again as its loudness estimate; between estimates
//! its part of the mix only follows its level ([`Masking::follow`]). The
//! mix's total is kept as parts change and summed anew once per refresh
//! period. The steal itself still reads one kept level per voice.
//! Real-time safe: every array is allocated when the mixer is made; no
//! value that is not a finite power gets into the mix.

use crate::math::Libm;
use crate::sound::spectrum::{BANDS, CENTRE_HZ};

/// Power per critical band.
pub(crate) type BandPowers = [f32; BANDS];

/// Power factor per band of spread toward higher bands (-10 dB).
const UPWARD: f32 = 0.1;
/// Power factor per band of spread toward lower bands (-25 dB).
const DOWNWARD: f32 = 0.003_162_277_6;
/// The threshold lies this far (as power) below the spread masker
/// (-10 dB).
const OFFSET: f32 = 0.1;
/// The power (mean square over output channels, summed) that stands for
/// 90 dB SPL: a full-scale sine heard centred.
const FULL_SCALE_POWER: f64 = 0.5;
const FULL_SCALE_SPL: f64 = 90.0;

/// The mix's masking, kept per voice slot.
pub(crate) struct Masking {
    on: bool,
    /// Per band, the K-weighting's power gain at its centre.
    k_weights: BandPowers,
    /// Per band, the threshold in quiet, as power.
    quiet: BandPowers,
    /// Per slot, the power its voice puts in the mix (set when its share
    /// is estimated, followed to its level between), and the K-weighted
    /// level that part adds up to.
    parts: Box<[BandPowers]>,
    part_levels: Box<[f32]>,
    /// Per slot, its part spread near its bands ([`near_spread`]), kept
    /// so that neither taking it out of the mix a voice faces nor scaling
    /// it spreads it again.
    nears: Box<[BandPowers]>,
    /// The sum of `parts` over live slots (kept as parts change, summed
    /// anew by [`Masking::retotal`]).
    total: BandPowers,
    /// Per slot, its voice's refreshes so far (wrapping) and who it is,
    /// for [`Masking::due`].
    refreshes: Box<[u8]>,
    ids: Box<[u64]>,
    /// `total` spread across bands at the block's start.
    spread_total: BandPowers,
}

impl Masking {
    /// Masking for `slots` voice slots; `on`: whether stealing hears it
    /// (off, every voice is heard whole).
    pub(crate) fn new(slots: usize, on: bool, k_weight: impl Fn(f64) -> f64) -> Masking {
        Masking {
            on,
            k_weights: CENTRE_HZ.map(|hz| k_weight(f64::from(hz)) as f32),
            quiet: CENTRE_HZ.map(|hz| {
                let spl = threshold_in_quiet_db(f64::from(hz));
                (FULL_SCALE_POWER * 10f64.lm_powf((spl - FULL_SCALE_SPL) / 10.0)) as f32
            }),
            parts: vec![[0.0; BANDS]; if on { slots } else { 0 }].into_boxed_slice(),
            part_levels: vec![0.0; if on { slots } else { 0 }].into_boxed_slice(),
            nears: vec![[0.0; BANDS]; if on { slots } else { 0 }].into_boxed_slice(),
            total: [0.0; BANDS],
            refreshes: vec![0; if on { slots } else { 0 }].into_boxed_slice(),
            ids: vec![0; if on { slots } else { 0 }].into_boxed_slice(),
            spread_total: [0.0; BANDS],
        }
    }

    /// Whether stealing hears masking.
    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.parts.len() + self.nears.len()) * std::mem::size_of::<BandPowers>()
            + self.part_levels.len() * std::mem::size_of::<f32>()
            + self.refreshes.len()
            + self.ids.len() * std::mem::size_of::<u64>()
    }

    /// Whether slot `i`'s refresh now should estimate its heard share
    /// anew, its voice being `id`: on a voice's first refresh (so a new
    /// voice masks the others, and is heard against them, at once), then
    /// one in `every` (counted per slot, so however the refreshes fall
    /// into blocks); never with masking off.
    #[inline]
    pub(crate) fn due(&mut self, i: usize, id: u64, every: u8) -> bool {
        match (self.refreshes.get_mut(i), self.ids.get_mut(i)) {
            (Some(n), Some(who)) => {
                if *who != id {
                    (*who, *n) = (id, 0);
                }
                let due = *n % every.max(1) == 0;
                *n = n.wrapping_add(1);
                due
            }
            _ => false,
        }
    }

    /// The K-weighting's power gain per band.
    pub(crate) fn k_weights(&self) -> &BandPowers {
        &self.k_weights
    }

    /// Sums the mix anew from the parts of the slots `live` says are live
    /// (dropping what voices since gone still left in it, and rounding).
    pub(crate) fn retotal(&mut self, live: impl Fn(usize) -> bool) {
        let mut total = [0.0f32; BANDS];
        let parts = self.parts.iter_mut().zip(self.part_levels.iter_mut());
        for (i, ((part, level), near)) in parts.zip(self.nears.iter_mut()).enumerate() {
            if live(i) {
                for (t, p) in total.iter_mut().zip(part.iter()) {
                    *t += p;
                }
            } else {
                (*part, *level, *near) = ([0.0; BANDS], 0.0, [0.0; BANDS]);
            }
        }
        self.total = total;
    }

    /// Spreads the mix's total across bands once for the refreshes that
    /// follow (the recursive passes run once a block, not per voice).
    pub(crate) fn begin_block(&mut self) {
        if self.on {
            self.spread_total = spread(&self.total);
        }
    }

    /// The share (0 to 1) of a voice with band powers `own` that stays
    /// audible above the masking of the rest of the mix; `slot`: the slot
    /// it plays in (its part of the mix is then replaced by `own`, or by
    /// nothing if it is not `sounding`: paused), `None` for a voice not in
    /// the mix (a virtual voice, which faces all of it). 1 when masking is
    /// off or the voice is silent.
    ///
    /// The rest of the mix is the spread total ([`Masking::begin_block`],
    /// kept up as parts change) less the voice's own part spread two bands
    /// up and one down (what it would add further off is 30 dB down and
    /// more: a voice masks itself by less than -40 dB). Branch-free over
    /// the bands, so it vectorizes.
    pub(crate) fn heard(&mut self, slot: Option<usize>, own: &BandPowers, sounding: bool) -> f32 {
        if !self.on {
            return 1.0;
        }
        // (Nothing that is not a finite power gets into the mix.)
        let own = own.map(|p| if p.is_finite() && p > 0.0 { p } else { 0.0 });
        let mut masker = self.spread_total;
        if let Some(was) = slot.and_then(|i| self.nears.get(i)) {
            for b in 0..BANDS {
                masker[b] = (masker[b] - was[b]).max(0.0);
            }
        }
        // Summed in eight lanes (a fixed order, so the same everywhere),
        // which vectorizes where one running sum could not.
        let (mut heard, mut all) = ([0.0f32; LANES], [0.0f32; LANES]);
        for chunk in 0..BANDS / LANES {
            for l in 0..LANES {
                let b = chunk * LANES + l;
                // (The threshold in quiet keeps `p + t` above 0.)
                let t = (OFFSET * masker[b]).max(self.quiet[b]);
                let (p, k) = (own[b], self.k_weights[b]);
                all[l] += k * p;
                heard[l] += k * p * p / (p + t);
            }
        }
        let (heard, all) = (lanes_sum(&heard), lanes_sum(&all));
        if let Some(i) = slot {
            if sounding {
                self.set_part(i, &own, all);
            } else {
                self.set_part(i, &[0.0; BANDS], 0.0);
            }
        }
        let share = heard / all;
        if all > 0.0 && share >= 0.0 {
            share.min(1.0)
        } else {
            1.0
        }
    }

    /// Between two estimates of its share, slot `i`'s part of the mix
    /// follows its voice's `level` (scaled as a whole), or is taken out
    /// while it is not `sounding` (paused: it masks nothing until its
    /// next estimate).
    pub(crate) fn follow(&mut self, i: usize, level: f32, sounding: bool) {
        if !self.on {
            return;
        }
        let (Some(part), Some(near), Some(was)) = (
            self.parts.get_mut(i),
            self.nears.get_mut(i),
            self.part_levels.get_mut(i),
        ) else {
            return;
        };
        if *was <= 0.0 {
            return; // nothing in the mix until its next estimate
        }
        // Scaled by `r`: the mix changes by `(r - 1)` times the part (no
        // new spread: the near spread scales with it).
        let r = if sounding && level > 0.0 {
            level / *was
        } else {
            0.0
        };
        let d = r - 1.0;
        for b in 0..BANDS {
            self.total[b] = (self.total[b] + d * part[b]).max(0.0);
            self.spread_total[b] = (self.spread_total[b] + d * near[b]).max(0.0);
            part[b] *= r;
            near[b] *= r;
        }
        *was = level * f32::from(u8::from(r > 0.0));
    }

    /// Replaces slot `i`'s part with `new` (adding up to the K-weighted
    /// `level`): the total and the spread total change with it at once
    /// (near its bands; the whole spread is made anew next block), so the
    /// voices refreshed after it in the block hear it.
    fn set_part(&mut self, i: usize, new: &BandPowers, level: f32) {
        let (Some(part), Some(near), Some(part_level)) = (
            self.parts.get_mut(i),
            self.nears.get_mut(i),
            self.part_levels.get_mut(i),
        ) else {
            return;
        };
        let will = near_spread(new);
        for b in 0..BANDS {
            self.spread_total[b] = (self.spread_total[b] + will[b] - near[b]).max(0.0);
            self.total[b] = (self.total[b] + new[b] - part[b]).max(0.0);
        }
        (*part, *near, *part_level) = (*new, will, level);
    }

    /// The masking threshold `maskers` (power per band) make.
    #[cfg(test)]
    pub(crate) fn threshold(&self, maskers: &BandPowers) -> BandPowers {
        let spread = spread(maskers);
        let mut t = [0.0f32; BANDS];
        for b in 0..BANDS {
            t[b] = (OFFSET * spread[b]).max(self.quiet[b]);
        }
        t
    }
}

/// `part` (power per band) spread two bands up and one down: its spread
/// but for what lies 30 dB and more under it. Branch-free, vectorizable.
#[inline]
fn near_spread(part: &BandPowers) -> BandPowers {
    let mut padded = [0.0f32; BANDS + 3];
    padded[2..BANDS + 2].copy_from_slice(part);
    let mut s = [0.0f32; BANDS];
    for (b, s) in s.iter_mut().enumerate() {
        *s = padded[b + 2]
            + UPWARD * padded[b + 1]
            + UPWARD * UPWARD * padded[b]
            + DOWNWARD * padded[b + 3];
    }
    s
}

/// Lanes of the vectorized sums over bands (`BANDS` is a multiple).
pub(crate) const LANES: usize = 8;

/// The sum of `lanes`, pairwise in a fixed order.
#[inline]
pub(crate) fn lanes_sum(lanes: &[f32; LANES]) -> f32 {
    let q = [
        lanes[0] + lanes[4],
        lanes[1] + lanes[5],
        lanes[2] + lanes[6],
        lanes[3] + lanes[7],
    ];
    (q[0] + q[2]) + (q[1] + q[3])
}

/// `maskers` (power per band) spread across the bands: each band's power
/// falls 10 dB per band upward and 25 dB per band downward (two recursive
/// passes).
fn spread(maskers: &BandPowers) -> BandPowers {
    let mut up = [0.0f32; BANDS];
    let mut down = [0.0f32; BANDS];
    let (mut u, mut d) = (0.0f32, 0.0f32);
    for b in 0..BANDS {
        u = maskers[b] + UPWARD * u;
        up[b] = u;
        let c = BANDS - 1 - b;
        d = maskers[c] + DOWNWARD * d;
        down[c] = d;
    }
    let mut s = [0.0f32; BANDS];
    for b in 0..BANDS {
        s[b] = up[b] + down[b] - maskers[b];
    }
    s
}

/// Terhardt's threshold in quiet at `hz`, in dB SPL (the ISO 226 curve's
/// usual fit; 20 Hz to 16 kHz).
fn threshold_in_quiet_db(hz: f64) -> f64 {
    let f = hz.clamp(20.0, 16_000.0) / 1_000.0;
    3.64 * f.lm_powf(-0.8) - 6.5 * (-0.6 * (f - 3.3) * (f - 3.3)).lm_exp() + 1e-3 * f.lm_powi(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masking(slots: usize) -> Masking {
        Masking::new(slots, true, |_| 1.0)
    }

    fn tone(band: usize, power: f32) -> BandPowers {
        let mut p = [0.0; BANDS];
        p[band] = power;
        p
    }

    #[test]
    fn the_threshold_of_two_tones_matches_hand_computed_values() {
        let m = masking(0);
        // Tones in bands 8 (1 kHz) and 14 (2.5 kHz), power 1 and 0.01.
        let mut maskers = tone(8, 1.0);
        maskers[14] = 0.01;
        let t = m.threshold(&maskers);
        // In band 8: the 1 kHz tone, plus the 2.5 kHz one six bands up,
        // -150 dB: 10 dB below the sum.
        assert!((t[8] / (0.1 * (1.0 + 0.01 * 1e-15)) - 1.0).abs() < 1e-5);
        // Two bands above: -20 dB from the tone, -10 below that.
        assert!((t[10] / (0.1 * 0.01) - 1.0).abs() < 1e-4, "{}", t[10]);
        // Band 14: the tone's own 0.01, plus the 1 kHz tone six bands
        // below (-60 dB: 1e-6), 10 dB down.
        assert!(
            (t[14] / (0.1 * (0.01 + 1e-6)) - 1.0).abs() < 1e-4,
            "{}",
            t[14]
        );
        // One band below the 1 kHz tone: -25 dB, then -10.
        assert!(
            (t[7] / (0.1 * 0.003_162_277_6) - 1.0).abs() < 1e-4,
            "{}",
            t[7]
        );
        // Far from both: the threshold in quiet (0 dBFS = 90 dB SPL).
        let quiet_1k = 0.5 * 10f64.powf((threshold_in_quiet_db(1_000.0) - 90.0) / 10.0);
        assert!((threshold_in_quiet_db(1_000.0) - 3.37).abs() < 0.05);
        assert!((m.threshold(&[0.0; BANDS])[8] / quiet_1k as f32 - 1.0).abs() < 1e-4);
    }

    #[test]
    fn a_voice_does_not_mask_itself() {
        let mut m = masking(2);
        let loud = tone(8, 1.0);
        // Alone, a voice is heard whole (its own part is not a masker).
        m.begin_block();
        assert!(m.heard(Some(0), &loud, true) > 0.999);
        m.begin_block();
        assert!(m.heard(Some(0), &loud, true) > 0.999);
        // A quiet one in the same band is masked by it; the loud one only
        // a little by the quiet one.
        let quiet = tone(8, 0.01);
        let q = m.heard(Some(1), &quiet, true);
        m.begin_block();
        let l = m.heard(Some(0), &loud, true);
        assert!(q < 0.1, "{q}");
        assert!(l > 0.99, "{l}");
        // Nor by its own spread into the bands around it (a broad sound
        // alone is heard whole).
        let mut alone = masking(1);
        alone.heard(Some(0), &[0.5; BANDS], true);
        alone.begin_block();
        assert!(alone.heard(Some(0), &[0.5; BANDS], true) > 0.999);
        // The same quiet voice in a band far away is heard whole.
        let apart = tone(20, 0.01);
        m.begin_block();
        assert!(m.heard(Some(1), &apart, true) > 0.99);
        // A virtual voice faces the whole mix.
        m.begin_block();
        assert!(m.heard(None, &quiet, true) < 0.1);
    }

    #[test]
    fn a_voice_masks_those_refreshed_after_it_in_the_same_block() {
        let mut m = masking(2);
        m.begin_block();
        m.heard(Some(0), &tone(8, 1.0), true);
        assert!(m.heard(Some(1), &tone(8, 0.01), true) < 0.1);
        // And stops masking them as soon as it is quiet.
        m.heard(Some(0), &[0.0; BANDS], true);
        assert!(m.heard(Some(1), &tone(8, 0.01), true) > 0.99);
    }

    #[test]
    fn a_part_follows_its_level_and_a_paused_voice_masks_nothing() {
        let mut m = masking(2);
        m.heard(Some(0), &tone(8, 1.0), true);
        assert!(m.heard(Some(1), &tone(8, 0.01), true) < 0.1);
        // Faded 40 dB down between estimates: it masks as much less.
        m.follow(0, 1e-4, true);
        assert!(m.heard(Some(1), &tone(8, 0.01), true) > 0.9);
        // Estimated while paused: it ranks, but masks nothing.
        m.heard(Some(0), &tone(8, 1.0), false);
        assert!(m.heard(Some(1), &tone(8, 0.01), true) > 0.99);
    }

    #[test]
    fn off_hears_everything_and_retotal_drops_the_gone() {
        let mut off = Masking::new(2, false, |_| 1.0);
        off.heard(Some(0), &tone(8, 1.0), true);
        assert_eq!(off.heard(Some(1), &tone(8, 0.01), true), 1.0);
        let mut m = masking(2);
        m.heard(Some(0), &tone(8, 1.0), true);
        m.begin_block();
        assert!(m.heard(None, &tone(8, 0.01), true) < 0.1);
        m.retotal(|i| i != 0);
        m.begin_block();
        assert!(m.heard(None, &tone(8, 0.01), true) > 0.99);
    }
}
