//! `play_cue` on [`Controller`] (and so on every engine): a cue's
//! variations picked, varied and sent as voices, under one handle.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use super::pick::Chosen;
use super::{Cue, MAX_CUE_VOICES};
use crate::control::params::{PlayParams, MAX_VOLUME};
use crate::control::Controller;
use crate::error::PlayError;
use crate::protocol::modulation::Mods;
use crate::protocol::space::ValidEmitter;
use crate::protocol::{frames, Command, SendTo, VoiceHandle, MAX_PITCH, MIN_PITCH, NO_EMITTER};
use crate::space::Emitter;

impl Controller {
    /// Plays `cue`: picks its variation (and each layer's), varies pitch
    /// and level within its ranges, and starts them with `params` (which
    /// apply to every voice of the play: a layer's volume and pitch
    /// multiply the play's, clamped as `PlayParams` are; a position moves
    /// them all). Returns one handle for the play, whatever its layers:
    /// every handle call (stop, fades, volume, pitch, pan, pause, seek,
    /// position, orientation, occlusion) applies to each of them, and the
    /// play reports one `Started` and one terminal event, when its last
    /// layer is over (`Stolen` if that layer was stolen).
    ///
    /// Each layer is a voice of the pool like any other: stealing, group
    /// limits and virtual voices treat them one by one (so `Stats` counts
    /// voices, not plays), and a layer's `Virtualized` / `Resumed` events
    /// name the play: one play may report several, one per layer that
    /// loses or regains its voice. A group's retrigger interval
    /// (`GroupSettings::min_interval`) applies to the play: its layers
    /// never refuse each other, and a play refused as too early is refused
    /// whole (one `Rejected`). A cue's drawn level and pitch stay under
    /// `set_volume`, `fade_volume` and `set_pitch`, which multiply them.
    /// `seek` moves each layer to the position in its own sound (its
    /// delay not counted).
    ///
    /// A cue given a bad value ([`Cue::check`]) is that error; a full
    /// queue, no free stream slot for a streamed layer, or (positioned)
    /// no free cell for a layer is an error too, and then nothing was
    /// sent.
    ///
    /// ```
    /// use voicepool::{Cue, EngineSettings, Event, OfflineEngine, PlayParams, Sound};
    /// let mut engine = OfflineEngine::new(EngineSettings::default())?;
    /// let take = |x: f32, n: usize| Sound::from_samples(1, 48_000, vec![x; n]);
    /// let shot = Cue::new([take(0.5, 480)?]).layer(Cue::new([take(0.25, 4_800)?]));
    /// let h = engine.play_cue(&shot, PlayParams::default())?;
    /// engine.render(9_600);
    /// let events: Vec<Event> = engine.drain_events().collect();
    /// assert_eq!(events, [Event::Started { voice: h }, Event::Ended { voice: h }]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play_cue(&self, cue: &Cue, params: PlayParams) -> Result<VoiceHandle, PlayError> {
        cue.check()?;
        let d = cue.data();
        if d.engine.is_some_and(|e| e != self.shared.engine.number()) {
            return Err(PlayError::ForeignHandle);
        }
        let base = params.validate(self.shared.engine)?;
        // A voice sends to one bus: its maps' (at the play's level, or
        // at 1 if the play sends nowhere) or the play's. Every voice's.
        let elsewhere = (d.voice_mods.iter().flatten())
            .filter_map(|m| m.send_bus())
            .any(|bus| base.send.is_some() && base.send.bus != bus);
        if elsewhere {
            return Err(PlayError::Invalid {
                name: "send",
                reason: "a cue that maps a send plays with no send to another bus",
            });
        }
        let mut game = self.game()?;
        let rate = self.shared.rate;
        let voice = |c: &Chosen<'_>, k: usize| {
            let mut params = base;
            params.volume = (params.volume * c.volume).min(MAX_VOLUME);
            params.pitch = (params.pitch * c.pitch).clamp(MIN_PITCH, MAX_PITCH);
            params.looping |= c.looping;
            params.offset = frames(c.delay, rate);
            params.layer = k.min(usize::from(u8::MAX)) as u8;
            let mods = d.voice_mods.get(k).cloned().flatten();
            match mods.as_deref().and_then(Mods::send_bus) {
                Some(bus) if !params.send.is_some() => {
                    params.send = SendTo {
                        bus,
                        level: 1.0,
                        step: 0.0,
                    };
                }
                _ => {}
            }
            if mods.is_some() && params.emitter.is_none() {
                // Its maps are heard in a cell of its own, at its pan.
                params.emitter = Some(ValidEmitter {
                    fixed_pan: Some(params.pan),
                    ..Emitter::NONE.at
                });
            }
            (params, mods)
        };
        let scaled = |mut info: crate::control::voice_info::PlayInfo, c: &Chosen<'_>| {
            info.scale = (c.volume, c.pitch);
            info
        };
        if cue.voices() == 1 {
            // One voice: a plain play.
            let c = game.picks.choose_one(cue, Duration::ZERO);
            // Under the lock: ids go out in the order plays are sent.
            let id = self.shared.next_id.fetch_add(1, Relaxed);
            let info = scaled(self.play_voice(&mut game, id, c.sound, voice(&c, 0))?, &c);
            let emitter = info.emitter;
            game.live.insert(id, info);
            return Ok(VoiceHandle::new(self.shared.engine, id).with_emitter(emitter));
        }
        let mut chosen: [Option<Chosen<'_>>; MAX_CUE_VOICES] = [None; MAX_CUE_VOICES];
        let n = game.picks.choose(cue, &mut chosen);
        let chosen = &chosen[..n];
        // Everything the voices need, checked before any is sent: a play
        // is sent whole or not at all.
        self.room_for(n)?;
        let streamed = chosen
            .iter()
            .flatten()
            .filter(|c| c.sound.data.stream.is_some())
            .count();
        game.streams.ready_for(streamed)?;
        let cells = if base.emitter.is_some() {
            n
        } else {
            d.voice_mods.iter().flatten().count()
        };
        if !game.space.has_room(cells) {
            return Err(PlayError::QueueFull);
        }
        // Under the lock: the play's voices have consecutive ids.
        let first = self.shared.next_id.fetch_add(n as u64, Relaxed);
        let mut infos = Vec::with_capacity(n);
        for (k, (id, c)) in (first..).zip(chosen.iter().flatten()).enumerate() {
            match self.play_voice(&mut game, id, c.sound, voice(c, k)) {
                Ok(info) => infos.push(scaled(info, c)),
                Err(e) => {
                    // Not expected after the checks above; whatever was
                    // sent is stopped.
                    if !infos.is_empty() {
                        let wire = VoiceHandle::layered(self.shared.engine, first, infos.len());
                        let _ = self.send(Command::Stop {
                            id: wire.wire_in(self.shared.engine).unwrap_or(first),
                        });
                        let cells = infos.iter().map(|i| i.emitter).collect();
                        let wire = wire.wire_in(self.shared.engine).unwrap_or(first);
                        let g = &mut *game;
                        g.cues.add(wire, infos, cells, &mut g.space);
                    }
                    return Err(e);
                }
            }
        }
        let head = infos.first().map_or(NO_EMITTER, |i| i.emitter);
        let handle = VoiceHandle::layered(self.shared.engine, first, infos.len());
        // Per layer (`NO_EMITTER`: none); those there are, linked in order.
        let cells: Vec<u32> = infos.iter().map(|i| i.emitter).collect();
        let linked: Vec<u32> = cells.iter().copied().filter(|&e| e != NO_EMITTER).collect();
        for pair in linked.windows(2) {
            game.space.link(pair[0], pair[1]);
        }
        if let Some(info) = infos.first() {
            game.live.insert(first, info.clone());
        }
        let wire = handle.wire_in(self.shared.engine).unwrap_or(first);
        let g = &mut *game;
        g.cues.add(wire, infos, cells, &mut g.space);
        Ok(handle.with_emitter(head))
    }
}
