#!/usr/bin/env bash
# Makes a small seed corpus for the wav_bytes fuzz target with sox: every
# sample format, channel count and header kind the loader meets in practice.
# Usage: bash fuzz/seed.sh   (then: cd fuzz && cargo fuzz run wav_bytes)
set -euo pipefail
command -v sox >/dev/null || { echo "seed.sh: sox is missing (bash scripts/setup.sh installs it)" >&2; exit 1; }
out="$(dirname "$0")/corpus/wav_bytes"
mkdir -p "$out"
gen() { # name, then sox output options
  local name=$1; shift
  sox -n -r 8000 "$@" "$out/$name.wav" synth 0.005 sine 440 2>/dev/null
}
gen u8        -b 8  -e unsigned-integer -t wavpcm
gen s16       -b 16 -e signed-integer   -t wavpcm
gen s16st     -b 16 -e signed-integer   -t wavpcm -c 2
gen s24       -b 24 -e signed-integer   -t wavpcm
gen s24ext    -b 24 -e signed-integer   -t wav
gen s32       -b 32 -e signed-integer   -t wav
gen f32       -b 32 -e floating-point   -t wav
gen f32pcm    -b 32 -e floating-point   -t wavpcm
gen f64       -b 64 -e floating-point   -t wav
gen ch6       -b 16 -e signed-integer   -t wav -c 6
gen alaw      -e a-law  -t wav
gen ulaw      -e u-law  -t wav
gen imaadpcm  -e ima-adpcm -t wav
gen msadpcm   -e ms-adpcm -t wav
echo "seed.sh: $(ls "$out" | wc -l) files in $out"
