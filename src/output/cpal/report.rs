//! [`Reporter`]: what happened to a live output's stream (errors, a lost
//! device, a recovery), as counts and events for the game. The output
//! thread natively, the page's handlers in a browser.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use ringbuf::traits::{Observer, Producer};
use ringbuf::HeapProd;

#[cfg(not(web))]
use super::StreamInfo;
use crate::protocol::stats::Counters;
use crate::protocol::{Event, StreamErrorKind, TimedEvent};
#[cfg(not(web))]
use crate::DeviceName;

/// Stream events that can wait for the game between `drain_events` calls.
pub(crate) const STREAM_EVENT_CAPACITY: usize = 64;
/// Room kept in that queue for the loss and recovery events, which backend
/// errors never take.
pub(super) const RESERVED: usize = 4;

/// Turns what happened to the stream into counts and events for the game.
pub(crate) struct Reporter {
    pub(crate) events: HeapProd<TimedEvent>,
    pub(crate) counters: Arc<Counters>,
}

impl Reporter {
    fn push(&mut self, event: Event) {
        let ev = TimedEvent {
            frame: self.counters.frames.load(Relaxed),
            event,
        };
        if self.events.try_push(ev).is_err() {
            Counters::bump(&self.counters.lost_events);
        }
    }

    /// `n` backend errors: all counted, one event each while the queue has
    /// more than the reserved room.
    pub(crate) fn backend_errors(&mut self, n: u64) {
        for _ in 0..n {
            Counters::bump(&self.counters.stream_errors);
            if self.events.vacant_len() > RESERVED {
                self.push(Event::StreamError {
                    kind: StreamErrorKind::Backend,
                });
            }
        }
    }

    /// The device is lost (`errors` lost-device errors were reported; 0
    /// for a stall): counted, one event.
    pub(crate) fn lost(&mut self, errors: u64) {
        for _ in 0..errors.max(1) {
            Counters::bump(&self.counters.stream_errors);
        }
        self.push(Event::StreamError {
            kind: StreamErrorKind::DeviceLost,
        });
    }

    #[cfg(not(web))]
    pub(super) fn rate_unavailable(&mut self) {
        Counters::bump(&self.counters.stream_errors);
        self.push(Event::StreamError {
            kind: StreamErrorKind::RateUnavailable,
        });
    }

    #[cfg(not(web))]
    pub(super) fn recovered(&mut self, info: &StreamInfo) {
        Counters::bump(&self.counters.recoveries);
        self.push(Event::OutputRecovered {
            device: DeviceName::new(&info.device),
            sample_rate: info.sample_rate,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Engine, EngineSettings, PlayParams, Sound};

    #[test]
    fn errors_become_events_and_counts_with_room_kept_for_loss_and_recovery() {
        let (mut engine, _mixer) = Engine::new(EngineSettings::default()).unwrap();
        let (events, counters) = engine.stream_error_sink(8);
        let mut reporter = Reporter { events, counters };
        reporter.backend_errors(100);
        reporter.lost(0);
        reporter.rate_unavailable();
        let info = StreamInfo {
            device: "a device with a name longer than fits".into(),
            sample_rate: 44_100,
            channels: 2,
            sample_format: super::super::DeviceSampleFormat::F32,
            buffer_frames: None,
            max_block_frames: 8_820,
        };
        reporter.recovered(&info);
        let blip = Sound::from_samples(1, 48_000, vec![0.5; 480]).unwrap();
        let h = engine.play(&blip, PlayParams::default()).unwrap();
        let events: Vec<Event> = engine.drain_events().collect();
        let backend = Event::StreamError {
            kind: StreamErrorKind::Backend,
        };
        assert_eq!(
            events.iter().filter(|e| **e == backend).count(),
            8 - RESERVED
        );
        let tail = &events[8 - RESERVED..];
        assert_eq!(
            tail,
            [
                Event::StreamError {
                    kind: StreamErrorKind::DeviceLost
                },
                Event::StreamError {
                    kind: StreamErrorKind::RateUnavailable
                },
                Event::OutputRecovered {
                    device: DeviceName::new(&info.device),
                    sample_rate: 44_100
                },
            ]
        );
        let stats = engine.stats();
        assert_eq!((stats.stream_errors, stats.recoveries), (102, 1));
        assert!(engine.is_playing(h), "the game side carries on");
    }
}
