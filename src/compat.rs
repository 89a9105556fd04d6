//! The module paths of voicepool before 1.0 that no longer name a module
//! of the crate, kept so that code written against them still builds:
//! every item here is the same item the crate root exports (limits are in
//! [`crate::limits`]). Hidden from the docs; new code names items at the
//! root. (The old paths `error`, `mixer`, `output`, `sound` and
//! `space` are the crate's own modules, hidden the same way.)

/// Handles, events and the steal policy (now at the crate root).
pub mod command {
    pub use crate::{
        BusHandle, EffectFault, Event, GroupHandle, StealPolicy, StreamErrorKind, TimedEvent,
        VoiceHandle,
    };
}

/// Bus settings and effects (now at the crate root).
pub mod effect {
    pub use crate::limits::MAX_EFFECTS;
    pub use crate::{BusSettings, CustomEffect, Duck, Effect, EffectParam};
}

/// The game side (now at the crate root).
pub mod engine {
    pub use crate::{Controller, Engine, EngineError, PlayError, VoiceInfo};
}

/// Play parameters (now at the crate root).
pub mod params {
    pub use crate::limits::{
        MAX_FADE_SECONDS, MAX_MASTER_VOLUME, MAX_PITCH, MAX_VOLUME, MIN_AUDIBLE_VOLUME, MIN_PITCH,
    };
    pub use crate::PlayParams;
}

/// Engine and group settings (now at the crate root).
pub mod settings {
    pub use crate::limits::{
        AUDIBLE_WINDOW_DB, MAX_BUSES, MAX_GROUPS, MAX_STREAMS, MAX_VIRTUAL_VOICES, MAX_VOICES,
        OUTPUT_RATE_RANGE, STREAM_BUFFER_RANGE,
    };
    pub use crate::{EngineSettings, GroupSettings, StealPolicy};
}

/// Statistics (now at the crate root).
pub mod stats {
    pub use crate::{BusMeter, SlotView, Stats};
}
