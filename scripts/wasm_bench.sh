#!/usr/bin/env bash
# Workload W's mixing cost in WebAssembly (under Node), built as is and
# with SIMD128, against the native portable kernels and the native build
# as it runs (AVX2 where the CPU has it): ns per voice-frame, medians.
# A measurement, not a test: run it on a quiet machine.
#
#   bash scripts/wasm_bench.sh [voices] [blocks] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
voices=${1:-256} blocks=${2:-200} rounds=${3:-9}
build() {
  scripts/rust197 env RUSTFLAGS="$1" CARGO_TARGET_DIR="target/rust197/$2" \
    cargo build -q --release --target wasm32-unknown-unknown -p voicepool-wasm-scene --features bench
  echo "target/rust197/$2/wasm32-unknown-unknown/release/voicepool_wasm_scene.wasm"
}
plain=$(build "" wasm-plain)
simd=$(build "-C target-feature=+simd128" wasm-simd128)
cargo build -q --release --example render_workload --features hooks
for kind in "" positioned; do
  echo "== W${kind:+ $kind}, $voices voices"
  echo -n "wasm32:           "; node scripts/wasm_w.mjs "$plain" "$voices" "$blocks" "$rounds" $kind
  echo -n "wasm32 + simd128: "; node scripts/wasm_w.mjs "$simd" "$voices" "$blocks" "$rounds" $kind
  for r in $(seq 3); do
    target/release/examples/render_workload "$voices" 44100 "$blocks" portable $kind | sed 's/.*; /native portable: /'
    target/release/examples/render_workload "$voices" 44100 "$blocks" $kind | sed 's/.*; /native (AVX2):   /'
  done
done
