//! The kernels' unit tests: every AVX2 path against the portable one, bit
//! for bit.

#[cfg(target_arch = "x86_64")]
use super::avx2::*;
use super::*;

/// A little deterministic generator (no dependency needed for this).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn f32(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

#[allow(clippy::too_many_arguments)]
fn render(
    isa: Isa,
    ch: usize,
    data: &[f32],
    pos: u64,
    step: u64,
    n: usize,
    g: Gain,
    ramp: bool,
) -> Vec<u32> {
    let mut l = vec![0.25f32; n];
    let mut r = vec![-0.5f32; n];
    assert!(mix(isa, ch, data, pos, step, &mut l, &mut r, g, ramp));
    l.iter().chain(&r).map(|x| x.to_bits()).collect()
}

/// The AVX2 kernels (when this CPU has them) produce exactly the scalar
/// kernels' bits, for every mode, ramped or not, at any start.
#[test]
fn simd_and_scalar_kernels_agree_bit_for_bit() {
    let mut rng = Rng(7);
    let frames = 3_000;
    for ch in [1usize, 2] {
        let mut data: Vec<f32> = (0..frames * ch).map(|_| rng.f32()).collect();
        data.extend(std::iter::repeat_n(0.0, 16 * ch));
        let steps = [
            FRAC_ONE,
            FRAC_ONE / 3,
            (0.91875 * FRAC_ONE as f64) as u64,
            FRAC_ONE + 12_345,
            2 * FRAC_ONE,
            2 * FRAC_ONE + 1,
            (5.3 * FRAC_ONE as f64) as u64,
        ];
        for &step in &steps {
            for _ in 0..20 {
                let n = (rng.next() % 300) as usize;
                let span = (step as u128 * n as u128) >> 32;
                let max_start = frames as u128 - span - 2;
                let start = (rng.next() as u128 % max_start) as u64;
                let pos = (start << 32)
                    | if rng.next().is_multiple_of(3) {
                        0
                    } else {
                        rng.next() & FRAC_MASK
                    };
                let g = Gain {
                    l: rng.f32(),
                    r: rng.f32(),
                    dl: rng.f32() * 1e-3,
                    dr: rng.f32() * 1e-3,
                };
                for ramp in [false, true] {
                    let scalar = render(Isa::Scalar, ch, &data, pos, step, n, g, ramp);
                    let best = render(Isa::detect(), ch, &data, pos, step, n, g, ramp);
                    assert_eq!(
                        scalar, best,
                        "ch {ch} step {step:#x} pos {pos:#x} n {n} ramp {ramp}"
                    );
                }
            }
        }
    }
}

