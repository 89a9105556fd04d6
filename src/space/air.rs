//! The air: how much of a sound's highs it takes over a distance (ISO
//! 9613-1), and [`AirTable`], the cutoff of the two-pole low-pass that
//! follows it best at each distance, for `Spatial::air_absorption`.
//!
//! Plain arithmetic; the table is made on the game side as an engine is
//! made, and only read on the audio side.

use crate::error::{finite, PlayError};
use crate::math::Libm;
use crate::protocol::space::OPEN_HZ;
use crate::space::direct::MIN_LOWPASS_HZ;

/// The largest `Spatial::air_absorption` accepted; larger is clamped.
pub const MAX_AIR_ABSORPTION: f32 = 100.0;

/// The air absorption factor: negative rejected, above
/// [`MAX_AIR_ABSORPTION`] clamped.
pub(crate) fn air_factor(a: f32) -> Result<f32, PlayError> {
    let a = finite("air_absorption", a)?;
    if a < 0.0 {
        return Err(PlayError::Invalid {
            name: "air_absorption",
            reason: "must not be negative",
        });
    }
    Ok(a.min(MAX_AIR_ABSORPTION))
}

/// The attenuation of air at 20 °C, 50 % relative humidity and 101.325 kPa,
/// in dB per metre, at `hz`: ISO 9613-1:1993, equations (3) to (5) (the
/// oxygen and nitrogen relaxation frequencies and the classical and
/// rotational absorption). About 4.7 dB per km at 1 kHz, 0.16 dB per
/// metre at 10 kHz.
pub(crate) fn air_db_per_metre(hz: f64) -> f64 {
    air_at(hz, 50.0)
}

/// [`air_db_per_metre`] at 20 °C and `rh` % relative humidity.
fn air_at(hz: f64, rh: f64) -> f64 {
    // Temperature (K), the reference (K), the triple point (K); pressure as
    // a ratio to the reference (1 here).
    const T: f64 = 293.15;
    const T0: f64 = 293.15;
    const T01: f64 = 273.16;
    let c = -6.8346 * (T01 / T).lm_powf(1.261) + 4.6151;
    let h = rh * 10f64.lm_powf(c); // molar concentration of water vapour, %
    let fr_o = 24.0 + 4.04e4 * h * (0.02 + h) / (0.391 + h);
    let tr = T / T0;
    let fr_n =
        tr.lm_powf(-0.5) * (9.0 + 280.0 * h * (-4.170 * (tr.lm_powf(-1.0 / 3.0) - 1.0)).lm_exp());
    let f2 = hz * hz;
    8.686
        * f2
        * (1.84e-11 * tr.sqrt()
            + tr.lm_powf(-2.5)
                * (0.01275 * (-2239.1 / T).lm_exp() / (fr_o + f2 / fr_o)
                    + 0.1068 * (-3352.0 / T).lm_exp() / (fr_n + f2 / fr_n)))
}

/// Per metre of air path (times the play's air factor), the cutoff of the
/// two-pole low-pass that best follows what the air takes: fitted so that
/// the largest difference, over 20 Hz to 16 kHz where the air takes up to
/// 12 dB, is least. At 44.1 kHz and above that is within 0.7 dB at 5 m,
/// 2.2 dB from 10 m to 400 m and 3.4 dB beyond (far off, the air's loss is
/// a shelf plus a slope that one low-pass cannot follow); 0.8 dB more at
/// 22,050 Hz, where the bilinear transform bends the filter's top octave.
/// Fitted to the filter as it is at the output rate, at frequencies up to
/// 0.45 of the rate; between the table's distances the cutoff is
/// interpolated in log frequency over log distance. Made once per process
/// and output rate (a few milliseconds), on the game side, as an engine
/// is made.
#[derive(Clone, Debug)]
pub(crate) struct AirTable {
    /// At `2^(k / STEPS)` metres of air, the cutoff (Hz).
    hz: [f32; AIR_POINTS],
}

/// Table points per doubling of distance.
const STEPS: f32 = 8.0;
/// From 1 m to 2^(AIR_POINTS / STEPS) m (over 100 km).
const AIR_POINTS: usize = 144;
/// The most loss (dB) the fit follows.
const FITTED_DB: f64 = 12.0;

