//! The regrets of each steal, and what the example prints: regret
//! statistics (plain and masked, masking off against on), the share of the
//! most audible plays that are real, and the audible window's cost and
//! saving.

use super::*;

/// The real voices `live` as (future, start frame), in a fixed order.
pub fn sounding(
    live: &HashMap<VoiceHandle, (u64, u64)>,
    alive: &HashMap<VoiceHandle, u64>,
    which: &HashMap<VoiceHandle, usize>,
) -> Vec<(usize, u64)> {
    let mut v: Vec<_> = live
        .iter()
        .map(|(h, &(_, s))| (which[h], alive.get(h).copied().unwrap_or(s)))
        .collect();
    v.sort_unstable();
    v
}

/// Scores a run's `steals` (those with a choice) into `r`; returns how many.
pub fn score(steals: &[Steal], plays: &[Play], futures: &[Future], r: &mut Regrets) -> usize {
    let mut n = 0;
    for s in steals.iter().filter(|s| s.candidates.len() > 1) {
        n += 1;
        let oldest = s.candidates.iter().min_by_key(|c| c.0).map(|c| c.3);
        let set_volume = s
            .candidates
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
            .map(|c| c.3);
        let heard_now = |c: &(u64, f32, u64, usize)| plays[c.3].heard_now(s.frame - c.2);
        let distance_now = s
            .candidates
            .iter()
            .min_by(|a, b| heard_now(a).total_cmp(&heard_now(b)).then(a.0.cmp(&b.0)))
            .map(|c| c.3);
        let choices = [Some(s.chosen), oldest, set_volume, distance_now];
        for (h, &ms) in HORIZONS_MS.iter().enumerate() {
            let len = secs(ms as f32 / 1000.0);
            let loss =
                |i: usize, start: u64| futures[i].loss((s.frame - start) as usize, len).max(FLOOR);
            let start_of = |i: usize| {
                s.candidates
                    .iter()
                    .find(|c| c.3 == i)
                    .map(|c| c.2)
                    .unwrap_or(s.frame)
            };
            let best = s
                .candidates
                .iter()
                .map(|c| loss(c.3, c.2))
                .fold(f64::INFINITY, f64::min);
            for (k, choice) in choices.into_iter().enumerate() {
                if let Some(i) = choice {
                    let regret = 10.0 * (loss(i, start_of(i)) / best).log10();
                    r.plain[h][k].push(regret);
                }
            }
        }
        // Masked, 300 ms: what of each candidate stays audible above the
        // others sounding after the steal (the victim gone, or `kept`).
        let (from, len) = (s.frame as usize / HOP, secs(0.3) / HOP);
        let audible = |i: usize, kept: bool| {
            let start = s
                .sounding
                .iter()
                .find(|v| v.0 == i)
                .map_or(s.frame, |v| v.1);
            let maskers: Vec<Sounding> = s
                .sounding
                .iter()
                .chain([&s.by])
                .filter(|v| v.0 != i && (kept || v.0 != s.chosen))
                .map(|&(j, start)| (&futures[j].bands, start))
                .collect();
            masking::audible((&futures[i].bands, start), &maskers, from, len).max(FLOOR)
        };
        for (kept, out) in [(false, &mut r.masked), (true, &mut r.kept)] {
            let each: Vec<(usize, f64)> = s
                .candidates
                .iter()
                .map(|c| (c.3, audible(c.3, kept)))
                .collect();
            let best = each.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
            for (k, choice) in choices.into_iter().enumerate() {
                if let Some(i) = choice {
                    let a = each
                        .iter()
                        .find(|c| c.0 == i)
                        .map_or_else(|| audible(i, kept), |c| c.1);
                    out[k].push(10.0 * (a / best).log10());
                }
            }
        }
    }
    n
}

/// One scenario's regrets (dB) in one run, per ranking: voicepool's own
/// choice, oldest, set volume, set volume x distance gain now.
#[derive(Default)]
pub struct Regrets {
    /// Plain (the loss is the candidate's whole future), per horizon.
    pub plain: [[Vec<f64>; 4]; 3],
    /// Masked, 300 ms: what of it stays audible above the voices sounding
    /// after the steal.
    pub masked: [Vec<f64>; 4],
    /// The same with the victim kept among the maskers.
    pub kept: [Vec<f64>; 4],
}

/// A scenario with virtual voices, and per block the share of the most
/// audible plays alive that were real (and whether more were alive than
/// voices), masking off and on.
pub type Shares<'a> = (&'a str, [Vec<(f64, bool)>; 2]);

/// Per scenario name: its regrets with masking off and on.
pub type ByScenario<'a> = [(&'a str, [Regrets; 2])];

