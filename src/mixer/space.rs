//! Positioned voices on the audio side: the listener, the table of
//! emitters (where each positioned play is, how it moves, and its own
//! volume and pitch, which distance and doppler scale), and the pass that
//! turns them into gain, pan and pitch ramps at the start of each block.
//!
//! A voice's [`Identity::emitter`] names its entry, so the entry follows the
//! voice through slots, the virtual pool and back; it is released when the
//! play ends for good (ended, stolen, rejected, dropped).
//!
//! Real-time contract: the table is allocated once (one entry for every
//! voice and virtual voice there can be); the pass is one read of each
//! slot's identity and a few dozen flops per positioned voice, and runs
//! only while some play is positioned. Nothing allocates, locks or panics.

use crate::command::ValidParams;
use crate::params::{MAX_PITCH, MIN_PITCH};
use crate::render::voice::Voice;
use crate::space::{hear, length, sub, Heard, ValidEmitter, ValidListener, Vec3};
use crate::voices::audibility::{Ahead, HORIZONS};
use crate::voices::free_list::FreeList;
use crate::voices::{Identity, NO_EMITTER};

use super::Mixer;

/// One positioned play.
#[derive(Clone, Copy, Debug)]
pub(super) struct Emitter {
    pub(super) at: ValidEmitter,
    /// The play's own volume and pitch (what `set_volume`, `fade_volume`
    /// and `set_pitch` set), before distance and doppler.
    pub(super) volume: f32,
    pub(super) pitch: f32,
    /// What the listener made of it when it was last applied.
    pub(super) heard: Heard,
    /// Moved since it was last applied.
    pub(super) moved: bool,
}

impl Emitter {
    /// The voice's volume, pan and pitch as heard.
    fn applied(&self) -> (f32, f32, f32) {
        let pitch = (self.pitch * self.heard.doppler).clamp(MIN_PITCH, MAX_PITCH);
        (self.volume * self.heard.gain, self.heard.pan, pitch)
    }
}

/// The listener and every positioned play's emitter.
pub(super) struct Space {
    listener: ValidListener,
    /// The listener moved since the last block's pass.
    listener_moved: bool,
    speed: f32,
    emitters: FreeList<Emitter>,
}

