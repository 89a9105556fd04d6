//! [`DeviceName`]: an output device's name as plain `Copy` data, so that an
//! [`crate::Event`] can carry it across the thread boundary.

use std::fmt;

/// Bytes a [`DeviceName`] holds; longer names are cut at a character
/// boundary (the full name is in [`crate::AudioEngine::info`]).
pub const DEVICE_NAME_BYTES: usize = 27;

/// An output device's name, as carried by [`crate::Event::OutputRecovered`]:
/// at most [`DEVICE_NAME_BYTES`] bytes of UTF-8, kept inline so that events
/// stay small `Copy` values. A longer name is cut at a character boundary
/// and [`DeviceName::is_truncated`] says so.
///
/// ```
/// use voicepool::DeviceName;
/// let name = DeviceName::new("pipewire");
/// assert_eq!(name.as_str(), "pipewire");
/// assert_eq!(name.to_string(), "pipewire");
/// let long = DeviceName::new("front:CARD=Generic_1,DEV=0,SUBDEV=0");
/// assert!(long.is_truncated() && long.as_str().starts_with("front:CARD=Generic_1"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceName {
    bytes: [u8; DEVICE_NAME_BYTES],
    /// Bytes used; the top bit marks a truncated name.
    len: u8,
}

const TRUNCATED: u8 = 0x80;

impl DeviceName {
    /// `name`, cut to at most [`DEVICE_NAME_BYTES`] bytes at a character
    /// boundary.
    pub fn new(name: &str) -> DeviceName {
        let mut end = name.len().min(DEVICE_NAME_BYTES);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        let mut bytes = [0; DEVICE_NAME_BYTES];
        bytes[..end].copy_from_slice(&name.as_bytes()[..end]);
        let cut = if end < name.len() { TRUNCATED } else { 0 };
        DeviceName {
            bytes,
            // `end` <= 27 fits in the low seven bits.
            len: end as u8 | cut,
        }
    }

    /// The name (or its first [`DEVICE_NAME_BYTES`] bytes).
    pub fn as_str(&self) -> &str {
        let len = usize::from(self.len & !TRUNCATED).min(DEVICE_NAME_BYTES);
        // Built from a `&str` cut at a character boundary: always UTF-8.
        std::str::from_utf8(&self.bytes[..len]).unwrap_or("")
    }

    /// True if the name was longer than [`DEVICE_NAME_BYTES`] bytes and cut.
    pub fn is_truncated(&self) -> bool {
        self.len & TRUNCATED != 0
    }
}

impl fmt::Display for DeviceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if self.is_truncated() {
            f.write_str("…")?;
        }
        Ok(())
    }
}

impl fmt::Debug for DeviceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceName({:?})", self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_at_a_character_boundary() {
        let n = DeviceName::new("ééééééééééééééé"); // 30 bytes of 2-byte chars
        assert_eq!(n.as_str().len(), 26);
        assert!(n.is_truncated());
        assert!(n.to_string().ends_with('…'));
        let exact = DeviceName::new(&"x".repeat(DEVICE_NAME_BYTES));
        assert!(!exact.is_truncated());
        assert_eq!(DeviceName::new("").as_str(), "");
    }

    #[test]
    fn events_stay_as_small_as_before() {
        // The largest variant before was `Stolen` (two handles): 40 bytes.
        assert_eq!(std::mem::size_of::<crate::Event>(), 40);
    }
}
