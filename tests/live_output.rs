//! The real cpal path, on machines with no sound card.
//!
//! Each case runs in a child process of this test binary (the `child` test,
//! ignored in normal runs) with `ALSA_CONFIG_PATH` pointing at a config in
//! `tests/alsa/` whose default PCM is a `file` PCM over `null`: a real ALSA
//! stream that nothing paces, whose every byte lands in a file. A child
//! process per case keeps each ALSA configuration and capture file to itself.
//!
//! The allocation counter wraps the system allocator for this whole binary;
//! it counts only what happens inside the data callback, between the
//! [`CallbackPhase::Enter`] and [`CallbackPhase::Exit`] the engine reports
//! on the audio thread.
#![cfg(target_os = "linux")]

#[global_allocator]
static ALLOCATOR: voicepool_testkit::callback_alloc::CallbackCounter =
    voicepool_testkit::callback_alloc::CallbackCounter;
use voicepool_testkit::callback_alloc;
use voicepool_testkit::jack::storm;

use callback_alloc::{as_if_in_callback, hook, CALLBACKS, CALLBACK_ALLOCS};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use storm::{tone, Lcg};

use voicepool::output::cpal::DeviceSampleFormat;
use voicepool::{
    AudioEngine, EngineError, EngineSettings, Event, OfflineEngine, OutputState, PlayParams, Sound,
    StealPolicy, StreamErrorKind,
};

const SYSTEM_ALSA_CONF: &str = "/usr/share/alsa/alsa.conf";
/// A failsafe against a hung stream, not a speed requirement.
const GIVE_UP: Duration = Duration::from_secs(60);

