#!/usr/bin/env bash
# Real objects at real sizes, tessellated as users' files are (scripts/make_bench_objects.py:
# a scanned statue, a CAD-revolved bell, a CAD bracket STL with slivers, a trefoil tube in mm,
# a quad-dominant sword scan, a tuning fork STL in mm, a low-poly wheel, the real "spot" scan;
# and the bundled bell and bowl scaled to real size): the tetrahedra, DOF, wall time and peak
# memory of `mesh2dsp modes` for each, as a Markdown table. Slow (minutes): a benchmark, not a
# test. Runs one analysis at a time.
#
#   scripts/bench_real_objects.sh [MODES...]            default: 50 300
#   scripts/bench_real_objects.sh --accuracy [MODES]    default: 50
#
# --accuracy: for each object, the default analysis and a converged reference of the same
# input, then the frequency error of the default against the reference (scripts/compare_modes.py,
# modes matched in sorted order): worst and median %. The reference keeps the input surface and
# bounds every tetrahedron at 1/REF_FACTOR of the default run's mean tetrahedron volume (object
# volume / default tets; REF_FACTOR=8 by default, i.e. elements about 2x finer), unless the
# object's row in the table below gives its own reference options, or REF_ARGS gives them for
# every object. The reference is only as converged as that: check it by comparing two
# references (e.g. REF_FACTOR=8 and 27) on a small object. It costs ~REF_FACTOR x the default's
# DOF; on the 2-core, 24 GB machine keep to MODES=50 and a few OBJECTS.
#
# Environment:
#   MESH2DSP    the binary (default build/cli/mesh2dsp)
#   EXTRA_ARGS  options appended to every run (to compare two meshing modes), e.g. "--keep-surface"
#   OBJECTS     space-separated subset of the names below (default: all)
#   SPOT_OBJ    the real spot.obj (default ../shared/benchmarks/real/spot.obj); skipped if absent
#   REF_ARGS    --accuracy: reference options for every object (overrides the table)
#   REF_FACTOR  --accuracy: reference tet volume bound = default mean tet volume / REF_FACTOR
#   KEEP        a directory to keep the objects, logs and modal files in (default: a temp dir)
# Needs GNU time (/usr/bin/time) and Python 3 with numpy (python3-numpy).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MESH2DSP:-$root/build/cli/mesh2dsp}
extra=${EXTRA_ARGS:-}
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench: no binary at $bin (set MESH2DSP)" >&2; exit 1; }
accuracy=0
if [ "${1:-}" = "--accuracy" ]; then accuracy=1; shift; fi
modes_list=("$@")
if [ ${#modes_list[@]} -eq 0 ]; then
  if ((accuracy)); then modes_list=(50); else modes_list=(50 300); fi
fi
# numpy: pyenv's python3 may lack it where Debian's has it
py=python3
python3 -c 'import numpy' 2>/dev/null || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }
if [ -n "${KEEP:-}" ]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/mesh2dsp-objects-XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
export SPOT_OBJ=${SPOT_OBJ:-$root/../shared/benchmarks/real/spot.obj}

# The statue, the bracket and the knot cannot keep their input surface at a reference's size
# (TetGen splits their slivers into millions of elements): their reference is the volume meshed
# for the physics with elements half as long and the boundary held much closer to the input.
# The sword's elements 0.7 as long and its boundary within 0.05 mm (260 k tets, 8.4 GB): its
# error comes from the boundary of its hilt, not from its elements. The bell's: its boundary
# within 0.2 mm (192 k tets, 1.07 M DOF, 7.9 GB).
# name | label | mesh | analysis options | reference options (--accuracy; empty: automatic)
cases=(
  "statue|scanned statue 1.0 m, 14k v, bronze|$work/statue.obj|--material bronze|--element-scale 0.5 --boundary-distance 0.001"
  "bell|CAD-revolved bell 0.7 m, 15k v, bronze|$work/bell.obj|--material bronze|--boundary-distance 0.0002"
  "bracket|CAD L-bracket STL 20 cm, 7k v, steel|$work/bracket.stl|--material steel|--element-scale 0.5 --boundary-distance 0.0003"
  "knot_mm|trefoil tube in mm, 12k v, steel|$work/knot_mm.obj|--material steel --units mm|--element-scale 0.5 --boundary-distance 0.0002"
  "sword|quad sword scan 0.87 m, 9k v, steel|$work/sword.obj|--material steel|--element-scale 0.7 --boundary-distance 0.00005"
  "fork_mm|tuning fork STL in mm, steel|$work/fork_mm.stl|--material steel --units mm|"
  "wheel|low-poly wheel 0.64 m, plastic|$work/wheel.obj|--material plastic|"
  "spot|spot scan 1.7 m, ceramic|$work/spot.obj|--material ceramic|"
  "bundled_bell|bundled bell scaled to 0.7 m, bronze|$root/meshes/bell.obj|--scale 4.78 --material bronze|"
  "bundled_bowl|bundled bowl scaled to 0.5 m, ceramic|$root/meshes/bowl.obj|--scale 4.17 --material ceramic|"
)
all_names=$(for c in "${cases[@]}"; do echo "${c%%|*}"; done | tr '\n' ' ')
selected=${OBJECTS:-$all_names}
for n in $selected; do
  grep -qw -- "$n" <<<"$all_names" || { echo "bench: unknown object '$n' (have: $all_names)" >&2; exit 1; }
done
# generated objects wanted (bundled ones are in meshes/)
gen=()
for n in $selected; do
  case $n in bundled_*) ;; *) gen+=("$n") ;; esac
