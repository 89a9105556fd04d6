//! What names a labelled bus or group: a string, or (so that a typo is a
//! compile error) a type of the game's own.

use std::borrow::Cow;
use std::fmt::Debug;

/// A type of the game's own whose values name buses and groups: an enum,
/// usually. Implement it (it has no methods) for any `Debug` type; every
/// method that takes a label ([`AsLabel`]) then takes its values, and a
/// misspelt variant does not compile. Strings keep working beside it.
///
/// ```
/// use voicepool_bevy::prelude::*;
///
/// #[derive(Debug, Clone, Copy)]
/// enum Bus { Music, World }
/// impl SoundLabel for Bus {}
///
/// let plugin = VoicepoolPlugin::default()
///     .bus(Bus::Music, BusSettings::default())
///     .bus(Bus::World, BusSettings::default());
/// let player = SoundPlayer::new(Default::default()).bus(Bus::World);
/// # let _ = (plugin, player);
/// ```
pub trait SoundLabel: Debug {}

/// Anything that names a labelled bus or group: a [`SoundLabel`] value, or
/// a string (`&str`, `String`, `Cow<str>`).
///
/// ```
/// use voicepool_bevy::{AsLabel, SoundLabel};
/// #[derive(Debug)]
/// enum Group { Footsteps }
/// impl SoundLabel for Group {}
/// assert_eq!("music".as_label(), "music");
/// assert!(Group::Footsteps.as_label().ends_with("Group::Footsteps"));
/// ```
pub trait AsLabel {
    /// The label as the plugin keeps it: a string as it is; a
    /// [`SoundLabel`] as its type's path and its value.
    fn as_label(&self) -> Cow<'_, str>;
}

impl<T: SoundLabel> AsLabel for T {
    fn as_label(&self) -> Cow<'_, str> {
        Cow::Owned(format!("{}::{self:?}", std::any::type_name::<T>()))
    }
}

impl AsLabel for &str {
    fn as_label(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl AsLabel for String {
    fn as_label(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl AsLabel for &String {
    fn as_label(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl AsLabel for Cow<'_, str> {
    fn as_label(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl AsLabel for &Cow<'_, str> {
    fn as_label(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}
