#!/usr/bin/env bash
# Fresh machine → packages → build → the main job on a bundled mesh: a steel bowl's modes,
# its Faust and C++ code, and a strike rendered to a WAV through the JIT runtime.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
cd "$here"
mkdir -p out
bin=build/cli/mesh2dsp
"$bin" modes meshes/bowl.obj --material steel --modes 40 -o out/bowl.modal.json
"$bin" generate out/bowl.modal.json --name bowl --faust out/bowl.dsp --faust-effect out/bowl-fx.dsp \
  --cpp out/bowl.hpp --sy out/bowl.sy
"$bin" render out/bowl.dsp -o out/bowl-strike.wav --duration 3 --trigger gate@0.1
# What was made, read from the model itself (fewer modes than asked when the rest lie above
# 20 kHz).
made=$(python3 scripts/model_summary.py out/bowl.modal.json "a steel bowl")
echo
echo "demo: out/bowl.modal.json  the modal model: $made"
echo "      out/bowl.dsp          Faust instrument (also out/bowl-fx.dsp: audio input = force)"
echo "      out/bowl.hpp          dependency-free C++ header (compiles as C too)"
echo "      out/bowl-strike.wav   one strike, rendered through the libfaust JIT runtime"
