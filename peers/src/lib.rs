//! Workload W for voicepool and its peers (kira, oddio, rodio), through each
//! library's public API, for `benches/peers.rs`.
//!
//! W, as voicepool's own `w_44k1_to_48k` bench runs it: N voices, each
//! looping one of eight one-second 44.1 kHz mono sines (110 to 880 Hz,
//! amplitude 0.5), mixed to 48 kHz stereo with its own volume and pan, in
//! 480-frame blocks; the voices start over the first second (so their
//! positions differ); before every block a sixteenth of them (round robin)
//! get a new volume, ramped where the library ramps.
//!
//! Each library renders into its own buffer and returns it (interleaved
//! stereo); [`Workload`] holds what is common.

use std::f32::consts::{FRAC_PI_4, TAU};

/// Output frames per block (10 ms at 48 kHz).
pub const BLOCK: usize = 480;
/// The sounds' rate.
pub const SOURCE_RATE: u32 = 44_100;
/// The output rate.
pub const OUTPUT_RATE: u32 = 48_000;

/// Eight one-second mono sines at [`SOURCE_RATE`] (110 Hz to 880 Hz,
/// amplitude 0.5): voicepool's `bench_support::sine_sounds`.
pub fn sines() -> Vec<Vec<f32>> {
    (0..8)
        .map(|k| {
            let f = 110.0 * (k + 1) as f32;
            (0..SOURCE_RATE)
                .map(|i| 0.5 * (TAU * f * i as f32 / SOURCE_RATE as f32).sin())
                .collect()
        })
        .collect()
}

/// Voice `i`'s starting volume (amplitude, 0.2 to 1.0).
pub fn volume(i: usize) -> f32 {
    0.2 + 0.8 * ((i * 37 % 101) as f32 / 100.0)
}

/// Voice `i`'s pan (-1 left to 1 right).
pub fn pan(i: usize) -> f32 {
    ((i * 53 % 201) as f32 / 100.0) - 1.0
}

/// The volume voice `i` is given in block `tick`.
pub fn new_volume(i: usize, tick: u32) -> f32 {
    0.2 + 0.8 * (((i as u32 * 31 + tick * 7) % 97) as f32 / 96.0)
}

/// voicepool's pan law for a mono source (equal power, -3 dB each side at
/// the centre): `(left, right)` gains.
pub fn pan_gains(pan: f32) -> (f32, f32) {
    let (s, c) = (pan * FRAC_PI_4).sin_cos();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    ((c - s) * h, (c + s) * h)
}

/// What each library does for W.
pub trait Peer {
    /// Starts voice `i` (the `i`-th call): looping `sines()[i % 8]` at
    /// `volume(i)` and `pan(i)`.
    fn play(&mut self, i: usize);
    /// Gives voice `i` a new volume (amplitude).
    fn set_volume(&mut self, i: usize, volume: f32);
    /// Renders [`BLOCK`] frames, interleaved stereo.
    fn render(&mut self) -> &[f32];
}

/// W on one library.
pub struct Workload<P> {
    peer: P,
    voices: usize,
    next: usize,
    tick: u32,
}

impl<P: Peer> Workload<P> {
    /// Starts `voices` voices over the first second (`voices / 100` a
    /// block), then renders 10 more blocks, as voicepool's bench does.
    pub fn new(mut peer: P, voices: usize) -> Workload<P> {
        let per_block = voices.div_ceil(100);
        let mut started = 0;
        while started < voices {
            for _ in 0..per_block.min(voices - started) {
                peer.play(started);
                started += 1;
            }
            peer.render();
        }
        for _ in 0..10 {
            peer.render();
        }
        Workload {
            peer,
            voices,
            next: 0,
            tick: 0,
        }
    }

    /// One block: a sixteenth of the voices get a new volume, then
    /// [`BLOCK`] frames are rendered. Returns the first output sample.
    pub fn block(&mut self) -> f32 {
        self.tick = self.tick.wrapping_add(1);
        for _ in 0..self.voices.div_ceil(16) {
            let v = new_volume(self.next, self.tick);
            self.peer.set_volume(self.next, v);
            self.next = (self.next + 1) % self.voices;
        }
        self.peer.render()[0]
    }

    /// Runs one [`Workload::block`] and returns the block's peak.
    pub fn peak(&mut self) -> f32 {
        self.block();
        self.peer.render().iter().fold(0.0, |m, s| m.max(s.abs()))
    }
}