const HEADER: &str = "| scenario | steals | voicepool Quietest | set volume x distance now \
                      (FMOD, Wwise) | set volume | oldest first |\n| --- | --- | --- | --- | --- | --- |";

/// A table row: steals, then the rankings as the header has them.
fn row(name: &str, r: &[Vec<f64>; 4]) {
    println!(
        "| {name} | {} | {} | {} | {} | {} |",
        r[0].len(),
        stats(r[0].clone()),
        stats(r[3].clone()),
        stats(r[2].clone()),
        stats(r[1].clone())
    );
}

/// The four rankings' regret on the states of the run with masking on:
/// plain at each horizon, then masked at 300 ms (and, its **all** row only,
/// masked with the victim kept among the maskers).
pub fn report_regrets(by_scenario: &ByScenario) {
    for (h, ms) in HORIZONS_MS.iter().enumerate() {
        let title = format!("oracle horizon {ms} ms");
        table(&title, by_scenario, true, |r| &r.plain[h]);
    }
    let masked = "masked regret (only what stays audible above the voices sounding after the \
                  steal), oracle horizon 300 ms";
    table(masked, by_scenario, true, |r| &r.masked);
    let kept = "masked regret with the victim kept among the maskers (as had the candidate been \
                cut instead), oracle horizon 300 ms";
    table(kept, by_scenario, false, |r| &r.kept);
}

/// One table of the run with masking on: a row per scenario (if `rows`),
/// then all of them.
fn table(
    title: &str,
    by_scenario: &ByScenario,
    rows: bool,
    pick: impl Fn(&Regrets) -> &[Vec<f64>; 4],
) {
    println!("{title}: regret in dB (mean | median | p90 | share within 1 dB)\n\n{HEADER}");
    let mut totals: [Vec<f64>; 4] = Default::default();
    for (name, r) in by_scenario {
        if rows {
            row(name, pick(&r[1]));
        }
        for (t, v) in totals.iter_mut().zip(pick(&r[1])) {
            t.extend(v);
        }
    }
    row("**all**", &totals);
    println!();
}

/// The engine's own choice with masking off against on: plain regret
/// (300 ms oracle) and masked regret, per scenario.
pub fn report_masking(by_scenario: &ByScenario) {
    println!(
        "voicepool's choice, masking off against on (each run on its own states): regret in dB, \
         300 ms oracle (mean | median | p90 | share within 1 dB)\n"
    );
    println!(
        "| scenario | steals off | steals on | plain, off | plain, on | masked, off | masked, on |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let mut all: [Vec<f64>; 4] = Default::default();
    let line = |name: &str, cells: [&Vec<f64>; 4]| {
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} |",
            cells[0].len(),
            cells[1].len(),
            stats(cells[0].clone()),
            stats(cells[1].clone()),
            stats(cells[2].clone()),
            stats(cells[3].clone())
        );
    };
    for (name, [off, on]) in by_scenario {
        let cells = [
            &off.plain[1][0],
            &on.plain[1][0],
            &off.masked[0],
            &on.masked[0],
        ];
        line(name, cells);
        for (a, c) in all.iter_mut().zip(cells) {
            a.extend(c);
        }
    }
    let [a, b, c, d] = &all;
    line("**all**", [a, b, c, d]);
    println!();
}

/// With virtual voices: the share of the most audible plays alive that
/// were real, masking off and on.
pub fn report_shares(most_audible: &[Shares]) {
    for (name, runs) in most_audible {
        for (run, shares) in ["off", "on"].iter().zip(runs) {
            let share = |only_pressed: bool| {
                let picked: Vec<f64> = shares
                    .iter()
                    .filter(|s| s.1 || !only_pressed)
                    .map(|s| s.0)
                    .collect();
                let n = picked.len().max(1) as f64;
                (100.0 * picked.iter().sum::<f64>() / n, picked.len())
            };
            let ((all, blocks), (pressed, pressed_blocks)) = (share(false), share(true));
            println!(
                "virtual voices, {name}, masking {run}: of the most audible plays alive (as many \
                 as the pool has voices; by the oracle's next 300 ms), {all:.1} % were real, \
                 time-weighted over {blocks} blocks; {pressed:.1} % over the {pressed_blocks} \
                 blocks with more plays alive than voices"
            );
        }
    }
}

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
/// the window (on the same seeds, masking on), the render time per block,
/// the steal regret (300 ms oracle), and how far below the mix the
/// difference the window made to it lies (K-weighted, both channels; per
/// seed, the closest).
pub fn report_windows(windows: &[Windowed], by_scenario: &ByScenario) {
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
                let r = &s.1[1].plain[1][0];
                r.iter().sum::<f64>() / r.len().max(1) as f64
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
