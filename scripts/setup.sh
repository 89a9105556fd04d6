#!/usr/bin/env bash
# Installs the system packages voicepool's build, demo and tests need on a
# fresh Debian/Ubuntu machine. Safe to run again: it installs only what is missing.
set -euo pipefail
# nodejs: the WebAssembly build's render runs under Node (scripts/wasm_scene.sh).
# (The browser test installs its browser itself: scripts/web_test.sh.)
packages=(libasound2-dev pkg-config sox lame nodejs)
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
