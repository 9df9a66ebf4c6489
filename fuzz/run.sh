#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan, in build-fuzz/) and fuzzes each for a
# chosen time, one after another, at low priority:
#   fuzz/run.sh [SECONDS_PER_HARNESS] [HARNESS...]      (default: 600 s, every harness)
#   fuzz/run.sh 60 obj ply
# The working corpus grows in build-fuzz/corpus/<harness>/ (seeded from fuzz/corpus/); a crash,
# hang, leak or unexpected exception leaves its input in build-fuzz/findings/<harness>/ and
# stops that harness. A finding, once fixed, is copied into fuzz/corpus/<harness>/finding-*
# so the fuzz_replay_<harness> test keeps it fixed. Each run's execs and CPU time go to
# build-fuzz/stats.tsv.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
shift || true
harnesses=("$@")
((${#harnesses[@]})) || harnesses=(obj stl off ply gltf tetgen gmsh model options)
build="$here/build-fuzz"
cc=${CC_FUZZ:-clang-14}
cxx=${CXX_FUZZ:-clang++-14}
# Not in scripts/packages/ (CI does not fuzz, and clang is large): fuzzing needs Debian's clang
# and its compiler-rt (libFuzzer, the sanitizer runtimes).
if ! command -v "$cxx" >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  echo "fuzz/run.sh: needs $cxx and libclang-rt-14-dev: apt-get install clang-14 libclang-rt-14-dev" >&2
  exit 1
fi

if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" \
        -DMESH2DSP_FUZZ=ON -DMESH2DSP_BUILD_TESTS=OFF -DMESH2DSP_BUILD_RUNTIME=OFF
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("${h}_fuzzer"); done
nice -n 10 cmake --build "$build" -j"${FUZZ_BUILD_JOBS:-2}" --target "${targets[@]}"

[ -f "$build/stats.tsv" ] || printf 'harness\tseconds\tcpu_s\texecs\tcorpus\tresult\n' >"$build/stats.tsv"
status=0
for h in "${harnesses[@]}"; do
  mkdir -p "$build/corpus/$h" "$build/findings/$h"
  log="$build/findings/$h/last.log"
  set +e
  # -rss_limit_mb: a parser that allocates by a count in the header before checking it
  # against the file size is a finding (ASan's default would let it use all memory).
  /usr/bin/time -f '%U %S' -o "$build/findings/$h/time" \
    nice -n 15 "$build/fuzz/${h}_fuzzer" "$build/corpus/$h" "$here/fuzz/corpus/$h" \
      -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$build/findings/$h/" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(awk '/stat::number_of_executed_units/ {print $NF}' "$log" | tail -1)
  cpu=$(tail -1 "$build/findings/$h/time" 2>/dev/null | awk '{printf "%.0f", $1+$2}')
  units=$(ls "$build/corpus/$h" | wc -l)
  result=ok
  [ "$rc" -eq 0 ] || { result="FINDING(rc=$rc)"; status=1; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$h" "$seconds" "$cpu" "${execs:-?}" "$units" "$result" | tee -a "$build/stats.tsv"
  [ "$rc" -eq 0 ] || grep -m3 -E 'ERROR|SUMMARY|unexpected|Test unit written' "$log" || true
done
exit $status
