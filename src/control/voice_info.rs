//! What each play plays, kept on the game side so a game can name the
//! voices in its events ("footstep stolen by gunshot") without a map of its
//! own: [`VoiceInfo`], from [`crate::Controller::voice_info`].

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::protocol::{BusHandle, EngineId, GroupHandle, NO_GROUP};

/// What a play plays: its sound's name, its group and its bus.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine, PlayParams, Sound};
/// let mut engine = OfflineEngine::new(EngineSettings::default())?;
/// let step = Sound::from_samples(1, 48_000, vec![0.3; 480])?.with_name("footstep");
/// let h = engine.play(&step, PlayParams::default())?;
/// let info = engine.voice_info(h).unwrap();
/// assert_eq!(&*info.sound_name, "footstep");
/// assert_eq!(info.bus, engine.master_bus());
/// assert_eq!(info.group, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VoiceInfo {
    /// The sound's name ([`crate::Sound::name`]).
    pub sound_name: Arc<str>,
    /// The group it was played in, if any.
    pub group: Option<GroupHandle>,
    /// The bus it plays on (the master bus unless another was given).
    pub bus: BusHandle,
}

/// A map keyed by play id. Ids are handed out by the engine (a counter),
/// never chosen by anyone who could aim at collisions, so a multiply-fold
/// hash does: a few instructions where the standard SipHash takes a few
/// dozen on every `set_volume`, `play` and event pumped.
pub(crate) type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// Heap bytes of an [`IdMap`] whose `capacity()` is `capacity`, as
/// hashbrown lays it out: a power of two of buckets of which 7/8 are
/// usable (all but one below 8), an entry and a control byte each, and a
/// group's width of control bytes more.
pub(crate) fn id_map_bytes<V>(capacity: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = if capacity < 8 {
        capacity + 1
    } else {
        capacity / 7 * 8
    }
    .next_power_of_two();
    buckets * (std::mem::size_of::<(u64, V)>() + 1) + 16
}

/// [`IdMap`]'s hasher: Fibonacci hashing of the id, folded so that both
/// the low bits (the bucket) and the high bits (the tag) vary with it.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed; anything else still hashes, slowly.
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, id: u64) {
        let x = (self.0 ^ id).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 32);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The game side's record of one play.
#[derive(Clone, Debug)]
pub(crate) struct PlayInfo {
    pub(crate) name: Arc<str>,
    pub(crate) group: u16,
    pub(crate) bus: u16,
    /// The sound's rate (a seek's position is in its frames) and whether
    /// the play loops.
    pub(crate) rate: u32,
    pub(crate) looping: bool,
    /// For a streamed play: its stream slot and what it streams.
    pub(crate) stream: Option<(usize, Arc<crate::stream::source::StreamSource>)>,
    /// `stop` was sent for it: no longer playing for the game.
    pub(crate) stopping: bool,
    /// Its cell in the table of positions, or `NO_EMITTER`.
    pub(crate) emitter: u32,
    /// Factors on every volume and pitch the game gives it (a cue's
    /// drawn level and pitch; 1 for a plain play).
    pub(crate) scale: (f32, f32),
}

impl PlayInfo {
    pub(crate) fn public(&self, engine: EngineId) -> VoiceInfo {
        VoiceInfo::of(engine, &self.name, self.group, self.bus)
    }
}

impl VoiceInfo {
    fn of(engine: EngineId, name: &Arc<str>, group: u16, bus: u16) -> VoiceInfo {
        VoiceInfo {
            sound_name: Arc::clone(name),
            group: (group != NO_GROUP).then(|| GroupHandle::new(engine, group)),
            bus: BusHandle::new(engine, bus),
        }
    }
}

/// What is kept of a play once it is over: what [`VoiceInfo`] tells (a
/// third of a [`PlayInfo`]'s size; one is kept for every play an event
/// may still name).
#[derive(Clone, Debug)]
pub(crate) struct EndedInfo {
    name: Arc<str>,
    group: u16,
    bus: u16,
}

impl EndedInfo {
    pub(crate) fn public(&self, engine: EngineId) -> VoiceInfo {
        VoiceInfo::of(engine, &self.name, self.group, self.bus)
    }
}

/// The records of the most recently ended plays, as many as the event
/// backlog holds: every voice named in an event still waiting to be read,
/// or just read, can be looked up. Sized at start; never grows.
pub(crate) struct Retired {
    infos: IdMap<EndedInfo>,
    order: VecDeque<u64>,
    capacity: usize,
    /// Heap bytes allocated at start (`HashMap::capacity` drifts with
    /// removals, the allocation does not).
    bytes: usize,
}

impl Retired {
    pub(crate) fn new(capacity: usize) -> Retired {
        use std::mem::size_of;
        let infos = IdMap::with_capacity_and_hasher(capacity + 1, Default::default());
        let order = VecDeque::with_capacity(capacity + 1);
        let bytes =
            id_map_bytes::<EndedInfo>(infos.capacity()) + order.capacity() * size_of::<u64>();
        Retired {
            infos,
            order,
            capacity,
            bytes,
        }
    }

    pub(crate) fn push(&mut self, id: u64, info: PlayInfo) {
        if self.order.len() >= self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.infos.remove(&old);
            }
        }
        self.order.push_back(id);
        let ended = EndedInfo {
            name: info.name,
            group: info.group,
            bus: info.bus,
        };
        self.infos.insert(id, ended);
    }

    pub(crate) fn get(&self, id: u64) -> Option<&EndedInfo> {
        self.infos.get(&id)
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.bytes
    }
}