/// Every AVX2 mode (when this CPU has AVX2), called directly, matches
/// the scalar kernel bit for bit: stereo and mono, random positions,
/// steps below, around and at each window's bound and beyond it, ramps
/// on and off, all lengths up to a few groups, on sound-like data (its
/// frames then 16 zero guard frames) and loop-tile-like data (a short
/// period repeated, then 17 frames carrying on), read right up to the
/// last frame the voice's segment arithmetic allows.
#[cfg(target_arch = "x86_64")]
#[test]
fn each_simd_mode_matches_the_scalar_kernel_bit_for_bit() {
    if !matches!(Isa::detect(), Isa::Avx2(_)) {
        return;
    }
    let mut rng = Rng(15);
    let one = FRAC_ONE as f64;
    let steps: Vec<u64> = [
        0.001, 0.25, 0.5, 0.91875, 0.999_999, 1.0, 1.000_001, 1.088, 1.5, 1.999_999, 2.0,
        2.000_001, 2.177, 3.7,
    ]
    .iter()
    .map(|&x| (x * one) as u64)
    .chain([
        FRAC_ONE - 1,
        FRAC_ONE + 1,
        2 * FRAC_ONE - 1,
        2 * FRAC_ONE + 1,
    ])
    .collect();
    let mut runs = 0;
    for ch in [1usize, 2] {
        for tile in [false, true] {
            // Sound: `frames` frames + 16 guard frames of zeros, read up
            // to frame `frames` (the last position's frame below it).
            // Tile: `period` frames + 17 carrying on, read likewise.
            let frames = 40 + (rng.next() % 400) as usize;
            let mut data: Vec<f32> = if tile {
                let period = 1 + (rng.next() % 7) as usize;
                let cycle: Vec<f32> = (0..period * ch).map(|_| rng.f32()).collect();
                cycle
                    .iter()
                    .copied()
                    .cycle()
                    .take((frames + 17) * ch)
                    .collect()
            } else {
                (0..frames * ch).map(|_| rng.f32()).collect()
            };
            data.resize((frames + 16 + usize::from(tile)) * ch, 0.0);
            for &step in &steps {
                for _ in 0..60 {
                    let n = 1 + (rng.next() % 70) as usize;
                    let span = step * (n as u64 - 1);
                    // Any start whose last position's frame is below
                    // `frames`; one in four as late as that allows.
                    let max_pos = ((frames as u64) << FRAC_BITS) - 1;
                    let Some(room) = max_pos.checked_sub(span) else {
                        continue;
                    };
                    let pos = if rng.next().is_multiple_of(4) {
                        room - rng.next() % FRAC_ONE.min(room + 1)
                    } else {
                        rng.next() % (room + 1)
                    };
                    let pos = if rng.next().is_multiple_of(5) {
                        pos & !FRAC_MASK
                    } else {
                        pos
                    };
                    let last_idx = ((pos + span) >> FRAC_BITS) as usize;
                    let g = Gain {
                        l: rng.f32(),
                        r: rng.f32(),
                        dl: rng.f32() * 1e-2,
                        dr: rng.f32() * 1e-2,
                    };
                    for ramp in [false, true] {
                        let mut want_l: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
                        let mut want_r: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
                        let (l0, r0) = (want_l.clone(), want_r.clone());
                        // SAFETY: the last position's frame is below
                        // `frames`, and frame `frames` is in `data`.
                        unsafe {
                            match (ch, ramp) {
                                (1, false) => interp::<1, false>(
                                    &data,
                                    pos,
                                    step,
                                    &mut want_l,
                                    &mut want_r,
                                    g,
                                    0,
                                ),
                                (1, true) => interp::<1, true>(
                                    &data,
                                    pos,
                                    step,
                                    &mut want_l,
                                    &mut want_r,
                                    g,
                                    0,
                                ),
                                (_, false) => interp::<2, false>(
                                    &data,
                                    pos,
                                    step,
                                    &mut want_l,
                                    &mut want_r,
                                    g,
                                    0,
                                ),
                                (_, true) => interp::<2, true>(
                                    &data,
                                    pos,
                                    step,
                                    &mut want_l,
                                    &mut want_r,
                                    g,
                                    0,
                                ),
                            }
                        }
                        let modes = [
                            (MODE_PERMUTE8, FRAC_ONE, 9),
                            (MODE_PERMUTE16, 2 * FRAC_ONE, 17),
                            (MODE_GATHER, MAX_SIMD_STEP, 2),
                        ];
                        for (mode, bound, window) in modes {
                            if step > bound || (last_idx + window) * ch > data.len() {
                                continue;
                            }
                            let (mut l, mut r) = (l0.clone(), r0.clone());
                            macro_rules! call {
                                ($ch:literal, $ramp:literal, $mode:ident) => {
                                    interp_avx2::<$ch, $ramp, $mode>(
                                        &data, pos, step, &mut l, &mut r, g,
                                    )
                                };
                            }
                            // SAFETY: the CPU has AVX2 (checked above),
                            // step <= 2^45, and the mode's window fits
                            // (checked just above).
                            unsafe {
                                match (ch, ramp, mode) {
                                    (1, false, MODE_PERMUTE8) => call!(1, false, MODE_PERMUTE8),
                                    (1, true, MODE_PERMUTE8) => call!(1, true, MODE_PERMUTE8),
                                    (1, false, MODE_PERMUTE16) => {
                                        call!(1, false, MODE_PERMUTE16)
                                    }
                                    (1, true, MODE_PERMUTE16) => call!(1, true, MODE_PERMUTE16),
                                    (1, false, _) => call!(1, false, MODE_GATHER),
                                    (1, true, _) => call!(1, true, MODE_GATHER),
                                    (_, false, MODE_PERMUTE8) => call!(2, false, MODE_PERMUTE8),
                                    (_, true, MODE_PERMUTE8) => call!(2, true, MODE_PERMUTE8),
                                    (_, false, MODE_PERMUTE16) => {
                                        call!(2, false, MODE_PERMUTE16)
                                    }
                                    (_, true, MODE_PERMUTE16) => call!(2, true, MODE_PERMUTE16),
                                    (_, false, _) => call!(2, false, MODE_GATHER),
                                    (_, true, _) => call!(2, true, MODE_GATHER),
                                }
                            }
                            let bits =
                                |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                            assert_eq!(
                                (bits(&l), bits(&r)),
                                (bits(&want_l), bits(&want_r)),
                                "ch {ch} tile {tile} mode {mode} step {step:#x} pos {pos:#x} n {n} ramp {ramp}"
                            );
                            runs += 1;
                        }
                        // And through `mix`, which picks the mode.
                        let (mut l, mut r) = (l0.clone(), r0.clone());
                        assert!(mix(
                            Isa::detect(),
                            ch,
                            &data,
                            pos,
                            step,
                            &mut l,
                            &mut r,
                            g,
                            ramp
                        ));
                        let (mut sl, mut sr) = (l0, r0);
                        assert!(mix(
                            Isa::Scalar,
                            ch,
                            &data,
                            pos,
                            step,
                            &mut sl,
                            &mut sr,
                            g,
                            ramp
                        ));
                        assert!(l
                            .iter()
                            .zip(&sl)
                            .chain(r.iter().zip(&sr))
                            .all(|(a, b)| a.to_bits() == b.to_bits()));
                    }
                }
            }
        }
    }
    assert!(runs > 10_000, "{runs}");
}

