#!/usr/bin/env bash
# Builds one of the workspace's web crates for a page: the crate for
# wasm32-unknown-unknown with SIMD128 (Rust 1.97.1 with the wasm32 standard
# library: scripts/rust197), bound by wasm-bindgen's CLI into OUT/pkg/.
# The CLI must be the version of the wasm-bindgen crate in Cargo.lock, to
# the patch: it is installed from crates.io into target/rust197/tools on
# first use (about 3 minutes here). What the toolchain writes (as root,
# where the chroot is used) stays under target/rust197; OUT/pkg is copied
# from there as the caller. Used by scripts/web_demo.sh and
# scripts/web_test.sh.
#
#   bash scripts/web_build.sh PACKAGE OUT
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
  echo "usage: bash scripts/web_build.sh PACKAGE OUT" >&2
  exit 2
fi
package=$1 out=$2

version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
tools=target/rust197/tools
if ! scripts/rust197 "$tools/bin/wasm-bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
  echo "web build: installing wasm-bindgen-cli $version into $tools (once)"
  scripts/rust197 cargo install -q wasm-bindgen-cli --version "=$version" --root "$tools" --force
fi

dir=target/rust197/web
echo "web build: $package (wasm32, SIMD128)"
scripts/rust197 env RUSTFLAGS="-D warnings -C target-feature=+simd128" CARGO_TARGET_DIR="$dir" \
  cargo build -q --release --target wasm32-unknown-unknown -p "$package"
pkg=target/rust197/web-pkg/$package
scripts/rust197 bash -c 'rm -rf "$1" && "$2" --target web --no-typescript --out-dir "$1" "$3"' \
  bind "$pkg" "$tools/bin/wasm-bindgen" "$dir/wasm32-unknown-unknown/release/${package//-/_}.wasm"
rm -rf "$out"
mkdir -p "$out"
cp -r "$pkg" "$out/pkg"
