//! Sound banks as a game and a sound designer use them: the sample bank's
//! every cue plays, its parameters and snapshot work; a broken bank's
//! problems are all reported, each with its file, line and field, and
//! nothing is made; a bank loaded again finds its parameters.

use std::path::{Path, PathBuf};
use std::time::Duration;

use voicepool::{BankSource, BusHandle, EngineSettings, Event, OfflineEngine, PlayParams, Sound};

fn engine() -> (OfflineEngine, BusHandle) {
    let e = OfflineEngine::new(EngineSettings::default()).expect("engine");
    let hall = e.create_bus().expect("hall");
    (e, hall)
}

/// A folder of this test's own, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("voicepool-banks-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("dir");
        Dir(d)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("write");
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn every_cue_of_the_sample_bank_plays_and_its_parameters_and_snapshot_work() {
    let (mut e, hall) = engine();
    let bank = e
        .load_bank("samples/bank.toml", &[("hall", hall)])
        .expect("the sample bank loads");
    let names: Vec<String> = bank.cue_names().map(str::to_owned).collect();
    assert!(names.len() >= 4, "{names:?}");
    for name in &names {
        let cue = bank.cue(name).expect("cue");
        let h = e.play_cue(cue, PlayParams::default()).expect(name);
        let out = e.render(4_800).to_vec();
        let peak = out.iter().fold(0.0f32, |m, s| m.max(s.abs()));
        assert!(peak > 1e-3, "{name}: silent ({peak})");
        let events: Vec<Event> = e.drain_events().collect();
        assert!(
            events.contains(&Event::Started { voice: h }),
            "{name}: {events:?}"
        );
        e.stop(h).expect("stop");
        e.render(4_800);
        e.drain_events().for_each(drop);
    }
    // Its parameters are the engine's, by name.
    for p in ["wind", "depth"] {
        assert_eq!(bank.param(p), e.param_named(p), "{p}");
        assert!(bank.param(p).is_some(), "{p}");
    }
    // The wind's parameter makes it louder.
    let wind = bank.param("wind").expect("wind");
    let level = |e: &mut OfflineEngine| {
        let out = e.render(9_600).to_vec();
        (out.iter().map(|s| s * s).sum::<f32>() / out.len() as f32).sqrt()
    };
    e.set_param(wind, 0.0, Duration::ZERO).expect("calm");
    let h = e
        .play_cue(bank.cue("wind").expect("wind"), PlayParams::default())
        .expect("wind");
    e.render(4_800);
    let calm = level(&mut e);
    e.set_param(wind, 1.0, Duration::ZERO).expect("gale");
    e.render(4_800);
    let gale = level(&mut e);
    assert!(gale > 10.0 * calm, "calm {calm}, gale {gale}");
    // The snapshot turns the master down (0.5: -6 dB).
    let muffled = bank.snapshot("muffled").expect("muffled");
    e.start_snapshot(muffled, Duration::ZERO).expect("start");
    e.render(4_800);
    let under = level(&mut e);
    assert!((under / gale - 0.5).abs() < 0.1, "{under} against {gale}");
    e.stop(h).expect("stop");
}

#[test]
fn a_broken_bank_reports_every_problem_with_its_line_and_field_and_makes_nothing() {
    let dir = Dir::new("broken");
    std::fs::copy("samples/footstep.wav", dir.0.join("step.wav")).expect("copy");
    let text = r#"[params]
speed = 0.0

[cues.ok]
sounds = ["step.wav"]

[cues.gone]
sounds = ["step.wav", "no_such.wav"]

[cues.empty]
sounds = []

[cues.mapped]
sounds = ["step.wav"]
[[cues.mapped.maps]]
param = "sped"
target = "pitch"
curve = [[0.0, 1.0]]
[[cues.mapped.maps]]
param = "speed"
target = "send"
bus = "reverb"
curve = [[0.0, 1.0]]

[snapshots.quiet]
bus_volumes = { music = 0.5 }
"#;
    let file = dir.write("bank.toml", text);
    let (e, hall) = engine();
    let err = e.load_bank(&file, &[("hall", hall)]).unwrap_err();
    let got: Vec<(usize, &str)> = err
        .problems()
        .iter()
        .map(|p| (p.line, p.field.as_str()))
        .collect();
    let want = [
        (8, "cues.gone.sounds[1]"),
        (11, "cues.empty.sounds"),
        (16, "cues.mapped.maps[0].param"),
        (22, "cues.mapped.maps[1].bus"),
        (26, "snapshots.quiet.bus_volumes.music"),
    ];
    assert_eq!(got, want, "{err}");
    for p in err.problems() {
        assert_eq!(p.file, file);
        assert!(!p.reason.is_empty());
    }
    // The text names the file, the line and the field of each.
    let shown = err.to_string();
    assert!(shown.contains(&format!("{}:8:", file.display())), "{shown}");
    assert!(shown.contains("no_such.wav"), "{shown}");
    assert!(shown.contains("\"sped\""), "{shown}");
    // Nothing was made.
    assert_eq!(e.param_named("speed"), None);
}

