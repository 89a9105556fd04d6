//! Feeds arbitrary bytes to `Sound::from_wav_bytes`. Whatever it returns must
//! be sane: an error that names `<bytes>`, or a sound whose samples are
//! finite and clamped, which then plays through an engine without a bad
//! sample reaching the output.
#![no_main]

use libfuzzer_sys::fuzz_target;

use voicepool_testkit::sound_oracle;

fuzz_target!(|data: &[u8]| sound_oracle::check(data));
