//! Opening a device: the host and device by name, a config the engine can
//! write, the stream with its callbacks. Runs on the output thread only
//! (it allocates, and may block while a host answers).

use std::sync::Arc;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SizedSample};

use super::side::{AudioSide, Slot, StreamFlags};
use super::{DeviceSampleFormat, StreamInfo, MAX_BLOCK_FRAMES, MIN_BLOCK_FRAMES};
use crate::control::settings::EngineSettings;
use crate::error::EngineError;
use crate::protocol::stats::Counters;

/// A device and the config to open it with.
pub(super) struct Probe {
    device: cpal::Device,
    pub(super) name: String,
    config: cpal::SupportedStreamConfig,
    format: DeviceSampleFormat,
}

impl Probe {
    pub(super) fn rate(&self) -> u32 {
        self.config.sample_rate().0
    }
}

/// Why no device could be probed.
pub(super) enum ProbeError {
    /// No host, no device, or it cannot be opened.
    Engine(EngineError),
    /// The device is there but does not offer the rate asked for.
    Rate,
}

impl From<EngineError> for ProbeError {
    fn from(e: EngineError) -> Self {
        ProbeError::Engine(e)
    }
}

/// A stream that runs, with what its callbacks share.
pub(super) struct Live {
    pub(super) stream: cpal::Stream,
    pub(super) slot: Arc<Slot>,
    pub(super) flags: Arc<StreamFlags>,
    pub(super) info: StreamInfo,
}

/// Finds the host, the device ([`EngineSettings::device`] or the default)
/// and a config: at `rate` if given (the device must offer it), else at the
/// device's default rate.
pub(super) fn probe(settings: &EngineSettings, rate: Option<u32>) -> Result<Probe, ProbeError> {
    let host = find_host(settings.host.as_deref())?;
    let (device, name) =
        find_device(&host, settings.device.as_deref()).map_err(|e| advise(&host, e))?;
    let (config, format) = choose_config(&device, &name, rate).map_err(|e| match e {
        ProbeError::Engine(e) => ProbeError::Engine(advise(&host, e)),
        rate => rate,
    })?;
    if config.channels() == 0 {
        return Err(EngineError::Device(format!(
            "{name:?}: the device's default config has 0 channels"
        ))
        .into());
    }
    Ok(Probe {
        device,
        name,
        config,
        format,
    })
}

/// Opens and starts the stream `probe` describes with `side` in its data
/// callback. On failure the side comes back with the error (`None` only if
/// a host kept a failed stream's callback running, which none does).
pub(super) fn start(
    probe: &Probe,
    settings: &EngineSettings,
    mut side: Box<AudioSide>,
) -> Result<Live, (EngineError, Option<Box<AudioSide>>)> {
    let sample_rate = probe.rate();
    let channels = probe.config.channels();
    let fixed = settings
        .buffer_frames
        .map(|n| match probe.config.buffer_size() {
            cpal::SupportedBufferSize::Range { min, max } => n.clamp(*min, (*max).max(*min)),
            cpal::SupportedBufferSize::Unknown => n,
        });
    let mut last_error = String::new();
    // Try the fixed size asked for, then the device's default.
    let attempts: &[Option<u32>] = match fixed {
        Some(_) => &[fixed, None],
        None => &[None],
    };
    for &buffer_frames in attempts {
        let max_block_frames = buffer_frames
            .map_or(sample_rate as usize / 5, |n| n as usize)
            .clamp(MIN_BLOCK_FRAMES, MAX_BLOCK_FRAMES);
        if side.scratch.len() != max_block_frames * 2 {
            side.scratch = vec![0.0; max_block_frames * 2].into_boxed_slice();
        }
        side.channels = usize::from(channels);
        side.rate = sample_rate;
        let config = cpal::StreamConfig {
            channels,
            sample_rate: probe.config.sample_rate(),
            buffer_size: buffer_frames.map_or(cpal::BufferSize::Default, cpal::BufferSize::Fixed),
        };
        let counters = Arc::clone(&side.counters);
        let slot = Slot::new(side);
        let flags = Arc::new(StreamFlags::default());
        let built = match probe.format {
            DeviceSampleFormat::F32 => build::<f32>(probe, &config, &slot, &flags, counters),
            DeviceSampleFormat::I16 => build::<i16>(probe, &config, &slot, &flags, counters),
            DeviceSampleFormat::U16 => build::<u16>(probe, &config, &slot, &flags, counters),
        };
        let error = match built.map(|s| s.play().map(|()| s)) {
            Ok(Ok(stream)) => {
                let info = StreamInfo {
                    device: probe.name.clone(),
                    sample_rate,
                    channels,
                    sample_format: probe.format,
                    buffer_frames,
                    max_block_frames,
                };
                return Ok(Live {
                    stream,
                    slot,
                    flags,
                    info,
                });
            }
            Ok(Err(e)) => format!("cannot start the stream: {e}"),
            Err(e) => match buffer_frames {
                Some(n) => format!("with a buffer of {n} frames: {e}"),
                None => format!("with the device's default buffer: {e}"),
            },
        };
        last_error = error;
        // A failed build dropped its callbacks here; a stream that would not
        // start is dropped by now. Either way the side is in the slot.
        match slot.take(std::time::Duration::from_secs(5)) {
            Some(back) => side = back,
            None => {
                let e = format!(
                    "{:?}: {last_error} (and it kept the audio side)",
                    probe.name
                );
                return Err((EngineError::Device(e), None));
            }
        }
    }
    Err((
        EngineError::Device(format!(
            "{:?}: cannot open a {channels}-channel {:?} stream at {sample_rate} Hz {last_error}",
            probe.name, probe.format
        )),
        Some(side),
    ))
}

