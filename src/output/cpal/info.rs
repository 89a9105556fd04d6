//! What a live engine opened: [`StreamInfo`] and the sample formats it
//! writes ([`DeviceSampleFormat`]).

/// The sample formats voicepool writes to a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceSampleFormat {
    /// 32-bit float, -1.0 to 1.0.
    F32,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 16-bit integer (silence is 32768).
    U16,
}

impl DeviceSampleFormat {
    #[cfg(not(web))]
    pub(super) fn from_cpal(format: cpal::SampleFormat) -> Option<Self> {
        match format {
            cpal::SampleFormat::F32 => Some(DeviceSampleFormat::F32),
            cpal::SampleFormat::I16 => Some(DeviceSampleFormat::I16),
            cpal::SampleFormat::U16 => Some(DeviceSampleFormat::U16),
            _ => None,
        }
    }
}

/// What [`crate::AudioEngine::start`] opened.
///
/// ```no_run
/// use voicepool::{AudioEngine, EngineSettings, StreamInfo};
/// let engine = AudioEngine::start(EngineSettings { buffer_frames: Some(256), ..Default::default() })?;
/// let StreamInfo { device, sample_rate, buffer_frames, .. } = engine.info();
/// match buffer_frames {
///     Some(n) => println!("{device}: {n}-frame buffers at {sample_rate} Hz"),
///     None => println!("{device}: the device's default buffer at {sample_rate} Hz"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamInfo {
    /// The device's name as the host reports it.
    pub device: String,
    /// The stream's rate in Hz: the device's default rate when the engine
    /// started, which the mixer renders at for its whole life (a device
    /// reopened after a loss runs at it too).
    pub sample_rate: u32,
    /// Channels the device is written with (stereo goes to the first two;
    /// mono gets a downmix).
    pub channels: u16,
    /// The sample format written.
    pub sample_format: DeviceSampleFormat,
    /// The fixed buffer size asked of the device, in frames, or `None` for
    /// the device's default (also when a fixed size was asked for in the
    /// settings and the device refused it).
    pub buffer_frames: Option<u32>,
    /// The largest block rendered in one go; bigger device requests are
    /// rendered in chunks of this size. It is the buffer size asked for, or
    /// 200 ms at the stream's rate for the device default, within
    /// [`super::MIN_BLOCK_FRAMES`]`..=`[`super::MAX_BLOCK_FRAMES`].
    pub max_block_frames: usize,
}
