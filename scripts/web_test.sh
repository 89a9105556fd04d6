#!/usr/bin/env bash
# The web demo in a real browser: builds the page (scripts/web_demo.sh),
# installs the browser driver (playwright-core, pinned in
# web-demo/test/package-lock.json, from the npm registry) and opens the
# page in headless Chromium (Debian: chromium, installed below if missing)
# for web-demo/test/browser_test.mjs, which serves it on localhost,
# clicks, casts, and checks the sound from the page; then the same for a
# Bevy app with the plugin (web-demo/bevy/). Screenshots go to
# out/web_demo_12.png, out/web_demo_64.png and out/web_bevy.png. The test
# closes its browser and server on every path.
set -euo pipefail
cd "$(dirname "$0")/.."
# The browser (Debian's chromium; playwright-core drives it directly, so no
# driver is needed) and npm (Debian's nodejs leaves it to a package of its
# own), installed if missing.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "web test: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash scripts/web_demo.sh
# The Bevy check (web-demo/bevy/): a Bevy app with the plugin's live output,
# bound the same way into out/web-bevy/, its sounds in assets/ for Bevy's
# asset server to fetch (about 2.5 minutes the first time: Bevy in release).
bash scripts/web_build.sh voicepool-bevy-web out/web-bevy
mkdir -p out/web-bevy/assets
cp web-demo/bevy/www/index.html out/web-bevy/
cp samples/swish.wav samples/sparkle_*.wav out/web-bevy/assets/
(cd web-demo/test && npm ci --no-audit --no-fund --loglevel=error)
# The browser and what it leaves (its profile, its audio client's runtime
# folder) get a temporary folder of their own, removed afterwards.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TMPDIR="$tmp" node web-demo/test/browser_test.mjs "${1:-6}"