/// Runs the `child` test in a new process with ALSA configured by
/// `tests/alsa/{conf}` and the capture going to `capture`; returns what the
/// child wrote to stderr.
fn run_case(case: &str, conf: &str, capture: &Path) -> String {
    assert!(
        Path::new(SYSTEM_ALSA_CONF).exists(),
        "{SYSTEM_ALSA_CONF} is missing: run scripts/setup.sh (it installs ALSA)"
    );
    let conf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/alsa")
        .join(conf);
    let log = |name: &str| {
        let path = capture_path(&format!("{case}-{name}")).with_extension("log");
        (std::fs::File::create(&path).unwrap(), path)
    };
    let ((out_file, out_path), (err_file, err_path)) = (log("stdout"), log("stderr"));
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("VOICEPOOL_LIVE_CASE", case)
        .env("VOICEPOOL_CAPTURE", capture)
        .env(
            "ALSA_CONFIG_PATH",
            format!("{SYSTEM_ALSA_CONF}:{}", conf.display()),
        )
        .stdout(out_file)
        .stderr(err_file)
        .spawn()
        .expect("the test binary can run itself");
    // A guard against a hang (e.g. inside the audio stack), not a speed test.
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > 2 * GIVE_UP {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let (stdout, stderr) = (read(&out_path), read(&err_path));
    let _ = (
        std::fs::remove_file(out_path),
        std::fs::remove_file(err_path),
    );
    let status = status.map_or("hung, killed".to_string(), |s| s.to_string());
    assert!(
        status == "exit status: 0" && stdout.contains(&format!("case {case} passed")),
        "case {case} failed ({status}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    for line in stdout
        .lines()
        .filter_map(|l| l.find("live:").map(|i| &l[i..]))
    {
        println!("{line}");
    }
    stderr
}

fn capture_path(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("live-{name}-{}.raw", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn live_f32_stream_carries_exactly_the_offline_render() {
    let capture = capture_path("f32");
    run_case("f32", "capture_f32.conf", &capture);
    let _ = std::fs::remove_file(capture);
}

#[test]
fn live_i16_stream_carries_the_offline_render_converted() {
    let capture = capture_path("i16");
    run_case("i16", "capture_s16.conf", &capture);
    let _ = std::fs::remove_file(capture);
}

#[test]
fn the_callback_allocates_nothing_under_a_wand_storm() {
    run_case("alloc", "capture_f32.conf", Path::new("/dev/null"));
}

#[test]
fn a_failing_device_reports_stream_errors_and_the_game_carries_on_with_a_new_engine() {
    // The `file` PCM fails every write to /dev/full ("no space left").
    run_case("errors", "capture_f32.conf", Path::new("/dev/full"));
}

/// A device that stops calling back without reporting any error (a stuck
/// driver): the stall watchdog takes it for lost after its second, the
/// output thread reopens the device, and the same voices go on. The capture
/// "file" is a FIFO the child drains, then stops draining: ALSA's writes
/// block, so no callback comes.
#[test]
fn a_device_that_stops_calling_back_is_reopened_and_the_voices_go_on() {
    let capture = capture_path("stall");
    let made = Command::new("mkfifo").arg(&capture).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "mkfifo {}",
        capture.display()
    );
    run_case("stall", "capture_f32.conf", &capture);
    let _ = std::fs::remove_file(capture);
}

/// Shutting a live engine down ends every play still in flight with one
/// `Ended` the game can read (sounding, virtual, scheduled far ahead), and
/// the engine answers `EngineStopped` from then on.
#[test]
fn shutting_down_a_live_engine_ends_every_play_where_the_game_can_read_it() {
    run_case("shutdown", "capture_f32.conf", Path::new("/dev/null"));
}

/// A lost device that is not reopened (recovery off) leaves the output
/// suspended, not playing; shutting down closes it.
#[test]
fn a_lost_device_without_recovery_is_a_suspended_output() {
    run_case("lost", "capture_f32.conf", Path::new("/dev/null"));
}

#[test]
fn no_usable_device_is_a_clean_error() {
    run_case("nodevice", "no_device.conf", Path::new("/dev/null"));
}

/// Without a device, `AudioEngine::start` keeps alsa-lib quiet (no wall of
/// `ALSA lib ...` lines) and its error says what it saw and what to do.
#[test]
fn a_missing_device_prints_nothing_and_the_error_says_what_to_do() {
    // A default PCM of a card that does not exist, and the stock chain of
    // alsa.conf resolving the default for a missing card (what a machine
    // with no sound card sees: alsa-lib's eight lines per attempt).
    for conf in ["no_device.conf", "no_card.conf"] {
        let stderr = run_case("quiet", conf, Path::new("/dev/null"));
        assert!(
            stderr.is_empty(),
            "with {conf}, AudioEngine::start wrote to stderr:\n{stderr}"
        );
    }
    // Devices that exist, but not the one asked for: they are named.
    let stderr = run_case("seen", "capture_f32.conf", Path::new("/dev/null"));
    assert!(
        stderr.is_empty(),
        "AudioEngine::start wrote to stderr:\n{stderr}"
    );
}

/// The entry point of the child processes.
#[test]
#[ignore = "run in a child process by the live-output tests above"]
fn child() {
    let Ok(case) = std::env::var("VOICEPOOL_LIVE_CASE") else {
        return;
    };
    let capture = PathBuf::from(std::env::var("VOICEPOOL_CAPTURE").unwrap());
    match case.as_str() {
        "f32" => compare_with_offline(&capture, DeviceSampleFormat::F32),
        "i16" => compare_with_offline(&capture, DeviceSampleFormat::I16),
        "alloc" => wand_storm(),
        "nodevice" => no_device(),
        "quiet" => quiet_no_device(),
        "seen" => devices_seen(),
        "errors" => stream_errors(),
        "stall" => stalled_device(&capture),
        "shutdown" => shut_down_live(),
        "lost" => lost_without_recovery(),
        other => panic!("unknown case {other}"),
    }
    println!("case {case} passed");
}

fn shut_down_live() {
    use std::collections::HashMap;
    use voicepool::PlayError;
    let mut engine = AudioEngine::start(EngineSettings {
        voices: 2,
        ..Default::default()
    })
    .expect("the file/null PCM opens");
    // Natively the stream plays from the start: resuming is not needed, and harmless.
    assert_eq!(engine.output_state(), OutputState::Playing);
    engine.resume_output().expect("a playing output resumes");
    let hum = tone(1.0, 220.0, 0.0);
    let looped = PlayParams::default().looping(true).virtualize(true);
    let plays = [
        engine.play(&hum, looped).unwrap(),
        engine.play(&hum, looped).unwrap(),
        engine.play(&hum, looped.volume(0.1)).unwrap(), // goes virtual
        engine
            .play(&hum, PlayParams::default().start_at(1 << 40)) // far ahead
            .unwrap(),
    ];
    let mut events = Vec::new();
    wait_until("the plays to be taken", || {
        events.extend(engine.drain_events());
        events.contains(&Event::Started { voice: plays[3] })
    });
    engine.shut_down();
    engine.shut_down(); // again: nothing
    assert_eq!(engine.output_state(), OutputState::Closed);
    let refused = engine
        .resume_output()
        .expect_err("a shut-down output stays closed");
    assert!(refused.to_string().contains("shut down"), "{refused}");
    events.extend(engine.drain_events());
    let mut terminal: HashMap<_, u32> = HashMap::new();
    for e in events.iter().filter(|e| e.is_terminal()) {
        *terminal.entry(e.voice().unwrap()).or_default() += 1;
    }
    for h in plays {
        assert_eq!(terminal.get(&h), Some(&1), "{h:?}: {events:?}");
        assert!(events.contains(&Event::Ended { voice: h }), "{h:?}");
        assert!(!engine.is_playing(h));
    }
    assert_eq!(
        engine.play(&hum, PlayParams::default()),
        Err(PlayError::EngineStopped)
    );
    assert_eq!(engine.stop_all(), Err(PlayError::EngineStopped));
    assert!(engine.close().is_none(), "the mixer went with shut_down");
    println!("live: shut down; {} events read", events.len());
}

fn lost_without_recovery() {
    let mut engine = AudioEngine::start(EngineSettings {
        recover_device: false,
        ..Default::default()
    })
    .expect("the file/null PCM opens");
    assert_eq!(engine.output_state(), OutputState::Playing);
    engine.simulate_device_loss();
    wait_until("the loss to be reported", || {
        engine.drain_events().any(|e| {
            e == Event::StreamError {
                kind: StreamErrorKind::DeviceLost,
            }
        })
    });
    assert_eq!(engine.output_state(), OutputState::Suspended);
    engine.shut_down();
    assert_eq!(engine.output_state(), OutputState::Closed);
    println!("live: lost without recovery: suspended, then closed");
}

/// Stereo, with different content left and right and a non-zero first frame.
fn known_sound() -> Sound {
    let samples = (0..9_600)
        .flat_map(|i| {
            let t = i as f32;
            let fade = 1.0 - t / 9_600.0;
            [
                0.6 * fade * (t * 0.0577).cos(),
                -0.3 * fade * (t * 0.131).cos(),
            ]
        })
        .collect();
    Sound::from_samples(2, 48_000, samples).unwrap()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < GIVE_UP, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn compare_with_offline(capture: &Path, want: DeviceSampleFormat) {
    let settings = EngineSettings {
        buffer_frames: Some(1_024),
        // The i16 case opens the device by name, the f32 case as the default.
        device: (want == DeviceSampleFormat::I16).then(|| "default".to_string()),
        ..Default::default()
    };
    let mut engine = AudioEngine::start(settings.clone()).expect("the file/null PCM opens");
    let info = engine.info().clone();
    println!("live: opened {info:?}");
    assert_eq!(info.sample_format, want);
    assert_eq!(info.channels, 2);

    let sound = known_sound();
    let h = engine.play(&sound, PlayParams::default()).unwrap();
    let mut started_at = None;
    let mut events = Vec::new();
    wait_until("the voice to end", || {
        for ev in engine.drain_timed_events() {
            if ev.event == (Event::Started { voice: h }) {
                started_at = Some(ev.frame);
            }
            events.push(ev.event);
        }
        !engine.is_playing(h)
    });
    events.extend(engine.drain_events());
    assert_eq!(
        events,
        [Event::Started { voice: h }, Event::Ended { voice: h }]
    );
    let start = started_at.expect("a Started event") as usize;

    // Offline, at the device's rate: the voice starts at frame 0.
    let mut offline = OfflineEngine::new(EngineSettings {
        sample_rate: info.sample_rate,
        ..settings
    })
    .unwrap();
    offline.play(&sound, PlayParams::default()).unwrap();
    let len = (sound.duration_seconds() * f64::from(info.sample_rate)) as usize + 2_000;
    let expected = offline.render(len).to_vec();
    assert!(expected[len * 2 - 200..].iter().all(|&s| s == 0.0));

    // Let the stream run past the sound, then stop it (which flushes the file).
    let needed = (start + len + 2 * info.max_block_frames) as u64;
    wait_until("the stream to render past the sound", || {
        engine.stats().frames_rendered >= needed
    });
    let mixer = engine.close().expect("the mixer came back to this thread");
    assert!(mixer.frames_rendered() >= needed);

    let bytes = std::fs::read(capture).unwrap();
    let captured: Vec<f32> = match want {
        DeviceSampleFormat::F32 => bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        _ => bytes
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])))
            .collect(),
    };
    let expected: Vec<f32> = match want {
        DeviceSampleFormat::F32 => expected,
        // cpal's f32 -> i16 conversion, as the engine uses it.
        _ => expected
            .iter()
            .map(|&s| f32::from(<i16 as cpal::FromSample<f32>>::from_sample_(s)))
            .collect(),
    };
    println!(
        "live: captured {} frames; the voice started at frame {start}",
        captured.len() / 2
    );
    assert!(captured.len() >= (start + len) * 2, "capture too short");
    let first_sound = captured.iter().position(|&s| s != 0.0).expect("non-silent") / 2;
    assert_eq!(
        first_sound, start,
        "silence until the block the voice started in"
    );
    let window = &captured[start * 2..(start + len) * 2];
    let left = |v: &[f32]| v.iter().step_by(2).copied().collect::<Vec<_>>();
    let right = |v: &[f32]| v.iter().skip(1).step_by(2).copied().collect::<Vec<_>>();
    assert_ne!(
        left(&expected),
        right(&expected),
        "the test sound is not symmetric"
    );
    assert_eq!(left(window), left(&expected), "left channel differs");
    assert_eq!(right(window), right(&expected), "right channel differs");
    assert!(captured[(start + len) * 2..].iter().all(|&s| s == 0.0));
}

