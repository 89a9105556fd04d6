//! The paced soak's parts, shared by `examples/jack_soak`, `tests/jack.rs`
//! and (its sounds) `tests/live_output.rs`: opening an engine on a JACK
//! server just started (the server itself is [`super::jackd`]), a background
//! load that keeps every core busy, and the spell-burst game loop at 60 Hz
//! with its bookkeeping of terminal events.

use std::collections::HashMap;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use voicepool::{
    AudioEngine, EngineError, Event, PlayParams, Sound, Stats, TimedEvent, VoiceHandle,
};

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

/// Makes the process `cmd` starts get SIGTERM when the thread that starts
/// it dies (Linux's parent-death signal): a test process that aborts or is
/// killed leaves no server or busy loop of its own running behind it.
pub fn die_with_parent(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: runs in the forked child before exec, and calls only prctl,
    // which is async-signal-safe; it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
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
                die_with_parent(Command::new("sh").args(["-c", "while :; do :; done"]))
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

/// A deterministic pseudo-random sequence ([`Lcg::unit`]: the next value in `0..1`).
pub struct Lcg(pub u64);
impl Lcg {
    pub fn unit(&mut self) -> f32 {
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
                let s = &sparkles[(rng.unit() * 6.0) as usize % 6];
                let p = PlayParams::default()
                    .volume(0.1 + rng.unit() * 0.6)
                    .pitch(0.7 + rng.unit() * 0.8)
                    .pan(rng.unit() * 2.0 - 1.0);
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
    // (is_playing reads false from stop_all on: wait for the events.)
    while ledger.faults().0 > 0 && give_up.elapsed() < Duration::from_secs(60) {
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
