//! A new play's admission on the audio thread: the voice is made and
//! ranked, and the voice manager places it (a free slot, a steal, a
//! refusal); a refused play that asked to may start virtual, and a voice
//! that loses its slot fades out as a tail and goes virtual or is stolen.
//! Each outcome reports its events (`Started`, `Stolen`, `Rejected`, going
//! virtual).
//!
//! Real-time contract: as [`Mixer::process`], which runs it while draining
//! commands: no allocation (the voice, the tails and the virtual pool are
//! fixed-size; the sound's `Arc` is only moved or decremented), no lock.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use super::ranking::ranked;
use super::{push_event, Mixer};
use crate::protocol::modulation::Mods;
use crate::protocol::stats::Counters;
use crate::protocol::{Event, StreamTicket, ValidParams, VoiceHandle};
use crate::render::voice::Voice;
use crate::sound::SoundData;
use crate::voices::{Identity, Newcomer, Placement, Refusal};

impl Mixer {
    pub(crate) fn play(
        &mut self,
        id: u64,
        sound: Arc<SoundData>,
        (params, mods): (&ValidParams, Option<Arc<Mods>>),
        stream: Option<StreamTicket>,
    ) {
        let now = self.frame;
        let fade_in = (params.fade_in * self.out_rate as f32).round() as u32;
        // A start still ahead waits in its voice, to the frame.
        let delay = params.start_at.saturating_sub(now).min(u64::from(u32::MAX)) as u32;
        let delay = delay.saturating_add(params.offset);
        let slot = stream.map(|t| usize::from(t.slot));
        if let (Some(t), Some(k)) = (stream, slot) {
            // Read from the stream's start. If the play is refused, no
            // voice reads it and the slot is released after the next block.
            if let Some(reader) = self.streams.get(k) {
                reader.begin(t.epoch, id, sound.channels, 0);
            }
        }
        // A positioned play starts as it is heard from where it is.
        let (emitter, heard) = self
            .space
            .admit((params, mods), &mut self.direct, self.out_rate);
        self.glides.set(emitter, None); // (a cell's last play may have left one)
        self.glides
            .head_send(emitter, self.space.heard_send(emitter), 0);
        let voice = Voice::new(sound, &heard, self.out_rate, fade_in, delay, slot);
        let who = Identity {
            id,
            priority: params.priority,
            protected: params.protected,
            group: params.group,
            virtualize: params.virtualize,
            emitter,
            send: params.send,
        };
        let ahead = self.space.ahead_of(&who);
        let rank = ranked(
            &self.audibility,
            &self.buses,
            &self.streams,
            &voice,
            (ahead, self.space.send_of(&who)),
            now,
        );
        let handle = VoiceHandle::new(self.engine, id);
        let starts = now + u64::from(delay);
        // A bus volume changed earlier in this drain: rank by it already.
        self.refresh_bus_levels();
        let order = self.next_order;
        let new = Newcomer {
            who,
            voice,
            level: rank.level,
            ends: rank.ends,
            held: 0,
            order,
            now,
            fresh: Some(starts),
            later_layer: params.layer > 0,
        };
        let (audibility, buses, streams, space) =
            (&self.audibility, &self.buses, &self.streams, &self.space);
        let fresh = |who: &Identity, v: &Voice| {
            ranked(
                audibility,
                buses,
                streams,
                v,
                (space.ahead_of(who), space.send_of(who)),
                now,
            )
        };
        // A play refused as a too-early retrigger is refused whole: its
        // later voices (a cue's layers, which follow it in the queue) too.
        let play = id - u64::from(params.layer);
        let placed = if params.layer > 0 && self.refused_play == play {
            Placement::Rejected {
                voice: new.voice,
                why: Refusal::TooSoon,
            }
        } else {
            self.pool.place(new, self.rules, fresh)
        };
        match placed {
            Placement::Started => {}
            Placement::Rejected { voice, why } => {
                if why == Refusal::TooSoon {
                    self.refused_play = play;
                }
                if why == Refusal::GroupFull {
                    Counters::bump(&self.counters.limited);
                }
                // Refused a slot: it may start virtual instead (not when
                // refused as a too-early retrigger: that is meant to go).
                if who.virtualize && why != Refusal::TooSoon {
                    if let Err(voice) = self.park(who, voice, order, handle) {
                        drop(voice); // an Arc decrement: the game side holds the sound
                    } else {
                        // Accepted: a retrigger interval counts from it.
                        self.pool.accepted_virtual(who.group, starts);
                        self.started(handle, starts);
                        self.virtualized(handle);
                        return;
                    }
                }
                if why == Refusal::TooSoon {
                    Counters::bump(&self.counters.limited);
                }
                self.space.release(emitter);
                Counters::bump(&self.counters.rejections);
                self.event(Event::Rejected { voice: handle });
                return;
            }
            Placement::Stole { old, limited } => {
                if limited {
                    Counters::bump(&self.counters.limited);
                }
                self.displace(old, handle);
            }
        }
        self.started(handle, starts);
    }

    /// A voice lost its slot to `by`: it fades out if it has sounded (one
    /// that never rendered a frame, or is silent, is cut silently), and
    /// goes virtual if it asked to and there is room, else it is stolen.
    pub(crate) fn displace(&mut self, old: crate::voices::Replaced<Voice>, by: VoiceHandle) {
        let now = self.frame;
        let victim = VoiceHandle::new(self.engine, old.who.id);
        let mut voice = old.voice;
        if let Some(reader) = voice.stream_slot().and_then(|k| self.streams.get(k)) {
            // Stolen (streams never go virtual): its fade-out reports nothing.
            reader.silence_reports();
        }
        let sounded = old.start < now && !voice.is_waiting() && voice.peak_gain() > 0.0;
        if old.who.virtualize && !voice.is_stopping() && self.virtuals.len() > 0 {
            let keep = voice.fork();
            if sounded {
                voice.stop(self.steal_fade);
                self.tails.push(
                    voice,
                    self.glides.send_of(old.who.emitter, old.who.send, 0),
                    self.direct.get(old.who.emitter),
                );
            }
            if self.park(old.who, keep, old.order, by).is_ok() {
                self.virtualized(victim);
                return;
            }
        } else if sounded {
            voice.stop(self.steal_fade);
            self.tails.push(
                voice,
                self.glides.send_of(old.who.emitter, old.who.send, 0),
                self.direct.get(old.who.emitter),
            );
        }
        self.space.release(old.who.emitter);
        Counters::bump(&self.counters.steals);
        self.event(Event::Stolen { victim, by });
    }

    fn started(&mut self, handle: VoiceHandle, frame: u64) {
        self.next_order += 1;
        let c = &self.counters;
        Counters::bump(&c.started);
        let live = self.pool.live() as u64;
        c.active.store(live, Relaxed);
        c.peak.fetch_max(live, Relaxed);
        let event = Event::Started { voice: handle };
        push_event(&mut self.events, &self.counters, frame, event);
    }
}
