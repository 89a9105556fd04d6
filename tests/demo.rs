//! The wand-swish demo, run as a person runs it (offline, as on a machine
//! with no sound card): it leaves a WAV of the spell and a timeline picture,
//! and with `--policy reject` the wand sometimes stays silent.
//!
//! Builds the example binary with the same cargo (examples built by
//! `cargo test --all-targets` are test harnesses, not the program itself).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use voicepool::Sound;

fn wand_swish() -> PathBuf {
    let name = "wand_swish";
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let out = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--example", name, "--manifest-path"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .output()
            .map_err(|e| e.to_string())?;
        match out.status.success() {
            true => Ok(()),
            false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        }
    });
    if let Err(e) = built {
        panic!("cannot build the {name} example: {e}");
    }
    // target/debug/deps/demo-<hash>  ->  target/debug/examples/<name>
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    profile_dir.join("examples").join(name)
}

fn run_demo(args: &[&str]) -> (Output, String) {
    let out = Command::new(wand_swish())
        .args(args)
        .output()
        .expect("the demo runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, stdout)
}

fn tmp(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// "the wand swished N of M times" from the demo's summary.
fn swished(stdout: &str) -> (u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("done:"))
        .expect("a summary line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "swished").expect("swished");
    (
        words[at + 1].parse().unwrap(),
        words[at + 3].parse().unwrap(),
    )
}

#[test]
fn the_demo_renders_the_spell_and_draws_the_timeline() {
    let (wav, svg) = (tmp("demo.wav"), tmp("demo.svg"));
    let (out, stdout) = run_demo(&[
        "--render",
        wav.to_str().unwrap(),
        "--timeline",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("wrote {}", wav.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("slot 11"),
        "shows the pool, one line per slot"
    );

    let spell = Sound::from_wav_file(&wav).unwrap();
    assert_eq!((spell.channels(), spell.sample_rate()), (2, 48_000));
    assert!((spell.duration_seconds() - 12.0).abs() < 0.01);
    let loud = spell.samples().iter().filter(|s| s.abs() > 0.1).count();
    assert!(loud > 10_000, "the spell is audible ({loud} loud samples)");
    let (heard, cast) = swished(&stdout);
    assert!(
        cast > 10 && heard == cast,
        "quietest stealing keeps every swish"
    );

    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.trim_end().ends_with("</svg>"));
    assert!(picture.contains(">slot 11<"), "one row per slot");
    assert!(
        picture.matches("stolen by").count() > 50,
        "steals are marked"
    );
    assert!(
        picture.contains(">swish<") && picture.contains(">ambience<"),
        "bars are labelled"
    );
    // Each voice's ranking level is drawn inside its bar, and a steal's
    // tooltip says the victim's level.
    assert!(
        picture.matches(r#"fill-opacity="0.45""#).count() > 50,
        "levels are drawn inside the bars"
    );
    assert!(picture.contains("its level -"), "steals say the level");
}

#[test]
fn with_reject_the_wand_sometimes_stays_silent() {
    let wav = tmp("reject.wav");
    let (out, stdout) = run_demo(&["--policy", "reject", "--render", wav.to_str().unwrap()]);
    assert!(out.status.success(), "{stdout}");
    let (heard, cast) = swished(&stdout);
    assert!(
        heard < cast,
        "some swishes were rejected: {heard} of {cast}"
    );
}

#[test]
fn bad_flags_are_explained_not_a_panic() {
    for args in [
        &["--voices", "0"][..],
        &["--seconds", "nan"],
        &["--policy", "loudest"],
        &["--render"],
        &["--frobnicate", "1"],
    ] {
        let (out, _) = run_demo(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("usage:"), "{args:?}: {stderr}");
    }
}
