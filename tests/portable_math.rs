//! An offline render gives the same bits on every platform (natively and
//! in WebAssembly: `scripts/wasm_scene.sh`) only if the library computes
//! its sines, powers and logarithms with the same code everywhere. std's
//! `f32::sin`, `f64::powf` and the rest call the platform's libm, which
//! may round differently; `src/math.rs` has the `libm` crate's, as
//! `lm_sin`, `lm_powf`, ... This checks, on the source, that no code of
//! `src/` (outside unit tests, test files and comments) calls std's.

use std::path::{Path, PathBuf};

/// std's float methods whose results a platform's libm decides.
const PLATFORM_MATH: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sin_cos", "sinh", "cosh", "tanh", "exp",
    "exp2", "exp_m1", "ln", "ln_1p", "log", "log2", "log10", "powf", "powi", "cbrt", "hypot",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each `.name(` call of platform math in `text` (code only: no comment,
/// no unit test module), as (line, name).
fn platform_calls(text: &str) -> Vec<(usize, &'static str)> {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut found = Vec::new();
    for (k, line) in code.lines().enumerate() {
        let line = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        for name in PLATFORM_MATH {
            if line.contains(&format!(".{name}(")) {
                found.push((k + 1, *name));
            }
        }
    }
    found
}

#[test]
fn the_library_computes_with_the_same_math_everywhere() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut calls = Vec::new();
    for path in &all {
        let name = path
            .strip_prefix(&src)
            .expect("in src")
            .to_string_lossy()
            .into_owned();
        // The wrappers themselves, test files, and the output's own
        // diagnostics are not the mix.
        if name == "math.rs" || name.ends_with("tests.rs") || name.starts_with("output/cpal/") {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("read");
        for (line, call) in platform_calls(&text) {
            calls.push(format!(
                "src/{name}:{line}: .{call}(), use .lm_{call}() (src/math.rs)"
            ));
        }
    }
    assert!(all.len() > 50, "src/ not found: {}", src.display());
    assert!(
        calls.is_empty(),
        "platform math in the library:\n{}",
        calls.join("\n")
    );
}

#[test]
fn the_check_finds_a_call_and_skips_comments_and_tests() {
    let text = "fn f(x: f32) -> f32 { x.powf(2.0) } // x.sin()\n/// y.cos()\n#[cfg(test)]\nmod tests { fn g() { 1f32.exp(); } }";
    assert_eq!(platform_calls(text), [(1, "powf")]);
    assert!(platform_calls("fn f(x: f32) -> f32 { x.lm_sin() }").is_empty());
}