done
if ((${#gen[@]})); then
  "$py" "$root/scripts/make_bench_objects.py" "$work" "${gen[@]}" >"$work/objects.log" ||
    { cat "$work/objects.log" >&2; echo "bench: making the objects failed" >&2; exit 1; }
fi

# run NAME TAG OPTS...: one `mesh2dsp modes`; sets result wall mb tets dof found lo hi
run() {
  local name=$1 tag=$2 mesh=$3
  shift 3
  local log=$work/$name.$tag.log
  if /usr/bin/time -f "%e %M" -o "$work/time" "$bin" modes "$mesh" "$@" \
       -o "$work/$name.$tag.modal.json" >"$log" 2>&1; then
    result=ok
  else
    local rc=$?
    result="exit $rc: $({ grep -m1 'error' "$log" || tail -n 1 "$log"; } | sed 's/^mesh2dsp: //; s/|/\//g' | cut -c1-90 || true)"
  fi
  local kb
  read -r wall kb < <(tail -n 1 "$work/time")
  mb=$((kb / 1024))
  # summary: "NAME: V vertices, T tetrahedra (P2), D DOF, N modes lo-hi Hz, S s"
  local summary
  summary=$(grep -E 'tetrahedra' "$log" | tail -n 1 || true)
  tets=$(sed -nE 's/.* ([0-9]+) tetrahedra.*/\1/p' <<<"$summary")
  dof=$(sed -nE 's/.* ([0-9]+) DOF.*/\1/p' <<<"$summary")
  found=$(sed -nE 's/.* ([0-9]+) modes [0-9.]+-.*/\1/p' <<<"$summary")
}

# object volume in m^3 (for the automatic reference bound), from the mesh and its scale
volume_m3() {
  "$py" - "$1" "$2" "$root/scripts" <<'EOF'
import sys
sys.path.insert(0, sys.argv[3])
import make_bench_objects as m
V, F = m.read_mesh(sys.argv[1])
print("%.6g" % (m.signed_volume_np(V, F) * float(sys.argv[2]) ** 3))
EOF
}

scale_of() {  # the length scale the options give the mesh
  local opts=$1
  case $opts in
    *"--units mm"*) echo 0.001 ;;
    *"--units cm"*) echo 0.01 ;;
    *"--units in"*) echo 0.0254 ;;
    *"--scale "*) sed -nE 's/.*--scale ([0-9.eE+-]+).*/\1/p' <<<"$opts" ;;
    *) echo 1 ;;
  esac
}

if ((accuracy)); then
  echo "| object | modes | default tets | default DOF | default s | default MB | reference options | ref DOF | ref s | ref MB | worst % | median % | result |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| object | modes asked | tets | DOF | modes found | wall s | peak MB | result |"
  echo "|---|---|---|---|---|---|---|---|"
fi
for c in "${cases[@]}"; do
  IFS='|' read -r name label mesh opts refopts <<<"$c"
  grep -qw -- "$name" <<<"$selected" || continue
  if [ ! -f "$mesh" ]; then
    echo "| $label | - | | | | | | skipped: $(basename "$mesh") not found$([ "$name" = spot ] && echo " (set SPOT_OBJ)") |"
    continue
  fi
  for n in "${modes_list[@]}"; do
    # shellcheck disable=SC2086
    run "$name" "m$n" "$mesh" $opts --modes "$n" $extra
    if ((!accuracy)); then
      echo "| $label | $n | ${tets:--} | ${dof:--} | ${found:--} | $wall | $mb | $result |"
      continue
    fi
    d_tets=${tets:-} d_dof=${dof:--} d_wall=$wall d_mb=$mb d_result=$result
    ref=${REF_ARGS:-$refopts}
    if [ -z "$ref" ]; then
      if [ "$d_result" != ok ] || [ -z "$d_tets" ]; then
        echo "| $label | $n | ${d_tets:--} | $d_dof | $d_wall | $d_mb | - | | | | | | default: $d_result |"
        continue
      fi
      vol=$(volume_m3 "$mesh" "$(scale_of "$opts")")
      bound=$("$py" -c "print('%.4g' % ($vol / $d_tets / ${REF_FACTOR:-8}))")
      ref="--keep-surface --max-tet-volume $bound"
    fi
    # shellcheck disable=SC2086
    # References are quadratic: the default's cubic elements on coarsened walls are what they check.
    run "$name" "ref$n" "$mesh" $opts --modes "$n" --element-order 2 $ref
    err="| - | - |"
    if [ "$d_result" = ok ] && [ "$result" = ok ]; then
      err=$("$py" "$root/scripts/compare_modes.py" "$work/$name.m$n.modal.json" \
              "$work/$name.ref$n.modal.json" --modes "$n" --json |
            "$py" -c 'import json,sys; d=json.load(sys.stdin); f=lambda x: "-" if x is None else "%.3f" % x; print("| %s | %s |" % (f(d["worst_percent"]), f(d["median_percent"])))')
    fi
    res="default $d_result, reference $result"
    [ "$d_result" = ok ] && [ "$result" = ok ] && res=ok
    echo "| $label | $n | ${d_tets:--} | $d_dof | $d_wall | $d_mb | $ref | ${dof:--} | $wall | $mb $err $res |"
  done
done
