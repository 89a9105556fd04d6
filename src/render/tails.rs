//! [`Tails`]: stolen voices finishing their fade-out. A stolen voice leaves
//! its pool slot at once (so the thief starts in the same block) and is no
//! longer anyone's to manage: it only needs rendering until it is silent.
//!
//! Real-time contract: the storage is allocated once in [`Tails::new`] (as
//! many tails as the pool has voices) and never grows: [`Tails::push`]
//! checks the capacity first, so the vector never reallocates. Rendering
//! allocates nothing; a finished tail is removed with `swap_remove`, which
//! drops only the voice's `Arc` (never the last one: the game side keeps the
//! sample data alive).

use super::direct::DirectFilter;
use super::voice::Voice;
use crate::protocol::SendTo;

/// Stolen voices fading out, at most as many as the pool has voices.
pub(crate) struct Tails {
    /// Each tail with the second bus it still sends to and its own
    /// low-pass (a copy of its play's, off for most).
    voices: Vec<(Voice, SendTo, DirectFilter)>,
}

impl Tails {
    /// Room for `capacity` tails, all allocated now.
    pub(crate) fn new(capacity: usize) -> Tails {
        Tails {
            voices: Vec::with_capacity(capacity),
        }
    }

    /// Heap bytes held, all allocated by [`Tails::new`].
    pub(crate) fn memory_bytes(&self) -> usize {
        self.voices.capacity() * std::mem::size_of::<(Voice, SendTo, DirectFilter)>()
    }

    /// Keeps a stolen (already stopping) voice fading out. If every tail is
    /// busy (more steals within one fade time than the pool has voices),
    /// the quietest tail is cut to make room (it is already partway through
    /// its fade). Real-time safe.
    pub(crate) fn push(&mut self, voice: Voice, send: SendTo, filter: DirectFilter) {
        if self.voices.len() < self.voices.capacity() {
            // Within capacity: `Vec::push` does not reallocate.
            self.voices.push((voice, send, filter));
            return;
        }
        let quietest = self
            .voices
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .0.peak_gain().total_cmp(&b.1 .0.peak_gain()))
            .map(|(i, _)| i);
        if let Some(t) = quietest.and_then(|i| self.voices.get_mut(i)) {
            *t = (voice, send, filter);
        } // else a pool with no tails: the voice is cut
    }

    /// Applies `f` to every tail (`stop_all` shortens their fades).
    pub(crate) fn for_each(&mut self, mut f: impl FnMut(&mut Voice)) {
        self.voices.iter_mut().for_each(|(v, _, _)| f(v));
    }

    /// Renders every tail with `render` (which returns `Some` once the
    /// voice has ended, as [`Voice::render`] does), dropping those that
    /// have faded out.
    pub(crate) fn render(
        &mut self,
        mut render: impl FnMut(&mut Voice, SendTo, &mut DirectFilter) -> Option<usize>,
    ) {
        let mut t = 0;
        while let Some((v, send, filter)) = self.voices.get_mut(t) {
            if render(v, *send, filter).is_none() {
                t += 1;
            } else {
                self.voices.swap_remove(t);
            }
        }
    }

    /// Whether the tails stayed within the capacity they were made with.
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn check(&self, capacity: usize) -> Result<(), String> {
        if self.voices.capacity() != capacity || self.voices.len() > capacity {
            return Err(format!(
                "tails: {} of capacity {} (made with {capacity})",
                self.voices.len(),
                self.voices.capacity()
            ));
        }
        Ok(())
    }
}