fn build<T>(
    probe: &Probe,
    config: &cpal::StreamConfig,
    slot: &Arc<Slot>,
    flags: &Arc<StreamFlags>,
    counters: Arc<Counters>,
) -> Result<cpal::Stream, cpal::BuildStreamError>
where
    T: SizedSample + FromSample<f32>,
{
    let slot = Arc::clone(slot);
    let flags = Arc::clone(flags);
    probe.device.build_output_stream::<T, _, _>(
        config,
        move |out: &mut [T], _: &cpal::OutputCallbackInfo| slot.fill(out),
        move |err| flags.report(&err, &counters),
        None,
    )
}

/// The host named `name` (cpal's name for it, any case), or the default.
fn find_host(name: Option<&str>) -> Result<cpal::Host, EngineError> {
    let Some(name) = name else {
        return Ok(cpal::default_host());
    };
    let hosts = cpal::available_hosts();
    let Some(id) = hosts.iter().find(|h| h.name().eq_ignore_ascii_case(name)) else {
        let there: Vec<&str> = hosts.iter().map(|h| h.name()).collect();
        return Err(EngineError::NoDevice(format!(
            "no audio host named {name:?} (hosts here: {}; JACK needs voicepool's `jack` feature)",
            there.join(", ")
        )));
    };
    cpal::host_from_id(*id)
        .map_err(|e| EngineError::NoDevice(format!("the {} host is unavailable: {e}", id.name())))
}

/// The device named `name`, or the host's default output device.
fn find_device(
    host: &cpal::Host,
    name: Option<&str>,
) -> Result<(cpal::Device, String), EngineError> {
    let Some(name) = name else {
        let device = host.default_output_device().ok_or_else(|| {
            EngineError::NoDevice(format!(
                "the {} host has no default output device",
                host.id().name()
            ))
        })?;
        let name = device.name().unwrap_or_else(|_| "default".into());
        return Ok((device, name));
    };
    let devices = host.output_devices().map_err(|e| {
        EngineError::NoDevice(format!("cannot list output devices to find {name:?}: {e}"))
    })?;
    for device in devices {
        match device.name() {
            Ok(n) if n == name => return Ok((device, n)),
            _ => {}
        }
    }
    // `advise` adds the names that were there.
    Err(EngineError::NoDevice(format!(
        "no output device named {name:?}"
    )))
}

