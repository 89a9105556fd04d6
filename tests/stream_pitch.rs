//! A streamed play pitched up (by its pitch, by doppler, or both) reads its
//! file many times faster than it plays: rendered offline it must still
//! sound exactly as the decoded sound does, with no underrun, whatever the
//! block size.

use voicepool_testkit::support;

use support::codecs::source_wav;
use support::Scratch;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, Spatial};

/// Renders `sound` with `params` in `blocks` blocks of `block` frames;
/// the output and the underruns counted.
fn render(sound: &Sound, params: PlayParams, block: usize, blocks: usize) -> (Vec<f32>, u64) {
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    e.play(sound, params).unwrap();
    let mut out = Vec::new();
    for _ in 0..blocks {
        out.extend_from_slice(e.render(block));
    }
    (out, e.stats().stream_underruns)
}

#[test]
fn a_streamed_play_pitched_up_never_runs_dry_offline() {
    let dir = Scratch::new("stream-pitch");
    let file = source_wav(&dir, "src", 48_000, 2, 16, 480_000);
    let decoded = Sound::from_file(&file).unwrap();
    let streamed = Sound::stream_file(&file).unwrap();
    // (pitch, moving toward the listener faster than sound, block frames)
    let rows: &[(f32, bool, usize)] = &[
        (12.0, false, 4_800),
        (4.0, true, 4_800),
        (64.0, false, 480),
        (64.0, false, 1_024),
        (1.0, true, 480),
    ];
    for &(pitch, supersonic, block) in rows {
        let what = format!("pitch {pitch}, supersonic {supersonic}, {block}-frame blocks");
        let p = PlayParams::default().pitch(pitch).looping(true);
        let p = if supersonic {
            p.position([0.0, 0.0, -50.0])
                .velocity([0.0, 0.0, 1_000.0])
                .spatial(Spatial {
                    doppler: 4.0,
                    ..Spatial::default()
                })
        } else {
            p
        };
        let blocks = 96_000 / block;
        let (want, _) = render(&decoded, p, block, blocks);
        let (got, underruns) = render(&streamed, p, block, blocks);
        assert_eq!(underruns, 0, "{what}");
        assert!(want.iter().any(|&s| s != 0.0), "{what}: silent");
        let differ = want.iter().zip(&got).position(|(a, b)| a != b);
        assert_eq!(differ, None, "{what}: first difference at sample");
    }
}
