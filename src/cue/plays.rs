//! A layered cue play on the game side: [`CuePlays`] makes its voices
//! look like one play. The audio side knows only voices (each layer is one,
//! stolen and virtualized like any other); as events come in, this maps a
//! layer's handle to its play's, passes the play's first `Started`, and
//! holds back each layer's terminal event but the last, which becomes the
//! play's one terminal event (`Stolen` if its last sounding layer was
//! taken). Game side only: it runs under the game-state mutex.

use crate::control::voice_info::{IdMap, PlayInfo};
use crate::handle::layer_ids;
use crate::protocol::{EngineId, Event, VoiceHandle, NO_EMITTER};
use crate::space::control::GameSpace;

/// One layered play still sounding.
#[derive(Debug)]
pub(crate) struct CuePlay {
    /// Its command id (first voice id and layer count).
    wire: u64,
    /// Each layer's record (seeks read its rate and stream), `None` once
    /// that layer is over.
    pub(crate) layers: Vec<Option<PlayInfo>>,
    /// Layers not over yet.
    alive: usize,
    started: bool,
    /// Each layer's cell in the table of positions (`NO_EMITTER`: none),
    /// held while the layer sounds (the first layer's, which handles
    /// start their writes from, until the play is over).
    cells: Vec<u32>,
}

impl CuePlay {
    /// Layer `k` is over while others sound: its cell (unless it is the
    /// first, where writes start) leaves the chain and goes back.
    fn unlink(&mut self, k: usize, space: &mut GameSpace) {
        let Some(&cell) = self.cells.get(k) else {
            return;
        };
        if k == 0 || cell == NO_EMITTER {
            return;
        }
        // The chain runs through the first layer's cell and the cells of
        // the layers still sounding.
        let linked = |j: usize| {
            let c = self.cells[j];
            (c != NO_EMITTER && (j == 0 || self.layers[j].is_some())).then_some(c)
        };
        let before = (0..k).rev().find_map(linked);
        let after = (k + 1..self.cells.len()).find_map(linked);
        if let Some(before) = before {
            space.link(before, after.unwrap_or(NO_EMITTER));
        }
        self.cells[k] = NO_EMITTER;
        space.let_go([cell]);
    }
}

/// Every layered play still sounding, by its id, and which play each of
/// their voices belongs to.
#[derive(Debug, Default)]
pub(crate) struct CuePlays {
    plays: IdMap<CuePlay>,
    /// A layer's voice id -> its play's id.
    owner: IdMap<u64>,
}

/// What becomes of an event from the audio side.
pub(crate) enum Mapped {
    /// Reported, with a layer's handle renamed to its play's.
    Report(Event),
    /// Held back: a layer's, not the play's.
    Held,
}

impl CuePlays {
    pub(crate) fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }

    /// Play `wire` of `infos.len()` layers was sent; `cells` are its
    /// layers' cells (now held), `NO_EMITTER` for a layer with none.
    pub(crate) fn add(
        &mut self,
        wire: u64,
        infos: Vec<PlayInfo>,
        cells: Vec<u32>,
        space: &mut GameSpace,
    ) {
        let ids = layer_ids(wire);
        let first = ids.start;
        for id in ids {
            self.owner.insert(id, first);
        }
        space.hold(cells.iter().copied().filter(|&c| c != NO_EMITTER));
        self.plays.insert(
            first,
            CuePlay {
                wire,
                alive: infos.len(),
                layers: infos.into_iter().map(Some).collect(),
                started: false,
                cells,
            },
        );
    }

    pub(crate) fn get(&self, id: u64) -> Option<&CuePlay> {
        self.plays.get(&id)
    }

    /// The handle of the play voice `v` is a layer of (`v` if none).
    pub(crate) fn play_of(&self, v: VoiceHandle, engine: EngineId) -> VoiceHandle {
        let play = v
            .id_in(engine)
            .and_then(|id| self.owner.get(&id))
            .and_then(|p| self.plays.get(p));
        match play {
            Some(play) => {
                VoiceHandle::layered(engine, layer_ids(play.wire).start, play.layers.len())
            }
            None => v,
        }
    }

    /// `event` as the game is to see it. A play's last terminal event
    /// also lets its cells go.
    pub(crate) fn map(&mut self, event: Event, engine: EngineId, space: &mut GameSpace) -> Mapped {
        let play_of = |owner: &IdMap<u64>, v: VoiceHandle| {
            v.id_in(engine).and_then(|id| owner.get(&id).copied())
        };
        let victim = event.voice().and_then(|v| play_of(&self.owner, v));
        let by = match event {
            Event::Stolen { by, .. } => play_of(&self.owner, by),
            _ => None,
        };
        if victim.is_none() && by.is_none() {
            return Mapped::Report(event);
        }
        let renamed = event.map_voices(|v| self.play_of(v, engine));
        let Some((play_id, layer)) = victim.zip(event.voice().and_then(|v| v.id_in(engine))) else {
            return Mapped::Report(renamed);
        };
        let Some(play) = self.plays.get_mut(&play_id) else {
            return Mapped::Report(renamed);
        };
        match event {
            Event::Started { .. } => {
                if std::mem::replace(&mut play.started, true) {
                    Mapped::Held
                } else {
                    Mapped::Report(renamed)
                }
            }
            e if e.is_terminal() => {
                let k = (layer - play_id) as usize;
                if let Some(info) = play.layers.get_mut(k).and_then(Option::take) {
                    drop(info);
                    play.alive -= 1;
                    self.owner.remove(&layer);
                    if play.alive > 0 {
                        play.unlink(k, space);
                    }
                }
                if play.alive > 0 {
                    return Mapped::Held;
                }
                if let Some(play) = self.plays.remove(&play_id) {
                    space.let_go(play.cells.into_iter().filter(|&c| c != NO_EMITTER));
                }
                Mapped::Report(renamed)
            }
            _ => Mapped::Report(renamed),
        }
    }

    /// The audio side is gone: every play is over (the caller reports
    /// them); their cells are let go.
    pub(crate) fn clear(&mut self, space: &mut GameSpace) {
        for (_, play) in self.plays.drain() {
            space.let_go(play.cells);
        }
        self.owner.clear();
    }
}
