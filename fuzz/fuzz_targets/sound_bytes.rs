//! Feeds arbitrary bytes to `Sound::from_bytes` (WAV, OGG Vorbis, FLAC, MP3,
//! told apart by content). Whatever it returns must be sane: an error that
//! names `<bytes>`, or a sound whose samples are finite and clamped, which
//! then plays through an engine without a bad sample reaching the output.
#![no_main]

use libfuzzer_sys::fuzz_target;

use voicepool_testkit::sound_oracle;

fuzz_target!(|data: &[u8]| {
    let _ = sound_oracle::check_any_format(data);
});
