//! The space calls on [`Controller`] (and so on every engine): where the
//! listener is, and where a positioned play sounds from. Validated here;
//! the audio side turns them into gain, pan and pitch ramps, a block at a
//! time (see [`crate::space`]).
//!
//! The listener travels as a command. Positions do not: each positioned
//! play owns a cell of a shared table ([`Positions`]), named by its
//! handle, and `set_position` writes there with no lock and no command,
//! so that a game can move thousands of emitters a frame. [`GameSpace`]
//! hands the cells out (under the game-state mutex) and takes them back
//! as the audio side gives them up.

use std::sync::Arc;

use ringbuf::traits::{Consumer, Split};
use ringbuf::{HeapCons, HeapRb};

use crate::control::game_state::GameState;
use crate::control::Controller;
use crate::error::PlayError;
use crate::handle::layer_ids;
use crate::protocol::{Command, VoiceHandle, NO_EMITTER};
use crate::space::positions::{EmitterTable, Positions, OCCLUSION, ORIENTATION, POSITION};
use crate::space::{valid_direction, valid_vector, Emitter, Listener, Occlusion, ValidEmitter};

/// The game side of the emitter table: the cells free to give to a new
/// positioned play, and the queue on which the audio side gives them back.
pub(crate) struct GameSpace {
    positions: Arc<Positions>,
    free: Vec<u32>,
    returns: HeapCons<u32>,
    /// Per cell: [`HELD`] while it belongs to a layered cue that is still
    /// playing (its cells stay linked until the play is over, however
    /// early one of its layers ends), [`HELD_BACK`] once the audio side
    /// gave it back in that time.
    held: Vec<u8>,
}

const HELD: u8 = 1;
const HELD_BACK: u8 = 2;

impl GameSpace {
    /// A table of `cells` cells: the game side's part, and the audio
    /// side's (to be sent to it).
    pub(crate) fn make(cells: usize) -> (GameSpace, EmitterTable) {
        let positions = Arc::new(Positions::new(cells));
        let (prod, cons) = HeapRb::<u32>::new(cells.max(1)).split();
        let game = GameSpace {
            positions: Arc::clone(&positions),
            // Handed out from cell 0 up.
            free: (0..cells as u32).rev().collect(),
            returns: cons,
            held: vec![0; cells],
        };
        let table = EmitterTable {
            positions,
            records: vec![Emitter::NONE; cells].into_boxed_slice(),
            mods: (0..cells).map(|_| None).collect(),
            returns: prod,
        };
        (game, table)
    }

    /// A free cell, or `None` if every cell is held (it never is: there is
    /// one for every play the audio side can hold and every command the
    /// queue can).
    fn take(&mut self) -> Option<u32> {
        self.has_room(1);
        self.free.pop()
    }

    /// Whether `n` cells can be handed out now.
    pub(crate) fn has_room(&mut self, n: usize) -> bool {
        if self.free.len() < n {
            while let Some(cell) = self.returns.try_pop() {
                match self.held.get_mut(cell as usize) {
                    Some(h) if *h == HELD => *h = HELD_BACK,
                    _ => self.free.push(cell),
                }
            }
        }
        self.free.len() >= n
    }

    /// Keeps `cells` (a layered cue's) from being handed out again until
    /// [`GameSpace::let_go`].
    pub(crate) fn hold(&mut self, cells: impl IntoIterator<Item = u32>) {
        for c in cells {
            if let Some(h) = self.held.get_mut(c as usize) {
                *h = HELD;
            }
        }
    }

    /// The layered cue holding `cells` is over: those given back are free
    /// again, the others will be when they come back.
    pub(crate) fn let_go(&mut self, cells: impl IntoIterator<Item = u32>) {
        for c in cells {
            if let Some(h) = self.held.get_mut(c as usize) {
                if std::mem::take(h) == HELD_BACK {
                    self.free.push(c);
                }
            }
        }
    }

    /// Cell `cell` holds the layer after cell `prev`'s (one layered cue).
    pub(crate) fn link(&self, prev: u32, cell: u32) {
        self.positions.link(prev, cell);
    }

    /// The shared table of positions.
    pub(crate) fn positions(&self) -> Arc<Positions> {
        Arc::clone(&self.positions)
    }

