#!/usr/bin/env bash
# Real objects at real sizes: for each object class users bring (a bell, a bowl, a statue-like
# scan, a wheel, a tuning-fork prong in millimetres with sliver triangles, a thin blade), the
# tetrahedra, DOF, wall time and peak memory of `mesh2dsp modes` for 50 and 300 modes.
# Slow (minutes): a benchmark, not a test. Prints a Markdown table.
#
#   scripts/bench_real_objects.sh [MODES...]      default: 50 300
#
# MESH2DSP: the binary (default build/cli/mesh2dsp). Needs GNU time (/usr/bin/time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MESH2DSP:-$root/build/cli/mesh2dsp}
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
modes_list=("$@")
[ ${#modes_list[@]} -gt 0 ] || modes_list=(50 300)
work=$(mktemp -d "${TMPDIR:-/tmp}/mesh2dsp-objects-XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/make_bench_objects.py" "$work"

# class | mesh | analysis options
cases=(
  "bell 0.7 m, bronze|$root/meshes/bell.obj|--scale 4.78 --material bronze"
  "bowl 0.5 m, ceramic|$root/meshes/bowl.obj|--scale 4.17 --material ceramic"
  "statue-like scan 1.5 m, plastic|$work/blob.obj|--material plastic"
  "wheel 0.6 m, plastic|$work/wheel.obj|--material plastic"
  "fork prong in mm (slivers), steel|$work/prong_mm.stl|--scale 0.001 --material steel"
  "sword blade 0.8 m, steel|$work/blade.obj|--material steel"
)
echo "| object | modes asked | tets | DOF | modes found | wall s | peak MB | result |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  IFS='|' read -r label mesh opts <<<"$c"
  for n in "${modes_list[@]}"; do
    # shellcheck disable=SC2086
    if /usr/bin/time -f "%e %M" -o "$work/time" "$bin" modes "$mesh" $opts --modes "$n" \
         -o "$work/out.modal.json" >"$work/log" 2>&1; then
      result=ok
    else
      result="exit $?: $(grep -m1 'error' "$work/log" | cut -c1-80)"
    fi
    read -r wall kb < <(tail -n 1 "$work/time")
    summary=$(grep -E 'tetrahedra' "$work/log" | tail -n 1 || true)
    tets=$(sed -nE 's/.* ([0-9]+) tetrahedra.*/\1/p' <<<"$summary")
    dof=$(sed -nE 's/.* ([0-9]+) DOF.*/\1/p' <<<"$summary")
    found=$(sed -nE 's/.* ([0-9]+) modes [0-9.]+-.*/\1/p' <<<"$summary")
    echo "| $label | $n | ${tets:--} | ${dof:--} | ${found:--} | $wall | $((kb / 1024)) | $result |"
  done
done
