//! One scene, scripted to the frame, rendered offline: the same on every
//! platform, to the bit. `scene()` is called natively (the `compare`
//! binary) and inside a WebAssembly module (`scene_render`, from
//! `scripts/wasm_scene.mjs` under Node); `scripts/wasm_scene.sh` checks
//! that the two renders are bit-identical.
//!
//! The scene touches what a game's audio does: sounds at other rates and
//! in stereo, a WAV decoded from bytes, cues (picks, pitch and level drawn
//! from the seed, delayed layers), parameters mapped to volume, pitch, a
//! low-pass and a send, gliding; buses with a reverb, filters and a duck;
//! a snapshot; positioned voices that move past a moving listener
//! (distance models, doppler, cones, occlusion, air); more plays than
//! voices (stealing) and virtual voices.
//!
//! `edges()` (`scene_edges` in the module) checks what a browser lacks
//! (threads, files, a clock) gives errors, not panics.

use std::sync::OnceLock;
use std::time::Duration;

use voicepool::{
    BusSettings, Cone, Cue, Curve, DistanceModel, Duck, Effect, EffectParam, EngineSettings,
    Listener, Occlusion, OfflineEngine, Pick, PlayParams, Snapshot, Sound, Spatial, Target,
};

/// Frames per block, as a device asks.
pub const BLOCK: usize = 480;
/// Blocks rendered (4 s at 48 kHz).
pub const BLOCKS: usize = 400;

/// A deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// In -1..1, from integers only.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// A tone from a table built by additions (no library sine: the test
/// sounds themselves must not differ between platforms).
fn tone(rate: u32, channels: u16, frames: usize, step: u32, amp: f32) -> Sound {
    // A triangle wave, softened by averaging: integer phase, exact steps.
    let mut out = Vec::with_capacity(frames * usize::from(channels));
    let mut phase = 0u32;
    for i in 0..frames {
        phase = phase.wrapping_add(step);
        let tri = (phase >> 8) as f32 / (1u32 << 23) as f32; // 0..2
        let tri = if tri < 1.0 { tri } else { 2.0 - tri } * 2.0 - 1.0;
        let fade = (i.min(frames - i) as f32 / 480.0).min(1.0);
        for c in 0..channels {
            out.push(tri * amp * fade * if c == 0 { 1.0 } else { 0.7 });
        }
    }
    Sound::from_samples(channels, rate, out).expect("tone")
}

fn noise(rng: &mut Rng, frames: usize, amp: f32) -> Sound {
    let s = (0..frames)
        .map(|i| rng.unit() * amp * (1.0 - i as f32 / frames as f32))
        .collect();
    Sound::from_samples(1, 48_000, s).expect("noise")
}

/// A 16-bit WAV file in memory.
fn wav_bytes(rng: &mut Rng) -> Vec<u8> {
    let frames = 12_000u32;
    let mut bytes = Vec::new();
    let data = frames * 2;
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + data).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes()); // PCM
    bytes.extend_from_slice(&1u16.to_le_bytes()); // mono
    bytes.extend_from_slice(&32_000u32.to_le_bytes());
    bytes.extend_from_slice(&64_000u32.to_le_bytes());
    bytes.extend_from_slice(&2u16.to_le_bytes());
    bytes.extend_from_slice(&16u16.to_le_bytes());
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&data.to_le_bytes());
    for i in 0..frames {
        let v = ((rng.next() >> 50) as i32 - 8_192) * (1 + (i as i32 % 3));
        bytes.extend_from_slice(&(v as i16).to_le_bytes());
    }
    bytes
}

