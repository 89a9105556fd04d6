//! [`LoopTile`]: a short sound repeated end to end, so that looping it costs
//! what looping a long sound costs.
//!
//! A looping voice renders in segments that end where the loop wraps. For a
//! sound of a few frames (a single-cycle waveform, a 1-frame DC hold) that is
//! a segment, and a wrap, every few output frames: tens of times the cost of
//! a long loop per frame. A tile holds the sound repeated to at least
//! [`TILE_MIN_FRAMES`] frames and goes on with the loop's start for a few
//! frames past that, so a voice reads it in long segments with the seam
//! interpolated like any other frame, and wraps once per tile.
//!
//! Made on the game side, once per sound, the first time the sound is played
//! looping (`SoundData::prepare_loop`); the audio side only reads it.

use super::GUARD_FRAMES;

/// Sounds shorter than this many frames get a tile when played looping.
pub(crate) const TILE_BELOW_FRAMES: usize = 4_096;
/// A tile spans at least this many frames: at the highest pitch (64) a
/// segment is still 256 output frames long.
pub(crate) const TILE_MIN_FRAMES: usize = 16_384;

/// A short sound's samples repeated a whole number of times.
pub(crate) struct LoopTile {
    /// Interleaved samples: `period` frames of the sound repeated, then
    /// [`GUARD_FRAMES`] + 1 more frames that carry on from the loop's start
    /// (what interpolation and the SIMD kernels' windows may read).
    pub(crate) samples: Box<[f32]>,
    /// Frames in the repeated part: a whole number of the sound's periods.
    pub(crate) period: usize,
}

impl LoopTile {
    /// The tile of a sound of `frames` frames of `channels` interleaved
    /// `samples` (at least `frames * channels` of them), or `None` if the
    /// sound is long enough to loop well without one.
    pub(crate) fn new(samples: &[f32], frames: usize, channels: usize) -> Option<LoopTile> {
        let one = samples.get(..frames.checked_mul(channels)?)?;
        if frames == 0 || frames >= TILE_BELOW_FRAMES {
            return None;
        }
        let period = TILE_MIN_FRAMES.div_ceil(frames) * frames;
        let total = (period + GUARD_FRAMES + 1) * channels;
        Some(LoopTile {
            samples: one.iter().copied().cycle().take(total).collect(),
            period,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tile_repeats_whole_periods_and_carries_on_past_its_end() {
        let stereo = [1.0, -1.0, 2.0, -2.0, 3.0, -3.0];
        let tile = LoopTile::new(&stereo, 3, 2).unwrap();
        assert_eq!(tile.period % 3, 0);
        assert!(tile.period >= TILE_MIN_FRAMES);
        assert_eq!(tile.samples.len(), (tile.period + GUARD_FRAMES + 1) * 2);
        for (i, frame) in tile.samples.chunks(2).enumerate() {
            assert_eq!(frame, &stereo[(i % 3) * 2..(i % 3) * 2 + 2]);
        }
        assert!(LoopTile::new(&vec![0.0; TILE_BELOW_FRAMES], TILE_BELOW_FRAMES, 1).is_none());
        assert!(LoopTile::new(&[], 0, 1).is_none());
    }
}
