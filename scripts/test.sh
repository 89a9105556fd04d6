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
cargo clippy -p voicepool-wasm-scene --all-targets -- -D warnings
cargo test --all-targets
cargo test --doc
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps
# The guide as an mdBook in target/book (mdBook from the Rust 1.97.1
# chroot below); fails on any warning, missing include or broken link.
bash scripts/book.sh
# The Bevy plugin (its own crate: the commands above never build Bevy) is
# on Bevy 0.20, which needs Rust 1.97.1: scripts/rust197 runs these with
# the host's toolchain where it is new enough, else in a Debian unstable
# chroot it makes once (about a minute here, 1.6 GB; reused after). Lints,
# headless app tests and doc tests, then its example scene rendered
# offline and checked (sound came out, and the bursts stole voices).
scripts/rust197 cargo clippy -p voicepool_bevy --all-targets -- -D warnings
scripts/rust197 cargo test -p voicepool_bevy
scripts/rust197 env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p voicepool_bevy
# The plugin builds for the web (wasm32-unknown-unknown), warnings as
# errors: what a Bevy web game compiles (about 2 minutes the first time).
scripts/rust197 env RUSTFLAGS="-D warnings" CARGO_TARGET_DIR=target/rust197/wasm-bevy \
  cargo build -q --target wasm32-unknown-unknown -p voicepool_bevy
# (Inside the repository: the chroot shares it at the same path.)
wisps_dir="target/wisps-check"
mkdir -p "$wisps_dir"
wisps="$(scripts/rust197 cargo run -q -p voicepool_bevy --example wisps -- --headless --frames 480000 --out "$PWD/$wisps_dir/wisps.wav")"
rm -rf "$wisps_dir"
echo "$wisps"
steals="$(sed -n 's/.* stolen \([0-9]*\) .*/\1/p' <<<"$wisps")"
rms="$(sed -n 's/.*, rms \([0-9.]*\)$/\1/p' <<<"$wisps")"
if ! [ "${steals:-0}" -ge 20 ] || ! [ "${steals:-0}" -le 100 ] || ! awk -v r="${rms:-0}" 'BEGIN { exit !(r > 0.005) }'; then
  echo "test.sh: the wisps example should steal 20 to 100 voices and not be silent (stolen ${steals:-?}, rms ${rms:-?})" >&2
  exit 1
fi
# The mixer in WebAssembly: a scripted scene rendered offline in a
# wasm32-unknown-unknown build, under Node, gives the same bits as the
# native render (scripts/wasm_scene.sh; Rust 1.97.1's wasm32 standard
# library and wasm-ld from the chroot above; about a minute).
bash scripts/wasm_scene.sh
# Lints on what only a web build compiles (the Web Audio output, the
# SIMD128 kernel, the web demo and the Bevy web check), as a web build
# makes them: wasm32 with SIMD128 (about a minute).
scripts/rust197 env CARGO_TARGET_DIR=target/rust197/wasm-check RUSTFLAGS="-C target-feature=+simd128" \
  cargo clippy -q --target wasm32-unknown-unknown -p voicepool -p voicepool-web-demo -p voicepool-bevy-web -- -D warnings
# The wand-swish demo's web page (web-demo/), built with wasm-bindgen's CLI
# (installed from crates.io on a fresh machine: about 3 minutes), opened in
# headless Chromium: a click starts the sound, keys cast for 6 s, and the
# page must keep real time, steal and show it, allocate nothing while the
# callback mixes, and be heard by an analyser on the output; then a Bevy
# app with the plugin's live output (scripts/web_test.sh; about 4 minutes
# after the install, most of it building Bevy for the web).
bash scripts/web_test.sh
# The JACK tests (tests/jack.rs, feature `jack`): a paced dummy device that
# is killed and restarted under a running engine, and a short spell storm on
# busy cores. They need jackd and libjack (Debian: jackd2,
# libjack-jackd2-dev; .ci/run installs both, and there they must run).
if command -v jackd >/dev/null 2>&1 && pkg-config --exists jack; then
  cargo clippy --features jack --all-targets -- -D warnings
  cargo test --features jack --test jack
  # libjack's metadata database (/dev/shm/jack_db-<uid>) outlives the
  # test servers; with no jackd left running, nothing needs it.
  pgrep -x jackd >/dev/null || rm -rf "/dev/shm/jack_db-$(id -u)"
elif [ -n "${CI:-}" ]; then
  echo "test.sh: CI must run the JACK tests, but jackd or libjack is missing" >&2
  exit 1
else
  echo "test.sh: skipping the JACK tests: jackd or libjack is not installed (Debian: apt-get install jackd2 libjack-jackd2-dev)"
fi