/// The demo's kind of load: a protected ambience loop, swishes and bursts
/// of sparkles from the game thread and a second thread, into 12 voices.
fn wand_storm() {
    // The counter itself works: an allocation while the flag is up counts.
    as_if_in_callback(|| drop(std::hint::black_box(vec![1u8; 64])));
    assert_eq!(
        CALLBACK_ALLOCS.swap(0, Relaxed),
        2,
        "the counter missed an alloc and free"
    );

    let mut engine = AudioEngine::start_with_hook(
        EngineSettings {
            voices: 12,
            steal_policy: StealPolicy::Quietest,
            buffer_frames: Some(512),
            ..Default::default()
        },
        hook,
    )
    .expect("the file/null PCM opens");
    let ambience = tone(2.0, 110.0, 0.0);
    let swish = tone(0.4, 300.0, 6.0);
    let sparkles: Vec<Sound> = (0..6)
        .map(|i| tone(0.15, 2_000.0 + 300.0 * i as f32, 20.0))
        .collect();
    let amb = engine
        .play(
            &ambience,
            PlayParams::default()
                .volume(0.2)
                .looping(true)
                .protected(true),
        )
        .unwrap();

    let ctl = engine.controller();
    let other_sparkles = sparkles.clone();
    let other = std::thread::spawn(move || {
        let mut rng = Lcg(7);
        for _ in 0..150 {
            let s = &other_sparkles[(rng.unit() * 6.0) as usize % 6];
            let _ = ctl.play(
                s,
                PlayParams::default()
                    .pitch(0.5 + rng.unit())
                    .pan(rng.unit() * 2.0 - 1.0),
            );
            std::thread::sleep(Duration::from_millis(3));
        }
    });

    let mut rng = Lcg(42);
    let mut steals = 0;
    let (mut lost, mut back) = (0, 0);
    for frame in 0..90 {
        if frame == 30 || frame == 60 {
            // The device "goes away" twice under the storm: the output
            // thread takes the audio side out of the old stream and opens
            // the device again, while both streams' callbacks are counted.
            engine.simulate_device_loss();
        }
        if frame % 6 == 0 {
            let _ = engine.play(&swish, PlayParams::default().priority(200));
            for _ in 0..24 {
                let s = &sparkles[(rng.unit() * 6.0) as usize % 6];
                let p = PlayParams::default()
                    .volume(0.1 + rng.unit() * 0.6)
                    .pitch(0.7 + rng.unit() * 0.8)
                    .pan(rng.unit() * 2.0 - 1.0);
                let _ = engine.play(s, p);
            }
        }
        for e in engine.drain_events() {
            match e {
                Event::Stolen { .. } => steals += 1,
                Event::StreamError {
                    kind: StreamErrorKind::DeviceLost,
                } => lost += 1,
                Event::OutputRecovered { .. } => back += 1,
                _ => {}
            }
        }
        std::thread::sleep(Duration::from_millis(16));
    }
    other.join().unwrap();
    wait_until("both recoveries", || {
        for e in engine.drain_events() {
            match e {
                Event::StreamError {
                    kind: StreamErrorKind::DeviceLost,
                } => lost += 1,
                Event::OutputRecovered { .. } => back += 1,
                _ => {}
            }
        }
        back == 2
    });
    assert_eq!(lost, 2, "a DeviceLost for each loss");
    let before = CALLBACKS.load(Relaxed);
    wait_until("a few more callbacks", || {
        CALLBACKS.load(Relaxed) > before + 10
    });
    assert!(
        engine.is_playing(amb),
        "the protected ambience was never stolen"
    );
    let stats = engine.stats();
    let callbacks = CALLBACKS.load(Relaxed);
    let allocs = CALLBACK_ALLOCS.load(Relaxed);
    drop(engine);
    println!(
        "live: {callbacks} callbacks, {} frames, {} plays started, {} steals ({steals} seen as events), {} rejected, {} recoveries; {allocs} allocations or frees inside the callback",
        stats.frames_rendered, stats.started, stats.steals, stats.rejections, stats.recoveries
    );
    assert!(callbacks > 100, "the stream ran");
    assert!(stats.steals > 0, "the load made the pool steal");
    assert_eq!(allocs, 0, "the data callback allocated or freed");
}

