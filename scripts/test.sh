#!/usr/bin/env bash
# The whole test suite, with its set-up: system packages, then formatting,
# lints, and every test (unit, integration, doc tests, examples built).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo test --all-targets
cargo test --doc