#[test]
fn a_segment_reading_past_the_data_renders_nothing() {
    let data = [1.0f32; 10];
    let g = Gain {
        l: 1.0,
        r: 1.0,
        dl: 0.0,
        dr: 0.0,
    };
    let (mut l, mut r) = ([0.0f32; 8], [0.0f32; 8]);
    assert!(!mix(
        Isa::detect(),
        1,
        &data,
        5 << 32,
        FRAC_ONE,
        &mut l,
        &mut r,
        g,
        false
    ));
    assert!(!mix(
        Isa::detect(),
        1,
        &data,
        u64::MAX - 3,
        FRAC_ONE,
        &mut l,
        &mut r,
        g,
        false
    ));
    assert_eq!(l, [0.0; 8]);
    assert!(mix(
        Isa::detect(),
        1,
        &data,
        0,
        FRAC_ONE,
        &mut l,
        &mut r,
        g,
        false
    ));
    assert_eq!(l, [1.0; 8]);
}

#[test]
fn exact_and_interpolated_paths_agree_on_whole_positions() {
    let data: Vec<f32> = (0..64).map(|i| i as f32 * 0.01).collect();
    let g = Gain {
        l: 0.5,
        r: 0.25,
        dl: 0.0,
        dr: 0.0,
    };
    let mut l = [0.0f32; 32];
    let mut r = [0.0f32; 32];
    assert!(mix(
        Isa::detect(),
        1,
        &data,
        3 << 32,
        FRAC_ONE,
        &mut l,
        &mut r,
        g,
        false
    ));
    for k in 0..32 {
        assert_eq!(l[k], data[3 + k] * 0.5);
        assert_eq!(r[k], data[3 + k] * 0.25);
    }
}