/// voicepool: an `OfflineEngine` (the public offline output: the
/// `Mixer::process` of a 480-frame stereo buffer, then the game side's
/// event pump), as `w_44k1_to_48k` runs it.
pub mod voicepool_peer {
    use super::*;
    use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, VoiceHandle};

    /// voicepool's side of W.
    pub struct Voicepool {
        engine: OfflineEngine,
        sounds: Vec<Sound>,
        handles: Vec<VoiceHandle>,
    }

    impl Voicepool {
        /// An engine with a pool of exactly `voices` voices (and queues as
        /// voicepool's bench sizes them).
        pub fn new(voices: usize) -> Voicepool {
            let settings = EngineSettings {
                voices,
                command_capacity: 4 * voices.max(256),
                event_capacity: 4 * voices.max(256),
                ..Default::default()
            };
            let engine = OfflineEngine::new(settings).expect("valid settings");
            assert_eq!(engine.sample_rate(), OUTPUT_RATE);
            let sounds = sines()
                .into_iter()
                .map(|s| Sound::from_samples(1, SOURCE_RATE, s).expect("a sound"))
                .collect();
            Voicepool {
                engine,
                sounds,
                handles: Vec::with_capacity(voices),
            }
        }
    }

    impl Peer for Voicepool {
        fn play(&mut self, i: usize) {
            let p = PlayParams::default()
                .volume(volume(i))
                .pan(pan(i))
                .looping(true)
                .fade_in(0.01);
            let h = self.engine.play(&self.sounds[i % 8], p).expect("queued");
            self.handles.push(h);
        }

        fn set_volume(&mut self, i: usize, volume: f32) {
            // Ramped over `EngineSettings::param_ramp` (10 ms).
            let _ = self.engine.set_volume(self.handles[i], volume);
        }

        fn render(&mut self) -> &[f32] {
            self.engine.render(BLOCK)
        }
    }
}

/// kira: an `AudioManager` on a backend of ours that hands the renderer a
/// 480-frame stereo buffer as kira's cpal backend does
/// (`on_start_processing`, then `process`). kira's `MockBackend` does the
/// same, but into a buffer it keeps private, so its output could not be
/// checked.
pub mod kira_peer {
    use super::*;
    use kira::backend::{Backend, Renderer};
    use kira::sound::static_sound::{StaticSoundData, StaticSoundHandle, StaticSoundSettings};
    use kira::track::MainTrackBuilder;
    use kira::{AudioManager, AudioManagerSettings, Decibels, Frame, Tween};
    use std::sync::Arc;

    /// A backend without a device: [`Offline::render`] runs the renderer.
    pub struct Offline {
        renderer: Option<Renderer>,
        buffer: Vec<f32>,
    }

    impl Offline {
        /// Renders [`BLOCK`] frames, interleaved stereo.
        pub fn render(&mut self) -> &[f32] {
            let r = self.renderer.as_mut().expect("started");
            r.on_start_processing();
            r.process(&mut self.buffer, 2);
            &self.buffer
        }
    }

    impl Backend for Offline {
        /// The sample rate.
        type Settings = u32;
        type Error = ();

        fn setup(rate: u32, _internal_buffer_size: usize) -> Result<(Self, u32), ()> {
            let buffer = vec![0.0; 2 * BLOCK];
            Ok((
                Offline {
                    renderer: None,
                    buffer,
                },
                rate,
            ))
        }

        fn start(&mut self, renderer: Renderer) -> Result<(), ()> {
            self.renderer = Some(renderer);
            Ok(())
        }
    }

    /// An amplitude in kira's unit.
    fn db(amplitude: f32) -> Decibels {
        Decibels(20.0 * amplitude.log10())
    }

    /// kira's side of W.
    pub struct Kira {
        manager: AudioManager<Offline>,
        sounds: Vec<StaticSoundData>,
        handles: Vec<StaticSoundHandle>,
    }

