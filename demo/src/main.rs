//! The wand-swish demo: a hero waves a wand in a rhythm; every cast is a
//! swish plus a burst of sparkles (dozens of short sounds with random pitch,
//! pan and volume) over a quiet looping ambience, into a small pool of
//! voices, so stealing happens all the time. The ambience asks to
//! virtualize: when a burst takes its voice it keeps time silently and comes
//! back, at the sample it would have reached, once there is room.
//!
//! ```text
//! cargo run --release -p voicepool-demo                      # live, or offline if no device
//! cargo run --release -p voicepool-demo -- --paced           # no device: render, watched in real time
//! cargo run --release -p voicepool-demo -- --offline         # render as fast as possible
//! cargo run --release -p voicepool-demo -- --policy reject   # hear the wand go silent
//! ```
//!
//! Flags: `--voices N` (default 12), `--seconds S` (above 0, at most 600;
//! default 12), `--policy quietest|oldest|reject`, `--offline` (render
//! offline as fast as possible, even if a device exists), `--paced` (render
//! offline on the wall clock: one block at a time, each when it would play,
//! with the same live view of the pool; for watching without a sound card),
//! `--render FILE.wav` (where a render goes; alone, it means `--offline`),
//! `--timeline FILE.svg` (where the picture of the run goes: one row per
//! slot, a bar per voice, a mark where a voice was stolen, a dashed bar
//! where a voice was virtual and a mark where it came back). Files are named
//! after the policy unless given: `out/wand_swish_quietest.wav` and
//! `out/wand_swish_quietest.svg`, `out/wand_swish_reject.wav`, ...
//!
//! While it runs it shows the pool: one line per slot with the sound's name
//! and a level bar, and running counts of plays, steals and rejections.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use voicepool::{
    AudioEngine, Engine, EngineSettings, Event, OfflineEngine, PlayParams, SlotView, Sound,
    StealPolicy, TimedEvent, VoiceHandle,
};

const USAGE: &str =
    "usage: wand_swish [--voices N] [--seconds S (0 < S <= 600)] [--policy quietest|oldest|reject] \
[--offline | --paced] [--render FILE.wav] [--timeline FILE.svg]";
/// Where the render and the timeline go when no path is given: named after
/// the policy, so runs with different policies keep their own files.
fn default_output(policy: StealPolicy, extension: &str) -> PathBuf {
    PathBuf::from(format!(
        "out/wand_swish_{}.{extension}",
        policy_name(policy)
    ))
}

fn policy_name(policy: StealPolicy) -> String {
    format!("{policy:?}").to_lowercase()
}
/// Offline block size: script actions land on 128-frame boundaries (2.7 ms).
const BLOCK: usize = 128;

struct Args {
    voices: usize,
    seconds: f64,
    policy: StealPolicy,
    offline: bool,
    paced: bool,
    render: Option<PathBuf>,
    timeline: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        voices: 12,
        seconds: 12.0,
        policy: StealPolicy::Quietest,
        offline: false,
        paced: false,
        render: None,
        timeline: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--help" | "-h" => return Err(String::new()),
            "--offline" => {
                args.offline = true;
                continue;
            }
            "--paced" => {
                args.paced = true;
                continue;
            }
            _ => {}
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--voices" => {
                args.voices = value
                    .parse()
                    .ok()
                    .filter(|v| (1..=1024).contains(v))
                    .ok_or_else(|| format!("--voices {value}: expected a whole number 1 to 1024"))?
            }
            "--seconds" => {
                args.seconds = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 600.0)
                    .ok_or_else(|| {
                        format!(
                            "--seconds {value}: expected a number of seconds above 0, at most 600"
                        )
                    })?
            }
            "--policy" => {
                args.policy = match value.as_str() {
                    "quietest" => StealPolicy::Quietest,
                    "oldest" => StealPolicy::Oldest,
                    "reject" => StealPolicy::Reject,
                    _ => {
                        return Err(format!(
                            "--policy {value}: expected quietest, oldest or reject"
                        ))
                    }
                }
            }
            "--render" => args.render = Some(PathBuf::from(value)),
            "--timeline" => args.timeline = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if args.offline && args.paced {
        return Err(
            "--offline and --paced exclude each other: render as fast as possible, \
or on the wall clock"
                .into(),
        );
    }
    Ok(args)
}

/// The sounds, by index: 0 ambience, 1 swish, 2.. sparkles.
struct Bank {
    sounds: Vec<Sound>,
}

const AMBIENCE: usize = 0;
const SWISH: usize = 1;

