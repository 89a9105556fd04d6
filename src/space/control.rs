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
use crate::protocol::{Command, VoiceHandle, NO_EMITTER};
use crate::space::positions::{EmitterTable, Positions};
use crate::space::{valid_vector, Emitter, Listener, ValidEmitter};

/// The game side of the emitter table: the cells free to give to a new
/// positioned play, and the queue on which the audio side gives them back.
pub(crate) struct GameSpace {
    positions: Arc<Positions>,
    free: Vec<u32>,
    returns: HeapCons<u32>,
}

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
        };
        let table = EmitterTable {
            positions,
            records: vec![Emitter::NONE; cells].into_boxed_slice(),
            returns: prod,
        };
        (game, table)
    }

    /// A free cell, or `None` if every cell is held (it never is: there is
    /// one for every play the audio side can hold and every command the
    /// queue can).
    fn take(&mut self) -> Option<u32> {
        if self.free.is_empty() {
            while let Some(cell) = self.returns.try_pop() {
                self.free.push(cell);
            }
        }
        self.free.pop()
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
        self.positions.memory_bytes() + 2 * self.free.capacity() * std::mem::size_of::<u32>()
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
        space.positions.claim(cell, id, at.position, at.velocity);
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
        let position = valid_vector("position", position.into())?;
        let velocity = valid_vector("velocity", velocity.into())?;
        if self.shared.counters.mixer_gone() {
            return Err(PlayError::EngineStopped);
        }
        let Some(id) = voice.id_in(self.shared.engine) else {
            return Ok(());
        };
        let positions = &self.shared.positions;
        let cell = match voice.emitter() {
            Some(cell) => cell,
            // A handle made on the audio side (from an event): look its
            // play up.
            None => match self.lock().live.get(&id) {
                Some(info) if info.emitter != NO_EMITTER => info.emitter,
                _ => return Ok(()),
            },
        };
        positions.write(cell, id, position, velocity);
        Ok(())
    }
}
