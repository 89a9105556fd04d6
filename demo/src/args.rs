//! The command line: its flags, their checks, and where files go by default.

use std::path::PathBuf;

use voicepool::StealPolicy;

pub(crate) const USAGE: &str =
    "usage: wand_swish [--voices N] [--seconds S (0 < S <= 600)] [--policy quietest|oldest|reject] \
[--offline | --paced] [--render FILE.wav] [--timeline FILE.svg]";
/// Where the render and the timeline go when no path is given: named after
/// the policy, so runs with different policies keep their own files.
pub(crate) fn default_output(policy: StealPolicy, extension: &str) -> PathBuf {
    PathBuf::from(format!(
        "out/wand_swish_{}.{extension}",
        policy_name(policy)
    ))
}

pub(crate) fn policy_name(policy: StealPolicy) -> String {
    format!("{policy:?}").to_lowercase()
}
pub(crate) struct Args {
    pub(crate) voices: usize,
    pub(crate) seconds: f64,
    pub(crate) policy: StealPolicy,
    pub(crate) offline: bool,
    pub(crate) paced: bool,
    pub(crate) render: Option<PathBuf>,
    pub(crate) timeline: Option<PathBuf>,
}

/// What `--help` prints: every flag, its default and its range.
pub(crate) const HELP: &str = "\
wand_swish: a wand waved in a rhythm, each cast a swish and a burst of
sparkles, into a small pool of voices: stealing at work, heard and drawn.

Plays live if there is a sound device, else renders offline.

Flags:
  --voices N          voices in the pool, 1 to 1024 (default 12)
  --seconds S         how long, above 0 and at most 600 (default 12)
  --policy P          quietest, oldest or reject (default quietest)
  --offline           render offline as fast as possible, even with a device
  --paced             render offline on the wall clock, one block when it
                      would play, with the live view (no sound card needed)
  --render FILE.wav   where the render goes (alone, it means --offline;
                      default out/wand_swish_<policy>.wav)
  --timeline FILE.svg where the picture of the run goes
                      (default out/wand_swish_<policy>.svg)
  -h, --help          this text";

/// The flags, checked. `Err("")` for `--help`; otherwise the error says
/// which flag and why.
pub(crate) fn parse_args() -> Result<Args, String> {
    parse(lexopt::Parser::from_env())
}

fn parse(mut parser: lexopt::Parser) -> Result<Args, String> {
    use lexopt::Arg::{Long, Short};
    let mut args = Args {
        voices: 12,
        seconds: 12.0,
        policy: StealPolicy::Quietest,
        offline: false,
        paced: false,
        render: None,
        timeline: None,
    };
    let fail = |e: lexopt::Error| e.to_string();
    while let Some(arg) = parser.next().map_err(fail)? {
        let flag = match &arg {
            Long(name) => format!("--{name}"),
            Short(c) => format!("-{c}"),
            lexopt::Arg::Value(v) => {
                return Err(format!("unexpected argument {}", v.to_string_lossy()))
            }
        };
        match arg {
            Short('h') | Long("help") => return Err(String::new()),
            Long("offline") => args.offline = true,
            Long("paced") => args.paced = true,
            Long("voices") | Long("seconds") | Long("policy") | Long("render")
            | Long("timeline") => {
                let value = parser
                    .value()
                    .map_err(|_| format!("{flag} needs a value"))?
                    .to_string_lossy()
                    .into_owned();
                set(&mut args, &flag, value)?;
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if args.offline && args.paced {
        return Err(
            "--offline and --paced exclude each other: render as fast as possible, \
or on the wall clock"
                .into(),
        );
    }
    Ok(args)
}

/// Flag `flag` (one that takes a value) set to `value`, checked.
fn set(args: &mut Args, flag: &str, value: String) -> Result<(), String> {
    match flag {
        "--voices" => {
            args.voices = value
                .parse()
                .ok()
                .filter(|v| (1..=1024).contains(v))
                .ok_or_else(|| format!("--voices {value}: expected a whole number 1 to 1024"))?
        }
        "--seconds" => {
            args.seconds = value
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 600.0)
                .ok_or_else(|| {
                    format!("--seconds {value}: expected a number of seconds above 0, at most 600")
                })?
        }
        "--policy" => {
            args.policy = match value.as_str() {
                "quietest" => StealPolicy::Quietest,
                "oldest" => StealPolicy::Oldest,
                "reject" => StealPolicy::Reject,
                _ => {
                    return Err(format!(
                        "--policy {value}: expected quietest, oldest or reject"
                    ))
                }
            }
        }
        "--render" => args.render = Some(PathBuf::from(value)),
        _ => args.timeline = Some(PathBuf::from(value)),
    }
    Ok(())
}
