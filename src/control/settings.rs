//! [`EngineSettings`] (and [`GroupSettings`]): what is fixed when an engine
//! starts. [`StealPolicy`] is defined with what crosses to the audio side
//! (`protocol`), and re-exported here.

use std::time::Duration;

use crate::error::EngineError;
use crate::protocol::MixerSetup;

pub use crate::protocol::StealPolicy;

/// Everything fixed when an engine starts. Build it with struct-update syntax:
///
/// ```
/// use voicepool::{EngineSettings, StealPolicy};
/// let settings = EngineSettings { voices: 16, steal_policy: StealPolicy::Oldest, ..Default::default() };
/// assert_eq!(settings.sample_rate, 48_000);
/// ```
///
/// # What is accepted
///
/// Settings are checked by [`EngineSettings::validate`] when an engine is
/// made. Unlike play parameters, almost nothing is clamped: a value out of
/// range makes the engine constructor return
/// [`EngineError::InvalidSettings`] naming the field, because settings are
/// written once, by a programmer, and a typo there should be loud. The one
/// exception is `audible_window`, a loudness in dB whose useful range is a
/// matter of taste: a finite positive value outside [`AUDIBLE_WINDOW_DB`]
/// is clamped into it (the table below).
///
/// | field | accepted |
/// | --- | --- |
/// | `voices` | `1..=`[`MAX_VOICES`] |
/// | `sample_rate` | [`OUTPUT_RATE_RANGE`] |
/// | `command_capacity`, `event_capacity` | `1..=1_048_576` |
/// | `min_voice_age`, `steal_fade`, `stop_fade`, `param_ramp`, `pause_fade` | at most 60 s (0 is allowed: no fade, a cut) |
/// | `groups` | `0..=`[`MAX_GROUPS`] |
/// | `buses` | `0..=`[`MAX_BUSES`] (besides the master bus) |
/// | `virtual_voices` | `0..=`[`MAX_VIRTUAL_VOICES`] |
/// | `audible_window` | `None`, or finite and above 0 (clamped to [`AUDIBLE_WINDOW_DB`]) |
/// | `master_gain` | finite, `0.0..=16.0` |
/// | `buffer_frames` | `None` or at least 1 |
/// | `streams` | `0..=`[`MAX_STREAMS`] |
/// | `stream_buffer_frames` | [`STREAM_BUFFER_RANGE`] |
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    /// Voices that can sound at once (1 to [`MAX_VOICES`]). Default 32.
    pub voices: usize,
    /// What happens when all voices are busy. Default [`StealPolicy::Quietest`].
    pub steal_policy: StealPolicy,
    /// Output rate in Hz for [`crate::OfflineEngine`]; a live engine uses the
    /// device's rate instead. Default 48 000.
    pub sample_rate: u32,
    /// Commands (play, stop, set_*) that can wait for the audio thread; a
    /// full queue makes calls return [`crate::PlayError::QueueFull`].
    /// The audio side takes at most 1,024 of them a block (the rest wait
    /// for the next), so that a block's work stays bounded however large
    /// the queue. Default 1024.
    pub command_capacity: usize,
    /// Events held for the game between [`crate::Engine::drain_events`]
    /// calls; beyond this the oldest are dropped and counted in
    /// [`crate::Stats::lost_events`] (`is_playing` stays exact). Default 4096.
    ///
    /// The audio side's own queue holds `event_capacity + voices + 2`; the
    /// mixer applies a command only while that queue has room for its events
    /// and for an `Ended` from every sounding voice, so it never drops an
    /// event. A small capacity therefore also limits how many plays take
    /// effect per block (about `event_capacity / 2` until the game side
    /// next reads events; every call to the engine does).
    pub event_capacity: usize,
    /// Voices younger than this are passed over for stealing while an older
    /// candidate exists. Default 30 ms.
    pub min_voice_age: Duration,
    /// Fade-out of a stolen voice. Default 5 ms.
    pub steal_fade: Duration,
    /// Fade-out after [`crate::Controller::stop`]. Default 10 ms.
    pub stop_fade: Duration,
    /// Ramp time for volume and pan changes (no zipper noise). Default 10 ms.
    pub param_ramp: Duration,
    /// Gain applied to the mix before the output limiter: the master
    /// volume the engine starts with (change it at run time with
    /// [`crate::Controller::set_master_volume`]). Default 1.0.
    pub master_gain: f32,
    /// Live output: the device to open, by name; `None` for the default.
    pub device: Option<String>,
    /// Live output: the buffer size to ask the device for, in frames;
    /// `None` for the device's default.
    pub buffer_frames: Option<u32>,
    /// Groups that [`crate::Controller::create_group`] can make (0 to
    /// [`MAX_GROUPS`]); their state is allocated when the engine is made.
    /// Default 64.
    pub groups: usize,
    /// Buses that [`crate::Controller::create_bus`] can make besides the
    /// master bus (0 to [`MAX_BUSES`]). Each costs 8 KiB of mix buffer,
    /// allocated when the engine is made. Default 16.
    pub buses: usize,
    /// The fade of a pause and of a resume, for one voice
    /// ([`crate::Controller::pause`]) or a bus ([`crate::Controller::pause_bus`]):
    /// short enough to feel instant, long enough not to click. Default 5 ms.
    pub pause_fade: Duration,
    /// Virtual voices: room for voices that lost their slot (stolen,
    /// limited by a group, or refused by a full pool) but asked to keep
    /// time ([`crate::PlayParams::virtualize`]) and come back when there
    /// is room (0 to [`MAX_VIRTUAL_VOICES`]). About 830 bytes each,
    /// allocated when the engine is made (its voice and ranking, about
    /// 170; its cell in the table of positions, its low-pass and its
    /// play's own parameter values, about 390; the game
    /// side's record of the play and of its end, the rest) and counted by
    /// the engines' `memory_bytes`; a virtual voice costs no mixing.
    /// Default 64.
    pub virtual_voices: usize,
    /// The audible window, in dB (off, `None`, by default): a voice whose
    /// predicted loudness (what stealing ranks by) stays more than this
    /// far below the loudest voice's for 100 ms is let go before the pool
    /// is full, freeing its slot and its mixing: a voice that asked to
    /// virtualize goes virtual (and comes back once within 6 dB inside the
    /// window), any other ends (`Event::Ended`, counted in
    /// [`crate::Stats::outside_window`]). Protected voices are kept. As
    /// Wwise's HDR window or FMOD's virtual volume, but by what each voice
    /// will sound like, not by its volume setting. Typical: 50 to 80. Not
    /// finite or not above 0 is an error; otherwise clamped to
    /// [`AUDIBLE_WINDOW_DB`].
    pub audible_window: Option<f32>,
    /// Streamed plays that can run at once ([`crate::Sound::stream_file`]:
    /// music, long ambiences and dialogue), 0 to [`MAX_STREAMS`]; one more
    /// is [`crate::PlayError::TooManyStreams`]. Each has a ring of
    /// `stream_buffer_frames` stereo `f32` frames and a 33 KB staging
    /// buffer, allocated when the engine is made (about 225 KB each by
    /// default). Default 4.
    pub streams: usize,
    /// Frames each stream's ring holds, decoded ahead of its play position
    /// by the loader thread: how long the loader may be held up before a
    /// stream runs dry ([`crate::Event::StreamUnderrun`]). In frames of the
    /// stream's own rate, within [`STREAM_BUFFER_RANGE`]. Default 24,000
    /// (half a second at 48 kHz).
    ///
    /// A play pitched up reads its ring that many times faster (pitch
    /// times any doppler shift): live, the ring lasts `stream_buffer_frames
    /// / (rate x pitch)` seconds (at pitch 12, 42 ms by default), so raise
    /// it for streams played far above pitch 1; a ring that runs dry is
    /// silence and a counted underrun, never a wait. An offline engine
    /// never runs one dry: it renders in pieces short enough for the
    /// fastest stream.
    pub stream_buffer_frames: usize,
    /// Live output: when the device is lost (or stops calling back for a
    /// second), reopen one on a thread of the engine's own and carry on with
    /// the same voices: the named [`EngineSettings::device`] once it is
    /// back, else the default device, always at the engine's rate, retrying
    /// with a backoff (50 ms doubling to 2 s). The game sees
    /// `Event::StreamError { kind: DeviceLost }`, then
    /// `Event::OutputRecovered`. `false` leaves it to the game (start a new
    /// engine, then drop or close the old one): a stream the device
    /// reported lost is then closed at once, and the old engine's `close`
    /// still returns its mixer. Default `true`.
    pub recover_device: bool,
    /// Live output: the audio host to use, by the name cpal gives it
    /// (`"ALSA"`, `"JACK"` with voicepool's `jack` feature, `"WASAPI"`,
    /// `"CoreAudio"`, ...); `None` for the platform's default host. An
    /// unknown or unavailable host is [`EngineError::NoDevice`] naming the
    /// hosts there are.
    pub host: Option<String>,
    /// The speed of sound for doppler ([`crate::Spatial::doppler`]), in
    /// metres per second, `1.0..=100_000.0`. Default 343.3.
    pub speed_of_sound: f32,
    /// Seeds the generator cues pick and vary by ([`crate::Cue`]): the
    /// same seed and the same script give the same picks, and an offline
    /// render that is bit-identical run to run. Any value; default 0.
    /// Give each run its own (the time, say) where a game wants them to
    /// differ.
    pub seed: u64,
    /// Masking-aware stealing: a voice is ranked by what of it stays
    /// audible above the masking the *other* voices make (per critical
    /// band, with the spread of masking across bands), not by its loudness
    /// alone, so a footstep under an explosion or the fifth groan of a
    /// horde goes before an equally loud voice that is heard in the clear.
    /// A voice never masks itself. The audible window and virtual voices'
    /// comebacks rank by the same measure. `false` ranks by loudness
    /// alone, for comparison. Each sound's spectrum is analysed at load
    /// either way (about 1.1 KiB per second of sound). Default `true`.
    pub masking: bool,
}

