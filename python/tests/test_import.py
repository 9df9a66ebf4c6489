"""`import mesh2dsp` where it cannot work gives one clear ImportError naming what is missing:
NumPy, or a compiled part for this Python version. Never a bare ModuleNotFoundError, a loader
error or a traceback from inside the package."""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import mesh2dsp

PACKAGE = pathlib.Path(mesh2dsp.__file__).parent
PREFIX = "ImportError: mesh2dsp cannot be imported: "


def import_in(python, pythonpath, prelude=""):
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    return subprocess.run([python, "-c", prelude + "import mesh2dsp"], capture_output=True, text=True, env=env)


def expect_one_clear_message(run, *needles):
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(PREFIX), run.stderr
    for needle in needles:
        assert needle in last, last
    for noise in ("ModuleNotFoundError", "undefined symbol", "During handling"):
        assert noise not in run.stderr, run.stderr


def test_without_numpy_the_message_names_numpy():
    # This interpreter as one without NumPy: a None entry makes `import numpy` fail.
    run = import_in(sys.executable, PACKAGE.parent, "import sys; sys.modules['numpy'] = None; ")
    expect_one_clear_message(run, "needs NumPy", "Python %d.%d" % sys.version_info[:2], "python3-numpy")


def test_a_build_for_another_python_version_is_named(tmp_path):
    # The package as built for another CPython: its compiled part carries another ABI tag.
    copy = tmp_path / "mesh2dsp"
    shutil.copytree(PACKAGE, copy)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    (built,) = copy.glob("_mesh2dsp" + suffix)
    other = "_mesh2dsp.cpython-399-x86_64-linux-gnu.so"
    built.rename(copy / other)
    expect_one_clear_message(import_in(sys.executable, tmp_path), "built for another Python", other,
                             "pip install --no-build-isolation ./python")


def test_another_interpreter_on_path_gets_the_clear_message():
    # A real other interpreter (a pyenv or virtualenv python3 before Debian's on PATH), if any:
    # it either imports the module (same ABI, NumPy present) or says clearly why not.
    mine = os.path.realpath(sys.executable)
    others = [p for p in (shutil.which("python3"),)
              if p and os.path.exists(p) and os.path.realpath(p) != mine]
    if not others:
        import pytest
        pytest.skip("no other python3 here")
    for python in others:
        run = import_in(python, PACKAGE.parent)
        if run.returncode != 0:
            expect_one_clear_message(run)
