//! Positioned voices on the audio side: the listener, the emitter table
//! (the cells the game writes positions into, and a record per cell of
//! where its play was last read to be, its own volume and pitch, which
//! distance and doppler scale, and what the listener made of it), and the
//! pass that turns them into gain, pan and pitch ramps at the start of each
//! block.
//!
//! A voice's [`Identity::emitter`] names its cell, so the cell follows the
//! voice through slots, the virtual pool and back; it goes back to the game
//! side when the play ends for good (ended, stolen, rejected, dropped).
//!
//! A play with parameter maps has a cell too (an unpositioned one at a
//! fixed pan): the pass hears it again while a parameter it maps moves
//! (`heard.rs`).
//!
//! Real-time contract: the table is made on the game side with the engine
//! and kept, never freed here.
//! The pass reads each sounding positioned voice's cell sequence (an atomic
//! load) and re-hears it, a few dozen flops, only if it or the listener
//! moved (or a parameter it maps); virtual voices are read only when ranked or brought back. It runs
//! only while some play is positioned. Nothing allocates, locks, waits or
//! panics.

use ringbuf::traits::Producer;

use std::sync::Arc;

use crate::param::eval::{evaluate, Params};
use crate::protocol::modulation::Mods;
use crate::protocol::{SendTo, ValidParams};
use crate::protocol::{MAX_PITCH, MIN_PITCH};
use crate::render::direct::{band_power, DirectFilters};
use crate::render::glide::{StepGlide, StepGlides};
use crate::render::voice::Voice;
use crate::space::air::AirTable;
use crate::space::positions::EmitterTable;
use crate::space::{length, sub, Emitter, ValidListener, Vec3, MAX_DOPPLER_SHIFT};
use crate::voices::audibility::{Ahead, HORIZONS};
use crate::voices::{Identity, NO_EMITTER};

use crate::mixer::Mixer;

mod heard;
use heard::{fresh, Ear};

/// Each emitter cell's render state on the mixer: its low-pass and its
/// pending doppler glide.
pub(crate) type Cells<'a> = (&'a mut DirectFilters, &'a mut StepGlides);

/// The distance gain a voice silent by distance (the linear model at its
/// end) is ranked from: -140 dB. It sounds at exactly 0, but keeps a level
/// for where it will be to scale: one rushing in from there is ranked by
/// how loud it is about to be.
const LEAST_GAIN: f32 = 1e-7;
/// A listener moved further than this (in metres) at once has jumped (a
/// teleport, a cut): running at 10 m/s moves it 0.1 m a block.
const JUMP_METRES: f32 = 8.0;

impl Emitter {
    /// The voice's volume, pan and pitch as heard.
    fn applied(&self) -> (f32, f32, f32) {
        let pitch = (self.pitch * self.heard.doppler).clamp(MIN_PITCH, MAX_PITCH);
        (self.volume * self.heard.gain, self.heard.pan, pitch)
    }
}

/// The listener and every positioned play's emitter.
pub(crate) struct Space {
    listener: ValidListener,
    /// The listener moved since the last block's pass.
    listener_moved: bool,
    /// The listener jumped (a teleport, a cut to another place), or moved
    /// at all, since the virtual voices were last told.
    listener_jumped: bool,
    listener_moved_virtual: bool,
    speed: f32,
    /// What the air does over each distance.
    air: &'static AirTable,
    /// Made with the engine (an `Option` only so that every lookup
    /// stays a checked one).
    table: Option<Box<EmitterTable>>,
    /// Records in use: positioned plays now.
    live: usize,
    /// Every parameter's value (what cues' maps read).
    pub(crate) params: Params,
    /// The output frame the block being made starts at.
    now: u64,
}

impl Space {
    /// Sound at `speed` m/s, with the emitter table the game side made.
    pub(crate) fn new(speed: f32, table: Box<EmitterTable>, out_rate: u32) -> Space {
        Space {
            listener: ValidListener::default(),
            listener_moved: false,
            listener_jumped: false,
            listener_moved_virtual: false,
            speed,
            air: AirTable::for_rate(out_rate),
            table: Some(table),
            live: 0,
            params: Params::new(),
            now: 0,
        }
    }

