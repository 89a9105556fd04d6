//! Streamed sounds (`Sound::stream_file`): a streamed play renders exactly
//! what the same file decoded whole renders, looping and seeking included;
//! a starved loader gives silence and counted underruns, never garbage or
//! a wait; stream slots are fixed and freed; streams take part in
//! stealing. Files are made at test time with sox and lame (Debian
//! packages `sox`, `lame`).

mod support;

use std::time::Duration;

use support::codecs::{encode, source_wav, Enc};
use support::Scratch;
use voicepool::{EngineSettings, Event, OfflineEngine, PlayError, PlayParams, Sound};

/// Renders `blocks` blocks of 480 frames of `sound` played with `params`
/// in a fresh engine at `rate`; returns the output and the events.
fn render(sound: &Sound, params: PlayParams, rate: u32, blocks: usize) -> (Vec<f32>, Vec<String>) {
    let mut engine = OfflineEngine::new(EngineSettings {
        sample_rate: rate,
        ..Default::default()
    })
    .unwrap();
    engine.play(sound, params).unwrap();
    let mut out = Vec::new();
    for _ in 0..blocks {
        out.extend_from_slice(engine.render(480));
    }
    (out, timeline(&mut engine))
}

/// The events so far as `frame: event` with the voice ids only (so that
/// two engines' timelines compare).
fn timeline(engine: &mut OfflineEngine) -> Vec<String> {
    engine
        .drain_timed_events()
        .iter()
        .map(|t| {
            let name = format!("{:?}", t.event);
            let kind = name.split(' ').next().unwrap_or("").to_string();
            let id = t.event.voice().map_or(0, |v| v.id());
            format!("{}: {kind} {id}", t.frame)
        })
        .collect()
}

fn first_difference(a: &[f32], b: &[f32]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x.to_bits() != y.to_bits())
}

/// Every streamed format, one-shot and looping, at a few rates and
/// pitches: sample for sample the render of the same file decoded whole.
#[test]
fn a_streamed_play_renders_exactly_what_the_decoded_sound_renders() {
    let dir = Scratch::new("streaming-equal");
    // (encoder, source rate, channels, frames, output rate, pitch, looping)
    let rows: &[(Enc, u32, u16, usize, u32, f32, bool)] = &[
        (Enc::Ogg, 44_100, 2, 60_000, 48_000, 1.0, false),
        (Enc::Ogg, 48_000, 1, 30_011, 48_000, 1.0, true),
        (Enc::Flac, 44_100, 2, 50_000, 48_000, 1.37, true),
        (Enc::Flac, 22_050, 1, 40_000, 44_100, 0.61, false),
        (Enc::Mp3, 44_100, 2, 44_100, 48_000, 1.0, true),
    ];
    for (i, &(enc, rate, channels, frames, out_rate, pitch, looping)) in rows.iter().enumerate() {
        let what = format!("{enc:?} {rate} Hz {channels} ch {frames} frames -> {out_rate} Hz x{pitch} loop {looping}");
        let src = source_wav(&dir, &format!("src{i}"), rate, channels, 16, frames);
        let ext = match enc {
            Enc::Flac => "flac",
            Enc::Ogg => "ogg",
            Enc::Mp3 | Enc::Mp3NoTag => "mp3",
        };
        let file = dir.path(&format!("row{i}.{ext}"));
        encode(enc, &src, &file);
        let decoded = Sound::from_file(&file).unwrap();
        let streamed = Sound::stream_file(&file).unwrap();
        assert!(streamed.is_streamed() && !decoded.is_streamed());
        assert_eq!(
            (
                streamed.channels(),
                streamed.sample_rate(),
                streamed.frames()
            ),
            (decoded.channels(), decoded.sample_rate(), decoded.frames()),
            "{what}"
        );
        // Long enough to pass the end (and loop more than twice).
        let blocks = (2.5 * frames as f64 / f64::from(rate) / pitch as f64 * f64::from(out_rate)
            / 480.0) as usize
            + 4;
        let params = PlayParams::default()
            .pitch(pitch)
            .looping(looping)
            .volume(0.8);
        let (want, want_events) = render(&decoded, params, out_rate, blocks);
        let (got, got_events) = render(&streamed, params, out_rate, blocks);
        assert!(want.iter().any(|&s| s != 0.0), "{what}: silent");
        assert_eq!(first_difference(&want, &got), None, "{what}");
        assert_eq!(want_events, got_events, "{what}");
        eprintln!("{what}: {} frames equal", want.len() / 2);
    }
}