/// The most streams an engine may have.
pub const MAX_STREAMS: usize = 255;
/// The ring sizes a stream may have, in frames.
pub const STREAM_BUFFER_RANGE: std::ops::RangeInclusive<usize> = 4_096..=1 << 22;

/// The range `EngineSettings::audible_window` is clamped to, in dB.
pub const AUDIBLE_WINDOW_DB: std::ops::RangeInclusive<f32> = 6.0..=140.0;

/// The most virtual voices an engine may have.
pub const MAX_VIRTUAL_VOICES: usize = 1 << 20;

/// The most groups an engine may have.
pub const MAX_GROUPS: usize = 4_096;
/// The most buses an engine may have besides its master bus.
pub const MAX_BUSES: usize = 255;

/// How a group of voices behaves: at most `max_voices` of its members sound
/// at once, a new member of a full group is handled by `policy` among the
/// group's own members (never by stealing outside the group), and a member
/// starting closer than `min_interval` to the group's last accepted start
/// is rejected (both measured in the frames their first samples sound at,
/// so scheduled starts count where they are scheduled). Build it with struct-update syntax:
///
/// ```
/// use std::time::Duration;
/// use voicepool::{EngineSettings, GroupSettings, OfflineEngine, PlayParams, Sound, StealPolicy};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let footsteps = engine.create_group(GroupSettings {
///     max_voices: 2,
///     policy: StealPolicy::Oldest,
///     min_interval: Duration::from_millis(50),
/// })?;
/// let step = Sound::from_samples(1, 48_000, vec![0.3; 2_400])?;
/// engine.play(&step, PlayParams::default().group(footsteps))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// | field | accepted | otherwise |
/// | --- | --- | --- |
/// | `max_voices` | at least 1; more than the pool has means no group limit | 0 is rejected ([`crate::PlayError::Invalid`]) |
/// | `policy` | any | |
/// | `min_interval` | up to 60 s | longer is clamped to 60 s |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupSettings {
    /// Members that may sound at once. Default: no limit (`usize::MAX`).
    pub max_voices: usize,
    /// What a full group does with a new member: [`StealPolicy::Quietest`]
    /// (default) replaces the member the listener misses least, by the same
    /// audibility as the pool; [`StealPolicy::Oldest`] the oldest member;
    /// [`StealPolicy::Reject`] refuses the newcomer. Protected members are
    /// never replaced, and a newcomer of lower priority than every
    /// unprotected member is rejected, as in the pool.
    pub policy: StealPolicy,
    /// A member starting closer than this to the group's last accepted
    /// start is rejected (a machine gun's rate, footsteps). Measured in the
    /// frames first samples sound at ([`crate::PlayParams::start_at`]
    /// counts), on either side: a start scheduled earlier than one already
    /// accepted keeps the interval too (against the group's last 4
    /// accepted starts). Default 0.
    pub min_interval: Duration,
}

