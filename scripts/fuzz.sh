#!/usr/bin/env bash
# Fuzzes sound loading for a while: WAV (fuzz/fuzz_targets/wav_bytes.rs)
# or every format (sound_bytes.rs).
# Usage: bash scripts/fuzz.sh [seconds] [target]   (default 600, wav_bytes)
# Needs a nightly toolchain (rustup) and cargo-fuzz (installed here if
# missing); not part of CI: tests/fuzz_regressions.rs runs the target's
# checks on kept inputs in the normal suite (tests/formats_fuzz.rs for
# sound_bytes). See fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
target=${2:-wav_bytes}
bash scripts/setup.sh
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
toolchain=+nightly
rustup toolchain list | grep -q '^nightly' || { toolchain=""; export RUSTC_BOOTSTRAP=1; }
bash fuzz/seed.sh
cd fuzz
cargo $toolchain fuzz run "$target" -- -max_total_time="$seconds" \
  -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=8192
