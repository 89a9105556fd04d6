//! The paced soak's parts, shared by `examples/jack_soak`, `tests/jack.rs`
//! and (its sounds) `tests/live_output.rs`: a JACK server on the dummy
//! driver (real-time paced, no sound card) and opening an engine on it, a
//! background load that keeps every core busy, and the spell-burst game
//! loop at 60 Hz with its bookkeeping of terminal events.
#![allow(dead_code)]

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use voicepool::{
    AudioEngine, EngineError, Event, PlayParams, Sound, Stats, TimedEvent, VoiceHandle,
};

/// A `jackd -d dummy` of our own, under a server name of our own (clients
/// find it through `JACK_DEFAULT_SERVER`). Killed, by its pid, when dropped.
pub struct Jackd {
    child: Child,
}

impl Jackd {
    /// True if `jackd` can be run here.
    pub fn installed() -> bool {
        Command::new("jackd")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Starts `jackd -n NAME -d dummy -r RATE -p PERIOD` and waits until a
    /// client can connect (`jack_wait -c`), at most 30 s.
    pub fn start(name: &str, rate: u32, period: u32) -> Result<Jackd, String> {
        let child = Command::new("jackd")
            .args(["-n", name, "-d", "dummy", "-r", &rate.to_string()])
            .args(["-p", &period.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run jackd: {e}"))?;
        let mut server = Jackd { child };
        let start = Instant::now();
        loop {
            let up = Command::new("jack_wait")
                .args(["-s", name, "-c"])
                .stderr(Stdio::null())
                .output()
                .map_err(|e| format!("cannot run jack_wait: {e}"))?;
            if String::from_utf8_lossy(&up.stdout).trim() == "running" {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("jackd exited: {status}"));
            }
            if start.elapsed() > Duration::from_secs(30) {
                return Err("jackd did not come up in 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server (SIGTERM, by pid, then waits for it to exit): the
    /// device vanishes under its clients. (SIGKILL would leave the server's
    /// entry in JACK's shared registry, which holds only a few.)
    pub fn kill(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: signals our own child process, which has not been
            // waited for yet, so its pid cannot have been reused.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let start = Instant::now();
        while let Ok(None) = self.child.try_wait() {
            if start.elapsed() > Duration::from_secs(10) {
                let _ = self.child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.wait();
    }
}

impl Drop for Jackd {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Opens an engine (`open`) on a JACK server just started. A server that
/// `jack_wait` reports running can still refuse a client for a moment
/// (cpal then sees only some of its devices, and the engine says
/// `NoDevice`), so that error is retried every 200 ms for up to
/// `patience`; any other is returned at once.
pub fn open_retrying(
    patience: Duration,
    mut open: impl FnMut() -> Result<AudioEngine, EngineError>,
) -> Result<AudioEngine, EngineError> {
    let start = Instant::now();
    loop {
        match open() {
            Err(EngineError::NoDevice(why)) if start.elapsed() < patience => {
                eprintln!("JACK: not open yet ({why}); retrying");
                std::thread::sleep(Duration::from_millis(200));
            }
            opened => return opened,
        }
    }
}

/// Busy processes, one per core: `sh -c 'while :; do :; done'`, at normal
/// priority. Killed by pid when dropped.
pub struct Load {
    children: Vec<Child>,
}

impl Load {
    pub fn start() -> Load {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let children = (0..cores)
            .filter_map(|_| {
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()
                    .ok()
            })
            .collect();
        Load { children }
    }

    pub fn processes(&self) -> usize {
        self.children.len()
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A deterministic pseudo-random sequence.
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

pub fn tone(seconds: f32, freq: f32, decay: f32) -> Sound {
    let n = (48_000.0 * seconds) as usize;
    let samples = (0..n)
        .map(|i| {
            let t = i as f32 / 48_000.0;
            (t * freq * std::f32::consts::TAU).sin() * (-t * decay).exp() * 0.5
        })
        .collect();
    Sound::from_samples(1, 48_000, samples).unwrap()
}

/// Every accepted play and the terminal events seen for it.
#[derive(Default)]
pub struct Ledger {
    pub terminal: HashMap<VoiceHandle, u32>,
    pub events: u64,
}

impl Ledger {
    pub fn accept(&mut self, h: VoiceHandle) {
        self.terminal.entry(h).or_insert(0);
    }

    pub fn read(&mut self, engine: &mut AudioEngine) -> Vec<Event> {
        self.read_timed(engine)
            .into_iter()
            .map(|e| e.event)
            .collect()
    }

    pub fn read_timed(&mut self, engine: &mut AudioEngine) -> Vec<TimedEvent> {
        let events = engine.drain_timed_events();
        for e in &events {
            self.events += 1;
            if let (true, Some(v)) = (e.event.is_terminal(), e.event.voice()) {
                *self.terminal.entry(v).or_insert(0) += 1;
            }
        }
        events
    }

    /// Plays with no terminal event, and plays with more than one.
    pub fn faults(&self) -> (usize, usize) {
        let none = self.terminal.values().filter(|&&n| n == 0).count();
        let many = self.terminal.values().filter(|&&n| n > 1).count();
        (none, many)
    }
}

/// What a storm did.
pub struct Outcome {
    pub seconds: f64,
    pub accepted: usize,
    pub refused: u64,
    pub stats: Stats,
    /// Plays that never got a terminal event, and plays that got several.
    pub missing: usize,
    pub duplicated: usize,
}

/// The spell-burst load at 60 Hz for `seconds`: a protected ambience loop,
/// and every sixth frame a swish (priority 200) and a burst of 24 sparkles
/// at random volume, pitch and pan. Events are read every frame. At the
/// end everything is stopped and the terminal events are awaited (at most
/// 60 s), then each accepted play is checked for exactly one.
pub fn storm(
    engine: &mut AudioEngine,
    seconds: f64,
    mut every_second: impl FnMut(&Stats),
) -> Outcome {
    let ambience = tone(2.0, 110.0, 0.0);
    let swish = tone(0.4, 300.0, 6.0);
    let sparkles: Vec<Sound> = (0..6)
        .map(|i| tone(0.15, 2_000.0 + 300.0 * i as f32, 20.0))
        .collect();
    let mut ledger = Ledger::default();
    let amb = PlayParams::default()
        .volume(0.2)
        .looping(true)
        .protected(true);
    if let Ok(h) = engine.play(&ambience, amb) {
        ledger.accept(h);
    }
    let mut rng = Lcg(42);
    let mut refused = 0u64;
    let frame = Duration::from_secs_f64(1.0 / 60.0);
    let start = Instant::now();
    let mut next = start;
    let mut n = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        if n.is_multiple_of(6) {
            match engine.play(&swish, PlayParams::default().priority(200)) {
                Ok(h) => ledger.accept(h),
                Err(_) => refused += 1,
            }
            for _ in 0..24 {
                let s = &sparkles[(rng.next() * 6.0) as usize % 6];
                let p = PlayParams::default()
                    .volume(0.1 + rng.next() * 0.6)
                    .pitch(0.7 + rng.next() * 0.8)
                    .pan(rng.next() * 2.0 - 1.0);
                match engine.play(s, p) {
                    Ok(h) => ledger.accept(h),
                    Err(_) => refused += 1,
                }
            }
        }
        ledger.read(engine);
        if n % 60 == 59 {
            every_second(&engine.stats());
        }
        n += 1;
        next += frame;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let ran = start.elapsed().as_secs_f64();
    let _ = engine.stop_all();
    let give_up = Instant::now();
    while ledger.terminal.keys().any(|h| engine.is_playing(*h))
        && give_up.elapsed() < Duration::from_secs(60)
    {
        ledger.read(engine);
        std::thread::sleep(Duration::from_millis(5));
    }
    ledger.read(engine);
    let (missing, duplicated) = ledger.faults();
    Outcome {
        seconds: ran,
        accepted: ledger.terminal.len(),
        refused,
        stats: engine.stats(),
        missing,
        duplicated,
    }
}

/// One line of figures.
pub fn figures(stats: &Stats) -> String {
    format!(
        "{} callbacks, {} late (took longer than their {:.2} ms budget), worst {:.3} ms ({:.0}% of the budget), {} xruns; {} started, {} steals, {} rejected",
        stats.callbacks,
        stats.late_callbacks,
        stats.callback_budget.as_secs_f64() * 1e3,
        stats.worst_callback.as_secs_f64() * 1e3,
        100.0 * stats.worst_callback.as_secs_f64() / stats.callback_budget.as_secs_f64().max(1e-9),
        stats.underruns,
        stats.started,
        stats.steals,
        stats.rejections,
    )
}
