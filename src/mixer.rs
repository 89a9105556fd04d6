//! [`Mixer`]: the audio-thread side. Drains commands, plays or steals,
//! renders every voice, retires ended voices, reports events.
//!
//! # Real-time contract
//!
//! [`Mixer::process`] is the only entry point the audio thread calls, and
//! everything it reaches:
//!
//! - allocates and frees nothing: the pool, tails and meters are sized in
//!   [`crate::Engine::new`]; the last reference to sample data is always held
//!   on the game side, so dropping a voice's `Arc` only decrements a count;
//! - takes no lock and makes no system call: commands come from a bounded
//!   `crossbeam_channel` read with `try_recv` (senders only ever `try_send`,
//!   so no waker is registered and none is woken), events go into a `ringbuf`
//!   SPSC queue with `try_push`, counters are relaxed atomic stores;
//! - is bounded: at most `command_capacity` commands per block, one pass over
//!   the slots per command that needs a lookup, one render pass per block;
//! - never panics on any input and always writes finite samples in
//!   `-1.0..=1.0` (see [`Mixer::process`] for the limiter).
//!
//! Dropping a `Mixer` *does* free memory: drop it on a thread where that is
//! allowed (the live engine hands it back to the game side to do so).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use ringbuf::traits::{Observer, Producer};
use ringbuf::HeapProd;

use crate::command::{Command, Event, TimedEvent, VoiceHandle};
use crate::params::ValidParams;
use crate::pool::{Victim, VoicePool};
use crate::settings::{EngineSettings, StealPolicy};
use crate::sound::SoundData;
use crate::stats::Counters;
use crate::voice::Voice;

/// Where the output limiter starts bending the signal (about -0.9 dB).
pub const LIMITER_THRESHOLD: f32 = 0.9;

/// The audio-thread half of an engine. Made by [`crate::Engine::new`];
/// [`crate::OfflineEngine`] and [`crate::AudioEngine`] drive it for you, or
/// call [`Mixer::process`] from your own audio callback.
pub struct Mixer {
    commands: Receiver<Command>,
    events: HeapProd<TimedEvent>,
    counters: Arc<Counters>,
    pool: VoicePool,
    policy: StealPolicy,
    out_rate: u32,
    max_commands: usize,
    min_age: u64,
    steal_fade: u32,
    stop_fade: u32,
    param_ramp: u32,
    master_gain: f32,
    frame: u64,
    next_order: u64,
}

impl Mixer {
    pub(crate) fn new(
        settings: &EngineSettings,
        out_rate: u32,
        commands: Receiver<Command>,
        events: HeapProd<TimedEvent>,
        counters: Arc<Counters>,
    ) -> Mixer {
        let frames = |d| EngineSettings::frames(d, out_rate);
        Mixer {
            commands,
            events,
            counters,
            pool: VoicePool::new(settings.voices),
            policy: settings.steal_policy,
            out_rate,
            max_commands: settings.command_capacity,
            min_age: u64::from(frames(settings.min_voice_age)),
            steal_fade: frames(settings.steal_fade),
            stop_fade: frames(settings.stop_fade),
            param_ramp: frames(settings.param_ramp),
            master_gain: settings.master_gain,
            frame: 0,
            next_order: 0,
        }
    }

    /// The output rate this mixer renders at, in Hz.
    pub fn sample_rate(&self) -> u32 {
        self.out_rate
    }

    /// Output frames rendered so far.
    pub fn frames_rendered(&self) -> u64 {
        self.frame
    }

    /// Renders one block of interleaved stereo into `out` (`out.len() / 2`
    /// frames; an odd last sample is set to 0). Real-time safe: see the
    /// module docs.
    ///
    /// Commands sent before the call take effect at the start of the block.
    /// The sum of all voices is multiplied by `master_gain` and passed
    /// through a soft limiter: samples up to [`LIMITER_THRESHOLD`] in
    /// magnitude pass unchanged, louder ones are bent smoothly towards 1.0,
    /// which they never reach, so the output is always finite and within
    /// `-1.0..=1.0`.
    #[cfg_attr(feature = "rtsan", rtsan_standalone::nonblocking)]
    pub fn process(&mut self, out: &mut [f32]) {
        out.fill(0.0);
        let frames = out.len() / 2;
        self.drain_commands();
        let block = &mut out[..frames * 2];
        let Mixer {
            pool,
            events,
            counters,
            frame,
            ..
        } = self;
        let end_frame = *frame + frames as u64;
        pool.render(block, |id| {
            Counters::bump(&counters.ended);
            push_event(
                events,
                counters,
                end_frame,
                Event::Ended {
                    voice: VoiceHandle(id),
                },
            );
        });
        let gain = self.master_gain;
        for s in block.iter_mut() {
            *s = soft_limit(*s * gain);
        }
        self.frame = end_frame;
        self.publish();
    }

    fn publish(&self) {
        let c = &self.counters;
        c.frames.store(self.frame, Relaxed);
        c.active.store(self.pool.live() as u64, Relaxed);
        let mut next = 0;
        for (i, v) in self.pool.live_voices() {
            for empty in next..i {
                c.publish_slot(empty, 0, 0.0);
            }
            c.publish_slot(i, v.id, v.audible_power().sqrt());
            next = i + 1;
        }
        for empty in next..self.pool.capacity() {
            c.publish_slot(empty, 0, 0.0);
        }
    }

