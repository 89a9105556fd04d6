use super::*;

#[test]
fn level_follows_the_content() {
    // 100 ms of silence, then 100 ms of a 1 kHz sine at 0.5.
    let mut s = vec![0.0f32; 4_800];
    s.extend((0..4_800).map(|i| (i as f32 * std::f32::consts::TAU / 48.0).sin() * 0.5));
    let sound = Sound::from_samples(1, 48_000, s).unwrap();
    assert_eq!(sound.level_at(0), 0.0);
    // K-weighting adds 0.691 dB at 1 kHz (the offset BS.1770's LUFS
    // formula takes back out): RMS 0.5 / sqrt(2), +0.691 dB.
    let level = sound.level_at(7_200);
    let want = 0.5 / 2f32.sqrt() * 10f32.powf(0.691 / 20.0);
    assert!((level / want - 1.0).abs() < 0.01, "{level} vs {want}");
    assert_eq!(sound.level_at(1_000_000), 0.0);
}

#[test]
fn samples_are_clamped_and_denormals_flushed() {
    let sound = Sound::from_samples(1, 48_000, vec![100.0, -100.0, 1e-30, 0.25]).unwrap();
    assert_eq!(sound.samples(), &[4.0, -4.0, 0.0, 0.25]);
}