fn stream_errors() {
    let mut engine = AudioEngine::start(EngineSettings::default()).expect("the PCM opens");
    wait_until("a stream error", || engine.stats().stream_errors > 0);
    let events: Vec<Event> = engine.drain_events().collect();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::StreamError { .. })),
        "no StreamError event in {events:?}"
    );
    // The game side carries on: plays are accepted (or, once the stalled
    // audio side has let the queue fill, refused with an error value).
    let blip = Sound::from_samples(1, 48_000, vec![0.5; 480]).unwrap();
    for _ in 0..2_000 {
        match engine.play(&blip, PlayParams::default()) {
            Ok(_) | Err(voicepool::PlayError::QueueFull) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
    let stats = engine.stats();
    println!(
        "live: {} stream errors reported; {} plays refused as QueueFull",
        stats.stream_errors, stats.dropped_commands
    );
    // cpal 0.16's ALSA backend retries a failed write forever without
    // looking at its stop flag, so dropping this stream would never
    // return: leave it to the end of the process.
    std::mem::forget(engine);

    // The game recovers by starting a new engine, here on a device that
    // works again (the test config reads its capture file at open time).
    let good = std::env::temp_dir().join(format!("voicepool-recovered-{}.raw", std::process::id()));
    std::env::set_var("VOICEPOOL_CAPTURE", &good);
    let mut fresh = AudioEngine::start(EngineSettings::default()).expect("a new engine starts");
    let h = fresh
        .play(&blip, PlayParams::default())
        .expect("the new engine plays");
    wait_until("the new engine to finish the blip", || !fresh.is_playing(h));
    let stats = fresh.stats();
    let events: Vec<Event> = fresh.drain_events().collect();
    drop(fresh);
    let bytes = std::fs::read(&good).unwrap_or_default();
    let _ = std::fs::remove_file(&good);
    assert_eq!(stats.stream_errors, 0, "the new engine's device works");
    assert!(events.contains(&Event::Ended { voice: h }), "{events:?}");
    let loudest = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).abs())
        .fold(0.0f32, f32::max);
    assert!(
        loudest > 0.3,
        "the new engine's output carries the blip ({loudest})"
    );
    println!("live: after the fault, a new engine played the blip (peak {loudest:.2})");
}

