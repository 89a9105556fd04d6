//! Files with more than two channels, folded to stereo at load (voicepool
//! plays mono and stereo only).
//!
//! Each input channel has a speaker position, from the file's channel mask
//! (WAV's `WAVE_FORMAT_EXTENSIBLE` mask, or the layout a decoder reports) or
//! from the standard order for its channel count. Every position has a
//! left and a right gain:
//!
//! | position | left | right |
//! | --- | --- | --- |
//! | front left | 1 | 0 |
//! | front right | 0 | 1 |
//! | front centre, rear centre, and the other centre-line speakers (top, high) | 0.7071 | 0.7071 |
//! | LFE (both) | 0 | 0 |
//! | any other speaker on the left (rear, side, left-of-centre, wide, top, high) | 0.7071 | 0 |
//! | the same on the right | 0 | 0.7071 |
//! | unknown (no mask, or more channels than the mask names) | by index: even to the left, odd to the right; 1 for the first two, 0.7071 for the rest |
//!
//! For 5.1 and 7.1 this is the ITU-R BS.775 downmix: `L = FL + 0.7071 C +
//! 0.7071 Ls (+ 0.7071 Lrs)`, the right mirrored. The LFE channel is dropped,
//! as BS.775 does: it carries only what the main channels also reproduce,
//! boosted for a subwoofer, and adding it muddies the mix. The gains are
//! not normalized (a full-scale 5.1 file can reach 2.41, a 7.1 file 3.12):
//! normalizing would make a surround file quieter than its stereo version,
//! and the mixer's limiter takes care of peaks. The sum is still clamped to
//! ±[`super::MAX_SAMPLE_MAGNITUDE`] with every other sample.
//!
//! Without a mask the order for the channel count is the standard one of
//! WAV, FLAC and most tools (SMPTE / Microsoft): 3 = FL FR FC, 4 (quad) = FL FR
//! BL BR, 5 = FL FR FC BL BR, 6 (5.1) = FL FR FC LFE BL BR, 7 (6.1) = FL FR
//! FC LFE BC SL SR, 8 (7.1) = FL FR FC LFE BL BR SL SR. Ogg Vorbis has an
//! order of its own (Vorbis I specification, section 4.3.9: 5.1 = FL FC FR
//! BL BR LFE), which symphonia's decoder already maps to its mask's.

use std::f32::consts::FRAC_1_SQRT_2;

/// A speaker position: one bit of a `WAVE_FORMAT_EXTENSIBLE` channel mask
/// (`SPEAKER_FRONT_LEFT` = 0x1 and so on; symphonia's `Channels` uses the
/// same bits and adds some above 0x20000), or 0 for unknown.
pub(crate) type Position = u32;

const FL: Position = 0x1;
const FR: Position = 0x2;
const FC: Position = 0x4;
const LFE: Position = 0x8;
const BL: Position = 0x10;
const BR: Position = 0x20;
const BC: Position = 0x100;
const SL: Position = 0x200;
const SR: Position = 0x400;

/// Speakers on the left other than front left: left of centre, side, the
/// top and high ones, and symphonia's extra rear-left-centre and wide.
const LEFT: Position = 0x40 | BL | SL | 0x1000 | 0x8000 | 0x4_0000 | 0x10_0000 | 0x40_0000;
/// Their mirror images.
const RIGHT: Position = 0x80 | BR | SR | 0x4000 | 0x2_0000 | 0x8_0000 | 0x20_0000 | 0x100_0000;
/// On the centre line: centre, rear centre, top centre, top front and rear
/// centre, front centre high.
const CENTRE: Position = FC | BC | 0x800 | 0x2000 | 0x1_0000 | 0x80_0000;
/// Low-frequency effects (symphonia's LFE2 too).
const LOW: Position = LFE | 0x200_0000;

/// The positions of `channels` channels from a channel mask: the mask's set
/// bits in ascending order (as WAV and FLAC lay them out), then unknown for
/// any channel the mask does not name. With no mask, or one with no bits,
/// the standard layout for the count.
pub(crate) fn positions(channels: usize, mask: Option<u32>) -> Vec<Position> {
    let mask = mask
        .filter(|&m| m != 0)
        .unwrap_or_else(|| standard_mask(channels));
    let mut out: Vec<Position> = (0..32)
        .map(|bit| 1u32 << bit)
        .filter(|b| mask & b != 0)
        .take(channels)
        .collect();
    out.resize(channels, 0);
    out
}

/// The standard mask for a channel count (0 when there is none: every
/// channel is then unknown).
fn standard_mask(channels: usize) -> u32 {
    match channels {
        1 => FC,
        2 => FL | FR,
        3 => FL | FR | FC,
        4 => FL | FR | BL | BR,
        5 => FL | FR | FC | BL | BR,
        6 => FL | FR | FC | LFE | BL | BR,
        7 => FL | FR | FC | LFE | BC | SL | SR,
        8 => FL | FR | FC | LFE | BL | BR | SL | SR,
        _ => 0,
    }
}

