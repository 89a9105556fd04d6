#!/usr/bin/env bash
# The web demo in a real browser: builds the page (scripts/web_demo.sh),
# installs the browser driver (playwright-core, pinned in
# web-demo/test/package-lock.json, from the npm registry) and opens the
# page in headless Chromium (Debian: chromium; scripts/setup.sh installs
# it) for web-demo/test/browser_test.mjs, which serves it on localhost,
# clicks, casts, and checks the sound from the page; then the same for a
# Bevy app with the plugin (web-demo/bevy/). Screenshots go to
# out/web_demo_12.png, out/web_demo_64.png and out/web_bevy.png. The test
# closes its browser and server on every path; a Chromium left behind by a
# killed run is ended here too, with its profile.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/web_demo.sh
# The Bevy check (web-demo/bevy/): a Bevy app with the plugin's live output,
# bound the same way into out/web-bevy/, its sounds in assets/ for Bevy's
# asset server to fetch (about 2.5 minutes the first time: Bevy in release).
dir=target/rust197/web-bevy
echo "web test: building the Bevy app (wasm32, SIMD128)"
scripts/rust197 env RUSTFLAGS="-D warnings -C target-feature=+simd128" CARGO_TARGET_DIR="$dir" \
  cargo build -q --release --target wasm32-unknown-unknown -p voicepool-bevy-web
rm -rf out/web-bevy
mkdir -p out/web-bevy/assets
scripts/rust197 target/rust197/tools/bin/wasm-bindgen --target web --no-typescript \
  --out-dir out/web-bevy/pkg "$dir/wasm32-unknown-unknown/release/voicepool_bevy_web.wasm"
cp web-demo/bevy/www/index.html out/web-bevy/
cp samples/swish.wav samples/sparkle_*.wav out/web-bevy/assets/
(cd web-demo/test && npm ci --no-audit --no-fund --loglevel=error)
# Chromium's audio client (libpulse, with no sound server to find) makes a
# runtime folder /tmp/pulse-*: those the run made are removed after it.
before=$(ls -d /tmp/pulse-* 2>/dev/null || true)
status=0
node web-demo/test/browser_test.mjs "${1:-6}" || status=$?
for d in /tmp/pulse-*; do
  [ -d "$d" ] && ! grep -qxF "$d" <<<"$before" && rm -rf "$d"
done
# (playwright-core starts Chromium with a fresh profile under the temp
# directory, named playwright_chromiumdev_profile-*, and removes it on close.)
pkill -f 'playwright_chromiumdev_profile' 2>/dev/null || true
rm -rf "${TMPDIR:-/tmp}"/playwright_chromiumdev_profile-* "${TMPDIR:-/tmp}"/playwright-artifacts-*
exit "$status"