/// The scene, rendered: interleaved stereo, `BLOCKS` blocks of `BLOCK`.
pub fn scene() -> Vec<f32> {
    let mut rng = Rng(7);
    let mut e = OfflineEngine::new(EngineSettings {
        voices: 12,
        virtual_voices: 8,
        seed: 42,
        ..Default::default()
    })
    .expect("engine");
    let music = e.create_bus().expect("music");
    let hall = e
        .create_bus_with(BusSettings {
            effects: vec![Effect::Reverb {
                room: 0.7,
                damping: 0.4,
                wet: 1.0,
            }],
            ..Default::default()
        })
        .expect("hall");
    let world = e
        .create_bus_with(BusSettings {
            effects: vec![
                Effect::LowPass { cutoff_hz: 9_000.0 },
                Effect::HighPass { cutoff_hz: 60.0 },
            ],
            duck: Some(Duck {
                by: music,
                amount_db: -9.0,
                attack: Duration::from_millis(30),
                release: Duration::from_millis(200),
            }),
            ..Default::default()
        })
        .expect("world");
    let takes: Vec<Sound> = (0..5)
        .map(|k| {
            tone(
                44_100,
                1,
                6_000 + 900 * k,
                40_000_000 + 7_000_000 * k as u32,
                0.4,
            )
        })
        .collect();
    let stereo = tone(22_050, 2, 30_000, 90_000_000, 0.3);
    let hum = tone(48_000, 1, 48_000, 20_000_000, 0.3);
    let wav = wav_bytes(&mut rng);
    let decoded = Sound::from_bytes(&wav).expect("wav");
    // The same bytes streamed, as a browser game streams what it fetched.
    let streamed = Sound::stream_bytes(wav).expect("stream");
    let bursts: Vec<Sound> = (0..3).map(|_| noise(&mut rng, 4_000, 0.5)).collect();

    let speed = e.create_param("speed", 0.0).expect("speed");
    let wet = e.create_param("wet", 0.2).expect("wet");
    let step = Cue::new(takes.clone())
        .pick(Pick::Shuffle)
        .pitch_range(0.9..=1.1)
        .volume_range_db(-6.0..=0.0)
        .map(
            wet,
            Target::Send(hall),
            Curve::linear([(0.0, 0.0), (1.0, 0.8)]),
        );
    let blast = Cue::new(bursts.clone())
        .pick(Pick::Random)
        .weights([1.0, 2.0, 3.0])
        .layer(Cue::new([decoded.clone()]).delay(Duration::from_millis(35)))
        .layer(
            Cue::new(takes[..2].to_vec())
                .pick(Pick::Sequence)
                .delay(Duration::from_millis(70)),
        );
    let motor = Cue::new([hum.clone()])
        .looping(true)
        .map(
            speed,
            Target::Pitch,
            Curve::linear([(0.0, 0.7), (100.0, 1.8)]),
        )
        .map(
            speed,
            Target::VolumeDb,
            Curve::linear([(0.0, -18.0), (60.0, 0.0)]),
        )
        .map(
            speed,
            Target::LowPassHz,
            Curve::linear([(0.0, 900.0), (100.0, 16_000.0)]),
        );
    let underwater = e
        .create_snapshot(Snapshot::new().bus_volume(music, 0.4).effect_param(
            world,
            0,
            EffectParam::CutoffHz(700.0),
        ))
        .expect("snapshot");

    let models = [
        DistanceModel::Inverse,
        DistanceModel::Linear,
        DistanceModel::Exponential,
    ];
    let mut out = Vec::with_capacity(BLOCKS * BLOCK * 2);
    let mut car = None;
    let mut movers = Vec::new();
    for b in 0..BLOCKS {
        let t = b as f32 * BLOCK as f32 / 48_000.0;
        // The listener walks forward and turns a little.
        let turn = (b % 100) as f32 / 100.0 - 0.5;
        let _ = e.set_listener(Listener {
            position: [0.0, 0.0, -1.5 * t].into(),
            forward: [turn * 0.3, 0.0, -1.0].into(),
            velocity: [0.0, 0.0, -1.5].into(),
            ..Default::default()
        });
        if b == 40 {
            // (A failure here traps the module, and fails the check.)
            e.play(
                &streamed,
                PlayParams::default().bus(world).looping(true).volume(0.4),
            )
            .expect("a streamed play");
        }
        if b == 5 {
            let _ = e.play(
                &stereo,
                PlayParams::default().bus(music).looping(true).volume(0.5),
            );
            car = e
                .play_cue(
                    &motor,
                    PlayParams::default()
                        .bus(world)
                        .position([-30.0, 0.0, -5.0])
                        .velocity([20.0, 0.0, 0.0])
                        .spatial(Spatial {
                            air_absorption: 1.0,
                            cone: Some(Cone {
                                inner_deg: 90.0,
                                outer_deg: 220.0,
                                outer_gain: 0.4,
                                outer_lowpass_hz: 3_000.0,
                            }),
                            ..Spatial::default()
                        })
                        .orientation([1.0, 0.0, 0.0])
                        .virtualize(true),
                )
                .ok();
        }
        // Footsteps every 12 blocks, around the listener.
        if b % 12 == 3 {
            let x = rng.unit() * 8.0;
            let z = -1.5 * t + rng.unit() * 8.0;
            let model = models[b / 12 % 3];
            if let Ok(h) = e.play_cue(
                &step,
                PlayParams::default()
                    .bus(world)
                    .position([x, 0.0, z])
                    .spatial(Spatial {
                        distance: model,
                        rolloff: 1.5,
                        ..Spatial::default()
                    })
                    .priority(100 + (b % 50) as u8),
            ) {
                movers.push(h);
            }
        }
        // A spell burst: more plays than voices.
        if b == 150 || b == 260 {
            for k in 0..16 {
                let _ = e.play_cue(
                    &blast,
                    PlayParams::default()
                        .pan(rng.unit())
                        .volume(0.3 + 0.04 * k as f32)
                        .virtualize(k % 4 == 0),
                );
            }
        }
        // The car speeds up, then slows; the hall opens.
        if b % 20 == 0 {
            let v = if b < 200 {
                b as f32 / 2.0
            } else {
                (400 - b) as f32 / 2.0
            };
            let _ = e.set_param(speed, v, Duration::from_millis(150));
            let _ = e.set_param(wet, (b % 100) as f32 / 100.0, Duration::from_millis(80));
        }
        if let Some(h) = car {
            let x = -30.0 + 20.0 * t;
            let _ = e.set_position(h, [x, 0.0, -5.0], [20.0, 0.0, 0.0]);
            if b % 50 == 25 {
                let _ = e.set_occlusion(
                    h,
                    if b % 100 == 25 {
                        Occlusion {
                            gain: 0.5,
                            lowpass_hz: 1_500.0,
                        }
                    } else {
                        Occlusion::NONE
                    },
                );
            }
        }
        for (k, h) in movers.iter().enumerate().rev().take(4) {
            let _ = e.set_position(*h, [k as f32, 1.0, -1.5 * t - 2.0], [0.0, 0.0, -1.0]);
        }
        if b == 180 {
            let _ = e.start_snapshot(underwater, Duration::from_millis(400));
        }
        if b == 300 {
            let _ = e.stop_snapshot(underwater, Duration::from_millis(600));
        }
        out.extend_from_slice(e.render(BLOCK));
    }
    out
}

