//! Test and bench hooks on the mixer (feature `hooks`): not part of the
//! public API.

use super::Mixer;
use crate::simd::Isa;

impl Mixer {
    /// Uses the portable kernels even where AVX2 is available (for
    /// benchmarks and tests that compare the two; the output is the same).
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn force_portable_kernels(&mut self) {
        self.rules.isa = Isa::Scalar;
    }

    /// Checks the pool's invariants (tests and soak runs; allocates).
    #[cfg(feature = "hooks")]
    #[doc(hidden)]
    pub fn check_invariants(&self) -> Result<(), String> {
        self.pool.check_invariants()?;
        self.virtuals.check_invariants()?;
        let positioned = (0..self.pool.len())
            .map(|i| self.pool.who(i))
            .chain((0..self.virtuals.len()).map(|i| self.virtuals.who(i)))
            .filter(|w| w.id != 0 && w.emitter != crate::voices::NO_EMITTER)
            .count();
        self.space.check(positioned)?;
        self.tails.check(self.pool.len())
    }
}
