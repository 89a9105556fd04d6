//! What the example prints: regret statistics, and the audible window's
//! cost and saving.

use super::*;

/// Regrets as "mean | median | p90 | share within 1 dB".
pub fn stats(mut regrets: Vec<f64>) -> String {
    if regrets.is_empty() {
        return "n/a".into();
    }
    regrets.sort_by(f64::total_cmp);
    let n = regrets.len();
    let mean = regrets.iter().sum::<f64>() / n as f64;
    let within = regrets.iter().filter(|&&r| r <= 1.0).count() as f64 / n as f64;
    format!(
        "{mean:5.1} | {:5.1} | {:5.1} | {:3.0} %",
        regrets[n / 2],
        regrets[(n * 9 / 10).min(n - 1)],
        100.0 * within
    )
}

/// A run of a scene made with and without the audible window: (pair
/// name, seed, window, mix, seconds per block).
pub type Windowed<'a> = (&'a str, u64, Option<f32>, Vec<f32>, f64);

/// The audible window's cost and saving: per scene run without and with
/// the window (on the same seeds), the render time per block, the steal
/// regret (300 ms oracle), and how far below the mix the difference the
/// window made to it lies (K-weighted, both channels; per seed, the
/// closest).
pub fn report_windows(windows: &[Windowed], by_scenario: &[(&str, [[Vec<f64>; 4]; 3])]) {
    let kpower = |x: &[f32]| {
        let mut total = 0.0;
        for c in 0..2 {
            let mut ch: Vec<f64> = x.iter().skip(c).step_by(2).map(|&v| f64::from(v)).collect();
            k_weight(&mut ch);
            total += ch.iter().map(|v| v * v).sum::<f64>();
        }
        total
    };
    let regret = |label: &str| {
        by_scenario
            .iter()
            .find(|s| s.0 == label)
            .map_or(f64::NAN, |s| {
                s.1[1][0].iter().sum::<f64>() / s.1[1][0].len().max(1) as f64
            })
    };
    let mut names: Vec<&str> = windows.iter().map(|w| w.0).collect();
    names.dedup();
    for name in names {
        let mut windows_on: Vec<f32> = windows.iter().filter_map(|w| w.2).collect();
        windows_on.sort_by(f32::total_cmp);
        windows_on.dedup();
        for window in windows_on {
            let (mut t_off, mut t_on, mut closest, mut seeds) = (0.0, 0.0, f64::INFINITY, 0);
            for off in windows.iter().filter(|w| w.0 == name && w.2.is_none()) {
                let Some(on) = windows
                    .iter()
                    .find(|w| w.0 == name && w.1 == off.1 && w.2 == Some(window))
                else {
                    continue;
                };
                let diff: Vec<f32> = on.3.iter().zip(&off.3).map(|(a, b)| a - b).collect();
                let below = 10.0 * (kpower(&off.3) / kpower(&diff).max(1e-30)).log10();
                closest = closest.min(below);
                t_off += off.4;
                t_on += on.4;
                seeds += 1;
            }
            let on_label = format!("{name}, window {window} dB");
            println!(
                "audible window, {name}, {window} dB, {seeds} seeds: {:.1} us per block against \
                 {:.1} without ({:.0} % saved); steal regret (300 ms oracle) {:.2} dB against \
                 {:.2}; what the window took out of the mix is {:.1} dB below it (K-weighted; \
                 the closest seed)",
                t_on / f64::from(seeds) * 1e6,
                t_off / f64::from(seeds) * 1e6,
                100.0 * (1.0 - t_on / t_off),
                regret(&on_label),
                regret(name),
                closest
            );
        }
    }
}