/// The scene's samples, rendered once.
fn rendered() -> &'static [f32] {
    static OUT: OnceLock<Vec<f32>> = OnceLock::new();
    OUT.get_or_init(scene)
}

/// Renders the scene (once) and returns how many samples it has.
#[no_mangle]
pub extern "C" fn scene_render() -> usize {
    rendered().len()
}

/// Where the scene's samples are (after `scene_render`).
#[no_mangle]
pub extern "C" fn scene_ptr() -> *const f32 {
    rendered().as_ptr()
}

/// Workload W (the benchmark workload of BENCHMARKS.md) in WebAssembly,
/// for a JavaScript runtime to time: `w_new`, then `w_blocks` (the
/// module has no clock of its own to read).
#[cfg(feature = "bench")]
mod bench {
    use std::cell::RefCell;

    use voicepool::bench_support::Workload;

    thread_local! {
        static W: RefCell<Option<Workload>> = const { RefCell::new(None) };
    }

    /// Makes W with `voices` voices (positioned if `positioned` is not 0),
    /// its sources at 44.1 kHz. Returns the frames of a block.
    #[no_mangle]
    pub extern "C" fn w_new(voices: u32, positioned: u32) -> u32 {
        let w = if positioned != 0 {
            Workload::positioned(voices as usize, 44_100)
        } else {
            Workload::new(voices as usize, 44_100)
        };
        W.with(|slot| *slot.borrow_mut() = Some(w));
        voicepool::bench_support::BLOCK as u32
    }

    /// Renders `blocks` blocks of W; returns their checksum.
    #[no_mangle]
    pub extern "C" fn w_blocks(blocks: u32) -> f32 {
        W.with(|slot| {
            let mut slot = slot.borrow_mut();
            let Some(w) = slot.as_mut() else {
                return f32::NAN;
            };
            (0..blocks).map(|_| w.block()).sum()
        })
    }
}

/// What a game meets in a browser that a native build does not: no
/// thread, no file system, no clock. Each check is a bit, set when the
/// call returned the clear error it should (a panic would trap the module
/// instead): 1 a sound streamed from bytes (Ogg Vorbis, decoded on the
/// calling thread) playing in an offline engine, 2 a sound from a file, 4 a
/// streamed sound from a file, 8 a sound bank from a file, 16 a recording
/// to a file, 32 an offline engine playing, rendering and reporting its
/// events as natively, 64 an `AudioEngine` in a build without the `web`
/// feature (an error saying so; with it, the engine is tried in a browser:
/// `web-demo/`).
pub fn edges() -> u32 {
    let mut ok = 0;
    if let Err(e) = voicepool::AudioEngine::start(EngineSettings::default()) {
        ok |= u32::from(e.to_string().contains("`web` feature")) << 6;
    }
    let ogg: &'static [u8] = include_bytes!("../../samples/ambience.ogg");
    if let (Ok(stream), Ok(mut e)) = (
        voicepool::Sound::stream_bytes(ogg),
        OfflineEngine::new(EngineSettings::default()),
    ) {
        if let Ok(h) = e.play(&stream, PlayParams::default()) {
            let heard = e.render(24_000).iter().any(|s| s.abs() > 0.01);
            ok |= u32::from(heard && e.is_playing(h));
        }
    }
    if voicepool::Sound::from_file("samples/swish.wav").is_err() {
        ok |= 2;
    }
    if voicepool::Sound::stream_file("samples/ambience.ogg").is_err() {
        ok |= 4;
    }
    let Ok(mut e) = OfflineEngine::new(EngineSettings::default()) else {
        return ok;
    };
    if let Err(err) = e.load_bank("samples/bank.toml", &[]) {
        ok |= u32::from(err.to_string().contains("samples/bank.toml")) << 3;
    }
    if e.start_recording("out/x.wav", voicepool::WavFormat::Float32)
        .is_err()
    {
        ok |= 16;
    }
    let beep = tone(48_000, 1, 4_800, 50_000_000, 0.5);
    if let Ok(h) = e.play(&beep, PlayParams::default()) {
        e.render(9_600);
        let events: Vec<voicepool::Event> = e.drain_events().collect();
        let ended = events.contains(&voicepool::Event::Ended { voice: h });
        ok |= u32::from(ended) << 5;
    }
    ok
}

/// [`edges`], for the module's caller.
#[no_mangle]
pub extern "C" fn scene_edges() -> u32 {
    edges()
}
