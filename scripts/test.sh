#!/usr/bin/env bash
# Fresh machine → packages → build → the whole test suite (this is what .ci/run calls).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
cd "$here/build"
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 1200
