#!/usr/bin/env bash
# Runs every integration test with LLVM's RealtimeSanitizer linked in and the
# audio thread's entry points marked non-blocking (feature `rtsan`), plus the
# self-test proving RTSan aborts on an allocation and on a mutex lock.
# Any real-time violation aborts a test binary, and this script fails.
# How and why: docs/RTSAN.md (Debian's libclang-rt-19-dev; no download).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! dpkg -s libclang-rt-19-dev >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libclang-rt-19-dev >/dev/null
fi
L=/usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.rtsan-x86_64.a
mkdir -p target/rtsan
# The crate's own link step gets an empty stand-in; the real runtime is linked whole below.
[ -f target/rtsan/libclang_rt.rtsan-x86_64.a ] || ar rc target/rtsan/libclang_rt.rtsan-x86_64.a
export RTSAN_ENABLE=1
export RTSAN_LIB_PATH=$PWD/target/rtsan/libclang_rt.rtsan-x86_64.a
export RUSTFLAGS="-C link-arg=-Wl,--allow-multiple-definition -C link-arg=-Wl,--whole-archive \
  -C link-arg=$L -C link-arg=-Wl,--no-whole-archive -C link-arg=-lstdc++"
export CARGO_TARGET_DIR=target/rtsan
if /usr/lib/llvm-19/bin/llvm-symbolizer --version >/dev/null 2>&1; then
  export RTSAN_OPTIONS=external_symbolizer_path=/usr/lib/llvm-19/bin/llvm-symbolizer
fi
cargo test --features rtsan-selftest --tests "$@"
# The JACK tests too (a device killed and reopened under a running engine,
# a paced storm), where jackd and libjack are installed (CI installs them).
if [ $# -eq 0 ] && command -v jackd >/dev/null 2>&1 && pkg-config --exists jack; then
  cargo test --features rtsan-selftest,jack --test jack
  # libjack's metadata database (/dev/shm/jack_db-<uid>) outlives the
  # test servers; with no jackd left running, nothing needs it.
  pgrep -x jackd >/dev/null || rm -rf "/dev/shm/jack_db-$(id -u)"
fi
