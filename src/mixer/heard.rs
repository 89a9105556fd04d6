//! Where the mixer joins a voice's sound and how it plays to the voice
//! manager's masking (`voices::masking`, which never sees a `Voice`): the
//! power the voice will put in each critical band over the next moments,
//! from its loudness estimate spread as its sound's spectrum says at the
//! points it will reach. Real-time safe: a few table reads per voice.

use crate::render::voice::Voice;
use crate::sound::spectrum::{share, BANDS, CENTRE_HZ, SILENT};
use crate::voices::audibility::Ahead;
use crate::voices::masking::{lanes_sum, BandPowers, Masking, LANES};

/// How far ahead (seconds of output) a voice's spectrum is read: what it
/// plays now, in 100 ms and in 300 ms, each weighted by the loudness
/// there (so a voice between syllables is spread as its next syllable).
const LOOKS: [f64; 3] = [0.0, 0.1, 0.3];

/// Added to each look's loudness weight: -200 dB, nothing anyone hears.
const WEIGHT_FLOOR: f32 = 1e-20;

/// The coarse band (`sound::bands`: below 250 Hz, to 1 kHz, to 4 kHz,
/// above) of each critical band, for what a voice's own low-pass lets
/// through of it.
const COARSE: [usize; BANDS] = coarse();

const fn coarse() -> [usize; BANDS] {
    let mut c = [0; BANDS];
    let mut b = 0;
    while b < BANDS {
        let hz = CENTRE_HZ[b];
        c[b] = if hz < 250.0 {
            0
        } else if hz < 1_000.0 {
            1
        } else if hz < 4_000.0 {
            2
        } else {
            3
        };
        b += 1;
    }
    c
}

/// The power `voice` will put in each band, given `level` (its
/// K-weighted loudness estimate, as [`super::ranking::rank`] gives it),
/// `ahead` (its own low-pass) and the K-weighting's gain per band
/// (`k_weights`). A streamed play, whose spectrum is not measured as it
/// plays, is spread as its first second was.
pub(crate) fn band_powers(
    voice: &Voice,
    level: f32,
    ahead: &Ahead,
    out_rate: u32,
    k_weights: &BandPowers,
) -> BandPowers {
    let mut shape = [0.0f32; BANDS];
    if level.is_nan() || level <= 0.0 {
        return shape;
    }
    let sound = voice.sound();
    // Weighted by the loudness at each look (plus a floor far below
    // hearing: where the loudness table reads silence at every look, a
    // sound the K-weighting barely hears, that is the looks' plain mean;
    // the shape's scale does not matter, it is normalized below).
    let mut any = false;
    if voice.stream_slot().is_none() {
        let (frames, looping) = (sound.frames, voice.looping());
        let period = frames as f64;
        // (Laps by a multiplication: `rem_euclid` is a library call.)
        let per_lap = if period > 0.0 { 1.0 / period } else { 0.0 };
        for look in LOOKS {
            let mut at = voice.position() + look * f64::from(out_rate) * voice.step();
            if looping && at >= period {
                at -= (at * per_lap) as i64 as f64 * period;
                at = at.clamp(0.0, (period - 1.0).max(0.0));
            }
            let Some(q) = sound.spectrum.shape_at(at, frames, looping) else {
                continue;
            };
            let w = sound.loudness.power_near(at) + WEIGHT_FLOOR;
            for (s, &q) in shape.iter_mut().zip(q) {
                *s += w * share(q);
            }
            any = true;
        }
    }
    if !any {
        // A stream (not measured as it plays) spreads as its first second
        // did; anything else unknown, evenly.
        shape = match &sound.stream {
            Some(source) if source.opening_shape != SILENT => source.opening_shape.map(share),
            _ => [1.0; BANDS],
        };
    }
    let mut weighted = [0.0f32; LANES];
    for (b, s) in shape.iter_mut().enumerate() {
        *s *= ahead.2[COARSE[b]];
        weighted[b % LANES] += *s * k_weights[b];
    }
    let weighted = lanes_sum(&weighted);
    if weighted.is_nan() || weighted <= 0.0 {
        return [0.0; BANDS];
    }
    let scale = level / weighted;
    shape.map(|s| s * scale)
}

/// The share of `voice` (not in the mix: a virtual voice, whose loudness
/// estimate is `level`) that the voices sounding would leave audible; 1
/// with masking off.
pub(crate) fn heard_virtual(
    masking: &mut Masking,
    voice: &Voice,
    level: f32,
    ahead: &Ahead,
    out_rate: u32,
) -> f32 {
    if !masking.is_on() {
        return 1.0;
    }
    let own = band_powers(voice, level, ahead, out_rate, masking.k_weights());
    masking.heard(None, &own, false)
}
