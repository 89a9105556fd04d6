//! The direct-sound filter: its response, its glide, and a batch against
//! each filter run alone.

use super::batch::LANES;
use super::*;
use crate::simd::Isa;

/// The gain, in dB, of a steady sine at `hz` through a filter at
/// `cutoff`, at 48 kHz.
fn gain_db(cutoff: f32, hz: f32) -> f64 {
    let mut f = DirectFilter::OFF;
    f.head_for(cutoff, 48_000, true);
    let n = 48_000;
    let x: Vec<f32> = (0..n)
        .map(|i| (i as f32 * hz * std::f32::consts::TAU / 48_000.0).sin())
        .collect();
    let (mut l, mut r) = (x.clone(), x.clone());
    f.process(&mut l, &mut r);
    let p = |v: &[f32]| {
        v[n / 2..]
            .iter()
            .map(|s| f64::from(*s).powi(2))
            .sum::<f64>()
    };
    10.0 * (p(&l) / p(&x[..])).log10()
}

#[test]
fn it_is_a_butterworth_low_pass() {
    // -3 dB at the cutoff, nothing well below, 12 dB an octave above.
    assert!((gain_db(1_000.0, 1_000.0) + 3.01).abs() < 0.1);
    assert!(gain_db(1_000.0, 100.0).abs() < 0.05);
    let octave = gain_db(1_000.0, 4_000.0) - gain_db(1_000.0, 8_000.0);
    assert!((octave - 12.0).abs() < 1.5, "{octave}");
}

#[test]
fn a_batch_filters_each_voice_as_it_would_alone() {
    // Eight voices with cutoffs gliding every which way (one off),
    // noise in; each voice's lanes against the same filter run alone,
    // bit for bit, with each instruction set this CPU has.
    for frames in [250, 256, 7, 1] {
        batch_against_alone(300, frames);
    }
}

fn batch_against_alone(stride: usize, frames: usize) {
    let mut seed = 7u32;
    let mut noise = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    };
    let input: Vec<f32> = (0..LANES * stride).map(|_| noise()).collect();
    let mut filters = [DirectFilter::OFF; BATCH];
    for (v, f) in filters.iter_mut().enumerate() {
        if v != 3 {
            f.head_for(200.0 * (v + 1) as f32, 48_000, true);
            f.head_for(9_000.0 / (v + 1) as f32, 48_000, false);
        }
    }
    let mut alone = input.clone();
    let mut each = filters;
    for (v, f) in each.iter_mut().enumerate().filter(|(_, f)| f.is_on()) {
        let (l, rest) = alone[2 * v * stride..].split_at_mut(stride);
        f.process(&mut l[..frames], &mut rest[..frames]);
    }
    let mut isas = vec![Isa::Scalar];
    if Isa::detect() != Isa::Scalar {
        isas.push(Isa::detect());
    }
    for isa in isas {
        let mut together = input.clone();
        let mut batch = filters;
        process_batch(isa, &mut batch, &mut together, stride, frames);
        assert_eq!(batch, each, "{isa:?}: the filters' states");
        for (j, (a, b)) in together
            .chunks(stride)
            .zip(alone.chunks(stride))
            .enumerate()
        {
            assert!(a == b, "{isa:?}, {frames} frames: lane {j} differs");
        }
    }
}

#[test]
fn an_open_cutoff_turns_it_off_after_the_glide() {
    let mut f = DirectFilter::OFF;
    f.head_for(500.0, 48_000, false);
    assert!(f.is_on());
    let (mut l, mut r) = (vec![1.0; 256], vec![1.0; 256]);
    f.process(&mut l, &mut r);
    f.head_for(OPEN_HZ, 48_000, false);
    assert!(f.is_on());
    f.process(&mut l, &mut r);
    assert_eq!(f, DirectFilter::OFF);
    assert_eq!(band_power(OPEN_HZ), [1.0; 4]);
    assert!(band_power(500.0)[3] < 1e-4 && band_power(500.0)[0] > 0.9);
}
