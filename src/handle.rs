//! The handles the game holds: [`VoiceHandle`] (one `play` call),
//! [`GroupHandle`] and [`BusHandle`], each carrying the [`EngineId`] of the
//! engine that issued it, so a handle from another engine, or a stale one,
//! names nothing. Plain `Copy` data, safe to send anywhere.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The master bus's index: every engine's bus 0.
pub(crate) const MASTER_BUS: u16 = 0;
/// The group index of a voice in no group.
pub(crate) const NO_GROUP: u16 = u16::MAX;
/// The emitter cell of a play that is not positioned.
pub(crate) const NO_EMITTER: u32 = u32::MAX;

/// Names one `play` call. `Copy + Eq + Hash`; unique per play for the life of
/// the engine, and never equal to a handle of another engine: it carries the
/// id of the engine that issued it (engines are numbered as they are made)
/// beside a 64-bit play id. A handle whose voice has ended or been stolen is
/// *stale*, and a handle from another engine is as stale as that: commands
/// sent with it do nothing and `is_playing` is false for it.
///
/// ```
/// use std::collections::HashMap;
/// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound, VoiceHandle};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
/// let mut owner: HashMap<VoiceHandle, &str> = HashMap::new();
/// owner.insert(engine.play(&blip, PlayParams::default())?, "door");
/// owner.insert(engine.play(&blip, PlayParams::default())?, "lever");
/// engine.render(480);
/// for event in engine.drain_events() {
///     if let Some(voice) = event.voice().filter(|_| event.is_terminal()) {
///         owner.remove(&voice); // the sound is over: forget it
///     }
/// }
/// assert!(owner.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct VoiceHandle {
    engine: u32,
    /// A positioned play's cell in the table of positions, so that moving
    /// it takes no lock and no lookup; [`NO_EMITTER`] otherwise, and in
    /// handles made on the audio side (events). Not part of the handle's
    /// identity: equality, order and hash are the engine's and the id's.
    emitter: u32,
    id: u64,
}

impl VoiceHandle {
    pub(crate) fn new(engine: EngineId, id: u64) -> VoiceHandle {
        VoiceHandle {
            engine: engine.0,
            emitter: NO_EMITTER,
            id,
        }
    }

    /// This handle, knowing its play's cell in the table of positions.
    pub(crate) fn with_emitter(self, emitter: u32) -> VoiceHandle {
        VoiceHandle { emitter, ..self }
    }

    /// Its play's cell in the table of positions, if the handle knows it.
    pub(crate) fn emitter(self) -> Option<u32> {
        (self.emitter != NO_EMITTER).then_some(self.emitter)
    }

    /// A layered cue's play: `layers` voices with the consecutive ids
    /// `first`, `first + 1`, ... (see [`layer_ids`]).
    pub(crate) fn layered(engine: EngineId, first: u64, layers: usize) -> VoiceHandle {
        let extra = (layers.clamp(1, MAX_LAYERS) - 1) as u64;
        VoiceHandle::new(engine, first | extra << LAYER_SHIFT)
    }

    fn key(self) -> (u32, u64) {
        (self.engine, self.id & ID_BITS)
    }

    /// The id of the play call, counting from 1 in the order plays were
    /// issued on its engine.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// # let blip = Sound::from_samples(1, 48_000, vec![0.5; 240])?;
    /// let first = engine.play(&blip, PlayParams::default())?;
    /// let second = engine.play(&blip, PlayParams::default())?;
    /// assert_eq!((first.id(), second.id()), (1, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn id(self) -> u64 {
        self.id & ID_BITS
    }

    /// The play id, if this handle was issued by `engine`.
    pub(crate) fn id_in(self, engine: EngineId) -> Option<u64> {
        (self.engine == engine.0).then_some(self.id & ID_BITS)
    }

    /// The id a command names the play by, if this handle was issued by
    /// `engine`: the play id, and for a layered cue its layer count (see
    /// [`layer_ids`]).
    pub(crate) fn wire_in(self, engine: EngineId) -> Option<u64> {
        (self.engine == engine.0).then_some(self.id)
    }
}

