//! A `jackd -d dummy` of our own for the paced soak and the JACK tests, and
//! leaving nothing of it behind. JACK keeps its servers in a registry in
//! shared memory (`/dev/shm/jack-shm-registry`) with room for 8; a server
//! that exits cleanly takes its entry out, but one killed with SIGKILL, or
//! orphaned by a test process that died, keeps it, and once 8 are taken no
//! `jackd` starts on that machine again. So: the server dies with the
//! thread that started it ([`crate::jack::storm::die_with_parent`]), and
//! [`clean_up`] ends a server still registered under a name of ours and
//! frees entries (and client semaphores) left by dead ones.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const REGISTRY: &str = "/dev/shm/jack-shm-registry";
/// The registry's layout (jack2's `jack_shm_header_t`): a 24-byte header,
/// then 8 server entries of a pid and a 257-byte name, 264 bytes each.
const SERVERS: usize = 8;
const HEADER: usize = 24;
const ENTRY: usize = 264;

/// A `jackd -d dummy` of our own, under a server name of our own (clients
/// find it through `JACK_DEFAULT_SERVER`). Stopped, by its pid, when
/// dropped.
pub struct Jackd {
    child: Child,
    name: String,
}

impl Jackd {
    /// True if `jackd` can be run here.
    pub fn installed() -> bool {
        Command::new("jackd")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Starts `jackd -n NAME -d dummy -r RATE -p PERIOD` and waits until a
    /// client can connect (`jack_wait -c`), at most 30 s. Entries of dead
    /// servers are freed first.
    pub fn start(name: &str, rate: u32, period: u32) -> Result<Jackd, String> {
        free_dead_entries();
        let child = crate::jack::storm::die_with_parent(
            Command::new("jackd")
                .args(["-n", name, "-d", "dummy", "-r", &rate.to_string()])
                .args(["-p", &period.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        )
        .spawn()
        .map_err(|e| format!("cannot run jackd: {e}"))?;
        let mut server = Jackd {
            child,
            name: name.to_string(),
        };
        let start = Instant::now();
        loop {
            let up = Command::new("jack_wait")
                .args(["-s", name, "-c"])
                .stderr(Stdio::null())
                .output()
                .map_err(|e| format!("cannot run jack_wait: {e}"))?;
            if String::from_utf8_lossy(&up.stdout).trim() == "running" {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("jackd exited: {status}"));
            }
            if start.elapsed() > Duration::from_secs(30) {
                return Err("jackd did not come up in 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server (SIGTERM, by pid, then waits for it to exit): the
    /// device vanishes under its clients, and the server takes its entry
    /// out of the registry.
    pub fn kill(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: signals our own child process, which has not been
            // waited for yet, so its pid cannot have been reused.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let start = Instant::now();
        while let Ok(None) = self.child.try_wait() {
            if start.elapsed() > Duration::from_secs(10) {
                let _ = self.child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.wait();
        free_dead_entries();
        remove_semaphores(&self.name);
    }
}

impl Drop for Jackd {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The servers in JACK's registry: (pid, name). Empty where there is no
/// registry or its layout is not the one known here.
pub fn registered() -> Vec<(i32, String)> {
    let Ok(bytes) = std::fs::read(REGISTRY) else {
        return Vec::new();
    };
    if !known_layout(&bytes) {
        return Vec::new();
    }
    (0..SERVERS)
        .filter_map(|i| {
            let entry = &bytes[HEADER + i * ENTRY..HEADER + (i + 1) * ENTRY];
            let pid = i32::from_ne_bytes(entry[..4].try_into().ok()?);
            let name = &entry[4..];
            let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            // Stored as `jack-<uid>:<name>:`.
            let raw = String::from_utf8_lossy(&name[..len]);
            let name = raw
                .split_once(':')
                .map_or(&*raw, |(_, rest)| rest.strip_suffix(':').unwrap_or(rest));
            (pid != 0).then(|| (pid, name.to_string()))
        })
        .collect()
}

fn known_layout(bytes: &[u8]) -> bool {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|w| w.try_into().ok())
            .map(u32::from_ne_bytes)
    };
    bytes.get(..4) == Some(b"KCAJ".as_slice())
        && word(16) == Some((HEADER + SERVERS * ENTRY) as u32)
        && bytes.len() >= HEADER + SERVERS * ENTRY
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    pid > 0 && unsafe { libc::kill(pid, 0) } == 0
}

/// Frees the registry entries of servers that are gone (killed with
/// SIGKILL, or never shut down): what jackd itself does only for an entry
/// of the name it starts under.
pub fn free_dead_entries() {
    use std::io::{Seek, SeekFrom, Write};
    let Ok(bytes) = std::fs::read(REGISTRY) else {
        return;
    };
    if !known_layout(&bytes) {
        return;
    }
    let Ok(mut file) = std::fs::OpenOptions::new().write(true).open(REGISTRY) else {
        return;
    };
    for i in 0..SERVERS {
        let at = HEADER + i * ENTRY;
        let pid = i32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap());
        if pid != 0 && !alive(pid) && file.seek(SeekFrom::Start(at as u64)).is_ok() {
            let _ = file.write_all(&[0; ENTRY]);
        }
    }
}

/// Removes what server `name` and its clients leave in /dev/shm when the
/// server goes away under them or is killed: client semaphores
/// (`jack_sem.<uid>_<name>_<client>`) and the server's segments
/// (`jack_<name>_<n>_<m>`).
pub fn remove_semaphores(name: &str) {
    let Ok(dir) = std::fs::read_dir("/dev/shm") else {
        return;
    };
    let infix = format!("_{name}_");
    let segment = format!("jack_{name}_");
    for entry in dir.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        if (file.starts_with("jack_sem.") && file.contains(&infix)) || file.starts_with(&segment) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Leaves nothing of server `name` behind: a server still registered under
/// it is stopped (SIGTERM, then SIGKILL after 10 s), then dead entries and
/// its clients' semaphores are removed.
pub fn clean_up(name: &str) {
    for (pid, _) in registered().into_iter().filter(|(_, n)| n == name) {
        if alive(pid) {
            // SAFETY: a pid the registry names under our server name.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            let start = Instant::now();
            while alive(pid) && start.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(20));
            }
            if alive(pid) {
                // SAFETY: as above.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    free_dead_entries();
    remove_semaphores(name);
}
