#!/usr/bin/env bash
# Builds the wand-swish demo's web page into out/web/ (a static folder: any
# web server serves it), and with --serve serves it on localhost.
#
#   bash scripts/web_demo.sh            # build out/web/
#   bash scripts/web_demo.sh --serve    # build, then serve http://localhost:8000/
#
# What it takes: Rust 1.97.1 or newer with the wasm32 standard library
# (scripts/rust197: the host's toolchain if it has them, else a chroot of
# Debian's unstable suite, made once), and wasm-bindgen's CLI at exactly the
# version of the wasm-bindgen crate in Cargo.lock, installed from crates.io
# into target/rust197/tools on first use (about 3 minutes here). The module
# is built with SIMD128, which every current browser runs.
# VOICEPOOL_WEB_PORT picks the port for --serve.
set -euo pipefail
cd "$(dirname "$0")/.."

serve=no
for arg in "$@"; do
  case "$arg" in
    --serve) serve=yes ;;
    *) echo "usage: bash scripts/web_demo.sh [--serve]" >&2; exit 2 ;;
  esac
done

# wasm-bindgen's CLI must be the crate's version, to the patch.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
tools=target/rust197/tools
if ! scripts/rust197 "$tools/bin/wasm-bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
  echo "web demo: installing wasm-bindgen-cli $version into $tools (once)"
  scripts/rust197 cargo install -q wasm-bindgen-cli --version "=$version" --root "$tools" --force
fi

dir=target/rust197/web
echo "web demo: building the module (wasm32, SIMD128)"
scripts/rust197 env RUSTFLAGS="-D warnings -C target-feature=+simd128" CARGO_TARGET_DIR="$dir" \
  cargo build -q --release --target wasm32-unknown-unknown -p voicepool-web-demo
# Bound where the toolchain writes (as root, where the chroot is used),
# then copied into out/ as the caller.
pkg=target/rust197/web-pkg/demo
scripts/rust197 bash -c 'rm -rf "$1" && "$2" --target web --no-typescript --out-dir "$1" "$3"' \
  bind "$pkg" "$tools/bin/wasm-bindgen" "$dir/wasm32-unknown-unknown/release/voicepool_web_demo.wasm"
rm -rf out/web
mkdir -p out/web
cp -r "$pkg" out/web/pkg
cp web-demo/www/* out/web/
size=$(du -k out/web/pkg/voicepool_web_demo_bg.wasm | cut -f1)
echo "web demo: out/web/ ($size KB of WebAssembly); serve it with any web server, e.g."
echo "  python3 -m http.server -d out/web 8000   and open http://localhost:8000/"
if [ "$serve" = yes ]; then
  port=${VOICEPOOL_WEB_PORT:-8000}
  echo "web demo: serving on http://localhost:$port/ (Ctrl-C stops)"
  exec python3 -m http.server -b 127.0.0.1 -d out/web "$port"
fi
