//! The bus tree's mix-down: at the end of each chunk every bus below the
//! master, deepest first, runs its effects on what reached it, measures
//! itself for the buses it ducks, and adds itself through its gains
//! (volume, pause, duck) into the bus it feeds; then the master is what
//! the output stage gets. Also: a bus set up with effects, a parent and a
//! duck ([`Buses::setup`]), an effect's parameter change, and a voice that
//! also sends to a second bus ([`Buses::render_sending`]).
//!
//! Real-time contract: effects and their memory arrive built (a
//! [`BusSetup`] made on the game side, kept for the engine's life); the
//! mix-down is O(buses that sound × frames) plus the effects' own work,
//! and skips a bus with no input whose effects are idle. Nothing allocates
//! or frees; every index is checked.

use super::{Bus, Buses, BUS_FRAMES};
use crate::bus::effects::guard::{self, CEILING};
use crate::bus::{BusSetup, ValidDuck};
use crate::math::Libm;
use crate::protocol::bus::ParamChange;
use crate::protocol::EffectFault;
use crate::protocol::SendTo;
use crate::protocol::MASTER_BUS;
use crate::sound::bands::BAND_HZ;

/// Above this peak a bus sounds for the buses it ducks (-60 dBFS).
const DUCK_FLOOR: f32 = 0.001;

/// A ducked bus's state: its duck and the gain it is at.
#[derive(Clone, Copy, Debug)]
pub(super) struct DuckState {
    duck: ValidDuck,
    /// The duck's gain now (1: not ducked).
    pub(super) gain: f32,
    /// The gain its voices were last ranked at.
    ranked: f32,
}

impl DuckState {
    /// The gain after `n` more frames, heading down (by the attack) while
    /// `sounding`, else up (by the release), evenly in dB.
    fn next(&self, sounding: bool, n: usize) -> f32 {
        let floor_db = 20.0 * self.duck.floor.max(1e-6).lm_log10();
        let now_db = 20.0 * self.gain.max(1e-6).lm_log10();
        let (target, frames) = if sounding {
            (floor_db, self.duck.attack)
        } else {
            (0.0, self.duck.release)
        };
        let db = if frames == 0 {
            target
        } else {
            let per_frame = floor_db.abs() / frames as f32;
            let reach = per_frame * n as f32;
            if now_db > target {
                (now_db - reach).max(target)
            } else {
                (now_db + reach).min(target)
            }
        };
        if db >= -0.0001 {
            1.0
        } else if db <= floor_db {
            self.duck.floor
        } else {
            10f32.lm_powf(db / 20.0)
        }
    }
}

impl Buses {
    /// Sets up bus `setup.index` as the game side made it: where it feeds,
    /// its volume, effects and duck. Its output must be a bus made before
    /// it (the game side checks; anything else feeds the master).
    pub(crate) fn setup(&mut self, setup: Box<BusSetup>) {
        let b = usize::from(setup.index);
        if b == 0 || b >= self.buses.len() {
            // Not a bus: kept rather than freed here (never happens).
            std::mem::forget(setup);
            return;
        }
        let output = if setup.output < setup.index {
            setup.output
        } else {
            MASTER_BUS
        };
        let bus = &mut self.buses[b];
        bus.output = output;
        bus.volume = super::Ramp::steady(setup.volume);
        bus.volume_changed = true;
        self.any_volume_changed = true;
        bus.duck = setup.duck.map(|duck| DuckState {
            duck,
            gain: 1.0,
            ranked: 1.0,
        });
        // Its parent was set up before it (made before it): its depth is
        // final.
        let depth = self.buses[usize::from(output)].depth.saturating_add(1);
        let bus = &mut self.buses[b];
        bus.depth = depth;
        self.deepest = self.deepest.max(depth);
        self.shaped |= bus.duck.is_some() || !setup.effects.is_empty();
        self.custom_effects |= setup.health.iter().any(|h| h.custom);
        if let Some(old) = bus.setup.replace(setup) {
            std::mem::forget(old); // (never: a bus is set up once)
        }
        if let Some(d) = self.buses[b].duck {
            if let Some(x) = self.ducked_by.get_mut(usize::from(d.duck.by)) {
                *x = true;
            }
        }
        self.hear_effects(b);
        // Sorted once before the next mix-down, however many buses are
        // set up in between.
        self.order_dirty = true;
    }

    /// Orders the buses deepest first, equal depths in the order they
    /// were made: a counting sort over the depths, O(buses).
    fn sort(&mut self) {
        let slots = &mut self.depth_slots;
        slots.fill(0);
        let deepest = slots.len() - 1;
        let depth = |bus: &Bus| usize::from(bus.depth).min(deepest);
        for bus in &self.buses[1..] {
            slots[depth(bus)] += 1;
        }
        // Where each depth's run starts: the deeper ones first.
        let mut at = 0;
        for slot in slots.iter_mut().rev() {
            let n = *slot;
            *slot = at;
            at += n;
        }
        for (b, bus) in self.buses.iter().enumerate().skip(1) {
            let d = depth(bus);
            if let Some(o) = self.order.get_mut(usize::from(slots[d])) {
                *o = b as u16;
            }
            slots[d] += 1;
        }
        self.order_dirty = false;
    }

    /// Effect `index` of bus `b` glides `param` over `frames`.
    pub(crate) fn set_effect_param(&mut self, b: u16, index: u8, param: ParamChange, frames: u32) {
        let effect = self
            .buses
            .get_mut(usize::from(b))
            .and_then(|bus| bus.setup.as_mut())
            .and_then(|s| {
                let i = usize::from(index);
                s.effects.get_mut(i).zip(s.health.get_mut(i))
            });
        if let Some((e, health)) = effect {
            guard::set_param(e.as_mut(), health, param, frames);
            self.hear_effects(usize::from(b));
            if let Some(bus) = self.buses.get_mut(usize::from(b)) {
                bus.volume_changed = true;
                self.any_volume_changed = true;
            }
        }
    }

    /// Bus `b`'s effects' power gain in each band, again.
    fn hear_effects(&mut self, b: usize) {
        let Some(bus) = self.buses.get_mut(b) else {
            return;
        };
        let Some(setup) = bus.setup.as_mut() else {
            bus.bands = [1.0; 4];
            return;
        };
        let mut bands = [1.0f32; 4];
        for (e, health) in setup.effects.iter().zip(setup.health.iter_mut()) {
            for (band, &hz) in bands.iter_mut().zip(&BAND_HZ) {
                // A game's effect may say anything: NaN counts as
                // passing, each at most +24 dB, the chain at most +60.
                let g = guard::power_gain(e.as_ref(), health, hz);
                *band *= if g.is_nan() { 1.0 } else { g.clamp(0.0, 256.0) };
            }
        }
        bus.bands = bands.map(|g| g.min(1e6));
        self.faults |= setup.health.iter().any(|h| h.pending != 0);
    }

    /// Hands the faults of effects not yet reported to `f` (its bus, its
    /// place on the bus, the fault), each once, at most `room` of them
    /// (the rest wait for the next call).
    pub(crate) fn take_faults(
        &mut self,
        mut room: usize,
        mut f: impl FnMut(u16, usize, EffectFault),
    ) {
        if !std::mem::take(&mut self.faults) {
            return;
        }
        for (b, bus) in self.buses.iter_mut().enumerate() {
            if let Some(setup) = bus.setup.as_mut() {
                for (k, health) in setup.health.iter_mut().enumerate() {
                    health.take_pending(&mut room, |fault| f(b as u16, k, fault));
                    self.faults |= health.pending != 0;
                }
            }
        }
    }

    /// Runs every bus below the master into the bus it feeds, deepest
    /// first; each buffer it reads is left silent.
    pub(super) fn mix_down(&mut self, n: usize) {
        if self.order_dirty {
            self.sort();
        }
        for k in 0..self.order.len() {
            let b = usize::from(self.order[k]);
            self.run_bus(b, n);
            // A duck that moved by 1 dB or more since its voices were
            // ranked: rank them again (as a volume change would).
            if let Some(bus) = self.buses.get_mut(b) {
                if let Some(d) = bus.duck.as_mut() {
                    let ratio = d.gain / d.ranked.max(1e-6);
                    if !(0.891..=1.122).contains(&ratio) {
                        d.ranked = d.gain;
                        bus.volume_changed = true;
                        self.any_volume_changed = true;
                    }
                }
            }
        }
    }

    fn run_bus(&mut self, b: usize, n: usize) {
        let used = self.used.get(b).copied().unwrap_or(false);
        let Some(bus) = self.buses.get_mut(b) else {
            return;
        };
        let effects_ring = bus.setup.as_mut().is_some_and(|s| {
            let ringing = s
                .effects
                .iter()
                .zip(s.health.iter_mut())
                .any(|(e, h)| !guard::is_idle(e.as_ref(), h));
            // (`is_idle` may have panicked: reported like any fault.)
            self.faults |= s.health.iter().any(|h| h.pending != 0);
            ringing
        });
        let bus = &self.buses[b];
        // How loud its ducker was (this chunk if it ran already, else the
        // last).
        let ducker = bus.duck.map(|d| {
            self.buses
                .get(usize::from(d.duck.by))
                .map_or(0.0, |x| x.level)
        });
        if !used && !effects_ring {
            let bus = &mut self.buses[b];
            bus.level = 0.0;
            if let (Some(d), Some(level)) = (bus.duck.as_mut(), ducker) {
                d.gain = d.next(level > DUCK_FLOOR, n);
            }
            return;
        }
        let parent = usize::from(bus.output).min(b.saturating_sub(1));
        let (head, tail) = self.buffers.split_at_mut(b * 2 * BUS_FRAMES);
        let (l, r) = tail[..2 * BUS_FRAMES].split_at_mut(BUS_FRAMES);
        let (l, r) = (&mut l[..n], &mut r[..n]);
        let pstart = parent * 2 * BUS_FRAMES;
        let (pl, pr) = head[pstart..pstart + 2 * BUS_FRAMES].split_at_mut(BUS_FRAMES);
        let (pl, pr) = (&mut pl[..n], &mut pr[..n]);
        // Some bus ducks while this one sounds: measure it.
        let ducks = self.ducked_by.get(b).copied().unwrap_or(false);
        let bus = &mut self.buses[b];
        if std::mem::take(&mut bus.overflowed) {
            // What reached it overflowed on the way (buses too loud for
            // `f32`): lost, rather than handed to its effects.
            l.fill(0.0);
            r.fill(0.0);
        }
        if let Some(setup) = bus.setup.as_mut() {
            for (e, health) in setup.effects.iter_mut().zip(setup.health.iter_mut()) {
                // A fault (the output too) silences the piece, so nothing
                // after it is poisoned.
                self.faults |= guard::process(e.as_mut(), health, l, r);
            }
        }
        let (d0, d1) = match (bus.duck.as_mut(), ducker) {
            (Some(d), Some(level)) => {
                let from = d.gain;
                d.gain = d.next(level > DUCK_FLOOR, n);
                (from, d.gain)
            }
            _ => (1.0, 1.0),
        };
        let mut peak = 0.0f32;
        // The largest magnitude the parent holds after the sum, as bits,
        // watched only where a sum can come near `f32`'s limit: below a
        // game's effect (its output may be anything up to the ceiling,
        // then scaled) or in a deep tree (a bus's voices sum to at most
        // 1e6 and each bus scales by at most 4: 255 buses' worth through
        // 30 of them stays below 1e30). A built-in effect fed more than
        // that heals itself.
        let watch = self.custom_effects || self.deepest > SAFE_DEPTH;
        let mut loudest = 0u32;
        match bus.steady_gain().filter(|_| d0 == d1) {
            // The common case: one gain for the chunk (vectorized).
            Some(g) => {
                let g = g * d0;
                if self.metering || ducks {
                    peak = g.abs() * super::peak_of_both(l, r);
                }
                loudest = if watch {
                    add_scaled::<true>(pl, l, g).max(add_scaled::<true>(pr, r, g))
                } else {
                    add_scaled::<false>(pl, l, g).max(add_scaled::<false>(pr, r, g))
                };
            }
            None => {
                let (sv, sp) = (bus.volume.step(), bus.pause.step());
                let dd = (d1 - d0) / n.max(1) as f32;
                for (i, ((ol, or), (xl, xr))) in pl
                    .iter_mut()
                    .zip(pr.iter_mut())
                    .zip(l.iter_mut().zip(r.iter_mut()))
                    .enumerate()
                {
                    let g = bus.volume.at(i, sv) * bus.pause.at(i, sp) * (d0 + dd * i as f32);
                    let (yl, yr) = (*xl * g, *xr * g);
                    peak = peak.max(yl.abs()).max(yr.abs());
                    *ol += yl;
                    *or += yr;
                    *xl = 0.0;
                    *xr = 0.0;
                    if watch {
                        loudest = loudest.max(magnitude(*ol)).max(magnitude(*or));
                    }
                }
            }
        }
        // The sum overflowed (or came near): the parent loses this piece
        // before its effects see it (see `run_bus`'s start).
        if loudest > CEILING.to_bits() {
            if let Some(p) = self.buses.get_mut(parent) {
                p.overflowed = true;
            }
        }
        let bus = &mut self.buses[b];
        bus.level = peak;
        if let Some(p) = self.peaks.get_mut(b) {
            *p = p.max(peak);
        }
        if let Some(u) = self.used.get_mut(parent) {
            *u = true;
        }
    }

