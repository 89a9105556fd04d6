#!/usr/bin/env bash
# Set-up, then a short offline render of voicepool at work, written to out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
cargo run --release --example render_offline -- out/render_offline.wav