impl Bank {
    fn load() -> Result<Bank, String> {
        // The repository's samples/, next to this crate's directory.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
        let mut names = vec!["ambience".to_string(), "swish".to_string()];
        names.extend((1..=6).map(|i| format!("sparkle_{i}")));
        let sounds = names
            .iter()
            .map(|n| {
                Sound::from_wav_file(dir.join(format!("{n}.wav"))).map_err(|e| {
                    format!("{e}\n(the samples are made by `cargo run --example make_samples`)")
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Bank { sounds })
    }

    fn name(&self, i: usize) -> &str {
        self.sounds.get(i).map_or("?", |s| s.name())
    }
}

/// One scheduled play.
struct Action {
    at: f64,
    sound: usize,
    params: PlayParams,
    cast: Option<usize>,
}

/// A deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

/// The spell: casts on a rhythm (four per 2.5 s bar: beats 1, 2, 3 and the
/// "and" of 3), each a swish and 20 to 36 sparkles spread over 0.7 s.
fn script(seconds: f64, sparkles: usize) -> (Vec<Action>, usize) {
    let mut rng = Rng(0x5eed);
    let mut actions = vec![Action {
        at: 0.0,
        sound: AMBIENCE,
        params: PlayParams::default()
            .volume(0.35)
            .looping(true)
            // Background: below the spell's sounds, so a full pool takes
            // its voice first; it keeps time and comes back in the gaps.
            .priority(64)
            .virtualize(true)
            .fade_in(1.0),
        cast: None,
    }];
    let beat = 0.625;
    let mut casts = 0;
    'bars: for bar in 0.. {
        for offset in [0.0, 1.0, 2.0, 2.5] {
            let t = 0.5 + bar as f64 * 4.0 * beat + offset * beat;
            if t > seconds - 0.5 {
                break 'bars;
            }
            let pan = if casts % 2 == 0 { -0.45 } else { 0.45 };
            actions.push(Action {
                at: t,
                sound: SWISH,
                params: PlayParams::default()
                    .volume(0.9)
                    .pan(pan)
                    .pitch(rng.range(0.9, 1.12))
                    .priority(200),
                cast: Some(casts),
            });
            let burst = 20 + (rng.unit() * 17.0) as usize;
            for _ in 0..burst {
                let u = rng.unit();
                let volume = 0.06 + 0.5 * rng.unit().powi(2);
                actions.push(Action {
                    at: t + 0.08 + f64::from(u.powf(1.5)) * 0.7,
                    sound: 2 + (rng.unit() * sparkles as f32) as usize % sparkles,
                    params: PlayParams::default()
                        .volume(volume)
                        .pitch(rng.range(0.7, 1.7))
                        .pan((pan + rng.range(-0.6, 0.6)).clamp(-1.0, 1.0)),
                    cast: None,
                });
            }
            casts += 1;
        }
    }
    actions.sort_by(|a, b| a.at.total_cmp(&b.at));
    (actions, casts)
}

/// What happened to one play, for the display and the timeline.
struct VoiceRec {
    sound: usize,
    slot: Option<usize>,
    start: Option<u64>,
    end: Option<u64>,
    stolen_by: Option<usize>,
    rejected: Option<u64>,
    /// It went virtual where it ends (its next stretch, after it came
    /// back, is a record of its own).
    virtualized: bool,
    /// It is a virtual voice come back (its start is the comeback).
    resumed: bool,
    /// (frame, level) as `slots()` reported it: what stealing ranks by.
    levels: Vec<(u64, f32)>,
}

impl VoiceRec {
    fn new(sound: usize, start: Option<u64>, resumed: bool) -> VoiceRec {
        VoiceRec {
            sound,
            slot: None,
            start,
            end: None,
            stolen_by: None,
            rejected: None,
            virtualized: false,
            resumed,
            levels: Vec::new(),
        }
    }
}

/// A stretch during which a voice was virtual: keeping time silently.
struct VirtualSpan {
    sound: usize,
    from: u64,
    to: Option<u64>,
    /// It ended by coming back (rather than ending while virtual).
    resumed: bool,
}

/// Everything the demo watches: which sound each handle plays, where and
/// when each voice lived, and the running counts.
struct Show {
    rate: u32,
    voices: Vec<VoiceRec>,
    by_handle: HashMap<VoiceHandle, usize>,
    casts: Vec<u64>,
    plays: u64,
    play_errors: u64,
    swishes: u64,
    swishes_rejected: u64,
    stream_errors: u64,
    end_frame: u64,
    virtual_spans: Vec<VirtualSpan>,
    /// The open span of each voice virtual now.
    virtual_now: HashMap<VoiceHandle, usize>,
}

impl Show {
    fn new(rate: u32) -> Show {
        Show {
            rate,
            voices: Vec::new(),
            by_handle: HashMap::new(),
            casts: Vec::new(),
            plays: 0,
            play_errors: 0,
            swishes: 0,
            swishes_rejected: 0,
            stream_errors: 0,
            end_frame: 0,
            virtual_spans: Vec::new(),
            virtual_now: HashMap::new(),
        }
    }

    fn play(&mut self, engine: &Engine, bank: &Bank, action: &Action, now: u64) {
        if action.cast.is_some() {
            self.casts.push(now);
        }
        self.plays += 1;
        if action.sound == SWISH {
            self.swishes += 1;
        }
        match engine.play(&bank.sounds[action.sound], action.params) {
            Ok(h) => {
                self.by_handle.insert(h, self.voices.len());
                self.voices.push(VoiceRec::new(action.sound, None, false));
            }
            Err(_) => self.play_errors += 1,
        }
    }

    fn rec(&mut self, h: VoiceHandle) -> Option<&mut VoiceRec> {
        let i = *self.by_handle.get(&h)?;
        self.voices.get_mut(i)
    }

    /// Closes `voice`'s virtual stretch at `frame`, if it has one open.
    fn close_span(&mut self, voice: VoiceHandle, frame: u64, resumed: bool) -> bool {
        let Some(i) = self.virtual_now.remove(&voice) else {
            return false;
        };
        if let Some(span) = self.virtual_spans.get_mut(i) {
            span.to = Some(frame);
            span.resumed = resumed;
        }
        true
    }

    fn absorb(&mut self, events: Vec<TimedEvent>) {
        for TimedEvent { frame, event } in events {
            if matches!(event, Event::Ended { .. } | Event::Stolen { .. })
                && event
                    .voice()
                    .is_some_and(|v| self.close_span(v, frame, false))
            {
                continue; // ended while virtual: its last bar ended already
            }
            match event {
                Event::Virtualized { voice } => {
                    let Some(r) = self.rec(voice) else { continue };
                    r.end = Some(frame);
                    r.virtualized = true;
                    let sound = r.sound;
                    self.virtual_now.insert(voice, self.virtual_spans.len());
                    self.virtual_spans.push(VirtualSpan {
                        sound,
                        from: frame,
                        to: None,
                        resumed: false,
                    });
                }
                Event::Resumed { voice } => {
                    self.close_span(voice, frame, true);
                    let Some(sound) = self.rec(voice).map(|r| r.sound) else {
                        continue;
                    };
                    self.by_handle.insert(voice, self.voices.len());
                    self.voices.push(VoiceRec::new(sound, Some(frame), true));
                }
                Event::Started { voice } => {
                    if let Some(r) = self.rec(voice) {
                        r.start = Some(frame);
                    }
                }
                Event::Ended { voice } => {
                    if let Some(r) = self.rec(voice) {
                        r.end = Some(frame);
                    }
                }
                Event::Stolen { victim, by } => {
                    let thief = self.by_handle.get(&by).copied();
                    if let Some(r) = self.rec(victim) {
                        r.end = Some(frame);
                        r.stolen_by = thief;
                    }
                }
                Event::Rejected { voice } => {
                    let swish = self.rec(voice).map(|r| {
                        r.rejected = Some(frame);
                        r.sound == SWISH
                    });
                    if swish == Some(true) {
                        self.swishes_rejected += 1;
                    }
                }
                Event::StreamError { .. } => self.stream_errors += 1,
                _ => {}
            }
        }
    }

    /// Notes which slot each voice is in and its ranking level at `frame`.
    fn observe(&mut self, slots: &[SlotView], frame: u64) {
        for (i, s) in slots.iter().enumerate() {
            if let Some(r) = s.voice.and_then(|h| self.rec(h)) {
                r.slot = Some(i);
                r.levels.push((frame, s.level));
            }
        }
    }

    /// A thief takes its victim's slot: fill in slots never seen directly.
    fn infer_slots(&mut self) {
        for _ in 0..8 {
            let mut changed = false;
            for v in 0..self.voices.len() {
                let Some(t) = self.voices[v].stolen_by else {
                    continue;
                };
                match (self.voices[v].slot, self.voices[t].slot) {
                    (Some(s), None) => self.voices[t].slot = Some(s),
                    (None, Some(s)) => self.voices[v].slot = Some(s),
                    _ => continue,
                }
                changed = true;
            }
            if !changed {
                break;
            }
        }
    }

    fn seconds(&self, frame: u64) -> f64 {
        frame as f64 / f64::from(self.rate)
    }

    /// The pool as a person wants to watch it.
    fn panel(&self, bank: &Bank, slots: &[SlotView], engine: &Engine, t: f64) -> Vec<String> {
        let stats = engine.stats();
        let mut lines = vec![format!(
            "t = {t:6.2} s   {} voices in use of {}, {} virtual (keeping time silently)",
            stats.active_voices,
            slots.len(),
            stats.virtual_voices
        )];
        for (i, s) in slots.iter().enumerate() {
            let rec = s
                .voice
                .and_then(|h| self.by_handle.get(&h))
                .map(|&r| &self.voices[r]);
            let line = match rec {
                Some(r) => {
                    let db = 20.0 * s.level.max(1e-9).log10();
                    let mark = match (r.sound == AMBIENCE, r.resumed) {
                        (true, true) => "  loop, back from virtual",
                        (true, false) => "  loop, virtualizes",
                        _ => "",
                    };
                    format!(
                        "slot {i:2}  {:<10} {} {:>4.0} dB{mark}",
                        bank.name(r.sound),
                        bar(db, 28),
                        db.max(-99.0)
                    )
                }
                None => format!("slot {i:2}  {:<10} {}", "-", bar(-100.0, 28)),
            };
            lines.push(line);
        }
        lines.push(format!(
            "plays {}   started {}   steals {}   rejections {}   peak {}/{}   swishes heard {}/{}",
            self.plays,
            stats.started,
            stats.steals,
            stats.rejections,
            stats.peak_active_voices,
            slots.len(),
            self.swishes - self.swishes_rejected,
            self.swishes
        ));
        lines
    }
}

/// A level bar: -60 dB empty, 0 dB full, in eighths of a character.
fn bar(db: f32, width: usize) -> String {
    const PARTS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let fill = ((db + 60.0) / 60.0).clamp(0.0, 1.0) * width as f32;
    let eighths = (fill * 8.0).round() as usize;
    let mut s = String::from("▕");
    for c in 0..width {
        let left = eighths.saturating_sub(c * 8);
        s.push(if left >= 8 { '█' } else { PARTS[left] });
    }
    s.push('▏');
    s
}

/// Redraws the panel in place on a terminal; elsewhere prints it as is.
struct Screen {
    tty: bool,
    drawn: usize,
}

impl Screen {
    fn draw(&mut self, lines: &[String]) {
        let mut out = String::new();
        if self.tty && self.drawn > 0 {
            let _ = write!(out, "\x1b[{}A", self.drawn);
        }
        for l in lines {
            if self.tty {
                out.push_str("\x1b[2K");
            }
            out.push_str(l);
            out.push('\n');
        }
        if !self.tty {
            out.push('\n');
        }
        self.drawn = lines.len();
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.flush();
    }
}

/// How often the pool is redrawn: 30 times a second on a terminal, every 2 s
/// into a pipe or file.
fn redraw_interval(tty: bool) -> Duration {
    if tty {
        Duration::from_millis(33)
    } else {
        Duration::from_secs(2)
    }
}

fn settings(args: &Args) -> EngineSettings {
    EngineSettings {
        voices: args.voices,
        steal_policy: args.policy,
        ..Default::default()
    }
}

/// How an offline render is driven.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pace {
    /// As fast as possible, printing a few snapshots of the pool.
    Fast,
    /// On the wall clock: each block rendered when it would play live, the
    /// pool drawn as the live mode draws it.
    RealTime,
}

/// Renders the spell offline into a 16-bit stereo WAV. The audio is the
/// same whatever the pace: the script is played by frame, not by clock.
fn run_offline(args: &Args, bank: &Bank, path: &Path, pace: Pace) -> Result<Show, String> {
    let mut engine = OfflineEngine::new(settings(args)).map_err(|e| e.to_string())?;
    let rate = engine.sample_rate();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let io = |e: hound::Error| format!("{}: {e}", path.display());
    let mut wav = hound::WavWriter::create(path, spec).map_err(io)?;
    let (actions, casts) = script(args.seconds, bank.sounds.len() - 2);
    let mut show = Show::new(rate);
    let total = (args.seconds * f64::from(rate)) as u64;
    // Snapshots: just after four casts spread over the run.
    let snapshot_casts: Vec<usize> = (0..4).map(|k| k * casts / 4).collect();
    let mut snapshots: Vec<u64> = Vec::new();
    let mut screen = Screen {
        tty: pace == Pace::RealTime && std::io::stdout().is_terminal(),
        drawn: 0,
    };
    let redraw = redraw_interval(screen.tty);
    let start = Instant::now();
    let mut last_draw = start;
    let mut next = 0;
    let mut frame = 0u64;
    while frame < total {
        while let Some(a) = actions
            .get(next)
            .filter(|a| a.at * f64::from(rate) <= frame as f64)
        {
            if a.cast.is_some_and(|c| snapshot_casts.contains(&c)) {
                snapshots.push(frame + u64::from(rate) * 3 / 10);
            }
            show.play(&engine, bank, a, frame);
            next += 1;
        }
        let n = BLOCK.min((total - frame) as usize);
        for &s in engine.render(n) {
            wav.write_sample((s.clamp(-1.0, 1.0) * 32_767.0).round() as i16)
                .map_err(io)?;
        }
        frame += n as u64;
        let events = engine.drain_timed_events();
        show.absorb(events);
        let slots = engine.slots();
        show.observe(&slots, frame);
        match pace {
            Pace::Fast => {
                if snapshots.first().is_some_and(|&at| frame >= at) {
                    snapshots.remove(0);
                    screen.draw(&show.panel(bank, &slots, &engine, show.seconds(frame)));
                }
            }
            Pace::RealTime => {
                if last_draw.elapsed() >= redraw || frame >= total {
                    screen.draw(&show.panel(bank, &slots, &engine, show.seconds(frame)));
                    last_draw = Instant::now();
                }
                // Wait until this block would have finished playing. A few
                // milliseconds ahead is fine: a device buffers that much too.
                let due = start + Duration::from_secs_f64(show.seconds(frame));
                let ahead = due.saturating_duration_since(Instant::now());
                if ahead > Duration::from_millis(5) {
                    std::thread::sleep(ahead);
                }
            }
        }
    }
    wav.finalize().map_err(io)?;
    show.end_frame = frame;
    Ok(show)
}

/// Plays the spell live for `args.seconds` of wall-clock time, drawing the
/// pool 30 times a second on a terminal (every 2 s otherwise).
fn run_live(args: &Args, bank: &Bank, mut engine: AudioEngine) -> Show {
    let rate = engine.sample_rate();
    let (actions, _) = script(args.seconds, bank.sounds.len() - 2);
    let mut show = Show::new(rate);
    let mut screen = Screen {
        tty: std::io::stdout().is_terminal(),
        drawn: 0,
    };
    let redraw = redraw_interval(screen.tty);
    let start = Instant::now();
    let mut last_draw = start;
    let mut next = 0;
    loop {
        let t = start.elapsed();
        let now = engine.stats().frames_rendered;
        while let Some(a) = actions.get(next).filter(|a| a.at <= t.as_secs_f64()) {
            show.play(&engine, bank, a, now);
            next += 1;
        }
        let events = engine.drain_timed_events();
        show.absorb(events);
        let slots = engine.slots();
        show.observe(&slots, engine.stats().frames_rendered);
        let done = t.as_secs_f64() >= args.seconds;
        if last_draw.elapsed() >= redraw || done {
            screen.draw(&show.panel(bank, &slots, &engine, t.as_secs_f64()));
            last_draw = Instant::now();
        }
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(16));
    }
    let _ = engine.stop_all();
    std::thread::sleep(Duration::from_millis(50));
    show.absorb(engine.drain_timed_events());
    show.end_frame = engine.stats().frames_rendered;
    drop(engine);
    show
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("wand_swish: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let bank = match Bank::load() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("wand_swish: {e}");
            std::process::exit(1);
        }
    };
    let policy = policy_name(args.policy);
    println!(
        "wand_swish: {} voices, policy {policy}, {} s of spells",
        args.voices, args.seconds
    );
    let mut pace = Pace::RealTime;
    let live = if args.paced {
        None
    } else if args.offline || args.render.is_some() {
        pace = Pace::Fast;
        None
    } else {
        match AudioEngine::start(settings(&args)) {
            Ok(engine) => Some(engine),
            Err(e) => {
                // Someone watching a terminal sees the pool at the pace it
                // would have played; a pipe gets the render at full speed.
                if !std::io::stdout().is_terminal() {
                    pace = Pace::Fast;
                }
                println!("{e}\nso rendering offline instead");
                None
            }
        }
    };
    let (show, rendered) = match live {
        Some(engine) => {
            let i = engine.info();
            println!(
                "playing live on {:?}: {} Hz, {} channels, {:?}",
                i.device, i.sample_rate, i.channels, i.sample_format
            );
            (run_live(&args, &bank, engine), None)
        }
        None => {
            let path = args
                .render
                .clone()
                .unwrap_or_else(|| default_output(args.policy, "wav"));
            match pace {
                Pace::Fast => println!("rendering offline to {} ...\n", path.display()),
                Pace::RealTime => println!(
                    "rendering to {} in real time, as it would play live \
(--offline: full speed) ...\n",
                    path.display()
                ),
            }
            match run_offline(&args, &bank, &path, pace) {
                Ok(show) => (show, Some(path)),
                Err(e) => {
                    eprintln!("wand_swish: {e}");
                    std::process::exit(1);
                }
            }
        }
    };
    let mut show = show;
    show.infer_slots();
    let steals = show.voices.iter().filter(|v| v.stolen_by.is_some()).count();
    let rejected = show.voices.iter().filter(|v| v.rejected.is_some()).count();
    println!(
        "done: {} plays, {steals} stolen, {rejected} rejected, {} went virtual ({} came back); the wand swished {} of {} times{}",
        show.plays,
        show.virtual_spans.len(),
        show.virtual_spans.iter().filter(|s| s.resumed).count(),
        show.swishes - show.swishes_rejected,
        show.swishes,
        if show.play_errors + show.stream_errors > 0 {
            format!(
                " ({} plays refused, {} stream errors)",
                show.play_errors, show.stream_errors
            )
        } else {
            String::new()
        }
    );
    if let Some(path) = rendered {
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        println!(
            "wrote {} ({:.1} MB, {:.1} s, 16-bit stereo {} Hz)",
            path.display(),
            size as f64 / 1e6,
            show.seconds(show.end_frame),
            show.rate
        );
    }
    {
        let path = args
            .timeline
            .clone()
            .unwrap_or_else(|| default_output(args.policy, "svg"));
        let svg = timeline_svg(&show, &bank, args.voices, &policy);
        let written = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, svg));
        match written {
            Ok(()) => println!("wrote {} (timeline: one row per slot)", path.display()),
            Err(e) => {
                eprintln!("wand_swish: cannot write {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    }
}

const SPARKLE_COLOURS: [&str; 6] = [
    "#6a4c93", "#4361ee", "#7209b7", "#3a86ff", "#9d4edd", "#4895ef",
];

/// The mark where a virtual voice came back (dark, to show on any bar).
const COMEBACK: &str = "#1d3557";

fn colour(sound: usize) -> &'static str {
    match sound {
        AMBIENCE => "#2a9d8f",
        SWISH => "#e76f51",
        s => SPARKLE_COLOURS[(s - 2) % SPARKLE_COLOURS.len()],
    }
}

fn short_name(sound: usize) -> String {
    match sound {
        AMBIENCE => "amb".into(),
        SWISH => "sw".into(),
        s => format!("s{}", s - 1),
    }
}

/// A voice's ranking level over its life, as a light area inside its bar
/// (`y`..`y + h`): -60 dB at the bottom, 0 dB at the top. Shows *why* a
/// victim was taken: the lowest area in the pool at that moment.
fn level_area(
    v: &VoiceRec,
    start: u64,
    end: u64,
    y: f64,
    h: f64,
    x: &dyn Fn(u64) -> f64,
) -> String {
    let points: Vec<(f64, f64)> = v
        .levels
        .iter()
        .filter(|&&(f, _)| f >= start && f <= end)
        .map(|&(f, l)| {
            let db = 20.0 * f64::from(l).max(1e-6).log10();
            let top = y + h * (1.0 - ((db + 60.0) / 60.0).clamp(0.0, 1.0));
            (x(f), top)
        })
        .collect();
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return String::new();
    };
    let mut d = format!("M{:.1} {:.1}", first.0, y + h);
    for (px, py) in &points {
        let _ = write!(d, " L{px:.1} {py:.1}");
    }
    let _ = write!(d, " L{:.1} {:.1} Z", last.0, y + h);
    format!("<path d=\"{d}\" fill=\"#ffffff\" fill-opacity=\"0.45\" pointer-events=\"none\"/>\n")
}

