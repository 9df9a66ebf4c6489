"""mesh2dsp: a 3D object (surface mesh + material) -> its vibration modes -> modal sound code.

    import mesh2dsp
    m = mesh2dsp.analyze("meshes/bowl.obj", material="steel", modes=40)
    dsp = mesh2dsp.emit_faust(m)

The functions and classes are those of the compiled module `mesh2dsp._mesh2dsp`. That module is
built for one Python version and passes NumPy arrays, so this file checks both first: a Python
without NumPy, or of another version than the build's, gets one message saying what is missing
and what to do, instead of a bare ModuleNotFoundError or a loader error."""
import glob as _glob
import os as _os
import sys as _sys
import sysconfig as _sysconfig


def _this_python():
    return "Python %d.%d.%d at %s" % (_sys.version_info[:3] + (_sys.executable or "?",))


def _missing():
    """What this interpreter lacks to load the compiled module, as sentences (empty: nothing)."""
    problems = []
    here = _os.path.dirname(_os.path.abspath(__file__))
    built = sorted(_os.path.basename(p) for p in _glob.glob(_os.path.join(here, "_mesh2dsp.*")))
    suffix = _sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    if not built:
        problems.append("its compiled part (_mesh2dsp) is not in %s: build it (cmake --build build) "
                        "or install the module with `python3 -m pip install --no-build-isolation "
                        "./python`" % here)
    elif "_mesh2dsp" + suffix not in built:
        problems.append("its compiled part was built for another Python (%s), and this is %s, which "
                        "loads only _mesh2dsp%s: install the module for this interpreter with "
                        "`python3 -m pip install --no-build-isolation ./python` from the mesh2dsp "
                        "checkout" % (", ".join(built), _this_python(), suffix))
    try:
        import numpy  # noqa: F401  (the compiled part passes NumPy arrays)
    except ImportError:
        problems.append("it needs NumPy, which %s lacks: install NumPy for it (Debian's python3: "
                        "apt-get install python3-numpy; a virtual environment: create it with "
                        "--system-site-packages, or pip install numpy)" % _this_python())
    return problems


_problems = _missing()
if _problems:
    raise ImportError("mesh2dsp cannot be imported: " + "; and ".join(_problems))
try:
    from ._mesh2dsp import *  # noqa: F401,F403
    from ._mesh2dsp import __version__  # noqa: F401
except ImportError as _error:  # a right-looking build that still does not load (a missing library)
    raise ImportError("mesh2dsp cannot be imported: its compiled part does not load in %s (%s): "
                      "rebuild it for this interpreter" % (_this_python(), _error)) from None