    /// Renders a voice on bus `b` that also sends to bus `send` at
    /// `level` (moving by `step` a frame: a send gliding): `render` writes
    /// into a silent scratch pair (`frames` frames), which is then added
    /// to both buses and left silent again. Returns what `render` returned.
    pub(crate) fn render_sending<T>(
        &mut self,
        b: u16,
        send: u16,
        (level, step): (f32, f32),
        frames: usize,
        render: impl FnOnce(&mut [f32], &mut [f32]) -> T,
    ) -> T {
        let frames = frames.min(self.chunk);
        let (sl, sr) = self.scratch.split_at_mut(BUS_FRAMES);
        let ran = render(&mut sl[..frames], &mut sr[..frames]);
        let (t, s) = (self.mark_used(b), self.mark_used(send));
        let (sl, sr) = self.scratch.split_at_mut(BUS_FRAMES);
        let (sl, sr) = (&mut sl[..frames], &mut sr[..frames]);
        if t == s {
            // Sent to its own bus: once, louder.
            let start = t * 2 * BUS_FRAMES;
            let (l, r) = self.buffers[start..start + 2 * BUS_FRAMES].split_at_mut(BUS_FRAMES);
            add_ramp_and_clear(&mut l[..frames], sl, 1.0 + level, step);
            add_ramp_and_clear(&mut r[..frames], sr, 1.0 + level, step);
            return ran;
        }
        // Both buses' buffers at once: one pass adds to each and clears.
        let (lo, hi) = (t.min(s), t.max(s));
        let (head, tail) = self.buffers.split_at_mut(hi * 2 * BUS_FRAMES);
        let low = &mut head[lo * 2 * BUS_FRAMES..(lo + 1) * 2 * BUS_FRAMES];
        let high = &mut tail[..2 * BUS_FRAMES];
        let (own, sent) = if t < s { (low, high) } else { (high, low) };
        let (ol, or) = own.split_at_mut(BUS_FRAMES);
        let (xl, xr) = sent.split_at_mut(BUS_FRAMES);
        for (scratch, bus, send_to) in [(sl, ol, xl), (sr, or, xr)] {
            if step != 0.0 {
                add_ramp(&mut send_to[..frames], scratch, level, step);
                add_and_clear(&mut bus[..frames], scratch, 1.0);
                continue;
            }
            for ((x, o), y) in scratch
                .iter_mut()
                .zip(bus[..frames].iter_mut())
                .zip(send_to[..frames].iter_mut())
            {
                *o += *x;
                *y += *x * level;
                *x = 0.0;
            }
        }
        ran
    }
}