    impl Kira {
        /// A manager whose main track holds `voices` sounds, its internal
        /// buffer one block long (so parameters move once a block and are
        /// interpolated per frame within it, like voicepool's ramps).
        pub fn new(voices: usize) -> Kira {
            let manager = AudioManager::<Offline>::new(AudioManagerSettings {
                main_track_builder: MainTrackBuilder::new().sound_capacity(voices),
                internal_buffer_size: BLOCK,
                backend_settings: OUTPUT_RATE,
                capacities: Default::default(),
            })
            .expect("a manager");
            let sounds = sines()
                .into_iter()
                .map(|s| StaticSoundData {
                    sample_rate: SOURCE_RATE,
                    frames: s
                        .into_iter()
                        .map(Frame::from_mono)
                        .collect::<Arc<[Frame]>>(),
                    settings: StaticSoundSettings::new(),
                    slice: None,
                })
                .collect();
            Kira {
                manager,
                sounds,
                handles: Vec::with_capacity(voices),
            }
        }
    }

    impl Peer for Kira {
        fn play(&mut self, i: usize) {
            let data = self.sounds[i % 8]
                .volume(db(volume(i)))
                .panning(pan(i))
                .loop_region(..)
                .fade_in_tween(Tween::default());
            let h = self.manager.play(data).expect("room for the sound");
            self.handles.push(h);
        }

        fn set_volume(&mut self, i: usize, volume: f32) {
            // Tween::default(): 10 ms, linear (in dB).
            self.handles[i].set_volume(db(volume), Tween::default());
        }

        fn render(&mut self) -> &[f32] {
            self.manager.backend_mut().render()
        }
    }
}

/// oddio: a `Mixer` of `Pan(Gain(Cycle(Frames)))` signals, run by
/// `oddio::run` on a 480-frame stereo buffer.
pub mod oddio_peer {
    use super::*;
    use oddio::{Cycle, Frames, Gain, GainControl, Mixer, MixerControl, Signal};
    use std::sync::Arc;

    /// A mono signal panned to stereo with fixed gains (oddio has no plain
    /// pan: only `MonoToStereo`, which duplicates, and 3D `Spatial`).
    pub struct Pan<S> {
        inner: S,
        left: f32,
        right: f32,
    }

    impl<S: Signal<Frame = f32>> Signal for Pan<S> {
        type Frame = [f32; 2];

        fn sample(&mut self, interval: f32, out: &mut [[f32; 2]]) {
            // The mono samples into the first half, then spread from the end.
            let n = out.len();
            let flat = out.as_flattened_mut();
            self.inner.sample(interval, &mut flat[..n]);
            for i in (0..n).rev() {
                let s = flat[i];
                flat[2 * i] = s * self.left;
                flat[2 * i + 1] = s * self.right;
            }
        }

        fn is_finished(&self) -> bool {
            self.inner.is_finished()
        }
    }

    /// oddio's side of W.
    pub struct Oddio {
        control: MixerControl<[f32; 2]>,
        mixer: Mixer<[f32; 2]>,
        sounds: Vec<Arc<Frames<f32>>>,
        gains: Vec<GainControl>,
        buffer: Vec<[f32; 2]>,
    }

    impl Oddio {
        /// An empty mixer.
        pub fn new(voices: usize) -> Oddio {
            let (control, mixer) = Mixer::new();
            let sounds = sines()
                .iter()
                .map(|s| Frames::from_slice(SOURCE_RATE, s))
                .collect();
            Oddio {
                control,
                mixer,
                sounds,
                gains: Vec::with_capacity(voices),
                buffer: vec![[0.0; 2]; BLOCK],
            }
        }
    }

    impl Peer for Oddio {
        fn play(&mut self, i: usize) {
            let (gain, mut signal) = Gain::new(Cycle::new(self.sounds[i % 8].clone()));
            signal.set_amplitude_ratio(volume(i)); // the starting gain, not smoothed
            let (left, right) = pan_gains(pan(i));
            self.control.play(Pan {
                inner: signal,
                left,
                right,
            });
            self.gains.push(gain);
        }

        fn set_volume(&mut self, i: usize, volume: f32) {
            // Smoothed linearly over oddio's fixed 100 ms.
            self.gains[i].set_amplitude_ratio(volume);
        }

        fn render(&mut self) -> &[f32] {
            oddio::run(&mut self.mixer, OUTPUT_RATE, &mut self.buffer);
            self.buffer.as_flattened()
        }
    }
}