fn no_device() {
    match AudioEngine::start(EngineSettings::default()) {
        Err(EngineError::NoDevice(reason)) => println!("live: no device: {reason}"),
        other => panic!("expected EngineError::NoDevice, got {other:?}"),
    }
    let named = EngineSettings {
        device: Some("no such device".into()),
        ..Default::default()
    };
    match AudioEngine::start(named) {
        Err(e @ EngineError::NoDevice(_)) => {
            assert!(e.to_string().contains("no such device"), "{e}");
        }
        other => panic!("expected EngineError::NoDevice, got {other:?}"),
    }
}

/// An error that names the devices seen (or says there were none) and
/// suggests what to do; prints it to stdout.
fn says_what_to_do(e: &EngineError) {
    let text = e.to_string();
    assert!(
        text.contains("OfflineEngine"),
        "suggests OfflineEngine: {text}"
    );
    assert!(
        text.contains("ALSA configuration") && text.contains("sound server"),
        "suggests checking the sound server or ALSA: {text}"
    );
    // What was seen: the devices by name, or that there were none.
    let seen = text
        .split_once("output devices seen: ")
        .map(|(_, rest)| rest.split(';').next().unwrap_or("").trim());
    assert!(
        seen.is_some_and(|s| !s.is_empty()) || text.contains("no output devices were found"),
        "names the devices seen: {text}"
    );
    println!("live: {text}");
}

