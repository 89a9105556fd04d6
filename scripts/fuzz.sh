#!/usr/bin/env bash
# Fuzzes WAV loading (fuzz/fuzz_targets/wav_bytes.rs) for a while.
# Usage: bash scripts/fuzz.sh [seconds]   (default 600)
# Needs a nightly toolchain (rustup) and cargo-fuzz (installed here if
# missing); not part of CI: tests/fuzz_regressions.rs runs the target's
# checks on kept inputs in the normal suite. See fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
bash scripts/setup.sh
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
toolchain=+nightly
rustup toolchain list | grep -q '^nightly' || { toolchain=""; export RUSTC_BOOTSTRAP=1; }
bash fuzz/seed.sh
cd fuzz
cargo $toolchain fuzz run wav_bytes -- -max_total_time="$seconds" \
  -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=8192