/// rodio: a `Player` per voice (the handle rodio gives for changing a
/// playing sound's volume) on a `mixer::Mixer` at 48 kHz stereo, each
/// playing a `SamplesBuffer` repeated forever and panned by
/// `ChannelVolume`; the block is 960 samples pulled from the
/// `MixerSource` iterator.
pub mod rodio_peer {
    use super::*;
    use rodio::buffer::SamplesBuffer;
    use rodio::mixer::{mixer, Mixer, MixerSource};
    use rodio::source::{ChannelVolume, Source};
    use rodio::Player;
    use std::num::NonZero;

    /// rodio's side of W.
    pub struct Rodio {
        mixer: Mixer,
        out: MixerSource,
        sounds: Vec<SamplesBuffer>,
        players: Vec<Player>,
        buffer: Vec<f32>,
    }

    impl Rodio {
        /// An empty mixer.
        pub fn new(voices: usize) -> Rodio {
            let nz = |x| NonZero::new(x).expect("nonzero");
            let (mixer, out) = mixer(NonZero::new(2).expect("2"), nz(OUTPUT_RATE));
            let sounds = sines()
                .into_iter()
                .map(|s| SamplesBuffer::new(NonZero::new(1).expect("1"), nz(SOURCE_RATE), s))
                .collect();
            Rodio {
                mixer,
                out,
                sounds,
                players: Vec::with_capacity(voices),
                buffer: vec![0.0; 2 * BLOCK],
            }
        }
    }

    impl Peer for Rodio {
        fn play(&mut self, i: usize) {
            let (left, right) = pan_gains(pan(i));
            let source = self.sounds[i % 8].clone().repeat_infinite();
            let player = Player::connect_new(&self.mixer);
            player.set_volume(volume(i));
            player.append(ChannelVolume::new(source, vec![left, right]));
            self.players.push(player);
        }

        fn set_volume(&mut self, i: usize, volume: f32) {
            // Not smoothed: the Player takes it up within 5 ms, as a step.
            self.players[i].set_volume(volume);
        }

        fn render(&mut self) -> &[f32] {
            for (s, x) in self.buffer.iter_mut().zip(&mut self.out) {
                *s = x;
            }
            &self.buffer
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each library sounds, at every size measured (not silent, not
    /// running away), so none is timed doing nothing.
    #[test]
    fn every_peer_sounds() {
        for n in [8, 32, 256, 1024] {
            let peaks = [
                (
                    "voicepool",
                    Workload::new(voicepool_peer::Voicepool::new(n), n).peak(),
                ),
                ("kira", Workload::new(kira_peer::Kira::new(n), n).peak()),
                ("oddio", Workload::new(oddio_peer::Oddio::new(n), n).peak()),
                ("rodio", Workload::new(rodio_peer::Rodio::new(n), n).peak()),
            ];
            for (name, peak) in peaks {
                assert!(
                    peak > 0.01 && peak.is_finite(),
                    "{name} at {n} voices: peak {peak}"
                );
            }
        }
    }

    /// A lone voice panned hard left, turned up to volume 1: every library
    /// plays the sine at the level its pan law gives (voicepool's law, also
    /// used for oddio and rodio: gain 1 at the side, 0.71 at the centre; kira's: 1.41
    /// at the side, 1 at the centre), and nothing on the right.
    #[test]
    fn one_voice_level() {
        fn level<P: Peer>(mut p: P) -> f32 {
            p.play(0); // voice 0: volume 0.2, pan -1 (hard left)
            p.set_volume(0, 1.0);
            for _ in 0..20 {
                p.render();
            }
            let b = p.render();
            let left = b.iter().step_by(2).fold(0.0f32, |m, s| m.max(s.abs()));
            let right = b
                .iter()
                .skip(1)
                .step_by(2)
                .fold(0.0f32, |m, s| m.max(s.abs()));
            assert!(right < 1e-3, "hard left leaks right: {right}");
            left
        }
        let vp = level(voicepool_peer::Voicepool::new(1));
        let ki = level(kira_peer::Kira::new(1));
        let od = level(oddio_peer::Oddio::new(1));
        let ro = level(rodio_peer::Rodio::new(1));
        assert!((ro - 0.5).abs() < 0.02, "rodio {ro}");
        // The sines' amplitude is 0.5.
        assert!((vp - 0.5).abs() < 0.02, "voicepool {vp}");
        assert!((od - 0.5).abs() < 0.02, "oddio {od}");
        assert!((ki - 0.5 * 2f32.sqrt()).abs() < 0.03, "kira {ki}");
    }
}
