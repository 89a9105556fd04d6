//! Applying the game's commands on the audio side: the drain loop, the
//! changes to one voice (real or virtual), seeks, and the re-ranking a bus
//! volume change calls for. Real-time code, under the contract in
//! [`super`]'s module docs.

use ringbuf::traits::Observer;

use crate::handle::layer_ids;
use crate::protocol::{Command, StreamTicket};
use crate::render::voice::Voice;

use super::ranking::ranked;
use super::Mixer;
use crate::voices::audibility::Ahead;
use crate::voices::NO_EMITTER;

impl Mixer {
    /// Applies queued commands, while the event ring has room for what they
    /// may report *and* for one `Ended` per voice in the pool: so no event,
    /// terminal or not, is ever dropped on the audio side, however long the
    /// game goes without reading them. Commands left waiting stay queued
    /// (the game sees `QueueFull` once the queue fills), never lost.
    pub(crate) fn drain_queue(&mut self) {
        for _ in 0..self.max_commands {
            // Room for this command's events, an `Ended` per voice, and
            // a `StreamUnderrun` per stream at the block's end.
            let reserve = self.pool.live() + self.streams.len() + Self::EVENTS_PER_COMMAND;
            if self.events.vacant_len() < reserve {
                return;
            }
            let Ok(cmd) = self.commands.try_recv() else {
                return;
            };
            match cmd {
                Command::Play {
                    id,
                    sound,
                    params,
                    stream,
                    mods,
                } => self.play(id, sound, (&params, mods), stream),
                Command::SetParam {
                    index,
                    value,
                    frames,
                } => {
                    let now = self.frame;
                    self.space.params.set(index, value, now, frames);
                }
                Command::SetPlayParam {
                    id,
                    param,
                    value,
                    frames,
                } => {
                    for id in layer_ids(id) {
                        if let Some(e) = self.emitter_of(id) {
                            self.space.set_own(e, param, value, frames);
                        }
                    }
                }
                Command::Seek { id, frame, stream } => self.seek(id, frame, stream),
                // A command to a play names every voice of it (a layered
                // cue's layers follow its id): `layer_ids`.
                Command::Stop { id } => {
                    let fade = self.stop_fade;
                    for id in layer_ids(id) {
                        self.update(id, |v| v.stop(fade));
                    }
                }
                Command::SetVolume { id, volume } => {
                    let ramp = self.param_ramp;
                    for id in layer_ids(id) {
                        let volume = self.heard_volume(id, volume);
                        self.update(id, |v| v.set_volume(volume, ramp));
                    }
                }
                Command::SetPan { id, pan } => {
                    for id in layer_ids(id) {
                        // A positioned voice is panned by its direction.
                        let panned = match self.emitter_of(id) {
                            None => true,
                            Some(e) => self.space.set_fixed_pan(e, pan),
                        };
                        if panned {
                            let ramp = self.param_ramp;
                            self.update(id, |v| v.set_pan(pan, ramp));
                        }
                    }
                }
                Command::SetPitch { id, pitch } => {
                    let rate = self.out_rate;
                    for id in layer_ids(id) {
                        let pitch = match self.emitter_of(id) {
                            Some(e) => self.space.set_pitch(e, pitch).unwrap_or(pitch),
                            None => pitch,
                        };
                        self.update(id, |v| v.set_pitch(pitch, rate));
                    }
                }
                Command::SetListener { listener } => self.space.set_listener(listener),
                Command::SetupBus(setup) => self.buses.setup(setup),
                Command::SetEffectParam {
                    bus,
                    index,
                    param,
                    frames,
                } => self.buses.set_effect_param(bus, index, param, frames),
                Command::StopAll => {
                    // Stolen voices still fading out are stopped too (a
                    // shorter fade wins; see `Voice::stop`).
                    let (fade, audibility, buses) = (self.stop_fade, self.audibility, &self.buses);
                    let (streams, space) = (&self.streams, &self.space);
                    let now = self.frame;
                    self.pool.update_all(|who, v| {
                        v.stop(fade);
                        Some(ranked(
                            &audibility,
                            buses,
                            streams,
                            v,
                            (Ahead::STILL, space.send_of(who)),
                            now,
                        ))
                    });
                    self.tails.for_each(|v| v.stop(fade));
                    self.stop_all_virtual();
                }
                Command::StopWithFade { id, frames } => {
                    for id in layer_ids(id) {
                        self.update(id, |v| v.stop(frames));
                    }
                }
                Command::FadeVolume { id, volume, frames } => {
                    for id in layer_ids(id) {
                        let volume = self.heard_volume(id, volume);
                        self.update(id, |v| v.fade_volume(volume, frames));
                    }
                }
                Command::Pause { id } => {
                    let fade = self.buses.pause_fade();
                    for id in layer_ids(id) {
                        self.update(id, |v| v.pause(fade));
                    }
                }
                Command::Resume { id } => {
                    let fade = self.buses.pause_fade();
                    for id in layer_ids(id) {
                        self.update(id, |v| v.resume(fade));
                    }
                }
                Command::SetGroup { index, group } => self.pool.configure_group(index, group),
                Command::SetBusVolume {
                    bus,
                    volume,
                    frames,
                    in_db,
                } => {
                    self.buses.set_volume(bus, volume, frames, in_db);
                    // Its voices' audibility changes with it (stealing
                    // counts a bus's volume as it will be after the fade):
                    // one pass over the pool after the drain, however many
                    // bus volumes changed.
                    // (`Buses` marks the bus.)
                }
                Command::PauseBus { bus } => {
                    self.buses.set_paused(bus, true);
                }
                Command::ResumeBus { bus } => {
                    // Its virtual voices may end again: one pass after the
                    // drain, however many buses resumed.
                    self.buses_resumed |= self.buses.set_paused(bus, false);
                }
            }
        }
    }

