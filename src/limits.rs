//! The bounds voicepool keeps every value within, in one place: what a
//! call clamps to, what an engine may be made with, what a file may hold.
//!
//! Where a value outside its bound is clamped and where it is an error is
//! said on the call that takes it ([`crate::PlayParams`], [`crate::EngineSettings`],
//! [`crate::Spatial`], [`crate::Sound`]).
//!
//! ```
//! use voicepool::{limits, EngineSettings, OfflineEngine};
//! let too_many = EngineSettings { voices: limits::MAX_VOICES + 1, ..Default::default() };
//! assert!(OfflineEngine::new(too_many).is_err()); // an engine error, not a clamp
//! ```

pub use crate::bus::MAX_EFFECTS;
pub use crate::control::params::{
    MAX_FADE_SECONDS, MAX_MASTER_VOLUME, MAX_PITCH, MAX_VOLUME, MIN_AUDIBLE_VOLUME, MIN_PITCH,
};
pub use crate::control::settings::{
    AUDIBLE_WINDOW_DB, MAX_BUSES, MAX_GROUPS, MAX_STREAMS, MAX_VIRTUAL_VOICES, MAX_VOICES,
    OUTPUT_RATE_RANGE, STREAM_BUFFER_RANGE,
};
pub use crate::cue::{MAX_CUE_DB, MAX_CUE_DELAY, MAX_CUE_VOICES, MIN_CUE_DB};
pub use crate::error::{MAX_FRAMES, SAMPLE_RATE_RANGE, SUPPORTED_FORMATS};
pub use crate::output::cpal::{MAX_BLOCK_FRAMES, MIN_BLOCK_FRAMES};
pub use crate::output::offline::{MAX_RENDER_FRAMES, MAX_WAV_FRAMES, WAV_BLOCK_FRAMES};
pub use crate::param::{MAX_CUE_MAPS, MAX_CURVE_POINTS, MAX_PARAMS};
pub use crate::protocol::device_name::DEVICE_NAME_BYTES;
pub use crate::render::limiter::LIMITER_THRESHOLD;
pub use crate::sound::{MAX_CHUNKS_BEFORE_DATA, MAX_SAMPLE_MAGNITUDE};
pub use crate::space::{
    DEFAULT_SPEED_OF_SOUND, MAX_AIR_ABSORPTION, MAX_DOPPLER, MAX_DOPPLER_SHIFT, MAX_ROLLOFF,
    MIN_LOWPASS_HZ, OPEN_HZ,
};
