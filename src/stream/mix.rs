//! Streams on the mixer: how far the streamed plays may read in the next
//! block (an offline engine sizes its pieces by it), and the calls an
//! offline engine makes between loader passes. Audio side, under the
//! mixer's real-time contract.

use crate::mixer::Mixer;

impl Mixer {
    /// The most source frames any streamed play may read per output frame
    /// in the next block: its step now, or, for a positioned one whose
    /// place or listener moved since it was last heard (heard again as the
    /// block starts), the step its pitch could reach with any doppler
    /// shift. 0 with no streamed play. (An offline engine renders in pieces
    /// short enough that no ring runs dry.)
    pub(crate) fn stream_demand(&mut self) -> f64 {
        let mut most = 0.0f64;
        let space = &self.space;
        self.pool.each_live(|who, v| {
            if v.stream_slot().is_some() {
                most = most.max(space.step_bound(who.emitter, v.source_step()));
            }
        });
        self.tails.for_each(|v| {
            if v.stream_slot().is_some() {
                most = most.max(v.source_step());
            }
        });
        most
    }

    /// Applies queued commands now, before the next [`Mixer::process`]
    /// (which then finds them taken): an offline engine does this so that
    /// a streamed play or seek is known to the audio side, and its ring
    /// cleared of an earlier play's samples, before the loader fills it
    /// for the block.
    #[cfg_attr(feature = "rtsan", rtsan_standalone::nonblocking)]
    pub(crate) fn drain_early(&mut self) {
        self.drain_commands();
    }

    /// Drops whatever earlier plays left in the rings of streamed plays
    /// whose loader has moved on to them (an offline engine, between
    /// loader passes; the audio side does the same as it renders).
    #[cfg_attr(feature = "rtsan", rtsan_standalone::nonblocking)]
    pub(crate) fn skip_stale_stream_data(&mut self) {
        self.streams.skip_stale();
    }
}
