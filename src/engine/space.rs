//! The space calls on [`Controller`] (and so on every engine): where the
//! listener is, and where a positioned play sounds from. Validated here;
//! the audio side turns them into gain, pan and pitch ramps, a block at a
//! time (see [`crate::space`]).

use super::Controller;
use crate::command::{Command, VoiceHandle};
use crate::error::PlayError;
use crate::space::{valid_vector, Listener};

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
    /// [`PlayError::InvalidParameter`], and nothing is sent.
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
        self.send_if_live(voice, |id| Command::SetPosition {
            id,
            position,
            velocity,
        })
    }
}
