//! The guide quotes speed figures from one place, BENCHMARKS.md, so that
//! they cannot drift apart: every time in nanoseconds or microseconds
//! the guide states must stand in BENCHMARKS.md as well.

use std::path::Path;

/// Every `<number> ns` or `<number> µs` (or `us`) in `text`, as the number
/// written.
fn figures(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    for pair in words.windows(2) {
        let unit = pair[1].trim_end_matches([',', '.', ')', ';', ':', '*']);
        if !matches!(unit, "ns" | "µs" | "us") {
            continue;
        }
        let number = pair[0].trim_start_matches(['(', '*']);
        if !number.is_empty()
            && number
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
        {
            found.push(number.to_string());
        }
    }
    found
}

/// Whether `number` stands in `text` as a number of its own (not as a
/// piece of a longer one: 27 is not in 0.279).
fn stands_in(text: &str, number: &str) -> bool {
    let digit = |c: char| c.is_ascii_digit() || c == '.' || c == ',';
    text.match_indices(number).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + number.len()..].chars().next();
        // (A full stop after it ends a sentence.)
        let after_ok = match after {
            Some('.') => !text[at + number.len() + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit()),
            Some(c) => !digit(c),
            None => true,
        };
        !before.is_some_and(digit) && after_ok
    })
}

#[test]
fn the_figures_finder_finds_figures() {
    assert!(stands_in("0.279 and 31 ns.", "31") && !stands_in("0.279", "27"));
    assert!(!stands_in("1.36", "1.3") && stands_in("a 1.3.", "1.3"));
    assert_eq!(
        figures("**808 ns** (909 ns with, 1.19 µs among) and 3 voices, 28 us."),
        ["808", "909", "1.19", "28"]
    );
}

#[test]
fn every_speed_figure_in_the_guide_stands_in_benchmarks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let benchmarks = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir(root.join("docs/guide")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for figure in figures(&text) {
            assert!(
                stands_in(&benchmarks, &figure),
                "{}: {figure} is not in BENCHMARKS.md (quote it from there)",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 5, "only {checked} figures found");
}
