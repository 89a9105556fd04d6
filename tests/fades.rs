//! Fades and the parameter setters: a setter called while a fade is in
//! progress never cancels it; the fade keeps going toward the new target.

use voicepool_testkit::common;

use common::*;
use voicepool::{EngineSettings, OfflineEngine, PlayParams, VoiceHandle};

/// Peak of each channel over interleaved stereo.
fn peaks(samples: &[f32]) -> (f32, f32) {
    samples.chunks(2).fold((0.0f32, 0.0f32), |(l, r), f| {
        (l.max(f[0].abs()), r.max(f[1].abs()))
    })
}

type Setter = fn(&OfflineEngine, VoiceHandle, usize);

#[test]
fn setters_during_a_fade_in_keep_the_fade_going() {
    // What a game does every frame while a sound fades in: positional audio
    // moves the pan, a mixer re-applies the volume it already set.
    let cases: &[(&str, Setter)] = &[
        ("set_pan to the same value", |e, h, _| {
            e.set_pan(h, 0.0).unwrap()
        }),
        ("set_pan following a moving source", |e, h, i| {
            e.set_pan(h, (i as f32 * 0.3).sin() * 0.8).unwrap()
        }),
        ("set_volume to the value it has", |e, h, _| {
            e.set_volume(h, 1.0).unwrap()
        }),
    ];
    let tone = dc(3.0, RATE, 0.5);
    // Without any setter: 100 ms into a 2 s fade-in the gain is 1/20 of
    // the target; at 2 s it is the target.
    let mut quiet = OfflineEngine::new(EngineSettings::default()).unwrap();
    quiet
        .play(&tone, PlayParams::default().fade_in(2.0))
        .unwrap();
    let first = render_seconds(&mut quiet, 0.1);
    let (bl, br) = peaks(&first);
    let full = 0.5 * std::f32::consts::FRAC_1_SQRT_2;
    assert!((bl - full / 20.0).abs() < 0.002, "baseline fade: {bl}");

    for (name, setter) in cases {
        let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
        let h = e.play(&tone, PlayParams::default().fade_in(2.0)).unwrap();
        let mut out = Vec::new();
        for i in 0..10 {
            setter(&e, h, i);
            out.extend_from_slice(e.render(480));
        }
        let (l, r) = peaks(&out);
        // Panning moves power between the sides, but neither side may jump
        // to anywhere near the full level (it did: 0.36 instead of 0.018).
        assert!(
            l.max(r) < 2.0 * bl.max(br),
            "{name}: {l} / {r} after 100 ms, against {bl} / {br} without it"
        );
        // The fade still arrives, on time.
        setter(&e, h, 99);
        let late = render_seconds(&mut e, 2.0);
        let end = &late[late.len() - 960..];
        let (l, r) = peaks(end);
        assert!(
            l.max(r) > 0.9 * full,
            "{name}: the fade never arrived: {l} {r}"
        );
    }
}

#[test]
fn a_new_volume_during_a_fade_in_becomes_the_fades_target() {
    let tone = dc(3.0, RATE, 0.5);
    let mut e = OfflineEngine::new(EngineSettings::default()).unwrap();
    let h = e.play(&tone, PlayParams::default().fade_in(1.0)).unwrap();
    render_seconds(&mut e, 0.1);
    e.set_volume(h, 0.5).unwrap();
    let mid = render_seconds(&mut e, 0.4);
    let (l, _) = peaks(&mid);
    let full = 0.5 * std::f32::consts::FRAC_1_SQRT_2;
    // Half way (at 0.5 s) it is still on its way up: below the new target.
    assert!(l < 0.5 * full, "{l}");
    let rest = render_seconds(&mut e, 0.6);
    let (l, _) = peaks(&rest[rest.len() - 960..]);
    assert!(
        (l - 0.5 * full).abs() < 1e-3,
        "settles at the new target: {l}"
    );
}
