//! [`Seconds`]: the lengths of time a call accepts.

use std::time::Duration;

/// A length of time as the calls that take one accept it: a [`Duration`],
/// or a number of seconds (`f32` or `f64`), the form these calls took
/// before 1.0. Sealed: only these three.
///
/// ```
/// use std::time::Duration;
/// use voicepool::PlayParams;
/// let a = PlayParams::default().fade_in(Duration::from_millis(250));
/// let b = PlayParams::default().fade_in(0.25); // seconds, as before 1.0
/// assert_eq!(a, b);
/// ```
pub trait Seconds: sealed::Sealed {
    /// The length in seconds (NaN and infinities pass through, for the
    /// call to refuse).
    fn seconds(self) -> f64;
}

impl Seconds for Duration {
    fn seconds(self) -> f64 {
        self.as_secs_f64()
    }
}

impl Seconds for f32 {
    fn seconds(self) -> f64 {
        f64::from(self)
    }
}

impl Seconds for f64 {
    fn seconds(self) -> f64 {
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for std::time::Duration {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}