    /// The block being made starts at output frame `now`.
    pub(crate) fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        // (The shared positions and the ring of cells given back are
        // counted on the game side.)
        self.params.memory_bytes()
            + self.table.as_ref().map_or(0, |t| {
                std::mem::size_of_val(&*t.records) + std::mem::size_of_val(&*t.mods)
            })
    }

    /// The most source frames per output frame the voice at cell `e`,
    /// stepping `step` now, may step in the next block: `step`, unless a
    /// move waits to be heard (the listener's or its own), which may
    /// change its doppler shift to anything its settings allow.
    pub(crate) fn step_bound(&self, e: u32, step: f64) -> f64 {
        let Some(x) = self.record(e) else {
            return step;
        };
        let modulated = self.modulating(e);
        let doppler = x.at.spatial.doppler > 0.0 && x.at.fixed_pan.is_none();
        if !(modulated || (doppler && (self.listener_moved || self.moved(e)))) {
            return step;
        }
        let (_, _, applied) = x.applied();
        // Its maps' pitch as they will be heard at the block's start.
        let modded = match self.mods_of(e) {
            Some(m) => evaluate(m, &x.own, &self.params, self.now).pitch,
            None => 1.0,
        };
        let shift = if doppler { MAX_DOPPLER_SHIFT } else { 1.0 };
        let most = (x.pitch * modded * shift).clamp(MIN_PITCH, MAX_PITCH);
        step * f64::from(most / applied.max(MIN_PITCH)).max(1.0)
    }

    /// Positioned plays now.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Whether cell `e` was written since its record was read.
    fn moved(&self, e: u32) -> bool {
        let Some(t) = self.table.as_ref() else {
            return false;
        };
        t.records
            .get(e as usize)
            .is_some_and(|x| t.positions.seq(e) != x.seq)
    }

    fn record(&self, e: u32) -> Option<&Emitter> {
        self.table.as_ref()?.records.get(e as usize)
    }

    /// A new positioned play: its cell, and `params` as heard; its
    /// low-pass in `filters` set at once. (A play whose cell is unknown
    /// here sounds unpositioned rather than fail.)
    pub(crate) fn admit(
        &mut self,
        (params, mods): (&ValidParams, Option<Arc<Mods>>),
        filters: &mut DirectFilters,
        out_rate: u32,
    ) -> (u32, ValidParams) {
        let Some(at) = params.emitter else {
            return (NO_EMITTER, *params);
        };
        let ear = Ear {
            listener: self.listener,
            speed: self.speed,
            air: self.air,
            params: &self.params,
            now: self.now,
        };
        let Some(t) = self.table.as_deref_mut() else {
            return (NO_EMITTER, *params);
        };
        let (Some(x), Some(m)) = (
            t.records.get_mut(at.cell as usize),
            t.mods.get_mut(at.cell as usize),
        ) else {
            return (NO_EMITTER, *params);
        };
        // (The cell's last play's maps: a decrement, never the last.)
        *m = mods;
        *x = Emitter {
            at,
            volume: params.volume,
            pitch: params.pitch,
            // Never a cell's: whatever the game wrote since it sent the
            // play is read now.
            seq: 1,
            ..Emitter::NONE
        };
        fresh(&t.positions, x, at.cell);
        x.heard = ear.hear(x, m.as_deref());
        filters.head_for(at.cell, x.heard.cutoff, out_rate, true);
        let (volume, pan, pitch) = x.applied();
        self.live += 1;
        (
            at.cell,
            ValidParams {
                volume,
                pan,
                pitch,
                ..*params
            },
        )
    }

    /// The play holding cell `e` is over: the cell goes back to the game.
    pub(crate) fn release(&mut self, e: u32) {
        if let (true, Some(t)) = (e != NO_EMITTER, self.table.as_mut()) {
            self.live = self.live.saturating_sub(1);
            // Room for every cell: this cannot fail (were it to, the cell
            // would only be lost to later plays).
            let _ = t.returns.try_push(e);
        }
    }

    pub(crate) fn set_listener(&mut self, listener: ValidListener) {
        let moved = length(sub(listener.position, self.listener.position));
        self.listener_jumped |= moved > JUMP_METRES;
        self.listener = listener;
        self.listener_moved = true;
        self.listener_moved_virtual = true;
    }

    /// Whether the listener moved, and whether it jumped, since this was
    /// last asked.
    pub(crate) fn take_listener_news(&mut self) -> (bool, bool) {
        (
            std::mem::take(&mut self.listener_moved_virtual),
            std::mem::take(&mut self.listener_jumped),
        )
    }

    /// Sets cell `e`'s own volume; the voice's volume as heard.
    pub(crate) fn set_volume(&mut self, e: u32, volume: f32) -> Option<f32> {
        let x = self.table.as_mut()?.records.get_mut(e as usize)?;
        x.volume = volume;
        Some(x.applied().0)
    }

    /// Sets cell `e`'s own pitch; the voice's pitch as heard.
    pub(crate) fn set_pitch(&mut self, e: u32, pitch: f32) -> Option<f32> {
        let x = self.table.as_mut()?.records.get_mut(e as usize)?;
        x.pitch = pitch;
        Some(x.applied().2)
    }

    /// Where cell `e`'s play will be over each horizon stealing looks at
    /// (at its middle, the emitter and the listener moving on at their
    /// velocities), as a factor on its power gain against now.
    pub(crate) fn ahead(&self, e: u32) -> Ahead {
        let Some(x) = self.record(e) else {
            return Ahead::STILL;
        };
        let bands = band_power(x.heard.cutoff);
        let still = x.at.velocity == [0.0; 3] && self.listener.velocity == [0.0; 3];
        if still || x.at.fixed_pan.is_some() {
            return Ahead([1.0; 3], 0.0, bands);
        }
        let now = x.heard.gain.max(LEAST_GAIN);
        // Silent now: counted from the floor (its gains are 0).
        let floor = if x.heard.gain < LEAST_GAIN {
            let v = x.volume * LEAST_GAIN;
            v * v
        } else {
            0.0
        };
        let (l, at) = (&self.listener, &x.at);
        let factors = HORIZONS.map(|(seconds, _)| {
            let t = (seconds * 0.5) as f32;
            let moved = |p: Vec3, v: Vec3| [p[0] + v[0] * t, p[1] + v[1] * t, p[2] + v[2] * t];
            let d = length(sub(
                moved(at.position, at.velocity),
                moved(l.position, l.velocity),
            ));
            let g = (at.spatial.gain(d) * x.heard.direct).max(LEAST_GAIN) / now;
            // (At most 1e14: from the least gain to full.)
            g * g
        });
        Ahead(factors, floor, bands)
    }

    /// The power factor between how cell `e`'s play would be heard from
    /// where the listener is now (at the place it was last read) and how
    /// it was last heard: a cheap re-estimate of a virtual voice's rank as
    /// the listener moves (one distance, the distance model; no cell
    /// read). `None` for a cell with no play.
    pub(crate) fn regain(&self, e: u32) -> Option<f32> {
        let x = self.record(e)?;
        if x.at.fixed_pan.is_some() {
            return Some(1.0);
        }
        let d = length(sub(x.at.position, self.listener.position));
        let g =
            (x.at.spatial.gain(d) * x.heard.direct).max(LEAST_GAIN) / x.heard.gain.max(LEAST_GAIN);
        Some(g * g)
    }

    /// Hears cell `e`'s play where the game last put it and applies it
    /// to `voice` (and its low-pass in `filters`), its gains, pan, pitch
    /// and cutoff reached over `ramp` frames (0: at once).
    pub(crate) fn apply(
        &mut self,
        e: u32,
        (voice, cells): (&mut Voice, Cells),
        ramp: u32,
        out_rate: u32,
    ) {
        self.follow(e, (voice, cells), ramp, out_rate, true);
    }

    /// As [`Space::apply`], only if the game moved the play since it was
    /// last read (or `always`).
    fn follow(
        &mut self,
        e: u32,
        (voice, (filters, glides)): (&mut Voice, Cells),
        ramp: u32,
        out_rate: u32,
        always: bool,
    ) {
        self.settle(e, voice);
        if !always && !self.moved(e) && !self.modulating(e) {
            return;
        }
        let ear = Ear {
            listener: self.listener,
            speed: self.speed,
            air: self.air,
            params: &self.params,
            // Where its maps will be at the block's end: the ramp heads there.
            now: self.now + u64::from(ramp),
        };
        let Some(t) = self.table.as_deref_mut() else {
            return;
        };
        let (Some(x), Some(m)) = (t.records.get_mut(e as usize), t.mods.get(e as usize)) else {
            return;
        };
        fresh(&t.positions, x, e);
        let was = x.heard.gain;
        x.heard = ear.hear(x, m.as_deref());
        filters.head_for(e, x.heard.cutoff, out_rate, ramp == 0);
        let (_, pan, pitch) = x.applied();
        let (fade_to, gain) = (x.volume, x.heard.gain);
        let before = voice.step_raw();
        x.fade_rest =
            voice.respatialize(fade_to, was, gain, pan, pitch, ramp, x.fade_rest, out_rate);
        // A new doppler shift glides across the block (heard at once by a
        // voice that is silent, virtual or starting, and where the change
        // is under a cent: 1 part in 2,048, 0.85 cent).
        let to = voice.step_raw();
        let audible = to.abs_diff(before) > before >> 11;
        let glide = (ramp > 0 && audible).then_some(StepGlide { from: before, to });
        if glide.is_some() {
            voice.set_step(before);
        }
        glides.set(e, glide);
        glides.head_send(e, x.heard.send, ramp);
    }

    /// Voice `voice` at cell `e` goes on with a fade a move cut at the end
    /// of the last block (before anything else changes it).
    pub(crate) fn settle(&mut self, e: u32, voice: &mut Voice) {
        let Some(x) = self
            .table
            .as_mut()
            .and_then(|t| t.records.get_mut(e as usize))
        else {
            return;
        };
        if x.fade_rest > 0 && (voice.ramp_left() == 0 || !voice.is_playing()) {
            voice.continue_fade(std::mem::take(&mut x.fade_rest));
        }
    }

    /// Checks that every record in use is named by exactly one identity
    /// (tests and soak runs).
    #[cfg(any(test, feature = "hooks"))]
    pub(crate) fn check(&self, named: usize) -> Result<(), String> {
        if named != self.live() {
            return Err(format!(
                "{} emitters in use, {named} named by voices",
                self.live()
            ));
        }
        Ok(())
    }
}

