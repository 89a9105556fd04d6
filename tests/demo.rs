//! The wand-swish demo, run as a person runs it (offline, as on a machine
//! with no sound card): it leaves a WAV of the spell and a timeline picture,
//! and with `--policy reject` the wand sometimes stays silent.
//!
//! Builds the demo (its own crate, `demo/`, in this workspace) with the same
//! cargo, into the same target directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use voicepool::Sound;

fn wand_swish() -> PathBuf {
    let name = "wand_swish";
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let out = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "voicepool-demo", "--bin", name])
            .args(["--profile", &cargo_profile()])
            .arg("--manifest-path")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .output()
            .map_err(|e| e.to_string())?;
        match out.status.success() {
            true => Ok(()),
            false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        }
    });
    if let Err(e) = built {
        panic!("cannot build the {name} demo: {e}");
    }
    profile_dir().join(name)
}

/// The directory this test binary was built into: target/debug/deps/demo-<hash>
/// -> target/debug (target/release under `cargo test --release`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// The cargo profile this test binary was built with, so that the demo is
/// built with it too, into the same directory: `dev` builds into `debug`,
/// every other profile into a directory of its own name.
fn cargo_profile() -> String {
    let dir = profile_dir();
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("debug");
    match name {
        "debug" => "dev".to_string(),
        other => other.to_string(),
    }
}

/// Runs the demo in `cwd` (where its default `out/` files go).
fn run_demo_in(cwd: &Path, args: &[&str]) -> (Output, String) {
    std::fs::create_dir_all(cwd).unwrap();
    let out = Command::new(wand_swish())
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the demo runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, stdout)
}

/// Runs the demo in the tests' scratch directory, never in the repository.
fn run_demo(args: &[&str]) -> (Output, String) {
    run_demo_in(Path::new(env!("CARGO_TARGET_TMPDIR")), args)
}

fn ok(out: &Output, stdout: &str) {
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    // The ambience loses its voice to the bursts, keeps time virtually
    // (dashed bars on the virtual row) and comes back between them.
    let (gone, back) = virtual_counts(&stdout);
    assert!(gone > 5 && back > 5, "{stdout}");
    assert!(picture.contains(">virtual<"), "a row for virtual voices");
    assert!(
        picture
            .matches("keeping time silently, then came back")
            .count()
            >= back - 1,
        "each virtual stretch is drawn"
    );
    assert!(picture.matches("back from virtual in slot").count() >= back - 1);
}

/// "N went virtual (M came back)" from the demo's summary.
fn virtual_counts(stdout: &str) -> (usize, usize) {
    let line = stdout.lines().find(|l| l.starts_with("done:")).unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == "went")
        .expect("went virtual");
    let gone = words[at - 1].parse().unwrap();
    let back = words[at + 2].trim_start_matches('(').parse().unwrap();
    (gone, back)
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
        &["--seconds", "-1"],
        &["--seconds", "601"],
        &["--offline", "--paced"],
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