#[test]
fn values_a_cue_refuses_are_reported_at_their_field() {
    let dir = Dir::new("values");
    std::fs::copy("samples/footstep.wav", dir.0.join("step.wav")).expect("copy");
    // (TOML writes NaN as nan.)
    let cases = [
        ("pick = \"random\"\nweights = [1.0, 2.0]", "cues.c.weights"),
        ("pitch_range = [nan, 1.0]", "cues.c.pitch_range"),
        ("volume_range_db = [0.0, inf]", "cues.c.volume_range_db"),
        ("delay_ms = -5", "cues.c.delay_ms"),
        (
            "[[cues.c.maps]]\nparam = \"p\"\ntarget = \"pitch\"\ncurve = []",
            "cues.c.maps[0].curve",
        ),
        (
            "[[cues.c.maps]]\nparam = \"p\"\ntarget = \"low_pass_hz\"\ncurve = [[0.0, -1.0]]",
            "cues.c.maps[0].curve",
        ),
        (
            "[[cues.c.layers]]\nsounds = [\"step.wav\"]\npitch_range = [2.0, nan]",
            "cues.c.layers[0].pitch_range",
        ),
        ("pitch_range = [0.9, 1.1, 5.0]", "cues.c.pitch_range"),
        ("volume_range_db = [-6.0]", "cues.c.volume_range_db"),
        ("pick = \"shuffle\"\nweights = [1.0]", "cues.c.weights"),
        (
            "[[cues.c.maps]]\nparam = \"p\"\ntarget = \"pitch\"\ncurve = [[0.0, 1.0, 7.0]]",
            "cues.c.maps[0].curve",
        ),
    ];
    for (extra, field) in cases {
        let text = format!("[params]\np = 0.0\n[cues.c]\nsounds = [\"step.wav\"]\n{extra}\n");
        let file = dir.write("bank.toml", &text);
        let (e, _) = engine();
        let err = e.load_bank(&file, &[]).unwrap_err();
        let p = &err.problems()[0];
        assert_eq!(p.field, field, "{extra}: {err}");
        let line = text.lines().position(|l| {
            let key = field.rsplit('.').next().unwrap_or(field);
            let key = key.split('[').next().unwrap_or(key);
            l.starts_with(key)
        });
        assert_eq!(Some(p.line), line.map(|k| k + 1), "{extra}: {err}");
    }
}

#[test]
fn a_typo_or_a_wrong_type_is_reported_at_its_line() {
    let cases = [
        (
            "[cues.a]\nsounds = [\"x.wav\"]\npich_range = [1.0, 1.1]\n",
            3,
            "cues.a.pich_range",
        ),
        (
            "[cues.a]\nsounds = [\"x.wav\"]\npick = \"shufle\"\n",
            3,
            "cues.a.pick",
        ),
        ("[params]\nspeed = \"fast\"\n", 2, "params.speed"),
        ("[cues.a]\nsounds = [\"x.wav\"\n", 2, "cues.a.sounds"),
        ("[snapshot.quiet]\n", 1, "snapshot.quiet"),
    ];
    for (text, line, field) in cases {
        let err = BankSource::parse("typo.toml", text).unwrap_err();
        let p = &err.problems()[0];
        assert_eq!((p.line, p.field.as_str()), (line, field), "{text}: {err}");
        assert_eq!(p.file, Path::new("typo.toml"));
    }
}

