//! The game-side calls every engine type answers itself: [`Engine`],
//! [`crate::AudioEngine`] and [`crate::OfflineEngine`] each list them in
//! their own docs (not behind `Deref`). Each is the [`Controller`] call of
//! the same name, which has the details and an example; the engine types
//! pass the call on to their controller, inlined.
//!
//! [`Engine`]: super::Engine
//! [`Controller`]: super::Controller

/// The [`super::Controller`] calls, for an `impl` block of a type with a
/// `fn controller_ref(&self) -> &Controller`.
macro_rules! controller_calls {
    () => {
        $crate::control::calls::controller_calls! {@each
            /// Starts `sound`, stealing a voice if the pool is full.
            fn play(sound: &$crate::Sound, params: $crate::PlayParams) -> Result<$crate::VoiceHandle, $crate::PlayError>;
            /// Plays a cue: its variation picked and varied, its layers with it, under one handle.
            fn play_cue(cue: &$crate::Cue, params: $crate::PlayParams) -> Result<$crate::VoiceHandle, $crate::PlayError>;
            /// Makes a parameter (a game value cues map to volume, pitch or a low-pass).
            fn create_param(name: &str, value: f32) -> Result<$crate::ParamHandle, $crate::PlayError>;
            /// The parameter of this name, if the engine has made one.
            fn param_named(name: &str) -> Option<$crate::ParamHandle>;
            /// How many parameters the engine has made.
            fn param_count() -> usize;
            /// Reads a sound bank (cues, parameters, snapshots) and its sounds, and builds it.
            #[cfg(feature = "bank")]
            fn load_bank(path: impl AsRef<std::path::Path>, buses: &[(&str, $crate::BusHandle)]) -> Result<$crate::Bank, $crate::BankError>;
            /// Sets a parameter for every play mapping it, gliding over `glide`.
            fn set_param(param: $crate::ParamHandle, value: f32, glide: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Sets a parameter for one play alone, gliding over `glide`.
            fn set_play_param(voice: $crate::VoiceHandle, param: $crate::ParamHandle, value: f32, glide: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Makes a snapshot: a mix state of bus volumes and effect parameters.
            fn create_snapshot(snapshot: $crate::Snapshot) -> Result<$crate::SnapshotHandle, $crate::PlayError>;
            /// Blends the mix into a snapshot over `fade`.
            fn start_snapshot(snapshot: $crate::SnapshotHandle, fade: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Blends the mix out of a snapshot over `fade`.
            fn stop_snapshot(snapshot: $crate::SnapshotHandle, fade: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Frames the audio side has rendered: the clock `PlayParams::start_at` counts on.
            fn clock() -> u64;
            /// Stops a voice with the engine's stop fade.
            fn stop(voice: $crate::VoiceHandle) -> Result<(), $crate::PlayError>;
            /// Stops every voice.
            fn stop_all() -> Result<(), $crate::PlayError>;
            /// Sets a voice's volume, ramped over the engine's parameter ramp.
            fn set_volume(voice: $crate::VoiceHandle, volume: f32) -> Result<(), $crate::PlayError>;
            /// Sets a voice's pan.
            fn set_pan(voice: $crate::VoiceHandle, pan: f32) -> Result<(), $crate::PlayError>;
            /// Sets a voice's pitch (playback-rate factor).
            fn set_pitch(voice: $crate::VoiceHandle, pitch: f32) -> Result<(), $crate::PlayError>;
            /// Pauses one voice; it keeps its slot and position.
            fn pause(voice: $crate::VoiceHandle) -> Result<(), $crate::PlayError>;
            /// Resumes a paused voice.
            fn resume(voice: $crate::VoiceHandle) -> Result<(), $crate::PlayError>;
            /// Stops a voice with a fade of its own length.
            fn stop_with_fade(voice: $crate::VoiceHandle, fade: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Fades a voice's volume to `volume` over exactly `fade`.
            fn fade_volume(voice: $crate::VoiceHandle, volume: f32, fade: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// What a handle plays: its sound's name, group and bus.
            fn voice_info(voice: $crate::VoiceHandle) -> Option<$crate::VoiceInfo>;
            /// Moves a positioned play (and sets its velocity).
            fn set_position(voice: $crate::VoiceHandle, position: impl Into<mint::Vector3<f32>>, velocity: impl Into<mint::Vector3<f32>>) -> Result<(), $crate::PlayError>;
            /// Turns a positioned play (for its cone).
            fn set_orientation(voice: $crate::VoiceHandle, orientation: impl Into<mint::Vector3<f32>>) -> Result<(), $crate::PlayError>;
            /// Sets what stands between a positioned play and the listener.
            fn set_occlusion(voice: $crate::VoiceHandle, occlusion: $crate::Occlusion) -> Result<(), $crate::PlayError>;
            /// Where the listener is, faces and moves.
            fn set_listener(listener: $crate::Listener) -> Result<(), $crate::PlayError>;
            /// Moves a play to `position` in its sound.
            fn seek(voice: $crate::VoiceHandle, position: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Makes a group with an instance limit, a policy and a retrigger interval.
            fn create_group(settings: $crate::GroupSettings) -> Result<$crate::GroupHandle, $crate::PlayError>;
            /// Makes a plain bus feeding the master.
            fn create_bus() -> Result<$crate::BusHandle, $crate::PlayError>;
            /// Makes a bus with effects, a parent and a duck.
            fn create_bus_with(settings: $crate::BusSettings) -> Result<$crate::BusHandle, $crate::PlayError>;
            /// The master bus.
            fn master_bus() -> $crate::BusHandle;
            /// Fades a bus's volume to `volume` over `fade`.
            fn set_bus_volume(bus: $crate::BusHandle, volume: f32, fade: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Fades the master volume to `volume` over `fade`.
            fn set_master_volume(volume: f32, fade: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// Pauses a bus and every voice on it.
            fn pause_bus(bus: $crate::BusHandle) -> Result<(), $crate::PlayError>;
            /// Resumes a paused bus.
            fn resume_bus(bus: $crate::BusHandle) -> Result<(), $crate::PlayError>;
            /// The filter at `index` among `bus`'s effects, to set its cutoff.
            fn filter(bus: $crate::BusHandle, index: usize) -> Result<$crate::FilterHandle, $crate::PlayError>;
            /// The reverb at `index` among `bus`'s effects.
            fn reverb(bus: $crate::BusHandle, index: usize) -> Result<$crate::ReverbHandle, $crate::PlayError>;
            /// The game's own effect at `index` among `bus`'s effects.
            fn custom_effect(bus: $crate::BusHandle, index: usize) -> Result<$crate::CustomEffectHandle, $crate::PlayError>;
            /// Glides a parameter of effect `index` of `bus`.
            fn set_effect_param(bus: $crate::BusHandle, index: usize, param: $crate::EffectParam, glide: std::time::Duration) -> Result<(), $crate::PlayError>;
            /// The engine's counters now.
            fn stats() -> $crate::Stats;
            /// A bus's peak and duck gain, as of the last block.
            fn bus_meter(bus: $crate::BusHandle) -> Option<$crate::BusMeter>;
            /// Every voice slot: what it plays and how much it is worth hearing.
            fn slots() -> Vec<$crate::SlotView>;
            /// The virtual voices, as last published.
            fn virtual_slots() -> Vec<$crate::SlotView>;
        }
        $crate::control::calls::controller_calls! {@hooks
            fn refuse_stream_loader_thread(refuse: bool);
            fn panic_next_stream_decode();
        }
    };
    (@each $(#[doc = $doc:literal] $(#[cfg($cfg:meta)])? fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(
            $(#[cfg($cfg)])?
            #[doc = $doc]
            #[doc = ""]
            #[doc = concat!(
                "The same call as [`Controller::", stringify!($name),
                "`](crate::Controller::", stringify!($name),
                "), which has the details and the errors."
            )]
            #[inline]
            pub fn $name(&self $(, $arg: $ty)*) -> $ret {
                self.controller_ref().$name($($arg),*)
            }
        )*
    };
    (@hooks $(fn $name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[cfg(feature = "hooks")]
            #[doc(hidden)]
            #[inline]
            pub fn $name(&self $(, $arg: $ty)*) {
                self.controller_ref().$name($($arg),*)
            }
        )*
    };
}

/// The [`super::Engine`] calls, for an `impl` block of a type that holds
/// its `Engine` in a field `engine` (the output engines), with the
/// accessors both macros use.
macro_rules! engine_calls {
    () => {
        fn controller_ref(&self) -> &$crate::Controller {
            &self.engine.controller
        }

        fn engine_ref(&self) -> &$crate::Engine {
            &self.engine
        }

        /// The game side this engine drives: the [`Engine`](crate::Engine)
        /// every engine type shares, for code that takes either kind of
        /// engine (a game's own output switch, say).
        ///
        /// ```
        /// use voicepool::{Engine, EngineSettings, OfflineEngine};
        /// fn voices_busy(engine: &Engine) -> usize {
        ///     engine.stats().active_voices
        /// }
        /// let engine = OfflineEngine::new(EngineSettings::default())?;
        /// assert_eq!(voices_busy(engine.engine()), 0);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline]
        pub fn engine(&self) -> &$crate::Engine {
            &self.engine
        }

        /// As [`engine`](Self::engine), to read events through it.
        #[inline]
        pub fn engine_mut(&mut self) -> &mut $crate::Engine {
            &mut self.engine
        }

        /// A [`Controller`](crate::Controller) for this engine: `Clone +
        /// Send + Sync`, for playing and setting from other threads.
        ///
        /// The same call as [`Engine::controller`](crate::Engine::controller).
        #[inline]
        pub fn controller(&self) -> $crate::Controller {
            self.engine_ref().controller()
        }

        /// Whether a play is still going: true from `play` until its
        /// terminal event is known here, false at once after `stop`.
        ///
        /// The same call as [`Engine::is_playing`](crate::Engine::is_playing),
        /// which has the details.
        #[inline]
        pub fn is_playing(&self, voice: $crate::VoiceHandle) -> bool {
            self.engine_ref().is_playing(voice)
        }

        /// Takes the events the audio side has reported since the last call.
        ///
        /// The same call as [`Engine::drain_events`](crate::Engine::drain_events),
        /// which has the details and an example.
        #[inline]
        pub fn drain_events(&mut self) -> impl Iterator<Item = $crate::Event> {
            self.engine_mut().drain_events()
        }

        /// As `drain_events`, with the output frame of each event.
        ///
        /// The same call as
        /// [`Engine::drain_timed_events`](crate::Engine::drain_timed_events),
        /// which has the details and an example.
        #[inline]
        pub fn drain_timed_events(&mut self) -> Vec<$crate::TimedEvent> {
            self.engine_mut().drain_timed_events()
        }

        #[cfg(feature = "hooks")]
        #[doc(hidden)]
        #[inline]
        pub fn sounds_in_flight(&self) -> usize {
            self.engine_ref().sounds_in_flight()
        }
    };
}

pub(crate) use controller_calls;
pub(crate) use engine_calls;