impl Default for GroupSettings {
    fn default() -> Self {
        GroupSettings {
            max_voices: usize::MAX,
            policy: StealPolicy::Quietest,
            min_interval: Duration::ZERO,
        }
    }
}

/// The most voices an engine may have.
pub const MAX_VOICES: usize = 65_536;
/// The output rates an engine accepts, in Hz.
pub const OUTPUT_RATE_RANGE: std::ops::RangeInclusive<u32> = 8_000..=384_000;

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            voices: 32,
            steal_policy: StealPolicy::Quietest,
            sample_rate: 48_000,
            command_capacity: 1024,
            event_capacity: 4096,
            min_voice_age: Duration::from_millis(30),
            steal_fade: Duration::from_millis(5),
            stop_fade: Duration::from_millis(10),
            param_ramp: Duration::from_millis(10),
            master_gain: 1.0,
            device: None,
            buffer_frames: None,
            groups: 64,
            buses: 16,
            pause_fade: Duration::from_millis(5),
            virtual_voices: 64,
            audible_window: None,
            streams: 4,
            stream_buffer_frames: 24_000,
            recover_device: true,
            host: None,
            speed_of_sound: crate::space::DEFAULT_SPEED_OF_SOUND,
            seed: 0,
            masking: true,
        }
    }
}