impl Space {
    /// Where voice `who` will be, for ranking it.
    pub(crate) fn ahead_of(&self, who: &Identity) -> Ahead {
        if who.emitter == NO_EMITTER {
            Ahead::STILL
        } else {
            self.ahead(who.emitter)
        }
    }

    /// The factor cell `e`'s maps put on its play's send level (1 for a
    /// cell with no play or no `Send` map).
    pub(crate) fn heard_send(&self, e: u32) -> f32 {
        self.record(e).map_or(1.0, |x| x.heard.send)
    }

    /// Voice `who`'s send at the level it heads for, for ranking it.
    pub(crate) fn send_of(&self, who: &Identity) -> SendTo {
        let mut send = who.send;
        if send.is_some() && who.emitter != NO_EMITTER {
            send.level *= self.heard_send(who.emitter);
        }
        send
    }
}

impl Mixer {
    /// The emitter of voice `id` (real or virtual), if it is positioned.
    pub(crate) fn emitter_of(&self, id: u64) -> Option<u32> {
        let who: Identity = match self.pool.find(id) {
            Some(slot) => self.pool.who(slot),
            None => self.virtuals.who(self.virtuals.find(id)?),
        };
        (who.emitter != NO_EMITTER).then_some(who.emitter)
    }

    /// At the start of a block of `frames`: every positioned real voice
    /// that moved (or all of them, if the listener moved) heads for what
    /// the listener hears of it now, over the block.
    pub(crate) fn move_emitters(&mut self, frames: usize) {
        if self.space.live() == 0 {
            return;
        }
        let ramp = frames as u32;
        let (space, out_rate) = (&mut self.space, self.out_rate);
        let (filters, glides) = (&mut self.direct, &mut self.glides);
        let all = std::mem::take(&mut space.listener_moved);
        self.pool.each_live(|who, v| {
            if who.emitter != NO_EMITTER {
                space.follow(
                    who.emitter,
                    (v, (&mut *filters, &mut *glides)),
                    ramp,
                    out_rate,
                    all,
                );
            }
        });
    }

    /// A virtual voice about to be ranked or brought back: heard as it is
    /// now (its gains set at once: it is silent).
    pub(crate) fn hear_virtual(
        (space, cells): (&mut Space, Cells),
        who: &Identity,
        v: &mut Voice,
        out_rate: u32,
    ) {
        if who.emitter != NO_EMITTER {
            space.apply(who.emitter, (v, cells), 0, out_rate);
        }
    }
}
