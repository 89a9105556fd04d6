//! The picking rules against a direct reading of them.

use super::pick::{Chosen, Picks};
use super::*;
use crate::protocol::{MAX_PITCH, MIN_PITCH};

fn takes(n: usize) -> Vec<Sound> {
    (0..n)
        .map(|i| {
            Sound::from_samples(1, 48_000, vec![0.1; 16])
                .expect("sound")
                .with_name(&i.to_string())
        })
        .collect()
}

fn picks(cue: &Cue, seed: u64, plays: usize) -> Vec<usize> {
    let mut p = Picks::new(seed);
    (0..plays)
        .map(|_| {
            let mut out: [Option<Chosen<'_>>; MAX_CUE_VOICES] = [None; MAX_CUE_VOICES];
            assert_eq!(p.choose(cue, &mut out), 1);
            let name = out[0].expect("chosen").sound.name().to_string();
            name.parse().expect("a take")
        })
        .collect()
}

#[test]
fn shuffle_plays_each_once_a_round_and_never_twice_in_a_row() {
    for n in [2, 3, 6, 17] {
        let cue = Cue::new(takes(n)).pick(Pick::Shuffle);
        let got = picks(&cue, 7, 10_000);
        for round in got.chunks_exact(n) {
            let mut seen = round.to_vec();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{n} takes: {round:?}");
        }
        assert!(got.windows(2).all(|w| w[0] != w[1]), "{n} takes: a repeat");
    }
}

#[test]
fn sequence_steps_in_order() {
    let cue = Cue::new(takes(4)).pick(Pick::Sequence);
    let got = picks(&cue, 1, 10);
    assert_eq!(got, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
}

#[test]
fn random_follows_the_weights() {
    // Chi-square with 3 degrees of freedom; 16.27 is its 0.1 % point.
    let weights = [1.0f32, 2.0, 0.0, 5.0, 2.0];
    let cue = Cue::new(takes(5)).pick(Pick::Random).weights(weights);
    let plays = 100_000;
    let got = picks(&cue, 42, plays);
    let mut counts = [0usize; 5];
    for k in got {
        counts[k] += 1;
    }
    assert_eq!(counts[2], 0, "a weight of 0 is never picked");
    let total: f32 = weights.iter().sum();
    let chi2: f64 = weights
        .iter()
        .zip(counts)
        .filter(|(&w, _)| w > 0.0)
        .map(|(&w, c)| {
            let expect = plays as f64 * f64::from(w / total);
            (c as f64 - expect).powi(2) / expect
        })
        .sum();
    assert!(chi2 < 16.27, "chi-square {chi2:.2}, counts {counts:?}");
}

#[test]
fn a_seed_gives_the_same_picks_and_another_seed_others() {
    let cue = Cue::new(takes(8)).pick(Pick::Random);
    assert_eq!(picks(&cue, 3, 200), picks(&cue, 3, 200));
    assert_ne!(picks(&cue, 3, 200), picks(&cue, 4, 200));
}

#[test]
fn layers_come_after_their_cue_depth_first_with_delays_adding_up() {
    let ms = std::time::Duration::from_millis;
    let cue = Cue::new(takes(1))
        .layer(
            Cue::new(takes(2))
                .delay(ms(10))
                .layer(Cue::new(takes(3)).delay(ms(5))),
        )
        .layer(Cue::new(takes(1)).delay(ms(1)));
    assert_eq!(cue.voices(), 4);
    let mut p = Picks::new(0);
    let mut out: [Option<Chosen<'_>>; MAX_CUE_VOICES] = [None; MAX_CUE_VOICES];
    assert_eq!(p.choose(&cue, &mut out), 4);
    let delays: Vec<_> = out.iter().flatten().map(|c| c.delay).collect();
    assert_eq!(delays, [ms(0), ms(10), ms(15), ms(1)]);
}

#[test]
fn bad_values_are_errors_naming_the_field() {
    let name = |c: Cue| match c.check() {
        Err(PlayError::Invalid { name, .. } | PlayError::InvalidParameter { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    let two = || Cue::new(takes(2));
    assert_eq!(name(Cue::new(Vec::new())), "variations");
    assert_eq!(name(two().weights([1.0])), "weights");
    assert_eq!(name(two().weights([1.0, f32::NAN])), "weights");
    assert_eq!(name(two().weights([1.0, -1.0])), "weights");
    assert_eq!(name(two().weights([0.0, 0.0])), "weights");
    assert_eq!(name(two().pitch_range(0.0..=1.0)), "pitch_range");
    assert_eq!(name(two().pitch_range(1.0..=f32::INFINITY)), "pitch_range");
    assert_eq!(name(two().pitch_range(1.2..=1.0)), "pitch_range");
    assert_eq!(
        name(two().volume_range_db(f32::NAN..=0.0)),
        "volume_range_db"
    );
    assert_eq!(name(two().volume_range_db(0.0..=-3.0)), "volume_range_db");
    let mut big = two();
    for _ in 0..MAX_CUE_VOICES {
        big = big.layer(two());
    }
    assert_eq!(name(big), "layer");
    // A layer's error is its cue's; the first error stays.
    assert_eq!(name(two().layer(Cue::new(Vec::new()))), "variations");
    assert_eq!(name(two().weights([1.0]).pitch_range(0.0..=1.0)), "weights");
    // Out of range: clamped.
    let c = two()
        .pitch_range(0.001..=100.0)
        .volume_range_db(-500.0..=50.0);
    assert!(c.check().is_ok());
    assert_eq!(c.get_pitch_range(), MIN_PITCH..=MAX_PITCH);
    assert_eq!(c.get_volume_range_db(), MIN_CUE_DB..=MAX_CUE_DB);
}

#[test]
fn dropped_cues_leave_no_picking_state_behind() {
    let base = Cue::new(takes(3));
    let mut p = Picks::new(0);
    for i in 0..10_000 {
        // A new cue per play (each builder call makes one).
        let cue = base.clone().pitch_range(1.0..=1.0 + i as f32 * 1e-6);
        let mut out: [Option<Chosen<'_>>; MAX_CUE_VOICES] = [None; MAX_CUE_VOICES];
        p.choose(&cue, &mut out);
    }
    assert!(p.states() < 200, "{} states kept", p.states());
}
