"""Builds and installs the mesh2dsp Python package for the interpreter that runs pip:

    python3 -m venv --system-site-packages ENV       # NumPy from Debian (python3-numpy)
    CMAKE_PREFIX_PATH=PREFIX ENV/bin/python -m pip install --no-build-isolation ./python

PREFIX is where `cmake --install build --prefix PREFIX` put mesh2dsp (its CMake package); without
CMAKE_PREFIX_PATH or MESH2DSP_PREFIX, the checkout's own build folder (../build) is used when
configured. Only the module's one source file is compiled (python/CMakeLists.txt, standalone)."""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    """The project's version, from the top-level CMakeLists.txt when present."""
    try:
        with open(os.path.join(HERE, "..", "CMakeLists.txt")) as f:
            for line in f:
                if line.startswith("project(mesh2dsp VERSION"):
                    return line.split()[2]
    except OSError:
        pass
    return "0.1.0"


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not shutil.which("cmake"):
            sys.exit("mesh2dsp: building the Python module needs cmake (apt-get install cmake)")
        out_dir = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        args = ["-DPython3_EXECUTABLE=" + sys.executable,
                "-DMESH2DSP_PYTHON_OUTPUT_DIR=" + out_dir,
                "-DCMAKE_BUILD_TYPE=Release"]
        prefix = os.environ.get("MESH2DSP_PREFIX")
        checkout_build = os.path.join(HERE, "..", "build")
        if prefix:
            args.append("-DCMAKE_PREFIX_PATH=" + prefix)
        elif not os.environ.get("CMAKE_PREFIX_PATH") and \
                os.path.exists(os.path.join(checkout_build, "mesh2dspConfig.cmake")):
            args.append("-Dmesh2dsp_DIR=" + os.path.abspath(checkout_build))
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        if shutil.which("ccache"):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        subprocess.check_call(["cmake", "-S", HERE, "-B", build_dir] + args)
        subprocess.check_call(["cmake", "--build", build_dir])


setup(
    name="mesh2dsp",
    version=version(),
    description="3D object (surface mesh + material) -> vibration modes -> modal sound code",
    packages=["mesh2dsp"],
    ext_modules=[Extension("mesh2dsp._mesh2dsp", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
