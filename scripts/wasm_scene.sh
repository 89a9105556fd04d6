#!/usr/bin/env bash
# The same scene, rendered offline natively and in WebAssembly, must give
# the same bits (wasm-scene/). Builds the scene for wasm32-unknown-unknown
# (Rust 1.97.1 with the wasm32 standard library: scripts/rust197), renders
# it under Node (Debian: nodejs; scripts/setup.sh installs it), and
# compares with the native render (the host's toolchain). Leaves nothing
# behind but the build.
set -euo pipefail
cd "$(dirname "$0")/.."
# (Warnings are errors: what builds natively without one builds so for wasm.)
scripts/rust197 env RUSTFLAGS="-D warnings" cargo build -q --release --target wasm32-unknown-unknown -p voicepool-wasm-scene
wasm="$(ls target/rust197/wasm32-unknown-unknown/release/voicepool_wasm_scene.wasm 2>/dev/null \
  || ls target/wasm32-unknown-unknown/release/voicepool_wasm_scene.wasm)"
samples="$(mktemp --suffix=.f32)"
trap 'rm -f "$samples"' EXIT
node scripts/wasm_scene.mjs "$wasm" "$samples"
cargo run -q --release -p voicepool-wasm-scene --bin compare -- "$samples"
