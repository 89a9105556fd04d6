//! [`PlayParams`]: how one sound is played, validated at the API boundary so
//! the audio thread never sees a bad value.

mod read;
mod seconds;
mod validate;

pub use seconds::Seconds;
pub(crate) use validate::{fade_frames, valid_master_volume, valid_pan, valid_pitch, valid_volume};

use crate::error::PlayError;
use crate::protocol::{BusHandle, EngineId, GroupHandle, ValidParams, MASTER_BUS, NO_GROUP};
use crate::space::{valid_vector, Spatial, ValidEmitter};

/// Volumes below this (-100 dB) are treated as exactly 0.
pub const MIN_AUDIBLE_VOLUME: f32 = 1.0e-5;
pub use crate::protocol::{MAX_PITCH, MAX_VOLUME, MIN_PITCH};
/// Longest fade accepted (fade-in, volume fades, stop fades, bus fades),
/// in seconds.
pub const MAX_FADE_SECONDS: f32 = 60.0;
/// Loudest master volume accepted (linear gain, the same range as
/// `EngineSettings::master_gain`).
pub const MAX_MASTER_VOLUME: f32 = 16.0;

/// How to play a sound: a small builder, `Copy`, with the defaults a game
/// expects (full volume, centre, original pitch, once, priority 128).
///
/// ```
/// use voicepool::PlayParams;
/// let p = PlayParams::default().volume(0.8).pan(-0.5).pitch(1.2).priority(200);
/// assert_eq!(p.get_priority(), 200);
/// ```
///
/// # Ranges
///
/// | parameter | range | out of range | NaN / infinite |
/// | --- | --- | --- | --- |
/// | volume | `0.0..=`[`MAX_VOLUME`] (linear gain) | clamped; below [`MIN_AUDIBLE_VOLUME`] becomes 0 | rejected |
/// | pan | `-1.0..=1.0` (left to right) | clamped | rejected |
/// | pitch | [`MIN_PITCH`]`..=`[`MAX_PITCH`] (playback-rate factor) | above 0: clamped; 0 or below: rejected (always a bug) | rejected |
/// | fade-in | `0.0..=`[`MAX_FADE_SECONDS`] seconds | clamped | rejected |
/// | priority | any `u8` (higher survives stealing) | cannot be | cannot be |
/// | looping, protected, virtualize | `bool` | cannot be | cannot be |
/// | start_at | any `u64` output frame | a frame already rendered: at once; more than 2^32 frames (a day at 48 kHz) ahead: waits 2^32 - 1 frames | cannot be |
/// | group, bus | a handle of this engine | another engine's: [`PlayError::ForeignHandle`] | cannot be |
/// | fade durations (`fade_volume`, `stop_with_fade`, bus fades) | up to [`MAX_FADE_SECONDS`] | clamped | cannot be |
/// | position, velocity | any finite metres (per second) | - | rejected |
/// | orientation | any finite vector but zero (normalised) | zero: rejected | rejected |
/// | spatial | see [`crate::Spatial`] | see there | rejected |
/// | bus volume | `0.0..=`[`MAX_VOLUME`] | clamped | rejected |
/// | master volume | `0.0..=`[`MAX_MASTER_VOLUME`] | clamped | rejected |
///
/// The same rules hold for [`Controller::set_volume`], [`Controller::set_pan`]
/// and [`Controller::set_pitch`]. "Clamped" means the nearest end of the
/// range is used, exactly as if it had been passed (negative volume is 0: the
/// voice plays silently, holds its slot and reports `Ended` as usual). The
/// builder clamps as it is given a value, so `Debug` shows what will be
/// used. "Rejected" means the call returns [`PlayError::InvalidParameter`]
/// naming the parameter and the value, nothing is sent to the audio thread
/// and no handle is used up; a bad value is rejected even when the handle
/// is stale. So the audio thread only ever sees finite values in range.
/// `tests/params.rs` checks every row.
///
/// [`Controller::set_volume`]: crate::Controller::set_volume
/// [`Controller::set_pan`]: crate::Controller::set_pan
/// [`Controller::set_pitch`]: crate::Controller::set_pitch
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayParams {
    volume: f32,
    pan: f32,
    pitch: f32,
    looping: bool,
    priority: u8,
    protected: bool,
    fade_in: f32,
    group: Option<GroupHandle>,
    bus: Option<BusHandle>,
    send: Option<(BusHandle, f32)>,
    virtualize: bool,
    start_at: u64,
    position: Option<mint::Vector3<f32>>,
    velocity: mint::Vector3<f32>,
    orientation: mint::Vector3<f32>,
    spatial: Spatial,
}

