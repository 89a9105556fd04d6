//! [`Buses`]: the master bus and the tree of buses that feed it. Each bus
//! has a mix buffer, a volume (with linear fades), a pause switch (with a
//! short fade, after which the voices on it, and on the buses feeding it,
//! are frozen: they render nothing and keep their positions until it
//! resumes), and may have effects, a duck and a parent other than the
//! master (see [`graph`]: the mix-down, children first).
//!
//! Per block piece ("chunk", at most [`BUS_FRAMES`] frames) the mixer asks
//! how far each voice may render ([`Buses::render_limit`]: all of the chunk,
//! only up to the end of a pause fade, or nothing on a frozen bus), renders
//! it into its bus's buffer ([`Buses::target`]), then
//! [`Buses::finish_chunk`] sums every used bus into the master with its gain
//! ramp, applies the master's own gain and the limiter into the output, and
//! moves every ramp on. Whatever reads a buffer clears it behind itself (the
//! sum into the master, the limiter), so every buffer is silent between
//! chunks and none needs a clearing pass of its own.
//!
//! Real-time contract: every buffer is allocated in [`Buses::new`]; the
//! per-chunk work is O(buses used × frames), allocates nothing and indexes
//! only within the buffers (bus indices out of range fall back to the
//! master).

mod db_glide;
mod graph;

use crate::bus::BusSetup;
use crate::protocol::MASTER_BUS;
use crate::simd::Isa;
use crate::sound::bands::Bands;

use crate::render::limiter::interleave_limited;
use crate::render::ramp::Ramp;
use db_glide::DbGlide;
use graph::DuckState;

/// Frames per channel of each bus buffer; longer blocks render in pieces.
pub(crate) const BUS_FRAMES: usize = 1024;

/// One bus: its gains, where it feeds, its effects and its duck.
struct Bus {
    volume: Ramp,
    /// A volume glide linear in dB, followed a chunk at a time (each
    /// chunk's ramp heads for where the glide is at the chunk's end).
    db_glide: Option<DbGlide>,
    /// 1 playing, 0 paused; ramps between them over the pause fade.
    pause: Ramp,
    paused: bool,
    /// Its volume changed since [`Buses::clear_volume_changes`].
    volume_changed: bool,
    /// The bus it feeds (always one made before it; the master feeds the
    /// output).
    output: u16,
    /// Its effects and duck as the game side made them: kept for the
    /// engine's life (never freed on the audio thread).
    setup: Option<Box<BusSetup>>,
    duck: Option<DuckState>,
    /// The peak of what it sent on in the last chunk it ran (for the buses
    /// it ducks).
    level: f32,
    /// What a bus feeding it summed into it this chunk overflowed (or
    /// came near): its input is lost before its effects run.
    overflowed: bool,
    /// Its depth in the tree: 1 for a bus feeding the master.
    depth: u16,
    /// What its effects let through of each band
    /// (`sound::bands::BAND_HZ`), as power, where their parameters are
    /// heading (for stealing).
    bands: [f32; 4],
}

impl Bus {
    /// Paused and faded out: its voices are frozen.
    fn frozen(&self) -> bool {
        self.paused && self.pause.left == 0
    }

    /// Frames its voices may render of a chunk of `n`.
    fn limit(&self, n: usize) -> usize {
        match (self.paused, self.pause.left) {
            (false, _) => n,
            (true, left) => n.min(left as usize),
        }
    }

    fn steady_gain(&self) -> Option<f32> {
        (self.volume.left == 0 && self.pause.left == 0)
            .then_some(self.volume.value * self.pause.value)
    }
}

/// The master bus (index 0) and the buses feeding it, with their buffers.
pub(crate) struct Buses {
    buses: Box<[Bus]>,
    /// Per bus, left then right, [`BUS_FRAMES`] each.
    buffers: Box<[f32]>,
    /// Per bus: written to in the current chunk (its buffer is silent at
    /// its first use: `finish_chunk` clears every buffer it reads).
    used: Box<[bool]>,
    /// Frames in the current chunk.
    chunk: usize,
    pause_fade: u32,
    /// Some bus's volume changed since [`Buses::clear_volume_changes`].
    any_volume_changed: bool,
    /// Some bus's volume glides in dB.
    db_gliding: bool,
    /// Some bus's volume or pause ramp may still be running (false: every
    /// ramp is steady, and moving them on would change nothing).
    ramping: bool,
    /// Some bus is paused (its `paused` flag: held or fading out).
    any_paused: bool,
    /// Some bus besides the master is used in the current chunk.
    any_used: bool,
    /// Per bus, output frames its voices have been held so far (by its
    /// pause or the master's): what a virtual voice on it must not move by.
    held: Box<[u64]>,
    /// The buses besides the master in the order they mix down: deepest
    /// first, so every bus runs after all the buses feeding it; among
    /// equals, in the order they were made.
    order: Box<[u16]>,
    /// Some bus has effects or a duck (the mix-down then runs every bus
    /// that could sound, used or not).
    shaped: bool,
    /// Some bus runs a game's own effect.
    custom_effects: bool,
    /// The deepest bus's depth.
    deepest: u16,
    /// Buses were set up since `order` was sorted.
    order_dirty: bool,
    /// Scratch for sorting `order`: one count per possible depth.
    depth_slots: Box<[u16]>,
    /// Some effect has a fault not yet reported.
    faults: bool,
    /// A scratch pair of buffers for a voice that also sends to another
    /// bus: it renders here, then adds to both.
    scratch: Box<[f32]>,
    /// Per bus, the largest sample it passed on since the meters were last
    /// taken.
    peaks: Box<[f32]>,
    /// Peaks are measured (someone reads the meters).
    pub(crate) metering: bool,
    /// Per bus: some bus ducks while it sounds.
    ducked_by: Box<[bool]>,
}

