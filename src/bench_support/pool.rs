//! The voice pool and the audio side of a play, driven directly: for the
//! pool-versus-heap experiment and the steal-decision benchmark.

use super::*;

/// A voice as the pool stores it (one 64-byte cache line), for the
/// pool-versus-heap experiment.
pub struct BenchVoice(Voice);

impl BenchVoice {
    /// A voice playing `sound` with default parameters at 48 kHz.
    pub fn new(sound: &Sound) -> BenchVoice {
        let params = PlayParams::default()
            .validate(EngineId::next())
            .expect("defaults are valid");
        BenchVoice(Voice::new(
            Arc::clone(&sound.data),
            &params,
            48_000,
            0,
            0,
            None,
        ))
    }
}

/// The pool's free list alone (the Object Pool pattern: fixed slots, an
/// intrusive free list), holding voices: the classic experiment's pool.
pub struct BenchFreeList(FreeList<Voice>);

impl BenchFreeList {
    /// `slots` free slots.
    pub fn new(slots: usize) -> BenchFreeList {
        BenchFreeList(FreeList::new(slots))
    }

    /// Takes a free slot for `voice` (O(1)); gives the voice back if full.
    pub fn acquire(&mut self, voice: BenchVoice) -> Result<usize, BenchVoice> {
        self.0.acquire(voice.0).map_err(BenchVoice)
    }

    /// Frees slot `slot` (O(1)), returning its voice.
    pub fn release(&mut self, slot: usize) -> Option<BenchVoice> {
        self.0.release(slot).map(BenchVoice)
    }

    /// Checks that the free list and the live slots partition the pool.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.0.check()
    }
}

/// The engine's voice pool: the free list plus what the voice manager
/// keeps per slot (identity, level, id index, victim-choice keys), as
/// `play` and voice ends use it.
pub struct BenchPool {
    pool: VoicePool<Voice>,
    next_id: u64,
}

impl BenchPool {
    /// A pool of `voices` free slots.
    pub fn new(voices: usize) -> BenchPool {
        BenchPool {
            pool: VoicePool::new(voices, 0),
            next_id: 0,
        }
    }

    /// Takes a free slot for `voice` (O(1)) under a new id, as `play`
    /// does; gives the voice back if full.
    pub fn acquire(&mut self, voice: BenchVoice) -> Result<usize, BenchVoice> {
        self.next_id += 1;
        let who = Identity {
            id: self.next_id,
            priority: 128,
            protected: false,
            group: NO_GROUP,
            virtualize: false,
            emitter: crate::voices::NO_EMITTER,
            send: crate::protocol::SendTo::NONE,
        };
        let new = Newcomer {
            who,
            voice: voice.0,
            level: 1.0,
            ends: crate::voices::Rank::NEVER,
            held: 0,
            order: self.next_id,
            now: 0,
            fresh: Some(0),
            later_layer: false,
        };
        self.pool.acquire(new).map_err(|new| BenchVoice(new.voice))
    }

    /// Frees slot `slot` (O(1)), returning its voice.
    pub fn release(&mut self, slot: usize) -> Option<BenchVoice> {
        self.pool.release(slot).map(|(_, v)| BenchVoice(v))
    }

    /// Checks the pool's invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.pool.check_invariants()
    }
}

/// A play command as the audio side receives it, made ahead of time.
pub struct PreparedPlay {
    id: u64,
    sound: Arc<SoundData>,
    params: PlayParams,
    /// A positioned play's cell in the table of positions.
    cell: u32,
}

impl PreparedPlay {
    /// A play of `sound` with `params` under handle id `id` (pick ids the
    /// engine does not issue, e.g. from 1 << 40 up).
    pub fn new(id: u64, sound: &Sound, params: PlayParams) -> PreparedPlay {
        PreparedPlay {
            id,
            sound: Arc::clone(&sound.data),
            params,
            cell: crate::protocol::NO_EMITTER,
        }
    }

    /// As [`PreparedPlay::new`], for positioned `params`: its cell in
    /// `engine`'s table of positions is claimed now, as `play` would
    /// (the table is sent to the mixer with the first such play: render a
    /// block before the first [`mixer_play`] of one).
    pub fn positioned(
        engine: &crate::Controller,
        id: u64,
        sound: &Sound,
        params: PlayParams,
    ) -> Result<PreparedPlay, crate::PlayError> {
        let cell = engine.claim_for_bench(id, &params)?;
        Ok(PreparedPlay {
            cell,
            ..PreparedPlay::new(id, sound, params)
        })
    }
}

/// Runs the audio side of a play (voice construction, slot or victim
/// choice, steal with fade-out tail, events), as `Mixer::process` does for
/// each play command it drains.
pub fn mixer_play(mixer: &mut Mixer, play: PreparedPlay) {
    let mut params = (play.params)
        .validate(mixer.engine_id())
        .expect("valid params");
    if let Some(at) = params.emitter.as_mut() {
        at.cell = play.cell;
    }
    mixer.play(play.id, play.sound, (&params, None), None);
}
