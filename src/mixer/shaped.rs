//! A voice rendered with something of its own on the way out: its play's
//! low-pass (cones, occlusion, air: `render::direct`) or a doppler glide
//! (`render::glide`). Out of the plain voices' path, so that a pool of
//! plain voices renders as it did.
//!
//! Filtered voices that render a whole chunk wait in a [`Batch`] of up to
//! [`BATCH`], each in a scratch pair of its own, and are filtered together
//! (one SIMD lane per voice and channel: a filter's frame hangs on the
//! last, and eight voices side by side fill that wait), then added to
//! their buses. Real-time contract: the batch's buffers are allocated with
//! the mixer; nothing here allocates, locks or panics.

use crate::bus::mix::{Buses, BUS_FRAMES};
use crate::protocol::SendTo;
use crate::render::direct::{process_batch, DirectFilter, DirectFilters, BATCH};
use crate::render::glide::{self, StepGlide};
use crate::render::voice::Voice;
use crate::simd::Isa;
use crate::stream::reader::StreamReaders;

/// Where a shaped voice's low-pass is.
pub(crate) enum Filter<'a> {
    /// It has none on.
    Off,
    /// Its play's, at this emitter cell.
    Cell(u32),
    /// Its own (a fade-out tail's copy).
    Own(&'a mut DirectFilter),
}

/// A voice's low-pass and glide (if any) for this render.
pub(crate) type Shaped<'a> = (Filter<'a>, Option<StepGlide>);

/// Filtered voices waiting to be filtered together and added.
pub(crate) struct Batch {
    /// Per voice, its left then its right, [`BUS_FRAMES`] each; silent
    /// when not in use.
    buf: Box<[f32]>,
    /// Per voice: its cell, its bus, its send.
    waiting: [(u32, u16, SendTo); BATCH],
    count: usize,
    /// The frames each holds (the chunk's).
    frames: usize,
}

impl Batch {
    pub(crate) fn new() -> Batch {
        Batch {
            buf: vec![0.0; 2 * BATCH * BUS_FRAMES].into_boxed_slice(),
            waiting: [(0, 0, SendTo::NONE); BATCH],
            count: 0,
            frames: 0,
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.buf)
    }

    /// Filters every waiting voice and adds it to its buses.
    pub(crate) fn flush(&mut self, isa: Isa, direct: &mut DirectFilters, buses: &mut Buses) {
        if self.count == 0 {
            return;
        }
        let mut filters = [DirectFilter::OFF; BATCH];
        for (f, &(e, _, _)) in filters.iter_mut().zip(&self.waiting[..self.count]) {
            *f = direct.get(e);
        }
        process_batch(isa, &mut filters, &mut self.buf, BUS_FRAMES, self.frames);
        for (k, f) in filters.iter().enumerate().take(self.count) {
            let (e, bus, send) = self.waiting[k];
            direct.put(e, *f);
            let pair = &mut self.buf[2 * k * BUS_FRAMES..2 * (k + 1) * BUS_FRAMES];
            let (l, r) = pair.split_at_mut(BUS_FRAMES);
            let (l, r) = (&mut l[..self.frames], &mut r[..self.frames]);
            buses.add_pair(bus, send, l, r);
        }
        self.count = 0;
    }
}

/// What the mixer lends a shaped voice's render.
pub(crate) struct Lent<'a> {
    pub(crate) buses: &'a mut Buses,
    pub(crate) streams: &'a mut StreamReaders,
    pub(crate) direct: &'a mut DirectFilters,
    pub(crate) batch: &'a mut Batch,
    pub(crate) isa: Isa,
}

/// Renders `v` (on its bus, and to `send`) for `limit` frames of a chunk
/// of `n`: a whole chunk's filtered voice into the batch (filtered and
/// added when the batch is full, or by [`Batch::flush`]); one that renders
/// part of a chunk (its bus pausing) filtered at once in the bus's scratch
/// pair; gliding if it glides. Returns what [`Voice::render`] does.
#[inline(never)]
pub(crate) fn render(
    lent: Lent,
    v: &mut Voice,
    send: SendTo,
    (filter, glide): Shaped,
    limit: usize,
    n: usize,
) -> Option<usize> {
    let Lent {
        buses,
        streams,
        direct,
        batch,
        isa,
    } = lent;
    let b = v.bus();
    let (to, level) = if send.is_some() {
        (send.bus, (send.level, send.step))
    } else {
        // (Without a send: "sent" to its own bus at 0.)
        (b, (0.0, 0.0))
    };
    match filter {
        Filter::Cell(e) if limit == n && n <= BUS_FRAMES => {
            if batch.count > 0 && batch.frames != n {
                batch.flush(isa, direct, buses);
            }
            let k = batch.count;
            let pair = &mut batch.buf[2 * k * BUS_FRAMES..2 * (k + 1) * BUS_FRAMES];
            let (l, r) = pair.split_at_mut(BUS_FRAMES);
            let ran = glide::render(v, &mut l[..n], &mut r[..n], glide, isa, streams);
            batch.waiting[k] = (e, b, send);
            batch.count += 1;
            batch.frames = n;
            if batch.count == BATCH {
                batch.flush(isa, direct, buses);
            }
            ran
        }
        // Filtered (or sent) through the bus's scratch pair.
        Filter::Cell(e) => {
            let mut f = direct.get(e);
            let ran = via_scratch(buses, (b, to, level, limit), Some(&mut f), |l, r| {
                glide::render(v, l, r, glide, isa, streams)
            });
            direct.put(e, f);
            ran
        }
        Filter::Own(f) => via_scratch(buses, (b, to, level, limit), Some(f), |l, r| {
            glide::render(v, l, r, glide, isa, streams)
        }),
        Filter::Off if send.is_some() => via_scratch(buses, (b, to, level, limit), None, |l, r| {
            glide::render(v, l, r, glide, isa, streams)
        }),
        Filter::Off => {
            let (l, r) = buses.target(b);
            glide::render(v, &mut l[..limit], &mut r[..limit], glide, isa, streams)
        }
    }
}

/// `render` into the bus's scratch pair, then through `filter` if any,
/// then added to bus `b` and at `level` to bus `to`
/// ([`Buses::render_sending`]), for `limit` frames.
#[inline]
fn via_scratch(
    buses: &mut Buses,
    (b, to, level, limit): (u16, u16, (f32, f32), usize),
    filter: Option<&mut DirectFilter>,
    render: impl FnOnce(&mut [f32], &mut [f32]) -> Option<usize>,
) -> Option<usize> {
    buses.render_sending(b, to, level, limit, |l, r| {
        let ran = render(l, r);
        if let Some(f) = filter {
            f.process(l, r);
        }
        ran
    })
}
