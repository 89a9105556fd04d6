//! What a [`PlayParams`] says: its getters, for code that passes
//! parameters along (a plugin, a test) and reads them back.

use super::PlayParams;
use crate::protocol::{BusHandle, GroupHandle};
use crate::space::Spatial;

impl PlayParams {
    /// Where it plays from, if it is positioned.
    ///
    /// ```
    /// use voicepool::PlayParams;
    /// assert!(PlayParams::default().get_position().is_none());
    /// let p = PlayParams::default().position([1.0, 2.0, 3.0]);
    /// assert_eq!(p.get_position(), Some([1.0, 2.0, 3.0].into()));
    /// ```
    pub fn get_position(&self) -> Option<mint::Vector3<f32>> {
        self.position
    }

    /// How a positioned play will be heard (see [`PlayParams::spatial`]).
    ///
    /// ```
    /// use voicepool::{PlayParams, Spatial};
    /// assert_eq!(PlayParams::default().get_spatial(), Spatial::default());
    /// let airy = Spatial { air_absorption: 1.0, ..Spatial::default() };
    /// assert_eq!(PlayParams::default().spatial(airy).get_spatial().air_absorption, 1.0);
    /// ```
    pub fn get_spatial(&self) -> Spatial {
        self.spatial
    }

    /// Whether the voice will go virtual rather than end when it loses its
    /// slot.
    ///
    /// ```
    /// use voicepool::PlayParams;
    /// assert!(!PlayParams::default().get_virtualize());
    /// assert!(PlayParams::default().virtualize(true).get_virtualize());
    /// ```
    pub fn get_virtualize(&self) -> bool {
        self.virtualize
    }
    /// The output frame set by [`PlayParams::start_at`] (0: at once).
    ///
    /// ```
    /// use voicepool::PlayParams;
    /// assert_eq!(PlayParams::default().get_start_at(), 0);
    /// assert_eq!(PlayParams::default().start_at(96_000).get_start_at(), 96_000);
    /// ```
    pub fn get_start_at(&self) -> u64 {
        self.start_at
    }
    /// The group set, if any.
    ///
    /// ```
    /// use voicepool::{EngineSettings, GroupSettings, OfflineEngine, PlayParams};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let guns = engine.create_group(GroupSettings::default())?;
    /// assert_eq!(PlayParams::default().get_group(), None);
    /// assert_eq!(PlayParams::default().group(guns).get_group(), Some(guns));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_group(&self) -> Option<GroupHandle> {
        self.group
    }
    /// The bus set (`None`: the master bus).
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine, PlayParams};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let music = engine.create_bus()?;
    /// assert_eq!(PlayParams::default().get_bus(), None); // the master bus
    /// assert_eq!(PlayParams::default().bus(music).get_bus(), Some(music));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_bus(&self) -> Option<BusHandle> {
        self.bus
    }
    /// The priority set.
    ///
    /// ```
    /// use voicepool::PlayParams;
    /// assert_eq!(PlayParams::default().get_priority(), 128);
    /// assert_eq!(PlayParams::default().priority(255).get_priority(), 255);
    /// ```
    pub fn get_priority(&self) -> u8 {
        self.priority
    }
    /// Whether the voice will be protected from stealing.
    ///
    /// ```
    /// use voicepool::PlayParams;
    /// assert!(!PlayParams::default().is_protected());
    /// assert!(PlayParams::default().protected(true).is_protected());
    /// ```
    pub fn is_protected(&self) -> bool {
        self.protected
    }
}
