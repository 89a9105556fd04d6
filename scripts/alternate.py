#!/usr/bin/env python3
"""Times render_workload binaries against each other on a noisy machine.

Usage:
    python3 scripts/alternate.py ROUNDS BIN[,BIN...] "VOICES BLOCKS [ARGS]" ...

Each round runs every binary once on every workload, in turn, so that
slow and quick spells of a shared machine fall on all of them alike. For
each binary and workload it prints the median of the rounds' ns per
voice-frame (what `render_workload` prints), and the median of the
per-round ratios to the binary's first workload in the same round (the
issue 15 goals are such ratios: stereo, different sounds and 8 voices
against W at 256 voices).

Example (before/after, the goals' workloads):
    cargo build --release --example render_workload
    python3 scripts/alternate.py 15 /tmp/before,target/release/examples/render_workload \\
        "256 2000" "8 60000" "256 2000 stereo" "256 2000 distinct" "1024 500 distinct"
"""

import re
import statistics
import subprocess
import sys


def run(binary, workload):
    voices, blocks, *args = workload
    out = subprocess.run(
        [binary, voices, "44100", blocks, *args], capture_output=True, text=True, check=True
    ).stdout
    return float(re.search(r"([0-9.]+) ns per voice-frame", out).group(1))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    binaries = sys.argv[2].split(",")
    workloads = [w.split() for w in sys.argv[3:]]
    ns = {(b, i): [] for b in binaries for i in range(len(workloads))}
    for _ in range(rounds):
        for b in binaries:
            for i, w in enumerate(workloads):
                ns[(b, i)].append(run(b, w))
    for b in binaries:
        print(b)
        for i, w in enumerate(workloads):
            ratios = [x / y for x, y in zip(ns[(b, i)], ns[(b, 0)])]
            print(
                f"  {' '.join(w):24s} median {statistics.median(ns[(b, i)]):.3f} ns"
                f"  ratio to the first: median {statistics.median(ratios):.3f}"
                f"  [{' '.join(f'{r:.2f}' for r in ratios)}]"
            )


if __name__ == "__main__":
    main()