impl Space {
    /// Room for `capacity` positioned plays at once; sound at `speed` m/s.
    pub(super) fn new(capacity: usize, speed: f32) -> Space {
        Space {
            listener: ValidListener::default(),
            listener_moved: false,
            speed,
            emitters: FreeList::new(capacity),
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.emitters.memory_bytes()
    }

    /// Positioned plays now.
    pub(super) fn live(&self) -> usize {
        self.emitters.live()
    }

    fn hear(&self, at: &ValidEmitter) -> Heard {
        hear(&self.listener, at, self.speed)
    }

    /// A new positioned play: its entry, and `params` as heard. (The table
    /// has an entry for every play there can be, plus the newcomer's before
    /// its victim lets go: it is never full here; were it, the play would
    /// sound unpositioned rather than fail.)
    pub(super) fn admit(&mut self, params: &ValidParams) -> (u32, ValidParams) {
        let Some(at) = params.emitter else {
            return (NO_EMITTER, *params);
        };
        let emitter = Emitter {
            at,
            volume: params.volume,
            pitch: params.pitch,
            heard: self.hear(&at),
            moved: false,
        };
        let (volume, pan, pitch) = emitter.applied();
        match self.emitters.acquire(emitter) {
            Ok(e) => (
                e as u32,
                ValidParams {
                    volume,
                    pan,
                    pitch,
                    ..*params
                },
            ),
            Err(_) => (NO_EMITTER, *params),
        }
    }

    /// The play holding entry `e` is over.
    pub(super) fn release(&mut self, e: u32) {
        if e != NO_EMITTER {
            self.emitters.release(e as usize);
        }
    }

    pub(super) fn set_listener(&mut self, listener: ValidListener) {
        self.listener = listener;
        self.listener_moved = true;
    }

    pub(super) fn set_position(&mut self, e: u32, position: Vec3, velocity: Vec3) {
        if let Some(x) = self.emitters.get_mut(e as usize) {
            x.at.position = position;
            x.at.velocity = velocity;
            x.moved = true;
        }
    }

    fn moved(&self, e: u32) -> bool {
        self.emitters.get(e as usize).is_some_and(|x| x.moved)
    }

    /// Sets entry `e`'s own volume; the voice's volume as heard.
    pub(super) fn set_volume(&mut self, e: u32, volume: f32) -> Option<f32> {
        let x = self.emitters.get_mut(e as usize)?;
        x.volume = volume;
        Some(x.applied().0)
    }

    /// Sets entry `e`'s own pitch; the voice's pitch as heard.
    pub(super) fn set_pitch(&mut self, e: u32, pitch: f32) -> Option<f32> {
        let x = self.emitters.get_mut(e as usize)?;
        x.pitch = pitch;
        Some(x.applied().2)
    }

    /// Where entry `e` will be over each horizon stealing looks at (at
    /// its middle, the emitter and the listener moving on at their
    /// velocities), as a factor on its power gain against now.
    pub(super) fn ahead(&self, e: u32) -> Ahead {
        let Some(x) = self.emitters.get(e as usize) else {
            return Ahead::STILL;
        };
        let now = x.heard.gain;
        if now <= 0.0 || x.at.velocity == [0.0; 3] && self.listener.velocity == [0.0; 3] {
            return Ahead::STILL;
        }
        let (l, at) = (&self.listener, &x.at);
        Ahead(HORIZONS.map(|(seconds, _)| {
            let t = (seconds * 0.5) as f32;
            let moved = |p: Vec3, v: Vec3| [p[0] + v[0] * t, p[1] + v[1] * t, p[2] + v[2] * t];
            let d = length(sub(
                moved(at.position, at.velocity),
                moved(l.position, l.velocity),
            ));
            let g = at.spatial.gain(d) / now;
            (g * g).min(1.0e6)
        }))
    }

    /// Hears entry `e` again and applies it to `voice`, its gains, pan and
    /// pitch reached over `ramp` frames.
    pub(super) fn apply(&mut self, e: u32, voice: &mut Voice, ramp: u32, out_rate: u32) {
        let speed = self.speed;
        let listener = self.listener;
        let Some(x) = self.emitters.get_mut(e as usize) else {
            return;
        };
        x.heard = hear(&listener, &x.at, speed);
        x.moved = false;
        let (volume, pan, pitch) = x.applied();
        voice.set_spatial(volume, pan, pitch, ramp, out_rate);
    }

    /// Checks that every live entry is named by exactly one identity
    /// (tests and soak runs).
    #[cfg(any(test, feature = "hooks"))]
    pub(super) fn check(&self, named: usize) -> Result<(), String> {
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
    pub(super) fn ahead_of(&self, who: &Identity) -> Ahead {
        if who.emitter == NO_EMITTER {
            Ahead::STILL
        } else {
            self.ahead(who.emitter)
        }
    }
}

impl Mixer {
    /// The emitter of voice `id` (real or virtual), if it is positioned.
    pub(super) fn emitter_of(&self, id: u64) -> Option<u32> {
        let who: Identity = match self.pool.find(id) {
            Some(slot) => self.pool.who(slot),
            None => self.virtuals.who(self.virtuals.find(id)?),
        };
        (who.emitter != NO_EMITTER).then_some(who.emitter)
    }

    /// At the start of a block of `frames`: every positioned real voice
    /// that moved (or all of them, if the listener moved) heads for what
    /// the listener hears of it now, over the block.
    pub(super) fn move_emitters(&mut self, frames: usize) {
        if self.space.live() == 0 {
            return;
        }
        let ramp = frames as u32;
        let (space, out_rate) = (&mut self.space, self.out_rate);
        let all = std::mem::take(&mut space.listener_moved);
        self.pool.each_live(|who, v| {
            if who.emitter != NO_EMITTER && (all || space.moved(who.emitter)) {
                space.apply(who.emitter, v, ramp, out_rate);
            }
        });
    }

    /// A virtual voice about to be ranked or brought back: heard as it is
    /// now (its gains set at once: it is silent).
    pub(super) fn hear_virtual(space: &mut Space, who: &Identity, v: &mut Voice, out_rate: u32) {
        if who.emitter != NO_EMITTER {
            space.apply(who.emitter, v, 0, out_rate);
        }
    }
}