/// At `want` (if given) or else the device's default rate: the device's
/// default config if its rate and format fit; otherwise the best config
/// at that rate in a format voicepool writes.
fn choose_config(
    device: &cpal::Device,
    name: &str,
    want: Option<u32>,
) -> Result<(cpal::SupportedStreamConfig, DeviceSampleFormat), ProbeError> {
    let default = device.default_output_config().map_err(|e| {
        let why = match e {
            cpal::DefaultStreamConfigError::DeviceNotAvailable => {
                "it does not exist or is in use".to_string()
            }
            cpal::DefaultStreamConfigError::StreamTypeNotSupported => {
                "it cannot be opened for output".to_string()
            }
            cpal::DefaultStreamConfigError::BackendSpecific { err } => err.to_string(),
        };
        EngineError::NoDevice(format!("output device {name:?} cannot be opened: {why}"))
    })?;
    let rate = want.map_or(default.sample_rate(), cpal::SampleRate);
    if default.sample_rate() == rate {
        if let Some(format) = DeviceSampleFormat::from_cpal(default.sample_format()) {
            return Ok((default, format));
        }
    }
    let rank = |f: DeviceSampleFormat| match f {
        DeviceSampleFormat::F32 => 2,
        DeviceSampleFormat::I16 => 1,
        DeviceSampleFormat::U16 => 0,
    };
    let configs: Vec<cpal::SupportedStreamConfigRange> = device
        .supported_output_configs()
        .map_err(|e| EngineError::Device(format!("{name:?}: cannot list its configs: {e}")))?
        .collect();
    let at_rate = || {
        configs
            .iter()
            .filter(|c| c.min_sample_rate() <= rate && rate <= c.max_sample_rate())
    };
    let best = at_rate()
        .filter_map(|c| DeviceSampleFormat::from_cpal(c.sample_format()).map(|f| (c, f)))
        .max_by_key(|(c, f)| {
            (
                c.channels() == default.channels(),
                c.channels() == 2,
                rank(*f),
            )
        })
        .map(|(c, f)| (c.with_sample_rate(rate), f));
    match best {
        Some(found) => Ok(found),
        None if want.is_some() && at_rate().next().is_none() => Err(ProbeError::Rate),
        None => Err(EngineError::Device(format!(
            "{name:?} offers no f32, i16 or u16 output at {} Hz (its default format is {})",
            rate.0,
            default.sample_format()
        ))
        .into()),
    }
}

/// Adds to a [`EngineError::NoDevice`] what was seen and what to do about
/// it: the output devices the host lists (or that it lists none), and the
/// ways on (render with [`crate::OfflineEngine`], or fix the audio set-up).
/// Other errors pass through unchanged.
fn advise(host: &cpal::Host, error: EngineError) -> EngineError {
    let EngineError::NoDevice(reason) = error else {
        return error;
    };
    let seen = match host.output_devices() {
        Ok(devices) => {
            let names: Vec<String> = devices.filter_map(|d| d.name().ok()).collect();
            if names.is_empty() {
                "no output devices were found".to_string()
            } else {
                format!("output devices seen: {}", names.join(", "))
            }
        }
        Err(e) => format!("no output devices were found (cannot list them: {e})"),
    };
    let check = if cfg!(target_os = "linux") {
        "check that a sound server (PipeWire, PulseAudio) is running, or the ALSA \
         configuration (~/.asoundrc, /etc/asound.conf)"
    } else {
        "check the system's sound output settings"
    };
    EngineError::NoDevice(format!(
        "{reason}; {seen}; to render without a device use OfflineEngine; to play, {check}"
    ))
}

/// While alive, alsa-lib prints none of its error messages on this thread
/// (Linux only; elsewhere it does nothing).
///
/// It sets alsa-lib's thread-local error handler
/// (`snd_lib_error_set_local`, alsa-lib 1.1.6 and later) to one that drops
/// the message, and puts back the one it replaced when dropped. The
/// thread-local handler is consulted by alsa-lib's default handler only, so
/// a program that installed its own global handler
/// (`snd_lib_error_set_handler`) keeps getting every message, and other
/// threads' messages are untouched. (The global setter cannot be used the
/// same way: it does not return the handler it replaces, so it could only be
/// reset to alsa-lib's default afterwards, overriding the program's own.)
/// cpal probes and opens devices on the calling thread, the output thread,
/// which holds one of these for its whole life.
#[cfg(target_os = "linux")]
pub(super) struct QuietAlsa {
    previous: alsa_sys::snd_local_error_handler_t,
}

#[cfg(target_os = "linux")]
impl QuietAlsa {
    pub(super) fn new() -> QuietAlsa {
        /// Drops alsa-lib's message (and its `va_list`, left untouched).
        unsafe extern "C" fn drop_message(
            _file: *const std::ffi::c_char,
            _line: std::ffi::c_int,
            _function: *const std::ffi::c_char,
            _err: std::ffi::c_int,
            _fmt: *const std::ffi::c_char,
            _args: *mut alsa_sys::__va_list_tag,
        ) {
        }
        // SAFETY: sets a thread-local pointer inside alsa-lib; the handler
        // reads none of its arguments and is valid for the whole program.
        let previous = unsafe { alsa_sys::snd_lib_error_set_local(Some(drop_message)) };
        QuietAlsa { previous }
    }
}

#[cfg(target_os = "linux")]
impl Drop for QuietAlsa {
    fn drop(&mut self) {
        // SAFETY: puts back the handler alsa-lib returned on this thread
        // (`None`, alsa-lib's own printing, unless someone had set one).
        unsafe { alsa_sys::snd_lib_error_set_local(self.previous) };
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) struct QuietAlsa;

#[cfg(not(target_os = "linux"))]
impl QuietAlsa {
    pub(super) fn new() -> QuietAlsa {
        QuietAlsa
    }
}