/// The pair kernel (two voices in one pass, when this CPU has AVX2) writes
/// exactly what mixing the two voices one after the other with the
/// portable kernel writes: random positions (whole frames and fractions,
/// up to the last frame it may take), steps up to 1, gains, ramps on
/// either voice, mono and stereo sounds in every combination, lengths that
/// are not multiples of 8. Where it declines (a
/// step above 1, an exact copy, a window past the data), it writes nothing.
#[test]
fn the_pair_kernel_matches_two_portable_passes_bit_for_bit() {
    let isa = Isa::detect();
    let mut rng = Rng(11);
    let frames = 2_000;
    let sound = |rng: &mut Rng, ch: usize| -> Vec<f32> {
        (0..(frames + 9) * ch).map(|_| rng.f32()).collect()
    };
    // Per channel count, two sounds (voice a's and voice b's).
    let data = [
        [sound(&mut rng, 1), sound(&mut rng, 1)],
        [sound(&mut rng, 2), sound(&mut rng, 2)],
    ];
    let steps = [
        FRAC_ONE / 7,
        (0.91875 * FRAC_ONE as f64) as u64,
        FRAC_ONE - 1,
        FRAC_ONE,
        FRAC_ONE + 1,
    ];
    let (mut paired, mut declined) = (0, 0);
    let mut kinds = [[0; 2]; 2];
    for round in 0..1_200 {
        let n = 1 + (rng.next() % 600) as usize;
        let (ca, cb) = (1 + (rng.next() % 2) as usize, 1 + (rng.next() % 2) as usize);
        let a = random_segment(&data[ca - 1][0], ca, n, frames as u64, &steps, &mut rng);
        let b = random_segment(&data[cb - 1][1], cb, n, frames as u64, &steps, &mut rng);
        let start: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
        let (mut l, mut r) = (start.clone(), start.iter().map(|x| -x).collect::<Vec<_>>());
        let (mut wl, mut wr) = (l.clone(), r.clone());
        if mix_pair(isa, &a, &b, &mut l, &mut r) {
            paired += 1;
            kinds[ca - 1][cb - 1] += 1;
            for s in [&a, &b] {
                assert!(mix(
                    Isa::Scalar,
                    s.channels,
                    s.data,
                    s.pos,
                    s.step,
                    &mut wl,
                    &mut wr,
                    s.gain,
                    s.ramp
                ));
            }
        } else {
            declined += 1;
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            (bits(&l), bits(&r)),
            (bits(&wl), bits(&wr)),
            "round {round}, n {n}, channels {ca} and {cb}"
        );
    }
    if Isa::detect() != Isa::Scalar {
        assert!(
            paired > 200 && declined > 100 && kinds.iter().flatten().all(|&k| k > 20),
            "{paired} paired ({kinds:?} by channels), {declined} declined"
        );
    }
}

/// A random segment of `n` frames over `data` for the pair kernel test.
fn random_segment<'a>(
    data: &'a [f32],
    channels: usize,
    n: usize,
    frames: u64,
    steps: &[u64],
    rng: &mut Rng,
) -> Segment<'a> {
    let step = steps[(rng.next() % steps.len() as u64) as usize];
    let span = ((step as u128 * (n as u128 - 1)) >> 32) as u64;
    // Starts up to one past the last frame the kernel may take, so some
    // windows end exactly at the data's end and some past it.
    let max_start = (frames + 1).saturating_sub(span);
    let start = rng.next() % max_start.max(1);
    let frac = if rng.next().is_multiple_of(4) {
        0
    } else {
        rng.next() & FRAC_MASK
    };
    let d = if rng.next().is_multiple_of(2) {
        1e-3
    } else {
        0.0
    };
    Segment {
        data,
        channels,
        pos: (start << 32) | frac,
        step,
        gain: Gain {
            l: rng.f32(),
            r: rng.f32(),
            dl: d * rng.f32(),
            dr: -d * rng.f32(),
        },
        ramp: d != 0.0,
    }
}
