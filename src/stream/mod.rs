//! Streams: sounds played from their file as they are decoded, for music
//! and long dialogue ([`crate::Sound::stream_file`]).
//!
//! | file | thread | what |
//! | --- | --- | --- |
//! | [`source`] | game | the file a streamed sound names, its decoders, and the hand-over between loader and audio side |
//! | [`wav`] | loader | WAV read straight from the file, a block at a time |
//! | [`loader`] | loader | the thread that decodes ahead into each stream slot's ring |
//! | [`control`] | game | stream slots, starting a streamed play, `seek` |
//! | [`reader`] | audio | each slot's ring as the voice reads it: never waits, counts underruns |
//!
//! The voice that plays a stream renders through the same kernels as a
//! decoded sound (`render::voice::streamed`).

pub(crate) mod control;
pub(crate) mod loader;
pub(crate) mod mix;
pub(crate) mod open;
pub(crate) mod origin;
pub(crate) mod reader;
pub(crate) mod source;
pub(crate) mod wav;
