//! The live engine on JACK's dummy driver: a real device, paced in real time,
//! that can be killed and started again. Needs voicepool's `jack` feature
//! and `jackd` (Debian: jackd2); `scripts/test.sh` runs these with the
//! feature, and skips them with a printed reason only where jackd is not
//! installed (CI installs it, and there a missing jackd fails).
//!
//! Each case runs in a child process of this test binary with its own JACK
//! server name (`JACK_DEFAULT_SERVER`), so cases and other programs' JACK
//! servers never meet. The allocation counter wraps the system allocator
//! for the whole binary and counts only what happens inside the engine's
//! data callback (between the `Enter` and `Exit` of its hook).
#![cfg(target_os = "linux")]

#[global_allocator]
static ALLOCATOR: voicepool_testkit::callback_alloc::CallbackCounter =
    voicepool_testkit::callback_alloc::CallbackCounter;
use voicepool_testkit::callback_alloc;

use voicepool_testkit::jack::jackd;
use voicepool_testkit::jack::storm;

use callback_alloc::{hook, CALLBACK_ALLOCS};
use std::process::Command;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use jackd::Jackd;
use storm::Ledger;
use voicepool::{
    AudioEngine, EngineSettings, Event, OfflineEngine, PlayParams, Sound, StreamErrorKind,
};

/// A failsafe against a hang, not a speed requirement.
const GIVE_UP: Duration = Duration::from_secs(120);

/// Runs `case` in a child process with a JACK server name of its own;
/// true if the case passed. Whatever happened, nothing of the server is
/// left behind afterwards: no server registered under the name, no entry
/// of a dead one, no client semaphore.
fn run_child(case: &str, before_clean_up: impl FnOnce(&str)) -> Option<(bool, String)> {
    if !Jackd::installed() {
        assert!(
            std::env::var_os("CI").is_none(),
            "jackd is not installed, and CI must run the JACK tests (.ci/run installs jackd2)"
        );
        println!("skipping {case}: jackd is not installed (Debian: apt-get install jackd2)");
        return None;
    }
    let name = server_name(case);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("VOICEPOOL_JACK_CASE", case)
        .env("JACK_DEFAULT_SERVER", &name)
        .output()
        .expect("the test binary can run itself");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let passed = out.status.success() && stdout.contains(&format!("case {case} passed"));
    {
        // Cleans up even if `before_clean_up` panics.
        struct CleanUp<'a>(&'a str);
        impl Drop for CleanUp<'_> {
            fn drop(&mut self) {
                jackd::clean_up(self.0);
            }
        }
        let _clean_up = CleanUp(&name);
        before_clean_up(&name);
    }
    assert_nothing_left(&name);
    let report = format!(
        "({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    for line in stdout
        .lines()
        .filter_map(|l| l.find("jack:").map(|i| &l[i..]))
    {
        println!("{line}");
    }
    Some((passed, report))
}

fn server_name(case: &str) -> String {
    format!("voicepool-test-{case}-{}", std::process::id())
}

/// Runs `case` in a child process; it must pass.
fn run_case(case: &str) {
    if let Some((passed, report)) = run_child(case, |_| {}) {
        assert!(passed, "case {case} failed {report}");
    }
}

fn assert_nothing_left(name: &str) {
    let registered = jackd::registered();
    assert!(
        !registered.iter().any(|(_, n)| n == name),
        "JACK server {name} still registered: {registered:?}"
    );
    let semaphores: Vec<String> = std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|f| f.starts_with("jack") && f.contains(name))
                .collect()
        })
        .unwrap_or_default();
    assert!(semaphores.is_empty(), "left in /dev/shm: {semaphores:?}");
}

#[test]
fn a_killed_jack_server_is_reopened_and_the_same_voices_go_on() {
    run_case("recover");
}

#[test]
fn dropping_the_engine_while_it_retries_gives_the_mixer_back() {
    run_case("retrying");
}

#[test]
fn a_paced_spell_storm_on_busy_cores_allocates_nothing_and_loses_no_terminal_event() {
    run_case("soak");
}

/// With recovery off, the device lost and then back (the same server name
/// started again), dropping the engine is fine: before, the process died
/// in `jack_deactivate` (SIGSEGV) when the old stream was dropped.
#[test]
fn dropping_an_engine_whose_lost_device_came_back_with_recovery_off() {
    run_case("norecover");
}

