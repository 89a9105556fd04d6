//! A voice rendered with something of its own on the way out: its play's
//! low-pass (cones, occlusion, air: `render::direct`) or a doppler glide
//! (`render::glide`). Out of the plain voices' path, so that a pool of
//! plain voices renders as it did.

use crate::bus::mix::Buses;
use crate::protocol::SendTo;
use crate::render::direct::DirectFilter;
use crate::render::glide::{self, StepGlide};
use crate::render::voice::Voice;
use crate::simd::Isa;
use crate::stream::reader::StreamReaders;

/// A voice's low-pass (if on) and glide (if any) for this render.
pub(crate) type Shaped<'a> = (Option<&'a mut DirectFilter>, Option<StepGlide>);

/// Renders `v` (on its bus, and to `send`) for `limit` frames: filtered in
/// the bus's scratch pair if it has a low-pass on, gliding if it glides.
/// Returns what [`Voice::render`] does.
#[inline(never)]
pub(crate) fn render(
    buses: &mut Buses,
    streams: &mut StreamReaders,
    isa: Isa,
    v: &mut Voice,
    send: SendTo,
    (filter, glide): Shaped,
    limit: usize,
) -> Option<usize> {
    let b = v.bus();
    if let Some(f) = filter {
        // (Without a send: "sent" to its own bus at 0.)
        let (to, level) = if send.is_some() {
            (send.bus, send.level)
        } else {
            (b, 0.0)
        };
        return buses.render_sending(b, to, level, limit, |l, r| {
            let ran = glide::render(v, l, r, glide, isa, streams);
            f.process(l, r);
            ran
        });
    }
    if send.is_some() {
        return buses.render_sending(b, send.bus, send.level, limit, |l, r| {
            glide::render(v, l, r, glide, isa, streams)
        });
    }
    let (l, r) = buses.target(b);
    glide::render(v, &mut l[..limit], &mut r[..limit], glide, isa, streams)
}
