#!/usr/bin/env bash
# The sanitizer stage of CI (issue 15): everything built again with AddressSanitizer + UBSan in
# build-asan/ (-DMESH2DSP_SANITIZE=ON), then the whole test suite — unit, end-to-end CLI (the
# tests run the sanitized `mesh2dsp`), the fuzz corpus replays and the 60 s live soak. Any
# memory error, leak or undefined behaviour fails the test it happens in.
# Run after scripts/test.sh (which installs the packages); .ci/run runs both. Arguments are
# passed to ctest (.ci/run leaves out a few long tests with -E, see there). Ends with CTest's
# summary line and a non-zero exit on any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# -O1, not Release's -O3: ASan's recommended level, and it halves the compile time of this build
# (surface_repair.cpp, CGAL: 73 s instead of 157 s of CPU), which dominates the stage's time.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DMESH2DSP_SANITIZE=ON "${launcher[@]}"
cmake --build build-asan -j"$jobs"

supp="$here/scripts/sanitizers"
# halt/abort: a finding fails its test. Leaks of the libraries we link but do not own (LLVM's
# and libfaust's global state, fontconfig via Chromium's helper, ...) are suppressed by name
# in lsan.supp; ours are not. The quarantine is bounded so the soak's memory figures stay
# meaningful.
# alloc_dealloc_mismatch=0: libLLVM-14 frees with free() what its own code took with operator
# new (inside MachineFunctionPass), which is not ours to fix.
export ASAN_OPTIONS="alloc_dealloc_mismatch=0:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=0:quarantine_size_mb=64:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp:${UBSAN_OPTIONS:-}"
cd build-asan
ctest --output-on-failure -j"$jobs" --timeout 1800 "$@"