impl Buses {
    /// Adds a voice's rendered pair `l`, `r` to bus `b`, and at its level
    /// to bus `send` if it sends (as [`Buses::render_sending`] does with
    /// its own scratch pair), and leaves the pair silent.
    pub(crate) fn add_pair(&mut self, b: u16, send: SendTo, l: &mut [f32], r: &mut [f32]) {
        let n = l.len().min(r.len()).min(self.chunk);
        let (l, r) = (&mut l[..n], &mut r[..n]);
        let (mut own, mut step) = (1.0, 0.0);
        if send.is_some() {
            if self.mark_used(send.bus) == self.mark_used(b) {
                // Sent to its own bus: once, louder.
                (own, step) = (1.0 + send.level, send.step);
            } else {
                let (sl, sr) = self.target(send.bus);
                add_ramp(sl, l, send.level, send.step);
                add_ramp(sr, r, send.level, send.step);
            }
        }
        let (tl, tr) = self.target(b);
        add_ramp_and_clear(&mut tl[..n], l, own, step);
        add_ramp_and_clear(&mut tr[..n], r, own, step);
    }
}

/// A finite `f32`'s magnitude orders as its bits do (a NaN's above
/// infinity's): compared as integers, the loop vectorizes.
#[inline(always)]
fn magnitude(x: f32) -> u32 {
    x.to_bits() & 0x7fff_ffff
}

/// Adds `x` times `gain` to `out`, leaves `x` silent, and returns the
/// largest magnitude `out` then holds (as bits) if `WATCH`, else 0. In
/// lanes of eight, so that the maximum vectorizes with the sum.
fn add_scaled<const WATCH: bool>(out: &mut [f32], x: &mut [f32], gain: f32) -> u32 {
    let mut lanes = [0u32; 8];
    let mut outs = out.chunks_exact_mut(8);
    let mut xs = x.chunks_exact_mut(8);
    for (o, x) in (&mut outs).zip(&mut xs) {
        for ((o, x), m) in o.iter_mut().zip(x.iter_mut()).zip(lanes.iter_mut()) {
            *o += *x * gain;
            *x = 0.0;
            if WATCH {
                *m = (*m).max(magnitude(*o));
            }
        }
    }
    for (o, x) in outs.into_remainder().iter_mut().zip(xs.into_remainder()) {
        *o += *x * gain;
        *x = 0.0;
        if WATCH {
            lanes[0] = lanes[0].max(magnitude(*o));
        }
    }
    lanes.into_iter().max().unwrap_or(0)
}

/// The depth of a bus tree in which no sum of voices can come near
/// [`CEILING`] (see `run_bus`).
const SAFE_DEPTH: u16 = 30;

/// Adds `x` times `gain` to `out` and leaves `x` silent.
fn add_and_clear(out: &mut [f32], x: &mut [f32], gain: f32) {
    for (o, x) in out.iter_mut().zip(x.iter_mut()) {
        *o += *x * gain;
        *x = 0.0;
    }
}

/// Adds `x` to `out` at a gain starting at `gain` and moving by `step`
/// a frame, and leaves `x` silent (at a fixed gain if `step` is 0).
fn add_ramp_and_clear(out: &mut [f32], x: &mut [f32], gain: f32, step: f32) {
    if step == 0.0 {
        return add_and_clear(out, x, gain);
    }
    add_ramp(out, x, gain, step);
    x.fill(0.0);
}

/// Adds `x` to `out` at a gain starting at `gain` and moving by `step`
/// a frame (computed from the frame's index: no drift).
fn add_ramp(out: &mut [f32], x: &[f32], gain: f32, step: f32) {
    if step == 0.0 {
        for (o, x) in out.iter_mut().zip(x) {
            *o += *x * gain;
        }
        return;
    }
    for (i, (o, x)) in out.iter_mut().zip(x).enumerate() {
        *o += *x * (gain + step * i as f32);
    }
}
