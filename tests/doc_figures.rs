//! Speed figures live in one place, BENCHMARKS.md, so that the docs cannot
//! drift from it. The guide (docs/guide/) types none: it quotes them with
//! mdBook's `{{#include ../../BENCHMARKS.md:NAME}}`, between the
//! `<!-- ANCHOR: NAME -->` and `<!-- ANCHOR_END: NAME -->` markers there.
//! These tests check that no chapter types a time in nanoseconds or
//! microseconds, that every file and anchor a chapter includes exists,
//! that every chapter runs as a doc test, and that the figures the README
//! gives stand in BENCHMARKS.md.

use std::path::{Path, PathBuf};

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

/// Every `{{#include PATH}}` or `{{#include PATH:ANCHOR}}` in `text`:
/// the path and the anchor, if one is named. (A line range, `PATH:3:8`,
/// is not an anchor.)
fn includes(text: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{#include") {
        let after = &rest[at + "{{#include".len()..];
        let end = after.find("}}").expect("an {{#include without its }}");
        let target = after[..end].trim();
        let (path, anchor) = match target.split_once(':') {
            Some((path, anchor)) if !anchor.starts_with(|c: char| c.is_ascii_digit()) => {
                (path, Some(anchor.to_string()))
            }
            Some((path, _)) => (path, None),
            None => (target, None),
        };
        found.push((path.to_string(), anchor));
        rest = &after[end..];
    }
    found
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The guide's chapters (every `.md` file in docs/guide/), with their text.
fn chapters() -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root().join("docs/guide")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            found.push((path, text));
        }
    }
    assert!(found.len() > 5, "only {} chapters found", found.len());
    found
}

#[test]
fn the_finders_find_figures_and_includes() {
    assert!(stands_in("0.279 and 31 ns.", "31") && !stands_in("0.279", "27"));
    assert!(!stands_in("1.36", "1.3") && stands_in("a 1.3.", "1.3"));
    assert_eq!(
        figures("**808 ns** (909 ns with, 1.19 µs among) and 3 voices, 28 us."),
        ["808", "909", "1.19", "28"]
    );
    assert!(
        figures("a 5 ms fade, 10 ms blocks, {{#include ../../BENCHMARKS.md:mixing}}").is_empty()
    );
    assert_eq!(
        includes(
            "a\n{{#include ../../BENCHMARKS.md:mixing}}\n{{#include x.rs:2:5}} {{#include y.md}}"
        ),
        [
            (
                "../../BENCHMARKS.md".to_string(),
                Some("mixing".to_string())
            ),
            ("x.rs".to_string(), None),
            ("y.md".to_string(), None),
        ]
    );
}

#[test]
fn no_chapter_types_a_speed_figure() {
    for (path, text) in chapters() {
        let typed = figures(&text);
        assert!(
            typed.is_empty(),
            "{}: types {typed:?} (ns or µs): quote the figure from BENCHMARKS.md instead, \
             with {{{{#include ../../BENCHMARKS.md:NAME}}}} and <!-- ANCHOR: NAME --> / \
             <!-- ANCHOR_END: NAME --> around it there",
            path.display()
        );
    }
}

#[test]
fn every_file_and_anchor_the_guide_includes_exists() {
    let mut anchors = 0;
    for (path, text) in chapters() {
        for (file, anchor) in includes(&text) {
            let included = path.parent().unwrap().join(&file);
            let content = std::fs::read_to_string(&included).unwrap_or_else(|e| {
                panic!("{} includes {}: {e}", path.display(), included.display())
            });
            let Some(name) = anchor else { continue };
            for marker in [
                format!("<!-- ANCHOR: {name} -->"),
                format!("<!-- ANCHOR_END: {name} -->"),
            ] {
                assert!(
                    content.lines().any(|line| line.trim() == marker),
                    "{} includes {file}:{name}, but {file} has no line `{marker}`",
                    path.display()
                );
            }
            if file.ends_with("BENCHMARKS.md") {
                anchors += 1;
            }
        }
    }
    assert!(
        anchors > 5,
        "the guide quotes only {anchors} passages of BENCHMARKS.md"
    );
}

#[test]
fn every_chapter_runs_as_a_doc_test() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let summary = std::fs::read_to_string(root().join("docs/guide/SUMMARY.md")).unwrap();
    for (path, _) in chapters() {
        let name = path.file_name().unwrap().to_str().unwrap();
        if name == "SUMMARY.md" {
            continue;
        }
        assert!(
            lib.contains(&format!("include_str!(\"../docs/guide/{name}\")")),
            "docs/guide/{name} is not in src/lib.rs's `guide` module, so its code is not tested"
        );
        assert!(
            summary.contains(&format!("({name})")),
            "docs/guide/{name} is not in SUMMARY.md, so the book leaves it out"
        );
    }
}

#[test]
fn every_speed_figure_in_the_readme_stands_in_benchmarks() {
    let benchmarks = std::fs::read_to_string(root().join("BENCHMARKS.md")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for figure in figures(&readme) {
        assert!(
            stands_in(&benchmarks, &figure),
            "README.md: {figure} is not in BENCHMARKS.md (quote it from there)"
        );
    }
}
