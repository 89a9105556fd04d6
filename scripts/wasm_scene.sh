#!/usr/bin/env bash
# The same scene, rendered offline natively and in WebAssembly, must give
# the same bits (wasm-scene/). Builds the scene for wasm32-unknown-unknown
# (Rust 1.97.1 with the wasm32 standard library: scripts/rust197), as is
# and with SIMD128 (what a web build should use: every current browser
# has it), renders each under Node (Debian: nodejs; scripts/setup.sh
# installs it), and compares with the native render (the host's
# toolchain). Leaves nothing behind but the builds.
set -euo pipefail
cd "$(dirname "$0")/.."
samples="$(mktemp --suffix=.f32)"
trap 'rm -f "$samples"' EXIT
cargo build -q --release -p voicepool-wasm-scene --bin compare
for flags in "" "-C target-feature=+simd128"; do
  dir="target/rust197/wasm${flags:+-simd128}"
  # (Warnings are errors: what builds natively without one builds so for wasm.)
  scripts/rust197 env RUSTFLAGS="-D warnings $flags" CARGO_TARGET_DIR="$dir" \
    cargo build -q --release --target wasm32-unknown-unknown -p voicepool-wasm-scene
  echo "wasm scene: wasm32${flags:+ with simd128}"
  node scripts/wasm_scene.mjs "$dir/wasm32-unknown-unknown/release/voicepool_wasm_scene.wasm" "$samples"
  target/release/compare "$samples"
done