impl Default for PlayParams {
    fn default() -> Self {
        PlayParams {
            volume: 1.0,
            pan: 0.0,
            pitch: 1.0,
            looping: false,
            priority: 128,
            protected: false,
            fade_in: 0.0,
            group: None,
            bus: None,
            send: None,
            virtualize: false,
            start_at: 0,
            position: None,
            velocity: [0.0; 3].into(),
            orientation: [0.0, 0.0, -1.0].into(),
            spatial: Spatial::default(),
        }
    }
}

impl PlayParams {
    /// Linear gain, 1.0 = as recorded. See the module table for the range.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # fn peak(params: PlayParams) -> f32 {
    /// #     let mut engine = OfflineEngine::new(EngineSettings::default()).unwrap();
    /// #     let sound = Sound::from_samples(1, 48_000, vec![0.5; 4_800]).unwrap();
    /// #     engine.play(&sound, params).unwrap();
    /// #     engine.render(480).iter().fold(0.0, |m: f32, s| m.max(s.abs()))
    /// # }
    /// let full = peak(PlayParams::default());
    /// let half = peak(PlayParams::default().volume(0.5)); // about -6 dB
    /// assert!((half / full - 0.5).abs() < 1e-4);
    /// ```
    pub fn volume(mut self, volume: f32) -> Self {
        self.volume = valid_volume(volume).unwrap_or(volume);
        self
    }
    /// Stereo position, -1.0 (left) to 1.0 (right).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let step = Sound::from_samples(1, 48_000, vec![0.5; 4_800])?;
    /// engine.play(&step, PlayParams::default().pan(1.0))?; // hard right
    /// let block = engine.render(480);
    /// assert!(block.chunks(2).all(|frame| frame[0] == 0.0 && frame[1] > 0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pan(mut self, pan: f32) -> Self {
        self.pan = valid_pan(pan).unwrap_or(pan);
        self
    }
    /// Playback-rate factor: 2.0 plays an octave up and twice as fast.
    /// Above 0; 0 or below makes `play` return
    /// [`PlayError::InvalidParameter`] (a pitch of 0 would hold a slot
    /// forever without a sound).
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let swish = Sound::from_samples(1, 48_000, vec![0.5; 4_800])?; // 100 ms
    /// let h = engine.play(&swish, PlayParams::default().pitch(2.0))?;
    /// engine.render(4_800);
    /// let end = engine.drain_timed_events().into_iter().find(|e| e.event == Event::Ended { voice: h });
    /// assert_eq!(end.map(|e| e.frame), Some(2_400)); // over in 50 ms
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pitch(mut self, pitch: f32) -> Self {
        self.pitch = valid_pitch(pitch).unwrap_or(pitch);
        self
    }
    /// Loop the sound until stopped, seamlessly: the frame after the last
    /// is the first, at any pitch.
    ///
    /// The first time a sound shorter than 4,096 frames is played looping,
    /// `play` makes it a loop tile on the calling thread: the sound repeated
    /// to at least 16,384 frames (64 KiB per channel), kept with the sound
    /// and shared by all its voices, so that a loop of a few frames (a
    /// single-cycle waveform) mixes as fast as a long one.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let engine_hum = Sound::from_samples(1, 48_000, vec![0.5; 480])?; // 10 ms
    /// let looped = engine.play(&engine_hum, PlayParams::default().looping(true))?;
    /// let once = engine.play(&engine_hum, PlayParams::default())?;
    /// engine.render(48_000);
    /// assert!(engine.is_playing(looped) && !engine.is_playing(once));
    /// engine.stop(looped)?; // a loop ends when stopped
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn looping(mut self, looping: bool) -> Self {
        self.looping = looping;
        self
    }
    /// Importance when the pool is full: higher survives. Default 128.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 1, ..Default::default() })?;
    /// let sound = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let dialogue = engine.play(&sound, PlayParams::default().priority(200))?;
    /// engine.render(4_800);
    /// let chatter = engine.play(&sound, PlayParams::default().priority(50))?;
    /// engine.render(480);
    /// assert!(engine.drain_events().any(|e| e == Event::Rejected { voice: chatter }));
    /// assert!(engine.is_playing(dialogue));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn priority(mut self, priority: u8) -> Self {
        self.priority = priority;
        self
    }
    /// A protected voice (music, ambience) is never stolen.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 1, ..Default::default() })?;
    /// let song = Sound::from_samples(1, 48_000, vec![0.1; 48_000])?;
    /// let music = engine.play(&song, PlayParams::default().looping(true).protected(true))?;
    /// engine.render(4_800);
    /// let shot = engine.play(&song, PlayParams::default().volume(2.0))?;
    /// engine.render(480);
    /// assert!(engine.is_playing(music) && !engine.is_playing(shot)); // the shot was rejected
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn protected(mut self, protected: bool) -> Self {
        self.protected = protected;
        self
    }
    /// Fade in from silence over `time` (default zero: the attack plays as
    /// recorded), a [`Duration`](std::time::Duration) (or, as before 1.0, seconds as a number).
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let rain = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// engine.play(&rain, PlayParams::default().fade_in(Duration::from_millis(100)))?;
    /// let block = engine.render(4_800);
    /// let (first, last) = (block[0], block[block.len() - 1]);
    /// assert!(first < 0.01 && last > 0.3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fade_in(mut self, time: impl Seconds) -> Self {
        let seconds = time.seconds() as f32;
        self.fade_in = if seconds.is_finite() {
            seconds.clamp(0.0, MAX_FADE_SECONDS)
        } else {
            seconds
        };
        self
    }
    /// Play as a member of `group` (made by
    /// [`crate::Controller::create_group`]): the group's limit, policy and
    /// retrigger interval apply. Default: no group.
    ///
    /// ```
    /// use voicepool::{EngineSettings, GroupSettings, OfflineEngine, PlayParams, Sound, StealPolicy};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let barks = engine.create_group(GroupSettings { max_voices: 1, policy: StealPolicy::Reject, ..Default::default() })?;
    /// let bark = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// let first = engine.play(&bark, PlayParams::default().group(barks))?;
    /// let second = engine.play(&bark, PlayParams::default().group(barks))?;
    /// engine.render(480);
    /// assert!(engine.is_playing(first) && !engine.is_playing(second)); // one bark at a time
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn group(mut self, group: GroupHandle) -> Self {
        self.group = Some(group);
        self
    }
    /// Also send the sound to `bus` at `level` (linear gain, 0 to 4,
    /// clamped; NaN or infinite refused): a reverb bus a play feeds beside
    /// the bus it plays on. It is taken after the play's volume, pan and
    /// distance, before its bus's effects and volume. One send per play.
    ///
    /// ```
    /// use voicepool::{BusSettings, Effect, EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hall = engine.create_bus_with(BusSettings {
    ///     effects: vec![Effect::Reverb { room: 0.8, damping: 0.3, wet: 1.0 }],
    ///     ..Default::default()
    /// })?;
    /// let shot = Sound::from_samples(1, 48_000, vec![0.5; 2_400])?;
    /// engine.play(&shot, PlayParams::default().send(hall, 0.3))?;
    /// engine.render(48_000);
    /// // The shot is over; the hall still rings.
    /// assert!(engine.render(480).iter().any(|&s| s != 0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn send(mut self, bus: BusHandle, level: f32) -> Self {
        self.send = Some((bus, level));
        self
    }

    /// Play on `bus` (made by [`crate::Controller::create_bus`]): its
    /// volume and pause apply. Default: the master bus.
    ///
    /// ```
    /// use std::time::Duration;
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let voice_chat = engine.create_bus()?;
    /// let line = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// engine.play(&line, PlayParams::default().bus(voice_chat))?;
    /// engine.set_bus_volume(voice_chat, 0.0, Duration::ZERO)?; // muted by the player
    /// assert!(engine.render(480).iter().all(|&s| s == 0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bus(mut self, bus: BusHandle) -> Self {
        self.bus = Some(bus);
        self
    }
    /// Keep time silently instead of ending when the voice loses its slot
    /// (stolen, limited by its group, or refused by a full pool), and come
    /// back when there is room: [`crate::Event::Virtualized`], then
    /// [`crate::Event::Resumed`] at exactly the sample it would have
    /// reached, fading in over `EngineSettings::steal_fade`. Default off:
    /// a voice that loses its slot ends (`Stolen` or `Rejected`).
    ///
    /// Ask for it on what the player would notice missing when it comes
    /// back: loops (ambiences, engines, music). A one-shot may ask too: it
    /// keeps time while virtual, comes back only at the point it has
    /// reached, and ends (`Ended`) at its natural end time if it never got
    /// a slot back, so it is never heard late. A play refused for coming
    /// sooner than its group's `min_interval` is not virtualized (it is a
    /// retrigger the game wanted dropped). With no room in the virtual
    /// pool (`EngineSettings::virtual_voices`), the least audible virtual
    /// voice, or this one if it is less audible still, ends (`Stolen`).
    ///
    /// A new play that asks for it and would be the least audible voice of
    /// a full pool (under [`crate::StealPolicy::Quietest`], more than 3 dB
    /// below the voice it would steal, which is of no lower priority than it)
    /// starts virtual: it takes no slot, so a far emitter never interrupts
    /// a near one, not even for a block (`Started`, then `Virtualized`),
    /// and comes back as any virtual voice does. A play that does not ask
    /// keeps the steal rule. An engine with no virtual voices steals as
    /// before.
    ///
    /// ```
    /// use voicepool::{EngineSettings, Event, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings { voices: 1, ..Default::default() })?;
    /// let wind = Sound::from_samples(1, 48_000, vec![0.1; 48_000])?;
    /// let boom = Sound::from_samples(1, 48_000, vec![0.9; 4_800])?;
    /// let amb = engine.play(&wind, PlayParams::default().looping(true).virtualize(true))?;
    /// engine.render(4_800);
    /// engine.play(&boom, PlayParams::default())?; // louder: takes the only voice
    /// engine.render(9_600); // the boom ends, and the wind comes back
    /// let events: Vec<Event> = engine.drain_events().collect();
    /// assert!(events.contains(&Event::Virtualized { voice: amb }));
    /// assert!(events.contains(&Event::Resumed { voice: amb }));
    /// assert!(engine.is_playing(amb));
    ///
    /// // A far loop asking to virtualize does not interrupt the wind: it
    /// // starts virtual.
    /// let far = engine.play(&wind, PlayParams::default().looping(true).virtualize(true).volume(0.01))?;
    /// engine.render(480);
    /// let events: Vec<Event> = engine.drain_events().collect();
    /// assert_eq!(events, [Event::Started { voice: far }, Event::Virtualized { voice: far }]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn virtualize(mut self, virtualize: bool) -> Self {
        self.virtualize = virtualize;
        self
    }
    /// Start at output frame `frame` of the engine's clock
    /// ([`crate::Controller::clock`]): its first sample sounds at exactly
    /// that frame, within a block, if the frame is still ahead when the
    /// audio side takes the command; otherwise at once. Default 0: at once.
    ///
    /// A scheduled voice takes its voice (or steals one) when the command
    /// is taken, and waits silently in it until its frame; it ranks for
    /// stealing by what it will play, so schedule a few blocks to a second
    /// or so ahead, not minutes. While waiting it is a voice like any
    /// other: `stop` ends it (`Ended`), the setters apply.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let click = Sound::from_samples(1, 48_000, vec![0.5; 48])?;
    /// engine.render(480);
    /// let at = engine.clock() + 1_000; // 1,000 frames from now
    /// engine.play(&click, PlayParams::default().start_at(at))?;
    /// let out = engine.render(4_800);
    /// let first = out.chunks(2).position(|f| f[0] != 0.0).unwrap() as u64;
    /// assert_eq!(480 + first, at); // to the frame, mid-block
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_at(mut self, frame: u64) -> Self {
        self.start_at = frame;
        self
    }
    /// Plays it from a place: `position` in metres (`[f32; 3]`, or any
    /// vector type that converts to `mint::Vector3<f32>`), heard from the
    /// [`crate::Listener`] with the distance gain, direction and doppler of
    /// [`PlayParams::spatial`]. A positioned play's [`PlayParams::pan`] is
    /// ignored (its direction pans it). Move it with
    /// [`crate::Controller::set_position`].
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let hum = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
    /// // 10 m to the listener's right (it faces -Z at the origin).
    /// engine.play(&hum, PlayParams::default().position([10.0, 0.0, 0.0]))?;
    /// let block = engine.render(480);
    /// assert!(block.chunks(2).all(|f| f[0].abs() < 1e-6)); // nothing on the left
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn position(mut self, position: impl Into<mint::Vector3<f32>>) -> Self {
        self.position = Some(position.into());
        self
    }

    /// How a positioned play moves, in metres per second (for doppler).
    /// Ignored unless [`PlayParams::position`] is given.
    ///
    /// ```
    /// use voicepool::PlayParams;
    /// let car = PlayParams::default().position([-50.0, 0.0, -5.0]).velocity([30.0, 0.0, 0.0]);
    /// # let _ = car;
    /// ```
    pub fn velocity(mut self, velocity: impl Into<mint::Vector3<f32>>) -> Self {
        self.velocity = velocity.into();
        self
    }

    /// The way a positioned play faces (any length but 0), for its
    /// [`crate::Cone`]; the default is -Z. Turn it with
    /// [`crate::Controller::set_orientation`]. Ignored unless
    /// [`PlayParams::position`] is given; a NaN, infinite or zero vector is
    /// an error of `play`.
    ///
    /// ```
    /// use voicepool::{Cone, PlayParams, Spatial};
    /// let cone = Cone { inner_deg: 60.0, outer_deg: 180.0, outer_gain: 0.3, outer_lowpass_hz: 2_000.0 };
    /// let radio = PlayParams::default()
    ///     .position([5.0, 0.0, 0.0])
    ///     .orientation([-1.0, 0.0, 0.0]) // facing the origin
    ///     .spatial(Spatial { cone: Some(cone), ..Spatial::default() });
    /// # let _ = radio;
    /// ```
    pub fn orientation(mut self, orientation: impl Into<mint::Vector3<f32>>) -> Self {
        self.orientation = orientation.into();
        self
    }

    /// How a positioned play is heard: its distance model, doppler
    /// factor, cone and air absorption. Ignored unless
    /// [`PlayParams::position`] is given.
    ///
    /// ```
    /// use voicepool::{DistanceModel, PlayParams, Spatial};
    /// let torch = PlayParams::default()
    ///     .position([3.0, 1.0, -8.0])
    ///     .spatial(Spatial { distance: DistanceModel::Linear, max_distance: 20.0, ..Spatial::default() });
    /// # let _ = torch;
    /// ```
    pub fn spatial(mut self, spatial: Spatial) -> Self {
        self.spatial = spatial;
        self
    }
}

#[cfg(test)]
mod tests;