    /// A cell whose play was never sent.
    pub(crate) fn give_back(&mut self, cell: u32) {
        if cell != NO_EMITTER {
            self.free.push(cell);
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.positions.memory_bytes()
            + 2 * self.free.capacity() * std::mem::size_of::<u32>()
            + self.held.capacity()
    }
}

impl Controller {
    /// A cell for play `id` made outside the engine (the bench hooks'
    /// prepared plays), as `play` would claim it; `NO_EMITTER` if `params`
    /// are not positioned.
    #[cfg(feature = "hooks")]
    pub(crate) fn claim_for_bench(
        &self,
        id: u64,
        params: &crate::PlayParams,
    ) -> Result<u32, PlayError> {
        let params = params.validate(self.shared.engine)?;
        let Some(at) = params.emitter else {
            return Ok(NO_EMITTER);
        };
        let mut game = self.game()?;
        self.claim_cell(&mut game, id, &at)
    }

    /// Play `id`, positioned at `at`, gets a cell of the table of
    /// positions (made with the engine); its cell, written where `at`
    /// says.
    pub(crate) fn claim_cell(
        &self,
        game: &mut GameState,
        id: u64,
        at: &ValidEmitter,
    ) -> Result<u32, PlayError> {
        let space = &mut game.space;
        let cell = space.take().ok_or(PlayError::QueueFull)?;
        space
            .positions
            .claim(cell, id, at.position, at.velocity, at.orientation);
        Ok(cell)
    }
}

impl Controller {
    /// Moves the listener: its position, the way it faces, which way is
    /// up, and its velocity (for doppler). The change is reached over the
    /// next block (gains, pans and pitches ramp; a jump or a turn makes no
    /// click). Call it once a frame as the camera or player moves.
    ///
    /// Errors: [`PlayError::InvalidParameter`] for a NaN or infinite
    /// component, [`PlayError::Invalid`] for a zero `forward` or `up` or
    /// an `up` along `forward`; nothing is sent then.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Listener, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// engine.play(&hum, PlayParams::default().looping(true).position([5.0, 0.0, 0.0]))?;
    /// // Turn to face the sound (+X): it is now straight ahead, centred.
    /// engine.set_listener(Listener { forward: [1.0, 0.0, 0.0].into(), ..Listener::default() })?;
    /// engine.render(960);
    /// let block = engine.render(480);
    /// assert!(block.chunks(2).all(|f| (f[0] - f[1]).abs() < 1e-6));
    /// assert!(engine.set_listener(Listener { forward: [0.0; 3].into(), ..Listener::default() }).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_listener(&self, listener: Listener) -> Result<(), PlayError> {
        let listener = listener.validate()?;
        let _game = self.game()?;
        self.send(Command::SetListener { listener })
    }