    /// Events one command can report at once (`Stolen` + `Started`).
    const EVENTS_PER_COMMAND: usize = 2;

    /// Applies queued commands, while the event ring has room for what they
    /// may report *and* for one `Ended` per voice in the pool: so no event,
    /// terminal or not, is ever dropped on the audio side, however long the
    /// game goes without reading them. Commands left waiting stay queued
    /// (the game sees `QueueFull` once the queue fills), never lost.
    fn drain_commands(&mut self) {
        for _ in 0..self.max_commands {
            if self.events.vacant_len() < self.pool.live() + Self::EVENTS_PER_COMMAND {
                return;
            }
            let Ok(cmd) = self.commands.try_recv() else {
                return;
            };
            match cmd {
                Command::Play { id, sound, params } => self.play(id, sound, &params),
                Command::Stop { id } => {
                    let fade = self.stop_fade;
                    self.with_voice(id, |v| v.stop(fade));
                }
                Command::SetVolume { id, volume } => {
                    let ramp = self.param_ramp;
                    self.with_voice(id, |v| v.set_volume(volume, ramp));
                }
                Command::SetPan { id, pan } => {
                    let ramp = self.param_ramp;
                    self.with_voice(id, |v| v.set_pan(pan, ramp));
                }
                Command::SetPitch { id, pitch } => {
                    let rate = self.out_rate;
                    self.with_voice(id, |v| v.set_pitch(pitch, rate));
                }
                Command::StopAll => {
                    let fade = self.stop_fade;
                    self.pool.live_voices_mut().for_each(|v| v.stop(fade));
                }
            }
        }
    }

    fn with_voice(&mut self, id: u64, f: impl FnOnce(&mut Voice)) {
        if let Some(i) = self.pool.find(id) {
            if let Some(v) = self.pool.get_mut(i) {
                f(v);
            }
        }
    }

    fn play(&mut self, id: u64, sound: Arc<SoundData>, params: &ValidParams) {
        let fade_in = (params.fade_in * self.out_rate as f32).round() as u32;
        let voice = Voice::new(
            sound,
            id,
            self.next_order,
            self.frame,
            params,
            self.out_rate,
            fade_in,
        );
        let handle = VoiceHandle(id);
        let voice = match self.pool.acquire(voice) {
            Ok(_) => return self.started(handle),
            Err(voice) => voice,
        };
        let victim =
            self.pool
                .choose_victim(self.policy, params.priority, self.frame, self.min_age);
        let Victim::Slot(i) = victim else {
            Counters::bump(&self.counters.rejections);
            self.event(Event::Rejected { voice: handle });
            return; // `voice` drops here: only an Arc decrement.
        };
        if let Some(mut old) = self.pool.replace(i, voice) {
            Counters::bump(&self.counters.steals);
            self.event(Event::Stolen {
                victim: VoiceHandle(old.id),
                by: handle,
            });
            // A voice that has sounded fades out; one that never rendered a
            // frame (started this block) can be cut silently.
            if old.start_frame < self.frame && old.peak_gain() > 0.0 {
                old.stop(self.steal_fade);
                self.pool.push_tail(old);
            }
        }
        self.started(handle);
    }

    fn started(&mut self, handle: VoiceHandle) {
        self.next_order += 1;
        let c = &self.counters;
        Counters::bump(&c.started);
        let live = self.pool.live() as u64;
        c.active.store(live, Relaxed);
        c.peak.fetch_max(live, Relaxed);
        self.event(Event::Started { voice: handle });
    }

    fn event(&mut self, event: Event) {
        push_event(&mut self.events, &self.counters, self.frame, event);
    }

    /// Checks the pool's invariants (tests and soak runs; allocates).
    #[doc(hidden)]
    pub fn check_invariants(&self) -> Result<(), String> {
        self.pool.check_invariants()
    }
}

fn push_event(events: &mut HeapProd<TimedEvent>, counters: &Counters, frame: u64, event: Event) {
    if events.try_push(TimedEvent { frame, event }).is_err() {
        Counters::bump(&counters.lost_events);
    }
}

/// Unity gain up to [`LIMITER_THRESHOLD`], then a smooth knee towards 1.0.
/// Non-finite input becomes 0.
#[inline]
fn soft_limit(x: f32) -> f32 {
    let a = x.abs();
    if a <= LIMITER_THRESHOLD {
        return x;
    }
    if !a.is_finite() {
        return 0.0;
    }
    let t = LIMITER_THRESHOLD;
    let u = (a - t) / (1.0 - t);
    let y = t + (1.0 - t) * (u / (1.0 + u));
    y.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::soft_limit;

    #[test]
    fn limiter_is_transparent_below_threshold_and_bounded_above() {
        assert_eq!(soft_limit(0.5), 0.5);
        assert_eq!(soft_limit(-0.9), -0.9);
        assert!(soft_limit(1.0) < 1.0 && soft_limit(1.0) > 0.9);
        assert!(soft_limit(1e30) <= 1.0);
        assert!(soft_limit(-1e30) >= -1.0);
        assert_eq!(soft_limit(f32::NAN), 0.0);
        assert_eq!(soft_limit(f32::INFINITY), 0.0);
        // Monotonic: louder in, louder (or equal) out.
        let mut last = 0.0;
        for i in 0..1000 {
            let y = soft_limit(i as f32 * 0.01);
            assert!(y >= last);
            last = y;
        }
    }
}
