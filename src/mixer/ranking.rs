//! Where the mixer joins the renderer's voice state to the voice
//! manager's audibility (which never sees a `Voice`): what a voice is
//! worth hearing, decoded or streamed, and keeping every voice's level
//! fresh and published. Real-time safe: a few table reads per voice.

use std::sync::atomic::Ordering::Relaxed;

use super::heard::band_powers;
use super::{Mixer, LEVEL_REFRESH_FRAMES};

/// A voice's heard share (masking) is re-estimated on one refresh in this
/// many: at least every 4 x 2048 output frames (171 ms at 48 kHz).
const HEARD_EVERY: u8 = 4;
use crate::bus::mix::Buses;
use crate::protocol::SendTo;
use crate::render::voice::Voice;
use crate::sound::bands::Bands;
use crate::stream::reader::StreamReaders;
use crate::voices::audibility::{Ahead, Audibility, Playback};
use crate::voices::Rank;

/// [`level_of`] for any voice in the pool: a streamed play ranks by the
/// loudness its loader has measured ahead of it (before it has any, by its
/// file's opening second).
pub(crate) fn rank(
    audibility: &Audibility,
    buses: &Buses,
    streams: &StreamReaders,
    voice: &Voice,
    ahead: Ahead,
    send: SendTo,
) -> f32 {
    let Some(k) = voice.stream_slot() else {
        return level_of(audibility, buses, voice, ahead, send);
    };
    let playback = playback(voice, ahead);
    // (A stream spreads over the bands as its first second did.)
    let spread = voice
        .sound()
        .stream
        .as_ref()
        .map_or(Bands::FLAT, |s| s.opening_bands);
    let bus = heard_through(buses, voice.bus(), send, &spread.shaped(ahead.2));
    match streams.peek(k).and_then(|r| r.curve()) {
        Some(curve) => audibility.level(&curve, &playback) * bus,
        None => {
            let power = voice
                .sound()
                .stream
                .as_ref()
                .map_or(0.0, |s| s.opening_power);
            let flat = crate::sound::loudness::Flat::new(power, voice.sound().sample_rate);
            audibility.level(&flat, &playback) * bus
        }
    }
}

/// [`rank`], with the output frame `voice`'s sound runs out at, `now`
/// being the frame it is ranked at: what the voice manager keeps.
pub(crate) fn ranked(
    audibility: &Audibility,
    buses: &Buses,
    streams: &StreamReaders,
    voice: &Voice,
    (ahead, send): (Ahead, SendTo),
    now: u64,
) -> Rank {
    Rank::new(
        rank(audibility, buses, streams, voice, ahead, send),
        frames_left(voice).map_or(Rank::NEVER, |left| now.saturating_add(left)),
    )
}

/// Output frames until `voice` falls silent for good by itself: the end
/// of a stop's fade, or of a one-shot's sound (its scheduled wait
/// included); `None` for a loop, a stream, or a paused voice.
fn frames_left(voice: &Voice) -> Option<u64> {
    if voice.is_stopping() {
        return Some(u64::from(voice.gain_path().2));
    }
    if voice.looping() || voice.is_held() || voice.stream_slot().is_some() {
        return None;
    }
    let left = (voice.sound().frames as f64 - voice.position()).max(0.0);
    let step = voice.step();
    (step > 0.0).then(|| (left / step).ceil() as u64 + u64::from(voice.delay()))
}

/// How `voice` will play, as audibility reads it (`ahead`: where a
/// positioned voice will be).
fn playback(voice: &Voice, ahead: Ahead) -> Playback {
    let (gain, target, ramp_left) = voice.gain_path();
    Playback {
        position: voice.position(),
        step: voice.step(),
        // A stream's positions run on through its loops.
        looping: voice.looping() && voice.stream_slot().is_none(),
        gain,
        target,
        ramp_left,
        channels: voice.sound().channels,
        ahead,
    }
}

/// What `voice` (playing a decoded sound) is worth hearing, from its
/// sound's loudness and how it will play, times its bus's volume: the mixer
/// joins the renderer's voice state to the voice manager's audibility,
/// which never sees a `Voice`.
pub(crate) fn level_of(
    audibility: &Audibility,
    buses: &Buses,
    voice: &Voice,
    ahead: Ahead,
    send: SendTo,
) -> f32 {
    let playback = playback(voice, ahead);
    let sound = voice.sound();
    audibility.level(&sound.loudness, &playback)
        * heard_through(buses, voice.bus(), send, &sound.bands.shaped(ahead.2))
}

