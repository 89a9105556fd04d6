//! Every code example a user reads (the README, the docs) compiles as a
//! user would paste it into a game that depends on voicepool_bevy alone:
//! none names the `voicepool` crate directly (it is
//! `voicepool_bevy::voicepool`, or the prelude). The doc tests compile
//! them, but with voicepool in reach; this checks what they name.

use std::path::Path;

/// Code lines of the examples in `text` (Markdown, or a Rust file's doc
/// comments) that name `voicepool::` directly, with their line numbers.
fn direct_uses(text: &str, rust: bool) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_code = false;
    for (n, line) in text.lines().enumerate() {
        let doc = if rust {
            let t = line.trim_start();
            match t.strip_prefix("///").or_else(|| t.strip_prefix("//!")) {
                Some(d) => d.trim_start(),
                None => continue,
            }
        } else {
            line.trim_start()
        };
        if doc.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            continue;
        }
        let named = doc.match_indices("voicepool::").any(|(at, _)| {
            !doc[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
        });
        if named {
            found.push((n + 1, doc.to_string()));
        }
    }
    found
}

#[test]
fn the_check_finds_a_direct_use() {
    let md = "text\n```rust\nuse voicepool::Sound;\nuse voicepool_bevy::voicepool::Sound;\n```\n";
    assert_eq!(
        direct_uses(md, false),
        [(3, "use voicepool::Sound;".to_string())]
    );
    let rs = "/// ```\n/// # use voicepool::PlayParams;\n/// ```\nuse voicepool::X;\n";
    assert_eq!(direct_uses(rs, true).len(), 1);
}

#[test]
fn no_example_names_the_voicepool_crate_directly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("src")).unwrap() {
        files.push(entry.unwrap().path());
    }
    let mut bad = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let rust = file.extension().is_some_and(|e| e == "rs");
        for (line, code) in direct_uses(&text, rust) {
            bad.push(format!("{}:{line}: {code}", file.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "examples a user pastes must name voicepool_bevy::voicepool (or the prelude):\n{}",
        bad.join("\n")
    );
}
