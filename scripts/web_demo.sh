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
# into target/rust197/tools on first use (about 3 minutes here): see
# scripts/web_build.sh. The module is built with SIMD128, which every
# current browser runs.
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

bash scripts/web_build.sh voicepool-web-demo out/web
cp web-demo/www/* out/web/
size=$(du -k out/web/pkg/voicepool_web_demo_bg.wasm | cut -f1)
echo "web demo: out/web/ ($size KB of WebAssembly); serve it with any web server, e.g."
echo "  python3 -m http.server -d out/web 8000   and open http://localhost:8000/"
if [ "$serve" = yes ]; then
  port=${VOICEPOOL_WEB_PORT:-8000}
  echo "web demo: serving on http://localhost:$port/ (Ctrl-C stops)"
  exec python3 -m http.server -b 127.0.0.1 -d out/web "$port"
fi
