#!/usr/bin/env bash
# The wand-swish demo from a fresh Debian/Ubuntu machine: installs what the
# build needs, then runs the demo crate, demo/ (demo/src/main.rs).
#
# With a sound card or sound server it plays live; without one it renders the
# spell offline in real time, showing the pool fill, steal and recover as it
# would live. Either way it says what it wrote, named after the policy:
#   out/wand_swish_quietest.wav  the spell (offline render)
#   out/wand_swish_quietest.svg  the timeline: one row per voice slot, steals marked
# Extra arguments go to the demo, e.g. `bash scripts/demo.sh --policy reject`
# (then out/wand_swish_reject.wav and .svg). `--offline`, anywhere among
# them, renders at full speed, even with a sound card.
# VOICEPOOL_SKIP_SETUP=1 skips the package check.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${VOICEPOOL_SKIP_SETUP:-}" = 1 ] || bash scripts/setup.sh

# Try the device only where one can exist; elsewhere the demo renders on the
# wall clock (--paced), so there is still something to watch.
live=no
if grep -qs '^ *[0-9]' /proc/asound/cards \
  || [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/pulse/native" ] \
  || [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/pipewire-0" ]; then
  live=yes
fi
pace_given=no
for arg in "$@"; do
  case "$arg" in --offline | --paced) pace_given=yes ;; esac
done
args=()
if [ "$live" = no ] && [ "$pace_given" = no ]; then
  args+=(--paced)
fi

# The demo is its own crate (demo/), so this builds voicepool and the demo,
# not the test and bench dependencies.
if [ ! -x "${CARGO_TARGET_DIR:-target}/release/wand_swish" ]; then
  echo "demo: building voicepool and the demo in release mode; the first build takes about a minute"
fi
exec cargo run --release -p voicepool-demo -- ${args[@]+"${args[@]}"} "$@"
