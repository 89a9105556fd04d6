//! The oracle of the fuzz targets, shared by the targets
//! (`fuzz/fuzz_targets/wav_bytes.rs`, `sound_bytes.rs`) and the tests that
//! run the same checks without a fuzzer (`tests/fuzz_regressions.rs`,
//! `tests/formats_fuzz.rs`).

use std::path::Path;

use voicepool::limits::MAX_SAMPLE_MAGNITUDE;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, SoundError};

/// The `wav_bytes` target: `Sound::from_wav_bytes`, checked by [`check_result`].
pub fn check(data: &[u8]) {
    check_result(&Sound::from_wav_bytes(data));
}

/// The `sound_bytes` target: `Sound::from_bytes` (any format), checked by
/// [`check_result`]; gives the result.
pub fn check_any_format(data: &[u8]) -> Result<Sound, SoundError> {
    let result = Sound::from_bytes(data);
    check_result(&result);
    result
}

/// An error names `<bytes>`; a sound is sane and plays without a bad
/// sample reaching the output.
fn check_result(result: &Result<Sound, SoundError>) {
    match result {
        Err(e) => {
            assert_eq!(e.path(), Path::new("<bytes>"));
            assert!(!e.to_string().is_empty());
        }
        Ok(sound) => {
            assert!((1..=2).contains(&sound.channels()));
            assert!(sound.frames() > 0);
            assert_eq!(
                sound.samples().len(),
                sound.frames() * sound.channels() as usize
            );
            assert!(sound
                .samples()
                .iter()
                .all(|s| s.is_finite() && s.abs() <= MAX_SAMPLE_MAGNITUDE));
            let mut engine = OfflineEngine::new(EngineSettings {
                voices: 2,
                ..Default::default()
            })
            .unwrap();
            engine
                .play(sound, PlayParams::default().volume(4.0))
                .unwrap();
            engine
                .play(sound, PlayParams::default().pitch(0.37).looping(true))
                .unwrap();
            for _ in 0..4 {
                assert!(engine
                    .render(256)
                    .iter()
                    .all(|s| s.is_finite() && s.abs() <= 1.0));
            }
            engine.check_invariants().unwrap();
        }
    }
}