/// The power gain a sound spread as `bands` gets on bus `bus`, plus what
/// it is heard through a send (a voice heard mostly in a reverb is worth
/// what the reverb lets through of it).
fn heard_through(buses: &Buses, bus: u16, send: SendTo, bands: &Bands) -> f32 {
    let own = buses.audible_power(bus, bands);
    if send.is_some() {
        own + send.level * send.level * buses.audible_power(send.bus, bands)
    } else {
        own
    }
}

/// Asks the CPU to start loading what [`rank`] of `voice` will read of its
/// sound's loudness table (a decoded play's; a streamed play's curve is the
/// loader's and small). A hint: it changes nothing.
#[inline]
pub(crate) fn prefetch_level(audibility: &Audibility, voice: &Voice) {
    if voice.stream_slot().is_none() {
        audibility.prefetch(&voice.sound().loudness, &playback(voice, Ahead::STILL));
    }
}

impl Mixer {
    /// Recomputes the audibility of as many voices as keep every one
    /// within [`LEVEL_REFRESH_FRAMES`] of its last estimate, after `frames`
    /// more frames.
    pub(crate) fn refresh_levels(&mut self, frames: usize) {
        let count = (self.pool.len() * frames).div_ceil(LEVEL_REFRESH_FRAMES);
        let (audibility, buses) = (self.audibility, &self.buses);
        let (streams, space) = (&self.streams, &self.space);
        // (After `end_block`: the setting the next block renders with.)
        let fetch = self.prefetch.is_on();
        // (Before the frame moves on: the block just rendered is behind.)
        let now = self.frame + frames as u64;
        let masking = &mut *self.masking;
        if masking.is_on() {
            // Once a refresh period, the mix's masking is summed anew
            // (voices gone since leave it; rounding does not build up).
            self.masking_clock += frames;
            if self.masking_clock >= LEVEL_REFRESH_FRAMES {
                self.masking_clock = 0;
                let pool = &self.pool;
                masking.retotal(|i| pool.is_live(i));
            }
            masking.begin_block();
        }
        let out_rate = self.out_rate;
        self.pool.refresh_levels(
            count,
            |i, who, v| {
                let ahead = space.ahead_of(who);
                let mut rank = ranked(
                    &audibility,
                    buses,
                    streams,
                    v,
                    (ahead, space.send_of(who)),
                    now,
                );
                // Each voice's heard share is computed on its first
                // refresh and then on every `HEARD_EVERY`th: masking
                // changes more slowly than loudness, and the share costs
                // about as much again as the level.
                // A paused voice (or one on a paused bus) ranks by what it
                // will play, but masks nothing while it is silent.
                let sounding = !v.is_held() && !buses.is_frozen(v.bus());
                if masking.due(i, who.id, HEARD_EVERY) {
                    let k = masking.k_weights();
                    let own = band_powers(v, rank.level, &ahead, out_rate, k);
                    rank.heard = Some(masking.heard(Some(i), &own, sounding));
                } else {
                    // Between estimates its part of the mix follows its
                    // level (a fade, a stop, a move).
                    masking.follow(i, rank.level, sounding);
                }
                rank
            },
            |v| {
                if fetch {
                    prefetch_level(&audibility, v);
                }
            },
        );
    }

    /// Re-estimates every live voice's audibility once (what the mixer
    /// spreads over [`LEVEL_REFRESH_FRAMES`] of blocks), for benchmarks.
    #[cfg(feature = "hooks")]
    pub(crate) fn refresh_all_levels(&mut self) {
        self.refresh_levels(LEVEL_REFRESH_FRAMES);
    }

    pub(crate) fn publish(&mut self) {
        let c = &self.counters;
        c.frames.store(self.frame, Relaxed);
        c.active.store(self.pool.live() as u64, Relaxed);
        c.streams.store(self.streams.active() as u64, Relaxed);
        self.pool
            .report(|i, id, power| c.publish_slot(i, id, power.sqrt()));
        self.buses
            .take_meters(|b, peak, duck| c.publish_bus(b, peak, duck));
    }
}