/// The (left, right) gains of the channel at `index` with `position`.
pub(crate) fn gains(index: usize, position: Position) -> (f32, f32) {
    const H: f32 = FRAC_1_SQRT_2;
    match position {
        FL => (1.0, 0.0),
        FR => (0.0, 1.0),
        p if p & CENTRE != 0 => (H, H),
        p if p & LOW != 0 => (0.0, 0.0),
        p if p & LEFT != 0 => (H, 0.0),
        p if p & RIGHT != 0 => (0.0, H),
        _ => {
            let g = if index < 2 { 1.0 } else { H };
            if index.is_multiple_of(2) {
                (g, 0.0)
            } else {
                (0.0, g)
            }
        }
    }
}

/// A downmix to stereo for one layout: the gains of each input channel.
pub(crate) struct Downmix {
    gains: Vec<(f32, f32)>,
}

impl Downmix {
    pub(crate) fn new(positions: &[Position]) -> Downmix {
        Downmix {
            gains: positions
                .iter()
                .enumerate()
                .map(|(i, &p)| gains(i, p))
                .collect(),
        }
    }

    /// Appends the stereo frames of `input` (interleaved, whole frames of
    /// this layout's channel count) to `out`.
    pub(crate) fn extend(&self, input: &[f32], out: &mut Vec<f32>) {
        let channels = self.gains.len().max(1);
        for frame in input.chunks_exact(channels) {
            let (l, r) = self.mix(frame);
            out.push(l);
            out.push(r);
        }
    }

    /// Folds `samples` (interleaved, whole frames of this layout's channel
    /// count, at least 2) to stereo in place: frame `i` is read from
    /// `i * channels` before anything is written at `2 * i`, which is never
    /// ahead of the reading.
    pub(crate) fn in_place(&self, samples: &mut Vec<f32>) {
        let channels = self.gains.len();
        debug_assert!(channels >= 2);
        let frames = samples.len() / channels;
        for i in 0..frames {
            let (l, r) = self.mix(&samples[i * channels..(i + 1) * channels]);
            samples[2 * i] = l;
            samples[2 * i + 1] = r;
        }
        samples.truncate(2 * frames);
        samples.shrink_to_fit();
    }

    fn mix(&self, frame: &[f32]) -> (f32, f32) {
        // In f64: 8 channels of ±4 cannot lose the small ones to rounding,
        // and an infinite or NaN input stays one (the loader refuses it).
        let (mut l, mut r) = (0.0f64, 0.0f64);
        for (&s, &(gl, gr)) in frame.iter().zip(&self.gains) {
            l += f64::from(s) * f64::from(gl);
            r += f64::from(s) * f64::from(gr);
        }
        (l as f32, r as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_one_is_bs775() {
        let mix = Downmix::new(&positions(6, None));
        let mut out = Vec::new();
        // FL FR FC LFE BL BR, one channel at a time.
        for ch in 0..6 {
            let mut frame = [0.0f32; 6];
            frame[ch] = 1.0;
            mix.extend(&frame, &mut out);
        }
        let h = FRAC_1_SQRT_2;
        let want = [1.0, 0.0, 0.0, 1.0, h, h, 0.0, 0.0, h, 0.0, 0.0, h];
        for (g, w) in out.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{out:?}");
        }
    }

    #[test]
    fn masks_name_channels_in_bit_order_and_the_rest_alternate() {
        // 5.1 with side surrounds (KSAUDIO_SPEAKER_5POINT1_SURROUND).
        assert_eq!(positions(6, Some(0x60F)), [FL, FR, FC, LFE, SL, SR]);
        // A mask naming two of four channels.
        let p = positions(4, Some(FL | FR));
        assert_eq!(p, [FL, FR, 0, 0]);
        assert_eq!(gains(2, p[2]), (FRAC_1_SQRT_2, 0.0));
        assert_eq!(gains(3, p[3]), (0.0, FRAC_1_SQRT_2));
        // Ten channels: no standard layout.
        let p = positions(10, None);
        assert!(p.iter().all(|&x| x == 0));
        assert_eq!(gains(0, 0), (1.0, 0.0));
        assert_eq!(gains(1, 0), (0.0, 1.0));
    }

    #[test]
    fn in_place_matches_extend() {
        let input: Vec<f32> = (0..8 * 5).map(|i| (i as f32 * 0.37).sin()).collect();
        let mix = Downmix::new(&positions(8, None));
        let mut a = Vec::new();
        mix.extend(&input, &mut a);
        let mut b = input.clone();
        mix.in_place(&mut b);
        assert_eq!(a, b);
    }
}
