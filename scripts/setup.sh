#!/usr/bin/env bash
# Installs the system packages voicepool's build, demo and tests need on a
# fresh Debian/Ubuntu machine. Safe to run again: it installs only what is missing.
set -euo pipefail
# nodejs (with npm): the WebAssembly build's render runs under Node
# (scripts/wasm_scene.sh), and the browser test's driver is an npm package
# (scripts/web_test.sh). chromium and chromium-driver: the web demo's test
# opens the page in headless Chromium.
packages=(libasound2-dev pkg-config sox lame nodejs chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's own nodejs package leaves npm to a package of its own.
if ! command -v npm >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing npm"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq npm >/dev/null
fi