/// A test process that dies half-way (here it aborts with its server
/// running) leaves no JACK server running or registered: the server dies
/// with it.
#[test]
fn a_test_that_dies_half_way_leaves_no_jack_server_behind() {
    let gone_by_itself = |name: &str| {
        // Before any clean-up of ours: the server went with its process.
        let running = || {
            jackd::registered()
                .into_iter()
                // SAFETY: signal 0 only asks whether the process exists.
                .any(|(pid, n)| n == name && unsafe { libc::kill(pid, 0) } == 0)
        };
        let start = Instant::now();
        while running() && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !running(),
            "{name} outlived the test process that started it"
        );
    };
    if let Some((passed, report)) = run_child("abandoned", gone_by_itself) {
        assert!(!passed, "the abandoning case was meant to fail {report}");
    }
}

/// A server killed with SIGKILL (which cannot take its registry entry out)
/// leaves no entry behind once the case is over.
#[test]
fn a_jack_server_killed_with_sigkill_leaves_no_registry_entry() {
    run_case("sigkilled");
}

/// The entry point of the child processes.
#[test]
#[ignore = "run in a child process by the tests above"]
fn child() {
    let Ok(case) = std::env::var("VOICEPOOL_JACK_CASE") else {
        return;
    };
    let server = std::env::var("JACK_DEFAULT_SERVER").unwrap();
    match case.as_str() {
        "recover" => recover(&server),
        "retrying" => retrying(&server),
        "soak" => soak(&server),
        "norecover" => device_back_with_recovery_off(&server),
        "abandoned" => abandoned(&server),
        "sigkilled" => sigkilled(&server),
        other => panic!("unknown case {other}"),
    }
    println!("case {case} passed");
}

fn settings() -> EngineSettings {
    EngineSettings {
        host: Some("JACK".into()),
        voices: 12,
        buffer_frames: Some(256),
        ..Default::default()
    }
}

/// Opens the engine on the JACK server just started, with the callback
/// hook or without (see [`storm::open_retrying`]; `GIVE_UP` bounds the
/// retries, a failsafe against a hang, not a speed requirement).
fn open(hooked: bool) -> AudioEngine {
    storm::open_retrying(GIVE_UP, || {
        if hooked {
            AudioEngine::start_with_hook(settings(), hook)
        } else {
            AudioEngine::start(settings())
        }
    })
    .unwrap_or_else(|e| panic!("JACK opens: {e}"))
}