    /// Moves a voice: its position (metres) and velocity (metres per
    /// second, for doppler). A positioned play (one made with
    /// [`crate::PlayParams::position`]) glides there over the next block;
    /// for a play that is not positioned, as for a stale or foreign
    /// handle, it does nothing. A NaN or infinite component is
    /// [`PlayError::InvalidParameter`], and nothing is written;
    /// [`PlayError::EngineStopped`] once the audio side is gone.
    ///
    /// Cheap enough for every emitter every frame: it sends no command
    /// (so it never meets a full queue), and with the handle `play`
    /// returned it takes no lock. It writes the play's own cell in a table
    /// the audio side reads at each block; the last write before a block
    /// is the one heard. A handle taken from an event (which does not know
    /// the cell) looks its play up under the engine's lock first; two
    /// threads moving one emitter at once take turns. (Unlike the other
    /// calls, it does not read the audio side's events on the way.)
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let car = engine.play(&hum, PlayParams::default().looping(true).position([-20.0, 0.0, -5.0]))?;
    /// for frame in 0..10 {
    ///     let x = -20.0 + 0.3 * frame as f32; // 30 m/s, a 10 ms frame at a time
    ///     engine.set_position(car, [x, 0.0, -5.0], [30.0, 0.0, 0.0])?;
    ///     engine.render(480);
    /// }
    /// assert!(engine.set_position(car, [f32::NAN, 0.0, 0.0], [0.0; 3]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_position(
        &self,
        voice: VoiceHandle,
        position: impl Into<mint::Vector3<f32>>,
        velocity: impl Into<mint::Vector3<f32>>,
    ) -> Result<(), PlayError> {
        let [x, y, z] = valid_vector("position", position.into())?;
        let [vx, vy, vz] = valid_vector("velocity", velocity.into())?;
        self.write_cell(voice, POSITION, &[x, y, z, vx, vy, vz])
    }

    /// Turns a positioned play to face `orientation` (any length but 0),
    /// for its [`crate::Cone`]: reached over the next block. As cheap as
    /// [`Controller::set_position`] and by the same road (no command, no
    /// lock with the handle `play` returned); for a play that is not
    /// positioned, as for a stale or foreign handle, it does nothing.
    /// Errors: [`PlayError::InvalidParameter`] for a NaN or infinite
    /// component, [`PlayError::Invalid`] for the zero vector (nothing is
    /// written); [`PlayError::EngineStopped`] once the audio side is gone.
    ///
    /// ```
    /// use voicepool::{Cone, EngineSettings, OfflineEngine, PlayParams, Sound, Spatial};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let radio = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let cone = Cone { inner_deg: 90.0, outer_deg: 180.0, outer_gain: 0.1, outer_lowpass_hz: 1_000.0 };
    /// let h = engine.play(&radio, PlayParams::default().looping(true)
    ///     .position([0.0, 0.0, -2.0])
    ///     .orientation([0.0, 0.0, -1.0]) // facing away: the listener is behind it
    ///     .spatial(Spatial { cone: Some(cone), ..Spatial::default() }))?;
    /// let behind = engine.render(4_800)[9_000].abs();
    /// engine.set_orientation(h, [0.0, 0.0, 1.0])?; // turned to face the listener
    /// let ahead = engine.render(4_800)[9_000].abs();
    /// assert!(ahead > 5.0 * behind);
    /// assert!(engine.set_orientation(h, [0.0; 3]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_orientation(
        &self,
        voice: VoiceHandle,
        orientation: impl Into<mint::Vector3<f32>>,
    ) -> Result<(), PlayError> {
        let orientation = valid_direction("orientation", orientation.into())?;
        self.write_cell(voice, ORIENTATION, &orientation)
    }

    /// Sets what stands between a positioned play and the listener, as
    /// the game's ray casts found it (see [`Occlusion`]):
    /// [`Occlusion::NONE`] clears it. The gain and the low-pass glide
    /// there over the next block; stealing and virtual voices hear the
    /// result (an occluded voice is stolen before an equal clear one). By
    /// the road of [`Controller::set_position`]: no command, so thousands
    /// a frame are fine; for a play that is not positioned, as for a stale
    /// or foreign handle, it does nothing. Errors: a NaN, infinite or
    /// negative field is an error naming it, and nothing is written
    /// (out-of-range values are clamped: see [`Occlusion`]);
    /// [`PlayError::EngineStopped`] once the audio side is gone.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Occlusion, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let h = engine.play(&hum, PlayParams::default().looping(true).position([0.0, 0.0, -1.0]))?;
    /// let clear = engine.render(960)[1_900].abs();
    /// engine.set_occlusion(h, Occlusion { gain: 0.5, lowpass_hz: 20_000.0 })?; // a thin wall
    /// engine.render(480); // glides over a block
    /// let behind_wall = engine.render(480)[900].abs();
    /// assert!((behind_wall / clear - 0.5).abs() < 1e-3);
    /// assert!(engine.set_occlusion(h, Occlusion { gain: f32::NAN, lowpass_hz: 500.0 }).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_occlusion(&self, voice: VoiceHandle, occlusion: Occlusion) -> Result<(), PlayError> {
        let o = occlusion.validate()?;
        self.write_cell(voice, OCCLUSION, &[o.gain, o.lowpass_hz])
    }

    /// Writes `values` at `start` of `voice`'s cell (if it has one): what
    /// `set_position`, `set_orientation` and `set_occlusion` share.
    fn write_cell(
        &self,
        voice: VoiceHandle,
        start: usize,
        values: &[f32],
    ) -> Result<(), PlayError> {
        if self.shared.counters.mixer_gone() {
            return Err(PlayError::EngineStopped);
        }
        let Some(wire) = voice.wire_in(self.shared.engine) else {
            return Ok(());
        };
        let positions = &self.shared.positions;
        let mut cell = self.cell_of(voice, voice.id());
        // A layered cue's voices each have a cell, linked in order; each
        // checks its owner, so a stale handle's write stops at once.
        // (A layer with no cell, unpositioned, is passed over.)
        for id in layer_ids(wire) {
            let Some(c) = cell else {
                break;
            };
            if positions.write_at(c, id, start, values) {
                cell = positions.next(c);
            }
        }
        Ok(())
    }

    /// The cell of play `id` (`voice`'s), if it is positioned.
    fn cell_of(&self, voice: VoiceHandle, id: u64) -> Option<u32> {
        match voice.emitter() {
            Some(cell) => Some(cell),
            // A handle made on the audio side (from an event): look its
            // play up.
            None => match self.lock().live.get(&id) {
                Some(info) if info.emitter != NO_EMITTER => Some(info.emitter),
                _ => None,
            },
        }
    }
}