#[test]
fn a_bank_loaded_again_finds_its_parameters_and_plays_the_new_version() {
    let dir = Dir::new("again");
    std::fs::copy("samples/footstep.wav", dir.0.join("a.wav")).expect("copy");
    let quiet = Sound::from_samples(1, 48_000, vec![0.01; 4_800]).expect("quiet");
    let loud = Sound::from_samples(1, 48_000, vec![0.5; 4_800]).expect("loud");
    let (mut e, _) = engine();
    let file = dir.0.join("bank.toml");
    let load = |e: &OfflineEngine, sound: &Sound| {
        let text = std::fs::read_to_string(&file).expect("read");
        let source = BankSource::parse(&file, &text).expect("parse");
        source
            .build(&e.controller(), |_| Ok(sound.clone()), |_| None)
            .expect("build")
    };
    dir.write(
        "bank.toml",
        "[params]\nx = 1.0\n[cues.c]\nsounds = [\"a.wav\"]\n",
    );
    let first = load(&e, &quiet);
    dir.write(
        "bank.toml",
        "[params]\nx = 5.0\n[cues.c]\nsounds = [\"a.wav\"]\nvolume_range_db = [-6.0, -6.0]\n",
    );
    let second = load(&e, &loud);
    assert_eq!(first.param("x"), second.param("x"));
    assert_eq!(e.param_count(), 1);
    let peak = |e: &mut OfflineEngine, cue| {
        e.play_cue(cue, PlayParams::default()).expect("play");
        let out = e.render(2_400).to_vec();
        e.render(9_600);
        out.iter().fold(0.0f32, |m, s| m.max(s.abs()))
    };
    let (a, b) = (
        peak(&mut e, first.cue("c").expect("c")),
        peak(&mut e, second.cue("c").expect("c")),
    );
    // 0.5 at -6 dB against 0.01.
    assert!(b > 10.0 * a, "{a} then {b}");
}

#[test]
fn snapshot_problems_are_reported_at_their_value_with_the_others_and_nothing_is_made() {
    let dir = Dir::new("snapshots");
    std::fs::copy("samples/footstep.wav", dir.0.join("step.wav")).expect("copy");
    let text = r#"[cues.c]
sounds = ["step.wav"]
pitch_range = [2.0, nan]

[snapshots.a_ok]
bus_volumes = { master = 0.5 }

[snapshots.b_bad]
bus_volumes = { master = 0.5, hall = nan }
effect_params = [
    { bus = "hall", effect = 0, param = "wet", value = 0.5 },
    { bus = "hall", effect = 0, param = "cutoff_hz", value = 500.0 },
    { bus = "hall", effect = 5, param = "wet", value = 0.5 },
]
"#;
    let file = dir.write("bank.toml", text);
    let e = OfflineEngine::new(EngineSettings::default()).expect("engine");
    let hall = e
        .create_bus_with(voicepool::BusSettings {
            effects: vec![voicepool::Effect::Reverb {
                room: 0.5,
                damping: 0.5,
                wet: 1.0,
            }],
            ..Default::default()
        })
        .expect("hall");
    let err = e.load_bank(&file, &[("hall", hall)]).unwrap_err();
    let got: Vec<(usize, &str)> = err
        .problems()
        .iter()
        .map(|p| (p.line, p.field.as_str()))
        .collect();
    let want = [
        (3, "cues.c.pitch_range"),
        (9, "snapshots.b_bad.bus_volumes.hall"),
        (12, "snapshots.b_bad.effect_params[1]"),
        (13, "snapshots.b_bad.effect_params[2]"),
    ];
    assert_eq!(got, want, "{err}");
    // No snapshot was made: the engine's first is still to come.
    let first = e
        .create_snapshot(voicepool::Snapshot::new())
        .expect("snapshot");
    assert_eq!(first.index(), 0);
}

#[test]
fn weights_alone_make_a_random_pick() {
    let dir = Dir::new("weights");
    std::fs::copy("samples/footstep.wav", dir.0.join("a.wav")).expect("copy");
    std::fs::copy("samples/swish.wav", dir.0.join("b.wav")).expect("copy");
    let file = dir.write(
        "bank.toml",
        "[cues.c]\nsounds = [\"a.wav\", \"b.wav\"]\nweights = [1.0, 0.0]\n",
    );
    let (e, _) = engine();
    let bank = e.load_bank(&file, &[]).expect("bank");
    assert_eq!(
        bank.cue("c").expect("c").get_pick(),
        voicepool::Pick::Random
    );
}

#[test]
fn too_many_parameters_are_reported_at_the_first_one_too_many() {
    let dir = Dir::new("params");
    let mut text = String::from("[params]\n");
    for k in 0..300 {
        text.push_str(&format!("z{k:03} = 0.0\n"));
    }
    let file = dir.write("bank.toml", &text);
    let (e, _) = engine();
    e.create_param("the game's own", 0.0).expect("param");
    let err = e.load_bank(&file, &[]).unwrap_err();
    let p = &err.problems()[0];
    // 255 fit beside the game's one: z255, on line 257, is the first too many.
    assert_eq!((p.line, p.field.as_str()), (257, "params.z255"), "{err}");
    assert_eq!(e.param_count(), 1, "nothing made");
}