fn wait_for<T>(what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(t) = done() {
            return t;
        }
        assert!(start.elapsed() < GIVE_UP, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The loop's loudness at `t` seconds: rising slowly over its 20 s, so the
/// level heard tells where in the loop the voice is.
fn envelope(t: f64) -> f64 {
    0.05 + 0.7 * t / 20.0
}

fn rising_loop() -> Sound {
    let samples = (0..20 * 48_000)
        .map(|i| {
            let t = f64::from(i) / 48_000.0;
            ((t * 440.0 * std::f64::consts::TAU).sin() * envelope(t)) as f32
        })
        .collect();
    Sound::from_samples(1, 48_000, samples).unwrap()
}

/// Peak of everything the monitor heard since the last reset, and its callbacks.
static PEAK: AtomicU32 = AtomicU32::new(0);
static HEARD: AtomicU64 = AtomicU64::new(0);

/// A JACK input client, fed from the engine's output ports, that meters
/// what the engine plays on the device.
fn monitor() -> cpal::Stream {
    let host = cpal::host_from_id(cpal::HostId::Jack).expect("the JACK host");
    let device = host.default_input_device().expect("a JACK input client");
    let config = device.default_input_config().unwrap().config();
    let stream = device
        .build_input_stream(
            &config,
            |data: &[f32], _: &cpal::InputCallbackInfo| {
                let peak = data.iter().fold(0.0f32, |m, s| m.max(s.abs()));
                PEAK.fetch_max(peak.to_bits(), Relaxed);
                HEARD.fetch_add(1, Relaxed);
            },
            |_| {},
            None,
        )
        .expect("the monitor opens");
    stream.play().unwrap();
    let ports = String::from_utf8(Command::new("jack_lsp").output().unwrap().stdout).unwrap();
    let find = |client: &str, port: &str| {
        ports
            .lines()
            .find(|l| l.starts_with(client) && l.ends_with(port))
            .unwrap_or_else(|| panic!("no port {client}...{port} in\n{ports}"))
            .to_string()
    };
    for ch in 0..2 {
        let from = find("cpal_client_out", &format!(":out_{ch}"));
        let to = find("cpal_client_in", &format!(":in_{ch}"));
        let ok = Command::new("jack_connect")
            .args([&from, &to])
            .status()
            .unwrap();
        assert!(ok.success(), "jack_connect {from} {to}");
    }
    stream
}

/// Kills the JACK server under a running engine and starts it again.
fn recover(server: &str) {
    let jackd = Jackd::start(server, 48_000, 256).unwrap();
    let mut engine = open(true);
    let info = engine.info();
    println!("jack: opened {info:?}");
    assert_eq!(info.sample_rate, 48_000);
    let mut ledger = Ledger::default();
    let mut all = Vec::new();
    let looped = rising_loop();
    let blip = storm::tone(0.05, 880.0, 10.0);
    // Protected: the blips (queued together while the device is away)
    // overfill the pool, and the loop must be the voice that goes on.
    let amb = engine
        .play(&looped, PlayParams::default().looping(true).protected(true))
        .unwrap();
    ledger.accept(amb);
    let blips = |engine: &mut AudioEngine, ledger: &mut Ledger| {
        for _ in 0..10 {
            ledger.accept(
                engine
                    .play(&blip, PlayParams::default().volume(0.1))
                    .unwrap(),
            );
        }
    };
    blips(&mut engine, &mut ledger);
    let loop_start = wait_for("the loop to start", || {
        let events = ledger.read_timed(&mut engine);
        let at = events
            .iter()
            .find(|e| e.event == Event::Started { voice: amb })
            .map(|e| e.frame);
        all.extend(events.into_iter().map(|e| e.event));
        at
    });
    // 2.5 s into the loop.
    wait_for("2.5 s of output", || {
        all.extend(ledger.read(&mut engine));
        (engine.clock() > loop_start + 120_000).then_some(())
    });

    jackd.kill();
    wait_for("DeviceLost", || {
        let events = ledger.read(&mut engine);
        let lost = events.contains(&Event::StreamError {
            kind: StreamErrorKind::DeviceLost,
        });
        all.extend(events);
        lost.then_some(())
    });
    let lost_at = engine.clock();
    // Accepted while there is no device: they wait in the queue.
    blips(&mut engine, &mut ledger);
    assert!(engine.is_playing(amb));

    let _jackd = Jackd::start(server, 48_000, 256).unwrap();
    let (device, rate) = wait_for("OutputRecovered", || {
        let events = ledger.read(&mut engine);
        let back = events.iter().find_map(|e| match e {
            Event::OutputRecovered {
                device,
                sample_rate,
            } => Some((*device, *sample_rate)),
            _ => None,
        });
        all.extend(events);
        back
    });
    println!("jack: lost at frame {lost_at}, back on {device} at {rate} Hz");
    assert_eq!(rate, 48_000);
    assert!(device.as_str().starts_with("cpal_client_out"), "{device}");
    assert!(engine.stats().recoveries >= 1);
    blips(&mut engine, &mut ledger);

    // Audible again, on the new server, at the loop's position: it went on
    // from where it was, it did not start over.
    let _monitor = monitor();
    let heard = HEARD.load(Relaxed);
    wait_for("the monitor to run", || {
        (HEARD.load(Relaxed) > heard + 5).then_some(())
    });
    PEAK.store(0, Relaxed);
    let t1 = engine.clock();
    let heard = HEARD.load(Relaxed);
    wait_for("0.2 s of monitoring", || {
        (HEARD.load(Relaxed) > heard + 40).then_some(())
    });
    let t2 = engine.clock();
    let peak = f64::from(f32::from_bits(PEAK.load(Relaxed)));
    let started = all
        .iter()
        .filter(|e| **e == Event::Started { voice: amb })
        .count();
    assert_eq!(started, 1, "the loop started once: {all:?}");
    // The pan law's gain, from the same voice rendered offline.
    let mut offline = OfflineEngine::new(EngineSettings::default()).unwrap();
    offline.play(&looped, PlayParams::default()).unwrap();
    let first = offline
        .render(4_800)
        .iter()
        .fold(0.0f32, |m, s| m.max(s.abs()));
    let gain = f64::from(first) / envelope(0.1);
    // Where the loop is at output frame `frame`, in seconds.
    let at = |frame: u64| (frame.saturating_sub(loop_start) % (20 * 48_000)) as f64 / 48_000.0;
    let (low, high) = (
        gain * envelope(at(t1.saturating_sub(4_800))) - 0.01,
        gain * envelope(at(t2 + 4_800)) + 0.01,
    );
    let restarted = gain * envelope(at(t2 + 4_800 - lost_at + loop_start));
    println!(
        "jack: heard a peak of {peak:.3}; the loop going on predicts {low:.3} to {high:.3}, starting over {restarted:.3}"
    );
    assert!(restarted < low, "the test cannot tell (lost at {lost_at})");
    assert!((low..=high).contains(&peak), "peak {peak}");

    let _ = engine.stop(amb);
    wait_for("every play to end", || {
        all.extend(ledger.read(&mut engine));
        // (is_playing reads false from the stop on: wait for the events.)
        (ledger.faults().0 == 0).then_some(())
    });
    all.extend(ledger.read(&mut engine));
    assert_eq!(
        ledger.faults(),
        (0, 0),
        "a play without exactly one terminal event"
    );
    assert_eq!(ledger.terminal.len(), 31);
    let stats = engine.stats();
    println!("jack: {}", storm::figures(&stats));
    drop(engine);
    let allocs = CALLBACK_ALLOCS.load(Relaxed);
    assert_eq!(allocs, 0, "the data callback allocated or freed");
}

/// Plays a loop on `engine` until it sounds, then stops the server under
/// it and waits for `DeviceLost`; the loop's handle.
fn loop_then_lose(engine: &mut AudioEngine, jackd: Jackd) -> voicepool::VoiceHandle {
    let looped = storm::tone(1.0, 220.0, 0.0);
    let h = engine
        .play(&looped, PlayParams::default().looping(true))
        .unwrap();
    wait_for("output", || (engine.clock() > 4_800).then_some(()));
    jackd.kill();
    wait_for("DeviceLost", || {
        engine
            .drain_events()
            .any(|e| {
                e == Event::StreamError {
                    kind: StreamErrorKind::DeviceLost,
                }
            })
            .then_some(())
    });
    h
}

/// Recovery off: the server stops, `DeviceLost`, the same server starts
/// again; then the engine is closed, as the docs tell a game to (start a
/// new engine on the device, drop the old one).
fn device_back_with_recovery_off(server: &str) {
    let jackd = Jackd::start(server, 48_000, 256).unwrap();
    let mut engine = storm::open_retrying(GIVE_UP, || {
        AudioEngine::start(EngineSettings {
            recover_device: false,
            ..settings()
        })
    })
    .unwrap_or_else(|e| panic!("JACK opens: {e}"));
    let h = loop_then_lose(&mut engine, jackd);
    let _back = Jackd::start(server, 48_000, 256).unwrap();
    // Give the old stream every chance to notice the new server.
    std::thread::sleep(Duration::from_millis(500));
    assert!(engine.is_playing(h));
    drop(engine);
    println!("jack: dropped after the device came back");
}

/// Starts a server and then dies (abort: no destructor runs).
fn abandoned(server: &str) {
    let jackd = Jackd::start(server, 48_000, 256).unwrap();
    println!("jack: abandoning server pid {}", jackd.pid());
    std::process::abort();
}

/// Starts a server and kills it with SIGKILL: it cannot take its entry out
/// of JACK's registry.
fn sigkilled(server: &str) {
    let jackd = Jackd::start(server, 48_000, 256).unwrap();
    let pid = jackd.pid() as i32;
    // SAFETY: our own child, not yet waited for.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        jackd::registered()
            .iter()
            .any(|(p, n)| *p == pid && n == server),
        "the SIGKILLed server's entry should still be there (else this tests nothing)"
    );
    drop(jackd); // reaps it
}

/// The server goes away for good: the engine keeps retrying, and closing
/// it then returns the mixer at once.
fn retrying(server: &str) {
    let jackd = Jackd::start(server, 48_000, 256).unwrap();
    let mut engine = open(false);
    let h = loop_then_lose(&mut engine, jackd);
    assert!(engine.is_playing(h));
    // Let a few attempts fail (the backoff grows), then close.
    std::thread::sleep(Duration::from_millis(400));
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(engine.close().map(|m| m.frames_rendered())));
    let frames = wait
        .recv_timeout(GIVE_UP)
        .expect("close() hung while the engine was retrying")
        .expect("the mixer came back");
    println!("jack: closed while retrying; the mixer had rendered {frames} frames");
    assert!(frames > 4_800);
}

/// The short soak: the spell storm on a JACK dummy device while every core
/// is busy. Asserts what cannot be noise; reports the deadline figures.
fn soak(server: &str) {
    let _jackd = Jackd::start(server, 48_000, 256).unwrap();
    // Opened before the cores are made busy: a busy machine can make the
    // server too slow to take a new client at all.
    let mut engine = open(true);
    let load = storm::Load::start();
    let out = storm::storm(&mut engine, 8.0, |_| {});
    drop(load);
    drop(engine);
    let allocs = CALLBACK_ALLOCS.load(Relaxed);
    println!(
        "jack: {:.1} s storm on busy cores: {}; {} plays accepted, {} refused",
        out.seconds,
        storm::figures(&out.stats),
        out.accepted,
        out.refused
    );
    assert!(out.stats.callbacks > 100, "the stream ran");
    assert!(out.stats.steals > 0, "the storm made the pool steal");
    assert_eq!((out.missing, out.duplicated), (0, 0), "terminal events");
    assert_eq!(allocs, 0, "the data callback allocated or freed");
}
