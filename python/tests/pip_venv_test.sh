#!/usr/bin/env bash
# `pip install ./python` into a virtual environment of Debian's Python (--system-site-packages:
# NumPy from python3-numpy; no package index), against an installed mesh2dsp, then an analysis
# through `import mesh2dsp` there (python/CMakeLists.txt registers this as python.pip_venv).
#   pip_venv_test.sh WORK_DIR PREFIX PYTHON_SOURCE_DIR
set -euo pipefail
work=$1 prefix=$2 python_src=$3
rm -rf "$work"
mkdir -p "$work/src"
# A copy of the package sources (pip builds in the source folder; the checkout stays clean).
cp -r "$python_src" "$work/src/python"
cp "$python_src/../CMakeLists.txt" "$work/src/"  # the version setup.py reads
rm -rf "$work/src/python/build" "$work/src/python/"*.egg-info

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
py=$work/venv/bin/python
start=$(date +%s)
CMAKE_PREFIX_PATH=$prefix "$py" -m pip install --no-build-isolation --no-index -q "$work/src/python"
echo "pip install: $(( $(date +%s) - start )) s"

cd "$work"  # not the checkout: the module must come from the venv
"$py" - "$prefix/share/mesh2dsp/meshes/bar.obj" <<'PY'
import sys
import mesh2dsp
assert mesh2dsp.__file__.startswith(sys.prefix), (mesh2dsp.__file__, sys.prefix)
mesh2dsp.set_quiet(True)
m = mesh2dsp.analyze(sys.argv[1], material="steel", modes=4)
f = m.frequencies_hz
assert len(f) == 4 and 1000 < f[0] < 1300, f  # the bar's first bending mode, ~1135 Hz
dsp = mesh2dsp.emit_faust(m)
assert "process" in dsp
print("venv %s: mesh2dsp %s from %s, modes %s Hz" % (sys.prefix, mesh2dsp.__version__, mesh2dsp.__file__,
                                                     ", ".join("%.1f" % x for x in f)))
PY
