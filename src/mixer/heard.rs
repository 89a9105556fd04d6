//! Where the mixer joins a voice's sound and how it plays to the voice
//! manager's masking (`voices::masking`, which never sees a `Voice`): the
//! power the voice will put in each critical band over the next moments,
//! from its loudness estimate spread as its sound's spectrum says at the
//! points it will reach. Real-time safe: a few table reads per voice.

use crate::render::voice::Voice;
use crate::sound::spectrum::{share, BANDS, CENTRE_HZ};
use crate::voices::audibility::Ahead;
use crate::voices::masking::{BandPowers, Masking};

/// How far ahead (seconds of output) a voice's spectrum is read: what it
/// plays now, in 100 ms and in 300 ms, each weighted by the loudness
/// there (so a voice between syllables is spread as its next syllable).
const LOOKS: [f64; 3] = [0.0, 0.1, 0.3];

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
/// (`k_weights`). A streamed play, whose spectrum is not measured, is
/// spread evenly over the bands.
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
    // Weighted by the loudness at each look; where the loudness table
    // reads silence at every look (a sound the K-weighting barely hears),
    // the looks' plain mean.
    let mut plain = [0.0f32; BANDS];
    let (mut weight, mut looks) = (0.0f32, 0);
    if voice.stream_slot().is_none() {
        let (frames, looping) = (sound.frames, voice.looping());
        for look in LOOKS {
            let mut at = voice.position() + look * f64::from(out_rate) * voice.step();
            if looping && frames > 0 && at >= frames as f64 {
                at = at.rem_euclid(frames as f64);
            }
            let Some(q) = sound.spectrum.shape_at(at, frames, looping) else {
                continue;
            };
            let w = sound.loudness.power_near(at);
            for b in 0..BANDS {
                let share = share(q[b]);
                shape[b] += w * share;
                plain[b] += share;
            }
            weight += w;
            looks += 1;
        }
    }
    if weight.is_nan() || weight <= 0.0 {
        shape = if looks > 0 { plain } else { [1.0; BANDS] };
    }
    let mut weighted = 0.0f32;
    for b in 0..BANDS {
        shape[b] *= ahead.2[COARSE[b]];
        weighted += shape[b] * k_weights[b];
    }
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
    masking.heard(None, &own)
}