#[test]
fn help_lists_every_flag_and_exits_cleanly() {
    for flag in ["--help", "-h"] {
        let (out, stdout) = run_demo(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        for name in [
            "--voices",
            "--seconds",
            "--policy",
            "--offline",
            "--paced",
            "--render",
            "--timeline",
        ] {
            assert!(
                stdout.contains(name),
                "{flag} does not mention {name}: {stdout}"
            );
        }
    }
}

#[test]
fn seconds_must_be_above_zero_and_the_message_says_so() {
    let (out, _) = run_demo(&["--seconds", "0", "--offline"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("above 0, at most 600"), "{stderr}");
    assert!(
        stderr.contains("usage:") && stderr.contains("0 < S <= 600"),
        "{stderr}"
    );
    // The smallest accepted value renders.
    let wav = tmp("tiny.wav");
    let (out, stdout) = run_demo(&["--seconds", "0.01", "--render", wav.to_str().unwrap()]);
    ok(&out, &stdout);
    assert!(wav.exists());
}

#[test]
fn paced_mode_renders_on_the_wall_clock_the_same_spell_as_offline() {
    let (paced_wav, paced_svg, fast_wav) = (tmp("paced.wav"), tmp("paced.svg"), tmp("fast.wav"));
    let seconds = 1.5;
    let started = Instant::now();
    let (out, stdout) = run_demo(&[
        "--paced",
        "--seconds",
        "1.5",
        "--render",
        paced_wav.to_str().unwrap(),
        "--timeline",
        paced_svg.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    ok(&out, &stdout);
    assert!(
        took >= Duration::from_secs_f64(seconds),
        "paced: {took:?} for {seconds} s of spell"
    );
    assert!(
        stdout.contains("in real time, as it would play live"),
        "{stdout}"
    );
    assert!(
        stdout.contains("slot 11") && stdout.contains("t =   1.50 s"),
        "the pool, at the end: {stdout}"
    );
    assert!(
        stdout.contains(&format!("wrote {}", paced_wav.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("wrote {}", paced_svg.display())),
        "{stdout}"
    );

    let (out, stdout) = run_demo(&[
        "--offline",
        "--seconds",
        "1.5",
        "--render",
        fast_wav.to_str().unwrap(),
    ]);
    ok(&out, &stdout);
    let (paced, fast) = (
        std::fs::read(&paced_wav).unwrap(),
        std::fs::read(&fast_wav).unwrap(),
    );
    assert!(paced.len() > 200_000, "1.5 s of 16-bit stereo");
    assert!(paced == fast, "pacing changes when, not what");
}

#[test]
fn default_output_names_carry_the_policy() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("demo-names");
    let _ = std::fs::remove_dir_all(&dir);
    for policy in ["quietest", "reject", "oldest"] {
        let (out, stdout) = run_demo_in(&dir, &["--offline", "--seconds", "1", "--policy", policy]);
        ok(&out, &stdout);
        for ext in ["wav", "svg"] {
            let name = format!("out/wand_swish_{policy}.{ext}");
            assert!(stdout.contains(&format!("wrote {name}")), "{stdout}");
            assert!(dir.join(&name).exists(), "{name}");
        }
    }
    let read = |p: &str| std::fs::read(dir.join("out").join(p)).unwrap();
    assert!(
        read("wand_swish_quietest.wav") != read("wand_swish_reject.wav"),
        "reject did not overwrite the quietest run"
    );
    let (out, stdout) = run_demo_in(
        &dir,
        &[
            "--seconds",
            "1",
            "--render",
            "mine.wav",
            "--timeline",
            "mine.svg",
        ],
    );
    ok(&out, &stdout);
    assert!(dir.join("mine.wav").exists() && dir.join("mine.svg").exists());
}

/// scripts/demo.sh with a stand-in `cargo` that prints what it was given.
fn demo_script(args: &[&str]) -> String {
    let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fake-cargo");
    std::fs::create_dir_all(&bin).unwrap();
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, "#!/bin/sh\necho \"cargo $*\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/demo.sh"))
        .args(args)
        .env("PATH", path)
        .env("VOICEPOOL_SKIP_SETUP", "1")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_demo_script_takes_offline_anywhere_and_otherwise_paces_without_a_device() {
    for args in [
        &["--offline", "--policy", "reject"][..],
        &["--policy", "reject", "--offline"],
        &["--offline"],
        &["--seconds", "2", "--offline", "--policy", "reject"],
    ] {
        let ran = demo_script(args);
        let line = ran
            .lines()
            .find(|l| l.starts_with("cargo "))
            .expect("cargo ran");
        assert!(
            line.contains("run --release -p voicepool-demo --"),
            "{line}"
        );
        assert!(
            line.contains("--offline") && !line.contains("--paced"),
            "{args:?}: {line}"
        );
        assert!(
            line.ends_with(&args.join(" ")),
            "{args:?} passed on as given: {line}"
        );
    }
    // With no sound card or server here, no --offline means --paced.
    let no_device = !std::fs::read_to_string("/proc/asound/cards")
        .unwrap_or_default()
        .lines()
        .any(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        && std::env::var_os("XDG_RUNTIME_DIR").is_none();
    if no_device {
        let line = demo_script(&["--policy", "oldest"]);
        assert!(line.contains("-- --paced --policy oldest"), "{line}");
    }
}
