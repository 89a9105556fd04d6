//! The oracle of the `wav_bytes` fuzz target, shared by the target
//! (`fuzz/fuzz_targets/wav_bytes.rs`) and `tests/fuzz_regressions.rs`
//! (both include this file with `#[path]`).

use std::path::Path;

use voicepool::sound::MAX_SAMPLE_MAGNITUDE;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};

/// The fuzz target's oracle: an error names `<bytes>`; a sound is sane and
/// plays without a bad sample reaching the output.
pub fn check(data: &[u8]) {
    match Sound::from_wav_bytes(data) {
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
                .play(&sound, PlayParams::default().volume(4.0))
                .unwrap();
            engine
                .play(&sound, PlayParams::default().pitch(0.37).looping(true))
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