impl Buses {
    /// The master at `master_volume` and `buses` more at volume 1, all
    /// playing; pauses and resumes fade over `pause_fade` frames.
    pub(crate) fn new(buses: usize, master_volume: f32, pause_fade: u32) -> Buses {
        let count = buses + 1;
        let mut all: Vec<Bus> = (0..count)
            .map(|_| Bus {
                volume: Ramp::steady(1.0),
                db_glide: None,
                pause: Ramp::steady(1.0),
                paused: false,
                volume_changed: false,
                output: MASTER_BUS,
                setup: None,
                duck: None,
                level: 0.0,
                overflowed: false,
                depth: 1,
                bands: [1.0; 4],
            })
            .collect();
        all[0].volume = Ramp::steady(master_volume);
        all[0].depth = 0;
        Buses {
            buses: all.into_boxed_slice(),
            buffers: vec![0.0; count * 2 * BUS_FRAMES].into_boxed_slice(),
            used: vec![false; count].into_boxed_slice(),
            chunk: 0,
            pause_fade,
            any_volume_changed: false,
            db_gliding: false,
            ramping: false,
            any_paused: false,
            any_used: false,
            held: vec![0; count].into_boxed_slice(),
            // Equal depths in the order buses were made: a ducker (made
            // before what it ducks) runs first and ducks in the same chunk.
            order: (1..count as u16).collect(),
            shaped: false,
            custom_effects: false,
            deepest: 1,
            order_dirty: false,
            depth_slots: vec![0; count + 1].into_boxed_slice(),
            faults: false,
            scratch: vec![0.0; 2 * BUS_FRAMES].into_boxed_slice(),
            peaks: vec![0.0; count].into_boxed_slice(),
            metering: false,
            ducked_by: vec![false; count].into_boxed_slice(),
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.buses.len() * (size_of::<Bus>() + size_of::<bool>() + size_of::<u64>())
            + (self.order.len() + self.depth_slots.len()) * size_of::<u16>()
            + (self.buffers.len() + self.scratch.len()) * size_of::<f32>()
    }

    /// Bus `b` and every bus it feeds through, the master excluded (at
    /// most as many steps as there are buses, whatever the links say).
    fn chain(&self, b: u16) -> impl Iterator<Item = &Bus> {
        let mut at = b;
        (0..self.buses.len()).map_while(move |_| {
            if at == MASTER_BUS {
                return None;
            }
            let bus = self.buses.get(usize::from(at))?;
            at = bus.output;
            Some(bus)
        })
    }

    /// The fade of a pause or resume, in frames (voices pause with it too).
    pub(crate) fn pause_fade(&self) -> u32 {
        self.pause_fade
    }

    /// Bus `b`'s volume heads for `volume` over `frames`.
    pub(crate) fn set_volume(&mut self, b: u16, volume: f32, frames: u32, in_db: bool) {
        if let Some(bus) = self.buses.get_mut(usize::from(b)) {
            let from = bus.volume.value;
            bus.db_glide = (in_db && frames > 0 && from > 0.0 && volume > 0.0).then_some(DbGlide {
                from,
                to: volume,
                frames,
                done: 0,
            });
            self.db_gliding |= bus.db_glide.is_some();
            // (A glide in dB heads for its first chunk's end at the next
            // chunk; stealing ranks by where it ends, as for any fade.)
            bus.volume.to(volume, frames);
            bus.volume_changed = true;
            self.any_volume_changed = true;
            self.ramping |= frames > 0;
        }
    }

    /// Whether any bus's volume changed since the last
    /// [`Buses::clear_volume_changes`] (its voices' audibility with it).
    pub(crate) fn any_volume_changed(&self) -> bool {
        self.any_volume_changed
    }

    /// Whether bus `b`'s volume changed since the last
    /// [`Buses::clear_volume_changes`].
    pub(crate) fn volume_changed(&self, b: u16) -> bool {
        self.chain(b).any(|bus| bus.volume_changed)
    }

    pub(crate) fn clear_volume_changes(&mut self) {
        if self.any_volume_changed {
            self.buses.iter_mut().for_each(|b| b.volume_changed = false);
            self.any_volume_changed = false;
        }
    }

    /// Pauses (`true`) or resumes bus `b`, fading over the pause fade. A
    /// resume during a pause's fade turns back from where the fade is. A
    /// pause fades only as long as it takes from where the gain is (the
    /// whole fade from full, none from silence), so its voices never move
    /// on unheard: pausing again right after a resume holds them where
    /// they were.
    /// Returns whether it changed anything.
    pub(crate) fn set_paused(&mut self, b: u16, paused: bool) -> bool {
        let fade = self.pause_fade;
        let Some(bus) = self.buses.get_mut(usize::from(b)) else {
            return false;
        };
        if bus.paused == paused {
            return false;
        }
        bus.paused = paused;
        if paused {
            let frames = (fade as f32 * bus.pause.value.clamp(0.0, 1.0)).ceil();
            bus.pause.to(0.0, frames as u32);
        } else {
            bus.pause.to(1.0, fade);
        }
        self.ramping |= bus.pause.left > 0;
        self.any_paused = self.buses.iter().any(|b| b.paused);
        true
    }

    /// The power gain a voice playing a sound spread as `sound` gets on
    /// bus `b`, for stealing: every bus's volume up its chain as it will be
    /// once any fade in progress ends, their ducks as they are, and what
    /// their effects let through of each band (pauses do not count: a
    /// paused voice ranks by what it will play when resumed, and the master
    /// scales every voice alike).
    pub(crate) fn audible_power(&self, b: u16, sound: &Bands) -> f32 {
        let mut through = [1.0f32; 4];
        let mut gain = 1.0f32;
        for bus in self.chain(b) {
            let duck = bus.duck.as_ref().map_or(1.0, |d| d.gain);
            let v = bus.volume.target * duck;
            gain *= v * v;
            for (t, &x) in through.iter_mut().zip(&bus.bands) {
                *t *= x;
            }
        }
        // What the chain's effects let through of the sound's spread.
        let passed: f32 = sound.0.iter().zip(&through).map(|(s, t)| s * t).sum();
        gain * passed
    }

    /// Starts a chunk of `n` frames (at most [`BUS_FRAMES`]).
    /// Hands each bus's meter (its peak since the last call, and its
    /// duck's gain) to `f`, and starts the peaks again.
    pub(crate) fn take_meters(&mut self, mut f: impl FnMut(usize, f32, f32)) {
        for (b, (bus, peak)) in self.buses.iter().zip(self.peaks.iter_mut()).enumerate() {
            f(b, *peak, bus.duck.as_ref().map_or(1.0, |d| d.gain));
            *peak = 0.0;
        }
    }

    pub(crate) fn begin_chunk(&mut self, n: usize) {
        self.chunk = n.min(BUS_FRAMES);
        if self.db_gliding {
            self.follow_db_glides();
        }
        self.used.fill(false);
        self.any_used = false;
        self.target(MASTER_BUS);
        if self.any_paused {
            for b in 0..self.held.len() {
                let limit = self.render_limit(b as u16);
                if let Some(h) = self.held.get_mut(b) {
                    *h += (self.chunk - limit) as u64;
                }
            }
        }
    }

    /// Output frames the voices on bus `b` have been held (not moved on)
    /// by pauses so far, counting the current chunk.
    pub(crate) fn held_frames(&self, b: u16) -> u64 {
        self.held
            .get(usize::from(b))
            .or(self.held.first())
            .copied()
            .unwrap_or(0)
    }

    /// Whether voices on bus `b` are held now (it or the master is paused
    /// and faded out).
    pub(crate) fn is_frozen(&self, b: u16) -> bool {
        self.frozen(b)
    }

    /// Frames of this chunk the voices on bus `b` may render: all of it,
    /// up to the end of a pause fade in progress (on the bus or the
    /// master), or 0 while it is frozen.
    #[inline]
    pub(crate) fn render_limit(&self, b: u16) -> usize {
        let master = &self.buses[0];
        let n = master.limit(self.chunk);
        if !self.any_paused {
            return n;
        }
        self.chain(b).fold(n, |n, bus| bus.limit(n))
    }

    /// Whether voices on bus `b` are frozen (it, a bus it feeds through,
    /// or the master is paused and faded out).
    fn frozen(&self, b: u16) -> bool {
        self.buses[0].frozen() || self.chain(b).any(|bus| bus.frozen())
    }

    /// Bus `b`'s buffer for this chunk (left, right), silent at its first
    /// use in the chunk: [`Buses::finish_chunk`] clears every buffer it
    /// reads, so no separate clearing pass is needed.
    #[inline]
    pub(crate) fn target(&mut self, b: u16) -> (&mut [f32], &mut [f32]) {
        let b = self.mark_used(b);
        let n = self.chunk;
        let start = b * 2 * BUS_FRAMES;
        let (l, r) = self.buffers[start..start + 2 * BUS_FRAMES].split_at_mut(BUS_FRAMES);
        (&mut l[..n], &mut r[..n])
    }

    /// Bus `b` (the master if there is none such) is written to in this
    /// chunk; its index.
    #[inline]
    fn mark_used(&mut self, b: u16) -> usize {
        let b = if usize::from(b) < self.buses.len() {
            usize::from(b)
        } else {
            0
        };
        if let Some(used) = self.used.get_mut(b) {
            if !*used {
                *used = true;
                self.any_used |= b != 0;
                // Every consumer clears what it read (`finish_chunk`), so a
                // bus is silent before its first use in a chunk.
                debug_assert!({
                    let start = b * 2 * BUS_FRAMES;
                    self.buffers[start..start + 2 * BUS_FRAMES]
                        .iter()
                        .all(|&x| x.to_bits() == 0)
                });
            }
        }
        b
    }

    /// Ends the chunk: sums every used bus into the master with its gain,
    /// writes the master through its gain and the limiter into `out`
    /// (interleaved, two samples per frame of the chunk), and moves every
    /// ramp on by the chunk. Every buffer it read is left silent.
    pub(crate) fn finish_chunk(&mut self, out: &mut [f32], isa: Isa) {
        let n = self.chunk;
        if std::mem::take(&mut self.any_used) || self.shaped {
            self.mix_down(n);
        }
        let (ml, mr) = self.buffers[..2 * BUS_FRAMES].split_at_mut(BUS_FRAMES);
        let (ml, mr) = (&mut ml[..n], &mut mr[..n]);
        if std::mem::take(&mut self.buses[0].overflowed) {
            // A bus summed more than `f32` holds into it: this piece is lost.
            ml.fill(0.0);
            mr.fill(0.0);
        }
        let m = &self.buses[0];
        if self.metering {
            let gain = m.volume.value.max(m.volume.target) * m.pause.value.max(m.pause.target);
            let loudest = peak(ml).max(peak(mr)) * gain;
            if let Some(p) = self.peaks.first_mut() {
                *p = p.max(loudest);
            }
        }
        match m.steady_gain() {
            // The common case, and bit for bit what a fixed master gain
            // always gave.
            Some(g) => interleave_limited(ml, mr, g, out, isa),
            None => {
                let (sv, sp) = (m.volume.step(), m.pause.step());
                for (i, (l, r)) in ml.iter_mut().zip(mr.iter_mut()).enumerate() {
                    let g = m.volume.at(i, sv) * m.pause.at(i, sp);
                    *l *= g;
                    *r *= g;
                }
                interleave_limited(ml, mr, 1.0, out, isa);
            }
        }
        // (A steady ramp stays as it is: only running ones move.)
        // (The master's peak above: its volume and pause at the louder end
        // of a fade.)
        if self.ramping {
            let mut running = false;
            for bus in self.buses.iter_mut() {
                bus.volume.advance(n);
                bus.pause.advance(n);
                running |= bus.volume.left > 0 || bus.pause.left > 0;
            }
            self.ramping = running;
        }
    }
}

/// The largest magnitude in `x` (0 for none): on the bits, so that it
/// vectorizes (a finite `f32`'s magnitude orders as its bits do; the mix
/// holds no NaN).
#[inline]
pub(crate) fn peak(x: &[f32]) -> f32 {
    let magnitude = |v: f32| v.to_bits() & 0x7fff_ffff;
    let mut lanes = [0u32; 8];
    let chunks = x.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (m, &v) in lanes.iter_mut().zip(c) {
            *m = (*m).max(magnitude(v));
        }
    }
    for &v in rest {
        lanes[0] = lanes[0].max(magnitude(v));
    }
    f32::from_bits(lanes.into_iter().max().unwrap_or(0))
}

/// The largest magnitude in `l` and `r` together, a NaN anywhere counting
/// as the largest (where `f32::max` would drop it).
#[inline]
pub(crate) fn peak_of_both(l: &[f32], r: &[f32]) -> f32 {
    // (A magnitude's bits order as it does, a NaN's above all.)
    f32::from_bits(peak(l).to_bits().max(peak(r).to_bits()))
}

#[cfg(test)]
mod tests;
