//! The import rule of docs/ARCHITECTURE.md, checked on the source: every
//! `crate::` path a file of `src/` names (outside its unit tests) reaches
//! a file of the same layer or a lower one, and the voice manager and the
//! renderer never name each other. A new file must be given a layer here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers, bottom first: a file may import its own layer and those
/// below it. Feature folders (space, bus, stream) hold files of several
/// layers: their plain types low, their audio half in the middle, their
/// game half at the top.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "leaf",
        &[
            "error.rs",
            "simd.rs",
            "prefault.rs",
            "alloc_check.rs",
            "math.rs",
        ],
    ),
    ("handles", &["handle.rs"]),
    (
        "sound",
        &[
            "sound/",
            "stream/source.rs",
            "stream/origin.rs",
            "stream/open.rs",
            "stream/wav.rs",
            "stream/loader.rs",
        ],
    ),
    ("protocol", &["protocol/"]),
    (
        "feature types",
        &[
            "space/mod.rs",
            "space/direct.rs",
            "space/air.rs",
            "bus/mod.rs",
            "cue/mod.rs",
            "cue/check.rs",
            "param/mod.rs",
            "snapshot/mod.rs",
        ],
    ),
    (
        "audio",
        &[
            "voices/",
            "render/",
            "bus/mix/",
            "bus/effects/",
            "stream/reader.rs",
            "space/positions.rs",
            "param/eval.rs",
        ],
    ),
    ("mixer", &["mixer/", "space/mix/", "stream/mix.rs"]),
    (
        "control",
        &[
            "control/",
            "space/control.rs",
            "bus/control.rs",
            "bus/effect_handles.rs",
            "stream/control.rs",
            "cue/control.rs",
            "cue/pick.rs",
            "cue/plays.rs",
            "param/control.rs",
            "snapshot/control.rs",
            "bank/",
        ],
    ),
    ("output", &["output/"]),
];

/// Files that only gather what others define (the crate root, the public
/// paths, test hooks): they may name anything.
const FACADES: &[&str] = &[
    "lib.rs",
    "compat.rs",
    "limits.rs",
    "bench_support/",
    "rtsan_selftest.rs",
    "stream/mod.rs",
];

/// The voice manager decides and never renders; the renderer renders and
/// never decides: neither names the other.
const VOICES: &[&str] = &["voices/"];
const RENDERING: &[&str] = &["render/", "bus/mix/", "bus/effects/", "stream/reader.rs"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/`-relative name with `/` separators.
fn rel(path: &Path) -> String {
    path.strip_prefix(src())
        .expect("under src")
        .to_string_lossy()
        .replace('\\', "/")
}

fn matches(file: &str, patterns: &[&str]) -> bool {
    patterns.iter().any(|p| {
        if p.ends_with('/') {
            file.starts_with(p)
        } else {
            file == *p
        }
    })
}

fn layer_of(file: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, files)| matches(file, files))
}

/// The file a `crate::a::b::...` path names: the longest prefix that is a
/// module file.
fn target_of(segments: &[&str]) -> Option<String> {
    for n in (1..=segments.len()).rev() {
        let stem = segments[..n].join("/");
        for candidate in [format!("{stem}.rs"), format!("{stem}/mod.rs")] {
            if src().join(&candidate).is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// The code of a file without comments and without its unit tests.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module path the code names after `crate::`, as segments
/// (`use crate::{a::b, c}` gives `a::b` and `c`).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let preceded = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| ident(c) || c == ':');
        rest = &rest[at + "crate::".len()..];
        if preceded {
            continue;
        }
        if let Some(inner) = rest.strip_prefix('{') {
            let end = inner.find('}').unwrap_or(inner.len());
            for part in inner[..end].split(',') {
                let path: Vec<String> = part
                    .trim()
                    .split("::")
                    .take_while(|s| !s.is_empty() && s.chars().all(ident))
                    .map(String::from)
                    .collect();
                if !path.is_empty() {
                    out.push(path);
                }
            }
            continue;
        }
        let end = rest
            .find(|c: char| !(ident(c) || c == ':'))
            .unwrap_or(rest.len());
        let path: Vec<String> = rest[..end]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

#[test]
fn the_path_reader_reads_paths() {
    let c = code("use crate::a::b; // crate::z\nuse crate::{c::d, e};\nfoo::crate::x;\n");
    let paths = crate_paths(&c);
    assert_eq!(paths, [vec!["a", "b"], vec!["c", "d"], vec!["e"]]);
}

/// What `file` (a `src/`-relative name) breaks of the rule by naming the
/// paths in `text`; files it names that have no layer go to `unplaced`.
fn violations(file: &str, text: &str, unplaced: &mut BTreeSet<String>) -> Vec<String> {
    let mut broken = Vec::new();
    let Some(layer) = layer_of(file) else {
        unplaced.insert(file.to_string());
        return broken;
    };
    for segments in crate_paths(&code(text)) {
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let Some(target) = target_of(&segments) else {
            continue; // an item at the crate root (a re-export)
        };
        if target == file || matches(&target, FACADES) {
            continue;
        }
        let Some(to) = layer_of(&target) else {
            unplaced.insert(target);
            continue;
        };
        let up = to > layer;
        let across = (matches(file, VOICES) && matches(&target, RENDERING))
            || (matches(file, RENDERING) && matches(&target, VOICES));
        if up || across {
            broken.push(format!(
                "{file} ({}) imports {target} ({})",
                LAYERS[layer].0, LAYERS[to].0
            ));
        }
    }
    broken
}

#[test]
fn imports_run_one_way() {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut broken = Vec::new();
    let mut unplaced = BTreeSet::new();
    for path in &all {
        let file = rel(path);
        if matches(&file, FACADES) || file.ends_with("/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("readable");
        broken.extend(violations(&file, &text, &mut unplaced));
    }
    assert!(unplaced.is_empty(), "files with no layer: {unplaced:?}");
    assert!(
        broken.is_empty(),
        "imports against the rule:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_rule_catches_what_it_must() {
    let mut unplaced = BTreeSet::new();
    let mut check = |file: &str, text: &str| violations(file, text, &mut unplaced).len();
    // Downwards and sideways within a layer: allowed.
    assert_eq!(
        check(
            "mixer/mod.rs",
            "use crate::voices::VoicePool;\nuse crate::render::voice::Voice;"
        ),
        0
    );
    assert_eq!(
        check(
            "control/mod.rs",
            "use crate::{mixer::Mixer, protocol::Command};"
        ),
        0
    );
    // The audio side naming the game side, protocol naming a feature, the
    // voice manager naming the renderer: caught.
    assert_eq!(
        check("mixer/commands.rs", "use crate::control::Controller;"),
        1
    );
    assert_eq!(
        check(
            "protocol/mod.rs",
            "use crate::{space::Listener, bus::BusSettings};"
        ),
        2
    );
    assert_eq!(
        check(
            "voices/victim.rs",
            "let x = crate::render::ramp::Ramp::new();"
        ),
        1
    );
    assert_eq!(check("render/tails.rs", "use crate::voices::VoicePool;"), 1);
    // Test code and comments are not imports.
    assert_eq!(check("mixer/mod.rs", "// crate::control::Controller\n#[cfg(test)]\nmod tests { use crate::control::Controller; }"), 0);
    assert!(unplaced.is_empty());
}