impl EngineSettings {
    /// Checks every field; the error says which one is wrong and why.
    ///
    /// ```
    /// use voicepool::EngineSettings;
    /// let settings = EngineSettings { voices: 100_000, ..Default::default() };
    /// let err = settings.validate().unwrap_err();
    /// assert!(err.to_string().contains("voices = 100000"));
    /// assert!(EngineSettings::default().validate().is_ok());
    /// ```
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |reason: String| Err(EngineError::InvalidSettings(reason));
        if !(1.0..=100_000.0).contains(&self.speed_of_sound) {
            return bad(format!(
                "speed_of_sound = {} m/s (must be 1 to 100000)",
                self.speed_of_sound
            ));
        }
        if !(1..=MAX_VOICES).contains(&self.voices) {
            return bad(format!(
                "voices = {} (must be 1 to {MAX_VOICES})",
                self.voices
            ));
        }
        if !OUTPUT_RATE_RANGE.contains(&self.sample_rate) {
            return bad(format!(
                "sample_rate = {} Hz (must be {} to {})",
                self.sample_rate,
                OUTPUT_RATE_RANGE.start(),
                OUTPUT_RATE_RANGE.end()
            ));
        }
        if self.command_capacity == 0 || self.command_capacity > 1 << 20 {
            return bad(format!(
                "command_capacity = {} (must be 1 to 1048576)",
                self.command_capacity
            ));
        }
        if self.event_capacity == 0 || self.event_capacity > 1 << 20 {
            return bad(format!(
                "event_capacity = {} (must be 1 to 1048576)",
                self.event_capacity
            ));
        }
        for (name, d) in [
            ("min_voice_age", self.min_voice_age),
            ("steal_fade", self.steal_fade),
            ("stop_fade", self.stop_fade),
            ("param_ramp", self.param_ramp),
            ("pause_fade", self.pause_fade),
        ] {
            if d > Duration::from_secs(60) {
                return bad(format!("{name} = {d:?} (must be at most 60 s)"));
            }
        }
        if !(self.master_gain.is_finite() && (0.0..=16.0).contains(&self.master_gain)) {
            return bad(format!(
                "master_gain = {} (must be finite, 0 to 16)",
                self.master_gain
            ));
        }
        if self.groups > MAX_GROUPS {
            return bad(format!(
                "groups = {} (must be 0 to {MAX_GROUPS})",
                self.groups
            ));
        }
        if self.buses > MAX_BUSES {
            return bad(format!("buses = {} (must be 0 to {MAX_BUSES})", self.buses));
        }
        if self.virtual_voices > MAX_VIRTUAL_VOICES {
            return bad(format!(
                "virtual_voices = {} (must be 0 to {MAX_VIRTUAL_VOICES})",
                self.virtual_voices
            ));
        }
        if let Some(w) = self.audible_window {
            if !(w.is_finite() && w > 0.0) {
                return bad(format!(
                    "audible_window = {w} dB (must be finite and above 0; None turns it off)"
                ));
            }
        }
        if self.buffer_frames == Some(0) {
            return bad("buffer_frames = 0 (must be at least 1)".into());
        }
        if self.streams > MAX_STREAMS {
            return bad(format!(
                "streams = {} (must be 0 to {MAX_STREAMS})",
                self.streams
            ));
        }
        if !STREAM_BUFFER_RANGE.contains(&self.stream_buffer_frames) {
            return bad(format!(
                "stream_buffer_frames = {} (must be {} to {})",
                self.stream_buffer_frames,
                STREAM_BUFFER_RANGE.start(),
                STREAM_BUFFER_RANGE.end()
            ));
        }
        Ok(())
    }

    /// What the mixer is made with, at output rate `rate`.
    pub(crate) fn mixer_setup(&self, rate: u32) -> MixerSetup {
        let frames = |d| crate::protocol::frames(d, rate);
        MixerSetup {
            voices: self.voices,
            virtual_voices: self.virtual_voices,
            groups: self.groups,
            buses: self.buses,
            speed_of_sound: self.speed_of_sound,
            master_gain: self.master_gain,
            steal_policy: self.steal_policy,
            command_capacity: self.command_capacity,
            pause_fade: frames(self.pause_fade),
            min_voice_age: frames(self.min_voice_age),
            steal_fade: frames(self.steal_fade),
            stop_fade: frames(self.stop_fade),
            param_ramp: frames(self.param_ramp),
            audible_window: self
                .audible_window
                .map(|db| db.clamp(*AUDIBLE_WINDOW_DB.start(), *AUDIBLE_WINDOW_DB.end())),
            masking: self.masking,
        }
    }
}
