//! What the demo watches and shows: each voice's life, virtual stretches,
//! the running counts, and the live panel of the pool.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

use voicepool::{Engine, Event, SlotView, TimedEvent, VoiceHandle};

use crate::*;

/// What happened to one play, for the display and the timeline.
pub(crate) struct VoiceRec {
    pub(crate) sound: usize,
    pub(crate) slot: Option<usize>,
    pub(crate) start: Option<u64>,
    pub(crate) end: Option<u64>,
    pub(crate) stolen_by: Option<usize>,
    pub(crate) rejected: Option<u64>,
    /// It went virtual where it ends (its next stretch, after it came
    /// back, is a record of its own).
    pub(crate) virtualized: bool,
    /// It is a virtual voice come back (its start is the comeback).
    pub(crate) resumed: bool,
    /// (frame, level) as `slots()` reported it: what stealing ranks by.
    pub(crate) levels: Vec<(u64, f32)>,
}

impl VoiceRec {
    pub(crate) fn new(sound: usize, start: Option<u64>, resumed: bool) -> VoiceRec {
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
pub(crate) struct VirtualSpan {
    pub(crate) sound: usize,
    pub(crate) from: u64,
    pub(crate) to: Option<u64>,
    /// It ended by coming back (rather than ending while virtual).
    pub(crate) resumed: bool,
}

/// Everything the demo watches: which sound each handle plays, where and
/// when each voice lived, and the running counts.
pub(crate) struct Show {
    pub(crate) rate: u32,
    pub(crate) voices: Vec<VoiceRec>,
    pub(crate) by_handle: HashMap<VoiceHandle, usize>,
    pub(crate) casts: Vec<u64>,
    pub(crate) plays: u64,
    pub(crate) play_errors: u64,
    pub(crate) swishes: u64,
    pub(crate) swishes_rejected: u64,
    pub(crate) stream_errors: u64,
    pub(crate) end_frame: u64,
    pub(crate) virtual_spans: Vec<VirtualSpan>,
    /// The open span of each voice virtual now.
    pub(crate) virtual_now: HashMap<VoiceHandle, usize>,
}

impl Show {
    pub(crate) fn new(rate: u32) -> Show {
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

    pub(crate) fn play(&mut self, engine: &Engine, bank: &Bank, action: &Action, now: u64) {
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

    pub(crate) fn rec(&mut self, h: VoiceHandle) -> Option<&mut VoiceRec> {
        let i = *self.by_handle.get(&h)?;
        self.voices.get_mut(i)
    }

    /// Closes `voice`'s virtual stretch at `frame`, if it has one open.
    pub(crate) fn close_span(&mut self, voice: VoiceHandle, frame: u64, resumed: bool) -> bool {
        let Some(i) = self.virtual_now.remove(&voice) else {
            return false;
        };
        if let Some(span) = self.virtual_spans.get_mut(i) {
            span.to = Some(frame);
            span.resumed = resumed;
        }
        true
    }

    pub(crate) fn absorb(&mut self, events: Vec<TimedEvent>) {
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
    pub(crate) fn observe(&mut self, slots: &[SlotView], frame: u64) {
        for (i, s) in slots.iter().enumerate() {
            if let Some(r) = s.voice.and_then(|h| self.rec(h)) {
                r.slot = Some(i);
                r.levels.push((frame, s.level));
            }
        }
    }

    /// A thief takes its victim's slot: fill in slots never seen directly.
    pub(crate) fn infer_slots(&mut self) {
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

    pub(crate) fn seconds(&self, frame: u64) -> f64 {
        frame as f64 / f64::from(self.rate)
    }

    /// The pool as a person wants to watch it.
    pub(crate) fn panel(
        &self,
        bank: &Bank,
        slots: &[SlotView],
        engine: &Engine,
        t: f64,
    ) -> Vec<String> {
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
pub(crate) fn bar(db: f32, width: usize) -> String {
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
pub(crate) struct Screen {
    pub(crate) tty: bool,
    pub(crate) drawn: usize,
}

impl Screen {
    pub(crate) fn draw(&mut self, lines: &[String]) {
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
pub(crate) fn redraw_interval(tty: bool) -> Duration {
    if tty {
        Duration::from_millis(33)
    } else {
        Duration::from_secs(2)
    }
}