    /// Re-estimates the audibility of the voices on buses whose volume
    /// changed since the last call (one pass over the pool).
    pub(crate) fn refresh_bus_levels(&mut self) {
        if !self.buses.any_volume_changed() {
            return;
        }
        let (audibility, buses, streams) = (self.audibility, &self.buses, &self.streams);
        let (space, now) = (&self.space, self.frame);
        self.pool.update_all(|who, v| {
            buses.volume_changed(v.bus()).then(|| {
                ranked(
                    &audibility,
                    buses,
                    streams,
                    v,
                    (space.ahead_of(who), space.send_of(who)),
                    now,
                )
            })
        });
        self.buses.clear_volume_changes();
    }

    /// `volume` set for voice `id`, as the voice is to play it: for a
    /// positioned voice, its own volume (kept) times its distance gain.
    fn heard_volume(&mut self, id: u64, volume: f32) -> f32 {
        match self.emitter_of(id) {
            Some(e) => self.space.set_volume(e, volume).unwrap_or(volume),
            None => volume,
        }
    }

    /// Applies `f` to voice `id`, real or virtual (nothing if it is
    /// neither) and recomputes its audibility.
    pub(crate) fn update(&mut self, id: u64, f: impl FnOnce(&mut Voice)) {
        let mut f = Some(f);
        let (ahead, send, emitter) = match self.pool.find(id) {
            Some(slot) => {
                let who = self.pool.who(slot);
                (
                    self.space.ahead_of(&who),
                    self.space.send_of(&who),
                    who.emitter,
                )
            }
            None => (Ahead::STILL, crate::protocol::SendTo::NONE, NO_EMITTER),
        };
        let (audibility, buses, streams) = (self.audibility, &self.buses, &self.streams);
        let (space, now) = (&mut self.space, self.frame);
        self.pool.update(id, |v| {
            if let Some(f) = f.take() {
                // A fade a move cut short goes on first: the command
                // changes it as it would the whole fade.
                space.settle(emitter, v);
                f(v);
            }
            ranked(&audibility, buses, streams, v, (ahead, send), now)
        });
        // Not a real voice (`f` still here): perhaps a virtual one.
        if let Some(f) = f {
            self.update_virtual(id, f);
        }
    }

    /// Moves voice `id` to frame `frame` of its sound. A streamed play's
    /// slot reads a new epoch from there; if no voice reads the slot for
    /// `id` any more, that epoch is released at once.
    pub(crate) fn seek(&mut self, id: u64, frame: u64, stream: Option<StreamTicket>) {
        let mut movable = false;
        self.update(id, |v| {
            // A stream fading out keeps reading where it is.
            movable = !(v.is_stopping() && v.stream_slot().is_some());
            if movable {
                v.seek(frame);
            }
        });
        if let Some(t) = stream {
            if let Some(reader) = self.streams.get(usize::from(t.slot)) {
                reader.seek(t.epoch, id, frame, movable);
            }
        }
    }
}