/// The child side of the quiet no-device test: prints only to stdout.
fn quiet_no_device() {
    match AudioEngine::start(EngineSettings::default()) {
        Err(e @ EngineError::NoDevice(_)) => says_what_to_do(&e),
        other => panic!("expected EngineError::NoDevice, got {other:?}"),
    }
    let named = EngineSettings {
        device: Some("no such device".into()),
        ..Default::default()
    };
    match AudioEngine::start(named) {
        Err(e @ EngineError::NoDevice(_)) => {
            assert!(e.to_string().contains("no such device"), "{e}");
            says_what_to_do(&e);
        }
        other => panic!("expected EngineError::NoDevice, got {other:?}"),
    }
}

/// A device name that is not there, among devices that are: they are named.
fn devices_seen() {
    let named = EngineSettings {
        device: Some("no such device".into()),
        ..Default::default()
    };
    match AudioEngine::start(named) {
        Err(e @ EngineError::NoDevice(_)) => {
            says_what_to_do(&e);
            assert!(e.to_string().contains("output devices seen: "), "{e}");
        }
        other => panic!("expected EngineError::NoDevice, got {other:?}"),
    }
}

/// The `stall` case: see
/// [`a_device_that_stops_calling_back_is_reopened_and_the_voices_go_on`].
fn stalled_device(fifo: &Path) {
    use std::io::Read;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    // Read and write, so that neither this open nor ALSA's waits for the
    // other end; a thread of ours drains it while `drain` is set.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(fifo)
        .expect("the FIFO opens");
    let drain = Arc::new(AtomicBool::new(true));
    let draining = Arc::clone(&drain);
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            if draining.load(Relaxed) {
                if reader.read(&mut buf).is_err() {
                    return;
                }
            } else {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    });
    let mut engine = AudioEngine::start(EngineSettings {
        buffer_frames: Some(512),
        ..Default::default()
    })
    .expect("the file/null PCM opens");
    let hum = engine
        .play(
            &tone(2.0, 110.0, 0.0),
            PlayParams::default().looping(true).protected(true),
        )
        .unwrap();
    let mut events = Vec::new();
    wait_until("the stream runs", || engine.stats().callbacks > 20);
    // The device stops taking data: once the FIFO is full, no callback.
    drain.store(false, Relaxed);
    let lost = Event::StreamError {
        kind: StreamErrorKind::DeviceLost,
    };
    wait_until("DeviceLost from the watchdog", || {
        events.extend(engine.drain_events());
        events.contains(&lost)
    });
    let stalled_at = engine.stats().callbacks;
    // The driver comes back: the reopened device takes data again.
    drain.store(true, Relaxed);
    wait_until("OutputRecovered", || {
        events.extend(engine.drain_events());
        events
            .iter()
            .any(|e| matches!(e, Event::OutputRecovered { .. }))
    });
    wait_until("callbacks again", || {
        engine.stats().callbacks > stalled_at + 20
    });
    events.extend(engine.drain_events());
    let stats = engine.stats();
    println!(
        "live: stall: {} callbacks, {} recoveries, events {events:?}",
        stats.callbacks, stats.recoveries
    );
    assert_eq!(stats.recoveries, 1);
    assert_eq!(events.iter().filter(|e| **e == lost).count(), 1);
    assert!(engine.is_playing(hum), "the same loop plays on");
    assert_eq!(
        events
            .iter()
            .filter(|e| e.voice() == Some(hum))
            .collect::<Vec<_>>(),
        [&Event::Started { voice: hum }],
        "one Started, no terminal event"
    );
}
