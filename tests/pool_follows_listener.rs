//! The pool keeps up with a moving player: among thousands of positioned
//! emitters that asked to virtualize, the most audible ones become real
//! soon after the listener walks to a new place or teleports, not after
//! every virtual voice has had its turn to be re-ranked.

use voicepool::{EngineSettings, Listener, OfflineEngine, PlayParams, Sound, Spatial, VoiceHandle};
use voicepool_testkit::common::sine;

const BLOCK: usize = 480; // 10 ms at 48 kHz
const VOICES: usize = 16;

struct Field {
    engine: OfflineEngine,
    emitters: Vec<(VoiceHandle, [f32; 3])>,
}

/// `n` looping emitters of one sound on a square grid `spacing` metres
/// apart, centred on the origin, in a pool of [`VOICES`].
fn field(n: usize, spacing: f32) -> Field {
    let mut engine = OfflineEngine::new(EngineSettings {
        voices: VOICES,
        virtual_voices: n + 16,
        command_capacity: 4_096,
        event_capacity: 4 * n + 1_024,
        ..Default::default()
    })
    .unwrap();
    let hum: Sound = sine(330.0, 0.5, 48_000, 0.5);
    let side = (n as f32).sqrt().ceil() as usize;
    let half = side as f32 * spacing / 2.0;
    let mut emitters = Vec::with_capacity(n);
    for k in 0..n {
        let at = [
            (k % side) as f32 * spacing - half,
            0.0,
            (k / side) as f32 * spacing - half,
        ];
        let p = PlayParams::default()
            .looping(true)
            .virtualize(true)
            .position(at)
            .spatial(Spatial {
                max_distance: 1_000.0,
                ..Spatial::default()
            });
        emitters.push((engine.play(&hum, p).unwrap(), at));
        if k % 1_000 == 999 {
            engine.render(BLOCK);
            engine.drain_events().for_each(drop);
        }
    }
    for _ in 0..100 {
        engine.render(BLOCK);
        engine.drain_events().for_each(drop);
    }
    Field { engine, emitters }
}

/// Inverse distance gain, as `Spatial::default()` (min 1 m, rolloff 1).
fn gain(listener: [f32; 3], at: [f32; 3]) -> f32 {
    let d = ((at[0] - listener[0]).powi(2) + (at[2] - listener[2]).powi(2)).sqrt();
    1.0 / d.max(1.0)
}

impl Field {
    fn listen_at(&mut self, position: [f32; 3], velocity: [f32; 3]) {
        self.engine
            .set_listener(Listener {
                position: position.into(),
                velocity: velocity.into(),
                ..Default::default()
            })
            .unwrap();
    }

    fn render_ms(&mut self, ms: usize) {
        for _ in 0..ms / 10 {
            self.engine.render(BLOCK);
            self.engine.drain_events().for_each(drop);
        }
    }

    /// The share of the best [`VOICES`] emitters' power that the real
    /// voices hold, heard from `listener`, and the rank (from 0) of the
    /// most audible emitter that is not real, if any is among the best.
    fn heard_from(&self, listener: [f32; 3]) -> (f64, Option<usize>) {
        let real: std::collections::HashSet<VoiceHandle> =
            self.engine.slots().iter().filter_map(|s| s.voice).collect();
        let mut all: Vec<(f32, bool)> = self
            .emitters
            .iter()
            .map(|&(h, at)| (gain(listener, at).powi(2), real.contains(&h)))
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0));
        let best: f64 = all.iter().take(VOICES).map(|e| f64::from(e.0)).sum();
        let held: f64 = all.iter().filter(|e| e.1).map(|e| f64::from(e.0)).sum();
        let missing = all.iter().take(VOICES).position(|e| !e.1);
        (held / best, missing)
    }
}

#[test]
fn a_walking_listener_hears_the_nearest_emitters_within_250_ms() {
    let mut f = field(5_000, 4.0);
    let mut at = [0.0f32; 3];
    f.listen_at(at, [0.0; 3]);
    f.render_ms(2_000);
    // Legs of 16 m at running speed (10 m/s), in blocks, then a stop.
    for leg in 0..3 {
        let dir = if leg % 2 == 0 {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        };
        for _ in 0..160 {
            at = [at[0] + dir[0] * 0.1, 0.0, at[2] + dir[2] * 0.1];
            f.listen_at(at, [dir[0] * 10.0, 0.0, dir[2] * 10.0]);
            f.render_ms(10);
        }
        f.listen_at(at, [0.0; 3]);
        f.render_ms(250);
        let (share, missing) = f.heard_from(at);
        assert!(
            missing.is_none_or(|r| r >= 3),
            "leg {leg}: 250 ms after stopping, the emitter ranked {missing:?} is still virtual (share {share:.3})"
        );
        assert!(
            share >= 0.9,
            "leg {leg}: the real voices hold {share:.3} of the best 16's power"
        );
    }
}

#[test]
fn a_teleported_listener_hears_the_nearest_emitters_within_500_ms() {
    let mut f = field(20_000, 2.0);
    f.listen_at([-60.0, 0.0, -60.0], [0.0; 3]);
    f.render_ms(3_000);
    let there = [80.0, 0.0, 80.0]; // about 200 m away
    f.listen_at(there, [0.0; 3]);
    f.render_ms(500);
    let (share, missing) = f.heard_from(there);
    assert!(
        share >= 0.98,
        "500 ms after a teleport the real voices hold {share:.3} of the best 16's power (most audible still virtual: rank {missing:?})"
    );
}

#[test]
fn a_virtual_voice_s_published_level_follows_the_listener() {
    // What `virtual_slots` shows is what the comeback ranks by: re-ranked
    // for where the listener is, not only at its (rarer) full estimates.
    let mut f = field(2_000, 4.0);
    f.listen_at([-80.0, 0.0, -80.0], [0.0; 3]);
    f.render_ms(2_000);
    let (near, at) = f.emitters[f.emitters.len() / 2 + 22]; // near the centre
    let level = |f: &Field| {
        f.engine
            .virtual_slots()
            .iter()
            .find(|s| s.voice == Some(near))
            .map(|s| s.level)
    };
    let before = level(&f).expect("virtual while the listener is far");
    f.listen_at([at[0] + 1.0, 0.0, at[2]], [0.0; 3]);
    f.render_ms(10);
    let after = level(&f).expect("still virtual one block after the jump");
    assert!(
        after > 20.0 * before,
        "published level {before} before, {after} a block after the listener came to it"
    );
}
