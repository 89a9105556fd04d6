//! The transcendental functions the library computes with, as the `libm`
//! crate has them: the same pure-Rust code on every platform, where std's
//! `f32::sin`, `f64::powf` and the rest call the platform's own libm
//! (glibc, a wasm runtime's, Apple's), which may round differently in the
//! last bit. So an offline render gives the same bits natively and in
//! WebAssembly (`wasm-scene/` checks it). `tests/portable_math.rs` keeps
//! std's versions out of `src/`.
//!
//! Plain functions: no allocation, lock or panic; safe on the audio thread.

/// The library's transcendental functions, on `f32` and `f64`: std's
/// names with `lm_` in front.
pub(crate) trait Libm: Sized {
    fn lm_sin(self) -> Self;
    fn lm_cos(self) -> Self;
    fn lm_tan(self) -> Self;
    fn lm_acos(self) -> Self;
    fn lm_exp(self) -> Self;
    fn lm_ln(self) -> Self;
    fn lm_log2(self) -> Self;
    fn lm_log10(self) -> Self;
    fn lm_powf(self, e: Self) -> Self;
    /// `self` to the integer power `n`, by squaring (as the platforms'
    /// `powi` may not all do it in the same order).
    fn lm_powi(self, n: i32) -> Self;
}

macro_rules! libm_for {
    ($t:ty, $sin:ident, $cos:ident, $tan:ident, $acos:ident, $exp:ident, $ln:ident,
     $log2:ident, $log10:ident, $pow_of:ident) => {
        impl Libm for $t {
            #[inline]
            fn lm_sin(self) -> $t {
                libm::$sin(self)
            }
            #[inline]
            fn lm_cos(self) -> $t {
                libm::$cos(self)
            }
            #[inline]
            fn lm_tan(self) -> $t {
                libm::$tan(self)
            }
            #[inline]
            fn lm_acos(self) -> $t {
                libm::$acos(self)
            }
            #[inline]
            fn lm_exp(self) -> $t {
                libm::$exp(self)
            }
            #[inline]
            fn lm_ln(self) -> $t {
                libm::$ln(self)
            }
            #[inline]
            fn lm_log2(self) -> $t {
                libm::$log2(self)
            }
            #[inline]
            fn lm_log10(self) -> $t {
                libm::$log10(self)
            }
            #[inline]
            fn lm_powf(self, e: $t) -> $t {
                $pow_of(self, e)
            }
            #[inline]
            fn lm_powi(self, n: i32) -> $t {
                let (mut base, mut k, mut out) = (self, n.unsigned_abs(), 1.0);
                while k > 0 {
                    if k & 1 == 1 {
                        out *= base;
                    }
                    base *= base;
                    k >>= 1;
                }
                if n < 0 {
                    1.0 / out
                } else {
                    out
                }
            }
        }
    };
}

libm_for!(f32, sinf, cosf, tanf, acosf, expf, logf, log2f, log10f, powf32);
libm_for!(f64, sin, cos, tan, acos, exp, log, log2, log10, pow64);

/// `x^e` in `f32`: `2^(e log2 x)` for a positive finite `x`, within a few
/// parts in a million of the true power (the mixer raises ratios of gains
/// and cutoffs to fractions, once a block per voice: libm's `powf`, exact
/// to the last bit, costs three times as much); libm's `powf` otherwise.
#[inline]
fn powf32(x: f32, e: f32) -> f32 {
    if x > 0.0 && x.is_finite() {
        libm::exp2f(e * libm::log2f(x))
    } else {
        libm::powf(x, e)
    }
}

#[inline]
fn pow64(x: f64, e: f64) -> f64 {
    libm::pow(x, e)
}

#[cfg(test)]
mod tests {
    use super::Libm;

    #[test]
    fn they_agree_with_std_to_within_rounding() {
        for k in 1..2_000 {
            let x = k as f64 * 0.013 - 10.0;
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
            assert!(close(x.lm_sin(), x.sin()), "{x}");
            assert!(close(x.lm_cos(), x.cos()), "{x}");
            assert!(close(x.lm_exp(), x.exp()), "{x}");
            let y = x.abs() + 0.01;
            assert!(
                close(y.lm_ln(), y.ln()) && close(y.lm_log10(), y.log10()),
                "{y}"
            );
            assert!(close(y.lm_powf(1.7), y.powf(1.7)), "{y}");
            assert!(
                close(y.lm_powi(-3), y.powi(-3)) && close(y.lm_powi(5), y.powi(5)),
                "{y}"
            );
        }
        for k in 1..20_000 {
            let x = k as f32 * 0.0137;
            for e in [1.3f32, -0.5, 0.25, 1.0 / 3.0, -2.0] {
                let (ours, std) = (x.lm_powf(e), x.powf(e));
                assert!(((ours - std) / std).abs() < 4e-6, "{x}^{e}: {ours} {std}");
            }
        }
        assert_eq!(0.0f32.lm_powf(2.0), 0.0);
        assert!((-8.0f32).lm_powf(0.5).is_nan());
        assert_eq!(2.0f32.lm_powi(10), 1024.0);
        assert_eq!(3.0f32.lm_powi(0), 1.0);
    }
}
