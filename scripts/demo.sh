#!/usr/bin/env bash
# Fresh machine → packages → build → the main job on a bundled mesh: a steel bowl's modes.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
cd "$here"
mkdir -p out
bin=build/generator/cli/mesh2dsp
"$bin" modes meshes/bowl.obj --material steel --modes 40 -o out/bowl.modal.json
echo "demo: modal model written to out/bowl.modal.json"
