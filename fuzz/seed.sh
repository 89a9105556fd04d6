#!/usr/bin/env bash
# Makes small seed corpora with sox and lame: for wav_bytes every sample
# format, channel count and header kind the loader meets in practice; for
# sound_bytes those plus OGG Vorbis, FLAC and MP3 (with and without LAME
# header), mono, stereo and 5.1.
# Usage: bash fuzz/seed.sh   (then: cd fuzz && cargo fuzz run wav_bytes, or sound_bytes)
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
command -v lame >/dev/null || { echo "seed.sh: lame is missing (bash scripts/setup.sh installs it)" >&2; exit 1; }
all="$(dirname "$0")/corpus/sound_bytes"
mkdir -p "$all"
cp "$out"/*.wav "$all"/
for spec in "8000 1" "22050 2" "44100 6"; do
  set -- $spec
  src="$all/src-$1-$2.wav"
  sox -n -r "$1" -b 16 -c "$2" "$src" synth 0.05 sine 300:3000 2>/dev/null
  sox "$src" "$all/$1-$2.flac"
  sox "$src" "$all/$1-$2.ogg"
  if [ "$2" -le 2 ]; then
    lame --quiet "$src" "$all/$1-$2.mp3"
    lame --quiet -t "$src" "$all/$1-$2-notag.mp3"
  fi
done
echo "seed.sh: $(ls "$all" | wc -l) files in $all"
