#!/usr/bin/env bash
# Regenerates generated/: for every bundled mesh (meshes/*.obj) the modal model and everything
# emitted from it, and the same for the hand-written test models (tests/emit/data/*.modal.json).
# Output is deterministic: re-running changes nothing unless the generator or a model changed.
#
#   scripts/regenerate.sh                 full: analyse every mesh, emit everything into generated/
#   scripts/regenerate.sh --check         emit from the checked-in models into a scratch directory
#                                         and diff with generated/ (fast; what the test runs)
#   scripts/regenerate.sh --check --full  the same, but re-analysing every mesh too
#   scripts/regenerate.sh --emit          emit from the checked-in models into generated/ (after
#                                         an emitter or template change: no re-analysis)
#
# MESH2DSP: the binary to use (default build/cli/mesh2dsp).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"  # relative paths only: nothing machine-specific may end up in generated/
bin=${MESH2DSP:-$root/build/cli/mesh2dsp}
check=0 full=0 emit_only=0
for arg in "$@"; do
  case $arg in
    --check) check=1 ;;
    --full) full=1 ;;
    --emit) emit_only=1 ;;
    *) echo "usage: $0 [--check [--full] | --emit]" >&2; exit 2 ;;
  esac
done
[ $check -eq 1 ] || [ $emit_only -eq 1 ] || full=1
[ -x "$bin" ] || { echo "regenerate: $bin not built (set MESH2DSP or build first)" >&2; exit 1; }

# Analysis settings per bundled mesh (into the array `args`).
mesh_args() {
  case $1 in
    cantilever) args=(--material wood --fix "x<=0" --modes 10) ;;
    bell) args=(--material iron --modes 40) ;;
    sphere) args=(--material glass --scale 4 --modes 40) ;;  # at r = 5 cm it sings above 20 kHz
    *) args=(--material steel --modes 40) ;;
  esac
}

if [ $check -eq 1 ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/mesh2dsp-regenerate-XXXXXX")
  trap 'rm -rf "$out"' EXIT
else
  out=generated
  mkdir -p "$out"
fi

# emit NAME INPUT [analysis options...]: every output of one model into $out/NAME/.
emit() {
  local name=$1 input=$2
  shift 2
  mkdir -p "$out/$name"
  "$bin" -q generate "$input" --name "$name" "$@" \
    --faust "$out/$name/$name.dsp" \
    --faust-effect "$out/$name/${name}_effect.dsp" \
    --faust-lib "$out/$name/$name.lib" \
    --cpp "$out/$name/$name.hpp" \
    --sy "$out/$name/$name.sy"
}

shopt -s nullglob
for mesh in meshes/*.obj; do
  name=$(basename "$mesh" .obj)
  if [ $full -eq 1 ]; then
    mesh_args "$name"
    emit "$name" "$mesh" "${args[@]}"
  else
    [ -f "generated/$name/$name.modal.json" ] || { echo "regenerate: generated/$name is missing: run $0" >&2; exit 1; }
    emit "$name" "generated/$name/$name.modal.json"
  fi
done
for model in tests/emit/data/*.modal.json; do
  name=$(basename "$model" .modal.json)
  emit "$name" "$model"
done

if [ $check -eq 1 ]; then
  if ! diff -r generated "$out" > "$out.diff" 2>&1; then
    echo "regenerate: generated/ is stale; run scripts/regenerate.sh and commit the result:" >&2
    head -n 40 "$out.diff" >&2
    rm -f "$out.diff"
    exit 1
  fi
  rm -f "$out.diff"
  echo "regenerate: generated/ is up to date"
fi