/// The timeline: time across, one row per slot, a bar per voice labelled
/// with its sound and filled with its ranking level over time, a red mark
/// where a voice was stolen, rejected plays on a row of their own.
fn timeline_svg(show: &Show, bank: &Bank, slots: usize, policy: &str) -> String {
    let seconds = show.seconds(show.end_frame).max(0.001);
    let px_per_s = (1_500.0 / seconds).clamp(20.0, 160.0);
    let (left, row_h, bar_h) = (78.0, 30.0, 22.0);
    let plot_w = seconds * px_per_s;
    // The slots, then a row for virtual voices, then one for rejections.
    let rows = slots + 2;
    let width = (left + plot_w + 24.0).max(900.0);
    let rejected = show.voices.iter().filter(|v| v.rejected.is_some()).count();

    // Legend, wrapped to the picture's width.
    let mut items: Vec<(String, &str, &str)> = vec![
        (
            "ambience (looping, virtualizes)".into(),
            colour(AMBIENCE),
            "box",
        ),
        ("swish".into(), colour(SWISH), "box"),
    ];
    items.extend((2..bank.sounds.len()).map(|i| {
        (
            format!("{} = {}", short_name(i), bank.name(i)),
            colour(i),
            "box",
        )
    }));
    items.push((
        "inside a bar: its level as stealing ranks it (-60 to 0 dB)".into(),
        "#555555",
        "level",
    ));
    items.push((
        "stolen here (the next bar in the row is the thief)".into(),
        "#d62828",
        "mark",
    ));
    items.push((
        "virtual: keeping time silently, no voice (dashed)".into(),
        colour(AMBIENCE),
        "dashed",
    ));
    items.push((
        "back from virtual, at the sample it had reached".into(),
        COMEBACK,
        "resume",
    ));
    if rejected > 0 {
        items.push(("play rejected (never started)".into(), "#d62828", "cross"));
    }
    let mut legend = String::new();
    let (mut lx, mut ly) = (left, 58.0);
    for (label, c, kind) in items {
        let w = 24.0 + label.len() as f64 * 6.3;
        if lx + w > width - 8.0 && lx > left {
            lx = left;
            ly += 18.0;
        }
        let glyph = match kind {
            "box" => {
                format!(r#"<rect x="{lx:.1}" y="{ly}" width="12" height="12" rx="2" fill="{c}"/>"#)
            }
            "mark" => format!(r#"<path d="M{lx:.1} {ly} l10 0 l-5 9 z" fill="{c}"/>"#),
            "dashed" => format!(
                r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="10" rx="2" fill="none" stroke="{c}" stroke-width="1.5" stroke-dasharray="3 2"/>"#,
                ly + 1.0
            ),
            "resume" => format!(r#"<path d="M{lx:.1} {ly} l0 12 l9 -6 z" fill="{c}"/>"#),
            "level" => format!(
                r##"<rect x="{lx:.1}" y="{ly}" width="12" height="12" rx="2" fill="{c}"/><path d="M{lx:.1} {:.1} l3 -6 l3 3 l3 -8 l3 5 l0 6 z" fill="#ffffff" fill-opacity="0.55"/>"##,
                ly + 12.0
            ),
            _ => format!(
                r#"<path d="M{:.1} {:.1} l7 7 m0 -7 l-7 7" stroke="{c}" stroke-width="1.6"/>"#,
                lx + 2.0,
                ly + 2.5
            ),
        };
        let _ = writeln!(
            legend,
            r##"{glyph}<text x="{:.1}" y="{:.1}" font-size="11" fill="#333">{label}</text>"##,
            lx + 16.0,
            ly + 10.5
        );
        lx += w;
    }
    let top = ly + 34.0;
    let height = top + rows as f64 * row_h + 44.0;
    let x = |frame: u64| left + show.seconds(frame) * px_per_s;
    let steals = show.voices.iter().filter(|v| v.stolen_by.is_some()).count();
    let unplaced = show
        .voices
        .iter()
        .filter(|v| v.start.is_some() && v.slot.is_none())
        .count();

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="26" font-size="17" font-weight="bold" fill="#222">wand_swish: {slots} voices, policy {policy}, {seconds:.1} s</text>"##
    );
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="46" font-size="12" fill="#444">{} plays, {steals} stolen (red marks), {rejected} rejected; the wand swished {} of {} times{}</text>"##,
        show.plays,
        show.swishes - show.swishes_rejected,
        show.swishes,
        if unplaced > 0 {
            format!("; {unplaced} voices too short to place in a slot are not drawn")
        } else {
            String::new()
        }
    );
    s.push_str(&legend);
    // Rows and grid.
    for r in 0..rows {
        let y = top + r as f64 * row_h;
        let fill = if r % 2 == 0 { "#f6f6f8" } else { "#ececf0" };
        let label = if r < slots {
            format!("slot {r}")
        } else if r == slots {
            "virtual".into()
        } else {
            "rejected".into()
        };
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{y:.1}" width="{plot_w:.1}" height="{row_h}" fill="{fill}"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="end" fill="#333">{label}</text>"##,
            left - 8.0,
            y + row_h / 2.0 + 4.0
        );
    }
    let bottom = top + rows as f64 * row_h;
    let step = if seconds > 30.0 { 5.0 } else { 1.0 };
    let mut t = 0.0;
    while t <= seconds + 1e-9 {
        let tx = left + t * px_per_s;
        let _ = writeln!(
            s,
            r##"<line x1="{tx:.1}" y1="{top}" x2="{tx:.1}" y2="{:.1}" stroke="#c8c8d0" stroke-width="1"/><text x="{tx:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#555">{t:.0} s</text>"##,
            bottom + 4.0,
            bottom + 17.0
        );
        t += step;
    }
    for (i, &c) in show.casts.iter().enumerate() {
        let cx = x(c);
        let _ = writeln!(
            s,
            r##"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{bottom:.1}" stroke="#e76f51" stroke-width="1" stroke-dasharray="3 3" opacity="0.6"/><text x="{cx:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#c0502e">{}</text>"##,
            top - 10.0,
            top - 12.0,
            if i == 0 {
                "cast 1".to_string()
            } else {
                (i + 1).to_string()
            }
        );
    }
    // Voices.
    let end_all = show.end_frame;
    for v in &show.voices {
        let (Some(slot), Some(start)) = (v.slot, v.start) else {
            continue;
        };
        let end = v.end.unwrap_or(end_all).max(start);
        let (x0, x1) = (x(start), x(end));
        let w = (x1 - x0).max(1.0);
        let y = top + slot as f64 * row_h + (row_h - bar_h) / 2.0;
        let name = bank.name(v.sound);
        let how = match v.stolen_by {
            Some(t) => format!(", stolen by {}", bank.name(show.voices[t].sound)),
            None if v.virtualized => ", went virtual".into(),
            None if v.end.is_some() => ", ended".into(),
            None => String::new(),
        };
        if v.resumed {
            let ty = top + slot as f64 * row_h;
            let _ = writeln!(
                s,
                r##"<path d="M{x0:.1} {:.1} l0 12 l9 -6 z" fill="{COMEBACK}" stroke="#ffffff" stroke-width="0.8"><title>{} back from virtual in slot {slot} at {:.3} s</title></path>"##,
                ty + 1.0,
                bank.name(v.sound),
                show.seconds(start)
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{x0:.2}" y="{y:.1}" width="{w:.2}" height="{bar_h}" rx="2" fill="{}" stroke="#ffffff" stroke-width="0.8"><title>{name} in slot {slot}: {:.3} s to {:.3} s{how}</title></rect>"##,
            colour(v.sound),
            show.seconds(start),
            show.seconds(end)
        );
        s.push_str(&level_area(v, start, end, y, bar_h, &x));
        let short = short_name(v.sound);
        let label = if w > name.len() as f64 * 6.2 + 6.0 {
            Some(name.to_string())
        } else if w > short.len() as f64 * 6.2 + 3.0 {
            Some(short)
        } else {
            None
        };
        if let Some(label) = label {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="10.5" fill="#ffffff" pointer-events="none">{label}</text>"##,
                x0 + 3.0,
                y + bar_h / 2.0 + 3.8
            );
        }
        if let Some(t) = v.stolen_by {
            let thief = bank.name(show.voices[t].sound);
            let ty = top + slot as f64 * row_h;
            let level = v.levels.last().map_or(String::new(), |&(_, l)| {
                format!(", its level {:.0} dB", 20.0 * l.max(1e-6).log10())
            });
            let _ = writeln!(
                s,
                r##"<path d="M{:.1} {ty:.1} l8 0 l-4 7 z" fill="#d62828"><title>{name} stolen by {thief} at {:.3} s{level}</title></path><line x1="{x1:.1}" y1="{ty:.1}" x2="{x1:.1}" y2="{:.1}" stroke="#d62828" stroke-width="1.2"/>"##,
                x1 - 4.0,
                show.seconds(end),
                ty + row_h
            );
        }
    }
    for span in &show.virtual_spans {
        let to = span.to.unwrap_or(end_all).max(span.from);
        let (x0, x1) = (x(span.from), x(to));
        let y = top + slots as f64 * row_h + (row_h - bar_h) / 2.0;
        let name = bank.name(span.sound);
        let how = if span.resumed {
            "came back"
        } else if span.to.is_some() {
            "ended while virtual"
        } else {
            "still virtual at the end"
        };
        let _ = writeln!(
            s,
            r##"<rect x="{x0:.2}" y="{y:.1}" width="{:.2}" height="{bar_h}" rx="2" fill="{c}" fill-opacity="0.12" stroke="{c}" stroke-width="1.5" stroke-dasharray="5 3"><title>{name} virtual from {:.3} s to {:.3} s: keeping time silently, then {how}</title></rect>"##,
            (x1 - x0).max(1.0),
            show.seconds(span.from),
            show.seconds(to),
            c = colour(span.sound)
        );
        if (x1 - x0) > name.len() as f64 * 6.2 + 6.0 {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="10.5" fill="{}" pointer-events="none">{name} (virtual)</text>"##,
                x0 + 3.0,
                y + bar_h / 2.0 + 3.8,
                colour(span.sound)
            );
        }
        if span.resumed {
            let _ = writeln!(
                s,
                r##"<path d="M{x1:.1} {:.1} l0 12 l9 -6 z" fill="{COMEBACK}"/>"##,
                y + (bar_h - 12.0) / 2.0
            );
        }
    }
    for v in &show.voices {
        if let Some(at) = v.rejected {
            let rx = x(at);
            let ry = top + (slots + 1) as f64 * row_h + row_h / 2.0;
            let _ = writeln!(
                s,
                r##"<g stroke="#d62828" stroke-width="1.6"><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/></g><title>{} rejected at {:.3} s</title>"##,
                rx - 3.5,
                ry - 3.5,
                rx + 3.5,
                ry + 3.5,
                rx - 3.5,
                ry + 3.5,
                rx + 3.5,
                ry - 3.5,
                bank.name(v.sound),
                show.seconds(at)
            );
            if v.sound == SWISH {
                let _ = writeln!(
                    s,
                    r##"<text x="{rx:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#d62828">swish!</text>"##,
                    ry - 6.0
                );
            }
        }
    }
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="{:.1}" font-size="11" fill="#666">time (s); each bar is one voice in its slot, labelled with its sound; a bar ends where its sound ended, was stolen or went virtual</text>"##,
        bottom + 34.0
    );
    s.push_str("</svg>\n");
    s
}