/// The most voices one play (a cue with its layers) may be made of.
pub(crate) const MAX_LAYERS: usize = 16;
/// A command's id: the play id in the low bits, and above them the number
/// of further layers the play has (0 for a plain play). Play ids never get
/// near 2^56 (a million plays a second for two thousand years).
const LAYER_SHIFT: u32 = 56;
const ID_BITS: u64 = (1 << LAYER_SHIFT) - 1;

/// The voice ids a command's id names: the play's, and for a layered cue
/// those of its other layers, which follow it.
pub(crate) fn layer_ids(wire: u64) -> std::ops::Range<u64> {
    let first = wire & ID_BITS;
    let extra = (wire >> LAYER_SHIFT).min(MAX_LAYERS as u64 - 1);
    first..first + extra + 1
}

impl PartialEq for VoiceHandle {
    fn eq(&self, other: &VoiceHandle) -> bool {
        self.key() == other.key()
    }
}

impl Eq for VoiceHandle {}

impl std::hash::Hash for VoiceHandle {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl PartialOrd for VoiceHandle {
    fn partial_cmp(&self, other: &VoiceHandle) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for VoiceHandle {
    fn cmp(&self, other: &VoiceHandle) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl std::fmt::Debug for VoiceHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoiceHandle")
            .field("engine", &self.engine)
            .field("id", &self.id())
            .finish()
    }
}

/// Which engine a handle belongs to: a process-wide number given to each
/// engine as it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EngineId(u32);

impl EngineId {
    /// The next engine's number. (After 2^32 engines in one process the
    /// numbers repeat; a handle kept across that many engines could then
    /// match again.)
    pub(crate) fn next() -> EngineId {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        EngineId(NEXT.fetch_add(1, Relaxed))
    }
}

/// Names a group of voices made by `create_group` (an instance limit, a
/// policy for a full group, a retrigger interval). `Copy + Eq + Hash`; only
/// valid on the engine that made it: with another engine's group, `play`
/// returns [`crate::PlayError::ForeignHandle`].
///
/// ```
/// use voicepool::{EngineSettings, GroupSettings, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let guns = engine.create_group(GroupSettings { max_voices: 4, ..Default::default() })?;
/// let shot = Sound::from_samples(1, 48_000, vec![0.5; 4_800])?;
/// engine.play(&shot, PlayParams::default().group(guns))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupHandle {
    engine: u32,
    index: u16,
}

impl GroupHandle {
    pub(crate) fn new(engine: EngineId, index: u16) -> GroupHandle {
        GroupHandle {
            engine: engine.0,
            index,
        }
    }

    /// The group's number on its engine, counting from 0 in the order the
    /// groups were created.
    ///
    /// ```
    /// use voicepool::{EngineSettings, GroupSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let guns = engine.create_group(GroupSettings::default())?;
    /// let steps = engine.create_group(GroupSettings::default())?;
    /// assert_eq!((guns.index(), steps.index()), (0, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn index(self) -> u16 {
        self.index
    }

    /// The group's index, if this handle was issued by `engine`.
    pub(crate) fn index_in(self, engine: EngineId) -> Option<u16> {
        (self.engine == engine.0).then_some(self.index)
    }
}

/// Names a bus: a volume (with fades) and a pause switch shared by the
/// voices that play on it. Every engine has a master bus
/// ([`crate::Controller::master_bus`]), which every other bus feeds; more are
/// made with `create_bus`. `Copy + Eq + Hash`; a bus of another engine does
/// nothing on this one (and `play` refuses it with
/// [`crate::PlayError::ForeignHandle`]).
///
/// ```
/// use std::time::Duration;
/// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let music = engine.create_bus()?;
/// let song = Sound::from_samples(1, 48_000, vec![0.5; 48_000])?;
/// engine.play(&song, PlayParams::default().bus(music).looping(true))?;
/// engine.set_bus_volume(music, 0.5, Duration::from_millis(200))?;
/// assert_ne!(music, engine.master_bus());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BusHandle {
    engine: u32,
    index: u16,
}

