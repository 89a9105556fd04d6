//! [`Isa`]: which SIMD instructions the CPU has, with proof.
//!
//! Code compiled with `#[target_feature(enable = "avx2")]` is undefined
//! behaviour on a CPU without AVX2, so calling it is `unsafe`. The only
//! justification any such call in this crate gives is an [`Avx2`] token in
//! hand, and the only way to get one is [`Isa::detect`] finding AVX2 at run
//! time: no code can claim AVX2 without the CPU having said so.
//!
//! A leaf: the voice manager's victim scan and the renderer's kernels both
//! use it, and it uses nothing of the crate.

/// The instruction set the kernels and the victim scan use, chosen once
/// when a mixer is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// Portable code (the compiler may still vectorize it for the baseline
    /// target, e.g. SSE2 on x86-64).
    Scalar,
    /// AVX2 code, with the token that proves the CPU has it.
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// WebAssembly SIMD128, for a module built with it (`-C
    /// target-feature=+simd128`): a module cannot ask at run time, and one
    /// built with it does not load where it is missing, so the build is the
    /// proof.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
}

/// Proof that this CPU has AVX2. Its field is private to this module and
/// only [`Isa::detect`] makes one, after asking the CPU.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Avx2(());

impl Isa {
    /// The best instruction set this CPU supports.
    pub(crate) fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Isa::Avx2(Avx2(()));
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return Isa::Simd128;
        #[allow(unreachable_code)]
        Isa::Scalar
    }
}
