#!/usr/bin/env bash
# Compile time of the emitted Faust against the mode count (issue: big banks compile quickly):
# for synthetic models of N modes (tests/emit/benchmark/synthetic_model.py) it times
#   faust -> C++   Debian's `faust` on the instrument .dsp
#   JIT, cold      `mesh2dsp render --no-cache` of the same .dsp (libfaust front end + LLVM)
# and prints one row per N: mode count, seconds, peak MB. CPU seconds are printed too: on a
# loaded machine they are the fairer figure.
#   scripts/bench_faust_compile.sh [N ...]        (default: 50 300 1000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MESH2DSP:-$root/build/cli/mesh2dsp}
[ -x "$bin" ] || { echo "bench_faust_compile: $bin not built" >&2; exit 1; }
counts=("$@"); ((${#counts[@]})) || counts=(50 300 1000)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
printf '%6s  %22s  %22s\n' modes "faust->C++ s (cpu) MB" "JIT cold s (cpu) MB"
for n in "${counts[@]}"; do
  python3 "$root/tests/emit/benchmark/synthetic_model.py" "$n" "$work/s$n.modal.json"
  "$bin" -q generate "$work/s$n.modal.json" --name "bench$n" --faust "$work/bench$n.dsp" --no-model-json
  /usr/bin/time -f '%e %U %M' -o "$work/faust.t" faust "$work/bench$n.dsp" -o "$work/bench$n.cpp"
  /usr/bin/time -f '%e %U %M' -o "$work/jit.t" "$bin" -q render "$work/bench$n.dsp" -o "$work/bench$n.wav" \
    -d 0.01 --no-cache
  read -r fw fu fm < "$work/faust.t"; read -r jw ju jm < "$work/jit.t"
  printf '%6s  %8s (%6s) %6d  %8s (%6s) %6d\n' "$n" "$fw" "$fu" $((fm / 1024)) "$jw" "$ju" $((jm / 1024))
done