impl BusHandle {
    pub(crate) fn new(engine: EngineId, index: u16) -> BusHandle {
        BusHandle {
            engine: engine.0,
            index,
        }
    }

    /// The bus's number on its engine: 0 for the master bus, then 1, 2, ...
    /// in the order buses were created.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// let music = engine.create_bus()?;
    /// assert_eq!((engine.master_bus().index(), music.index()), (0, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn index(self) -> u16 {
        self.index
    }

    pub(crate) fn engine(self) -> u32 {
        self.engine
    }

    /// Whether this is its engine's master bus.
    ///
    /// ```
    /// use voicepool::{EngineSettings, OfflineEngine};
    /// let engine = OfflineEngine::new(EngineSettings::default())?;
    /// assert!(engine.master_bus().is_master());
    /// assert!(!engine.create_bus()?.is_master());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_master(self) -> bool {
        self.index == MASTER_BUS
    }

    /// The bus's index, if this handle was issued by `engine`.
    pub(crate) fn index_in(self, engine: EngineId) -> Option<u16> {
        (self.engine == engine.0).then_some(self.index)
    }
}

/// Names a parameter made by `create_param`: a game value (a car's speed,
/// a health level, the time of day) that cues map to volume, pitch, a
/// low-pass or a send. `Copy`; it carries the id of the engine that made
/// it, so a parameter of another engine is an error wherever it is given.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let speed = engine.create_param("speed", 0.0)?;
/// assert_eq!(speed.index(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamHandle {
    engine: u32,
    index: u16,
}

impl ParamHandle {
    pub(crate) fn new(engine: EngineId, index: u16) -> ParamHandle {
        ParamHandle {
            engine: engine.0,
            index,
        }
    }

    /// Its index among the engine's parameters, counting from 0 in the
    /// order they were made.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// engine.create_param("speed", 0.0)?;
    /// assert_eq!(engine.create_param("load", 0.0)?.index(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn index(self) -> u16 {
        self.index
    }

    /// The engine that made it (its number).
    pub(crate) fn engine(self) -> u32 {
        self.engine
    }

    pub(crate) fn index_in(self, engine: EngineId) -> Option<u16> {
        (self.engine == engine.0).then_some(self.index)
    }
}

impl EngineId {
    /// Its number, as handles carry it.
    pub(crate) fn number(self) -> u32 {
        self.0
    }
}

/// Names a snapshot made by `create_snapshot`. `Copy`; it carries the id
/// of the engine that made it: one of another engine is
/// [`crate::PlayError::ForeignHandle`] wherever it is given.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, Snapshot};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let quiet = engine.create_snapshot(Snapshot::new().bus_volume(engine.master_bus(), 0.5))?;
/// assert_eq!(quiet.index(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SnapshotHandle {
    engine: u32,
    index: u16,
}

impl SnapshotHandle {
    pub(crate) fn new(engine: EngineId, index: u16) -> SnapshotHandle {
        SnapshotHandle {
            engine: engine.0,
            index,
        }
    }

    /// Its index among the engine's snapshots, from 0 in the order they
    /// were made.
    ///
    /// ```
    /// # use voicepool::{EngineSettings, OfflineEngine, Snapshot};
    /// # let engine = OfflineEngine::new(EngineSettings::default())?;
    /// engine.create_snapshot(Snapshot::new())?;
    /// assert_eq!(engine.create_snapshot(Snapshot::new())?.index(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn index(self) -> u16 {
        self.index
    }

    pub(crate) fn index_in(self, engine: EngineId) -> Option<u16> {
        (self.engine == engine.0).then_some(self.index)
    }
}