impl AirTable {
    /// The table for output rate `rate`, made on first use (game side:
    /// it may allocate and lock). Kept for the process: a few hundred
    /// bytes per rate an engine was made at.
    pub(crate) fn for_rate(rate: u32) -> &'static AirTable {
        type Made = Vec<(u32, &'static AirTable)>;
        static TABLES: std::sync::Mutex<Made> = std::sync::Mutex::new(Vec::new());
        let mut tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, table)) = tables.iter().find(|(r, _)| *r == rate) {
            return table;
        }
        let table: &'static AirTable = Box::leak(Box::new(AirTable::fit(rate)));
        tables.push((rate, table));
        table
    }

    fn fit(rate: u32) -> AirTable {
        let rate = f64::from(rate.max(1));
        // Sixth-octave frequencies from 20 Hz to 16 kHz (and below 0.45 of
        // the rate), and the air's loss per metre at each.
        // (Each with its warped frequency, for the filter's response.)
        let freqs: Vec<(f64, f64)> = (0..=60)
            .map(|k| 20.0 * 2f64.lm_powf(f64::from(k) / 6.0))
            .filter(|&f| f <= 16_000.0 && f <= 0.45 * rate)
            .map(|f| (warped(f, rate), air_db_per_metre(f)))
            .collect();
        let mut hz = [OPEN_HZ; AIR_POINTS];
        let Some(&(_, lowest)) = freqs.first() else {
            return AirTable { hz };
        };
        for (k, h) in hz.iter_mut().enumerate() {
            let metres = 2f64.lm_powf(k as f64 / f64::from(STEPS));
            if lowest * metres > FITTED_DB {
                *h = MIN_LOWPASS_HZ;
                continue;
            }
            // (Up to a few metres the air takes at most 1 dB, at 16 kHz:
            // no filter.)
            if freqs.last().map_or(0.0, |f| f.1) * metres <= 1.0 {
                continue;
            }
            let worst = |fc: f64| {
                let wc = warped(fc, rate);
                freqs
                    .iter()
                    .take_while(|(_, a)| a * metres <= FITTED_DB)
                    .map(|&(w, a)| (loss_db(w / wc) - a * metres).abs())
                    .fold(0.0, f64::max)
            };
            // Golden-section search in log frequency.
            let (mut lo, mut hi) = (f64::from(MIN_LOWPASS_HZ).lm_ln(), 40_000f64.lm_ln());
            for _ in 0..32 {
                let a = lo + (hi - lo) * 0.382;
                let b = lo + (hi - lo) * 0.618;
                if worst(a.lm_exp()) < worst(b.lm_exp()) {
                    hi = b;
                } else {
                    lo = a;
                }
            }
            *h = (lo.lm_exp() as f32).clamp(MIN_LOWPASS_HZ, OPEN_HZ);
        }
        AirTable { hz }
    }

    /// The cutoff for `metres` of air path (already times the air factor).
    pub(crate) fn cutoff(&self, metres: f32) -> f32 {
        if metres.is_nan() || metres <= 1.0 {
            return self.hz[0];
        }
        let x = metres.lm_log2() * STEPS;
        let k = (x as usize).min(AIR_POINTS);
        let (Some(&a), Some(&b)) = (self.hz.get(k), self.hz.get(k + 1)) else {
            return self.hz[AIR_POINTS - 1];
        };
        let t = x - k as f32;
        a * (b / a).lm_powf(t)
    }
}

/// The loss (dB) of the two-pole Butterworth low-pass at `fc` at `f`, as
/// the bilinear transform makes it at `rate`.
#[cfg(test)]
fn lowpass_db(fc: f64, f: f64, rate: f64) -> f64 {
    loss_db(warped(f, rate) / warped(fc, rate))
}

/// `hz` warped as the bilinear transform does at `rate` (as the filter
/// does it: at most 0.45 of the rate).
fn warped(hz: f64, rate: f64) -> f64 {
    (std::f64::consts::PI * hz.min(0.45 * rate) / rate).lm_tan()
}

/// The Butterworth low-pass's loss (dB) at `x` times its (warped) cutoff.
fn loss_db(x: f64) -> f64 {
    10.0 * (1.0 + x * x * x * x).lm_log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn air_follows_iso_9613() {
        // ISO 9613-2 Table 2 (from part 1's formula, at octave mid-band
        // frequencies, rounded to 0.1): 20 °C, 70 % RH, in dB/km.
        // (Exact mid-band frequencies: 1 kHz times 10^(3n/10).)
        let table = [
            (-6, 1.1),
            (-3, 2.8),
            (0, 5.0),
            (3, 9.0),
            (6, 22.9),
            (9, 76.6),
        ];
        for (n, want) in table {
            let hz = 1_000.0 * 10f64.lm_powf(f64::from(n) / 10.0);
            let got = air_at(hz, 70.0) * 1_000.0;
            assert!(
                (got - want).abs() <= 0.051 + 0.01 * want,
                "{hz} Hz: {got} dB/km, table {want}"
            );
        }
        // And at 50 %: about 4.7 dB/km at 1 kHz, 0.16 dB/m at 10 kHz.
        assert!((air_db_per_metre(1_000.0) * 1e3 - 4.66).abs() < 0.05);
        assert!((air_db_per_metre(10_000.0) - 0.159).abs() < 0.005);
    }

    #[test]
    fn the_air_low_pass_follows_the_air() {
        // (At each rate, over the frequencies it fits: up to 16 kHz and
        // 0.45 of the rate.)
        for rate in [48_000u32, 44_100, 22_050, 96_000] {
            let t = AirTable::for_rate(rate);
            let distances = [
                (5.0f32, 0.7),
                (25.0, 2.2),
                (100.0, 2.2),
                (400.0, 2.2),
                (1_500.0, 3.4),
            ];
            // (At 22,050 Hz the filter's top octave, bent by the bilinear
            // transform, follows the air less well.)
            let loose = if rate < 44_100 { 0.8 } else { 0.0 };
            for (metres, within) in distances {
                let within = within + loose;
                let fc = f64::from(t.cutoff(metres));
                for k in 0..=54 {
                    let f = 20.0 * 2f64.lm_powf(f64::from(k) / 6.0);
                    let air = air_db_per_metre(f) * f64::from(metres);
                    if air <= FITTED_DB && f <= 0.45 * f64::from(rate) {
                        let off = (lowpass_db(fc, f, f64::from(rate)) - air).abs();
                        assert!(
                            off < within,
                            "{rate} Hz, {metres} m, {f:.0} Hz: {off:.2} dB off"
                        );
                    }
                }
            }
            assert_eq!(t.cutoff(0.5), OPEN_HZ);
        }
        let t = AirTable::for_rate(48_000);
        assert_eq!(t.cutoff(0.5), OPEN_HZ);
        // Past the table: its last point, never a panic.
        assert!(t.cutoff(f32::MAX) > 0.0 && t.cutoff(f32::INFINITY) > 0.0);
    }
}
