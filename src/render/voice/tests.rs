use super::*;

#[test]
fn the_f32_pan_law_is_the_f64_one() {
    for channels in [1, 2] {
        for k in 0..=2000 {
            let pan = k as f32 / 1000.0 - 1.0;
            let (a, b) = (
                pan_gains(0.7, pan, channels),
                pan_gains_f32(0.7, pan, channels),
            );
            for c in 0..2 {
                assert!(
                    (a[c] - b[c]).abs() < 1e-6,
                    "{channels} ch, pan {pan}: {a:?} {b:?}"
                );
            }
        }
    }
}

#[test]
fn pan_law_is_constant_power_and_exact_at_the_ends() {
    let [l, r] = pan_gains(1.0, 0.0, 1);
    assert!((l * l + r * r - 1.0).abs() < 1e-6);
    assert_eq!(pan_gains(1.0, -1.0, 1)[1], 0.0);
    assert_eq!(pan_gains(1.0, 1.0, 1)[0], 0.0);
    assert_eq!(pan_gains(0.5, 0.0, 2), [0.5, 0.5]);
    assert_eq!(pan_gains(1.0, -1.0, 2)[1], 0.0);
}

#[test]
fn a_voice_is_one_cache_line() {
    use std::mem::{align_of, size_of};
    assert_eq!(size_of::<Voice>(), 64);
    assert_eq!(align_of::<Voice>(), 64);
}

#[test]
fn step_is_rate_ratio_times_pitch() {
    assert_eq!(step_for(48_000, 48_000, 1.0), FRAC_ONE);
    assert_eq!(step_for(48_000, 48_000, 2.0), 2 * FRAC_ONE);
    let s = step_for(44_100, 48_000, 1.0) as f64 / FRAC_ONE as f64;
    assert!((s - 0.91875).abs() < 1e-9);
}
