#!/usr/bin/env bash
# The wand-swish demo from a fresh Debian/Ubuntu machine: installs what the
# build needs, then runs examples/wand_swish.rs.
#
# With a sound card or sound server it plays live (and draws the timeline);
# without one it renders the spell offline. Either way it says what it wrote:
#   out/wand_swish.wav  the spell (offline render)
#   out/wand_swish.svg  the timeline: one row per voice slot, steals marked
# Extra arguments go to the demo, e.g. `bash scripts/demo.sh --policy reject`.
# `bash scripts/demo.sh --offline` always renders, even with a sound card.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# Try the device only where one can exist; elsewhere ALSA would only print
# its complaints before the demo falls back to rendering.
live=no
if grep -qs '^ *[0-9]' /proc/asound/cards \
  || [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/pulse/native" ] \
  || [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/pipewire-0" ]; then
  live=yes
fi
if [ "${1:-}" = "--offline" ]; then
  shift
  live=no
fi

args=(--timeline out/wand_swish.svg)
[ "$live" = no ] && args+=(--render out/wand_swish.wav)
exec cargo run --release --example wand_swish -- "${args[@]}" "$@"
