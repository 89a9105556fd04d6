#!/usr/bin/env bash
# The whole test suite, with its set-up: system packages, then formatting,
# lints, and every test (unit, integration, doc tests, examples built).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# (The live-output tests, tests/live_output.rs, point ALSA at configs in
# tests/alsa/ themselves: a `file` PCM over `null`, so no sound card is needed.)
cargo fmt --all --check
cargo clippy --all-targets -- -D warnings
cargo clippy -p voicepool-demo --all-targets -- -D warnings
cargo test --all-targets
cargo test --doc
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps
