//! A block rendered: every voice and fade-out tail into its bus, a chunk
//! of [`BUS_FRAMES`] at a time, the buses mixed down into the output; and
//! what the block leaves to report (streams that ran dry, effects that
//! broke the rules). The body of [`Mixer::process`], after the commands
//! and before the levels.

use ringbuf::traits::Observer;

use super::shaped::{self, Batch, Filter, Shaped};
use super::{push_event, Mixer};
use crate::bus::mix::BUS_FRAMES;
use crate::protocol::stats::Counters;
use crate::protocol::{BusHandle, Event, SendTo, VoiceHandle};
use crate::render::direct::{DirectFilter, DirectFilters};
use crate::render::voice::Voice;
use crate::voices::{Identity, Ran, NO_EMITTER};

impl Mixer {
    /// Renders the block into `out` (interleaved stereo, whole frames).
    #[inline(always)]
    pub(super) fn render_block(&mut self, out: &mut [f32]) {
        let Mixer {
            engine,
            pool,
            tails,
            prefetch,
            streams,
            events,
            counters,
            buses,
            rules,
            frame,
            room_changed,
            free_since,
            space,
            direct,
            glides,
            batch,
            ..
        } = self;
        let isa = rules.isa;
        // Each bus's buffer is planar (a buffer per channel): a mono voice
        // adds to each side with one multiply per frame and no shuffling.
        // Blocks longer than a bus buffer are rendered in pieces.
        let mut chunk_start = *frame;
        prefetch.begin_block();
        for chunk in out.chunks_mut(2 * BUS_FRAMES) {
            let n = chunk.len() / 2;
            buses.begin_chunk(n);
            // A voice renders into its bus, as far as the bus lets it (all
            // of the chunk, up to the end of a pause fade, or nothing while
            // frozen: then it holds its position, and one that was stopped
            // ends at once, silent already). Shown the next voice in the
            // pool too, it renders both in one pass where they allow it
            // (the same bus, the whole chunk: `Voice::render_pair`).
            // A voice that also sends to a second bus renders once, into
            // both (`Buses::render_sending`).
            // A voice with a low-pass of its own (`direct`) renders into
            // the scratch pair, is filtered there, and added.
            // One whose doppler shift changed glides to it in pieces.
            let mut render =
                |v: &mut Voice,
                 send: SendTo,
                 shaped: Option<Shaped>,
                 next: Option<(SendTo, &mut Voice)>,
                 (direct, batch): (&mut DirectFilters, &mut Batch)| {
                    let b = v.bus();
                    let limit = buses.render_limit(b);
                    if limit == 0 {
                        if let Some(k) = v.stream_slot() {
                            streams.touch(k); // held by its bus: still reading
                        }
                        if let Some((_, Some(g))) = shaped {
                            v.set_step(g.to); // (no glide while held)
                        }
                        return Ran::One(v.is_stopping().then_some(0));
                    }
                    if let Some(own) = shaped {
                        let lent = shaped::Lent {
                            buses: &mut *buses,
                            streams: &mut *streams,
                            direct,
                            batch,
                            isa,
                        };
                        return Ran::One(shaped::render(lent, v, send, own, limit, n));
                    }
                    if send.is_some() {
                        let ran = buses.render_sending(
                            b,
                            send.bus,
                            (send.level, send.step),
                            limit,
                            |l, r| v.render(l, r, isa, streams),
                        );
                        return Ran::One(ran);
                    }
                    let (l, r) = buses.target(b);
                    let pairable =
                        |(s, w): &(SendTo, &mut Voice)| !s.is_some() && limit == n && w.bus() == b;
                    if let Some((_, w)) = next.filter(pairable) {
                        if Voice::render_pair(v, w, l, r, isa) {
                            return Ran::Both;
                        }
                    }
                    Ran::One(v.render(&mut l[..limit], &mut r[..limit], isa, streams))
                };
            let ahead = |v: &Voice| prefetch.ahead(v, n);
            // A voice with its own low-pass or a doppler glide renders
            // apart (`shaped`), and never pairs.
            let mut run = |who: &Identity, v: &mut Voice, next: Option<(&Identity, &mut Voice)>| {
                // (A send a parameter moves glides across the chunk.)
                let send = glides.send_of(who.emitter, who.send, n);
                glides.advance_send(who.emitter, n);
                let is_shaped = |w: &Identity| {
                    w.emitter != NO_EMITTER
                        && (direct.is_on(w.emitter) || glides.pending(w.emitter))
                };
                if is_shaped(who) {
                    let e = who.emitter;
                    let filter = if direct.is_on(e) {
                        Filter::Cell(e)
                    } else {
                        Filter::Off
                    };
                    let own = (filter, glides.take(e));
                    return render(v, send, Some(own), None, (&mut *direct, &mut *batch));
                }
                let next = next.filter(|(w, _)| !is_shaped(w));
                let next = next.map(|(w, x)| (w.send, x));
                render(v, send, None, next, (&mut *direct, &mut *batch))
            };
            pool.run(&mut run, ahead, |who, sounded| {
                let id = who.id;
                space.release(who.emitter);
                *room_changed = true;
                Counters::bump(&counters.ended);
                // The frame after the voice's last sample.
                let at = chunk_start + sounded as u64;
                free_since.get_or_insert(at);
                let voice = VoiceHandle::new(*engine, id);
                push_event(events, counters, at, Event::Ended { voice });
            });
            tails.render(&mut |v: &mut Voice, send, f: &mut DirectFilter| {
                let shaped = f.is_on().then_some((Filter::Own(f), None));
                match render(v, send, shaped, None, (&mut *direct, &mut *batch)) {
                    Ran::One(ended) => ended,
                    Ran::Both => None,
                }
            });
            // Filtered voices still waiting are filtered and added.
            batch.flush(isa, direct, buses);
            buses.finish_chunk(chunk, isa);
            chunk_start += n as u64;
        }
        prefetch.end_block();
    }

    /// Reports what the block of `frames` left: streams no voice read are
    /// released and dry spells reported (an empty block reads nothing and
    /// releases nothing); a bus effect that broke the rules, while the
    /// event queue keeps room for every voice's end.
    pub(super) fn report_block(&mut self, frames: usize) {
        let Mixer {
            engine,
            pool,
            streams,
            events,
            counters,
            buses,
            frame,
            ..
        } = self;
        let at = *frame;
        streams.end_block(frames > 0, |id| {
            Counters::bump(&counters.stream_underruns);
            let voice = VoiceHandle::new(*engine, id);
            push_event(events, counters, at, Event::StreamUnderrun { voice });
        });
        let room = events
            .vacant_len()
            .saturating_sub(pool.live() + streams.len() + Mixer::EVENTS_PER_COMMAND);
        buses.take_faults(room, |b, effect, fault| {
            Counters::bump(&counters.effect_faults);
            let bus = BusHandle::new(*engine, b);
            push_event(
                events,
                counters,
                at,
                Event::EffectFault { bus, effect, fault },
            );
        });
    }
}
