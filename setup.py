"""The native engine (``durak_env._native``: native/*.cpp under nanobind), built by every install.

The native engine is built by ``pip install .`` and by the editable install of the test command alike, so that the
suite runs both engines and checks them against each other (tests/test_native.py).  nanobind comes from the
build requirements (pyproject.toml), with numpy's headers (the
AEC environment's observation arrays are made through numpy's C API); its library is compiled from its one-file source (``nb_combined.cpp``, as
its documentation describes for build systems other than CMake).  Without a C++ compiler, or with
``DURAK_PURE_PYTHON=1``, the package is the Python engine alone and works the same (durak_env/native.py).
The Python engine is the readable reference and is never compiled: one compiled build, one reference.
Everything else about the package is in pyproject.toml.
"""

import os
import sys

from setuptools import Extension, setup


def native_extension() -> list:
    """The native engine as one extension: its source and nanobind's, with nanobind's flags."""
    if os.environ.get("DURAK_PURE_PYTHON"):
        return []
    try:
        import nanobind
        import numpy
    except ImportError as err:  # built outside pip's isolated build without nanobind or numpy installed
        print(f"setup.py: the native engine is not built ({err}); the Python engine alone is installed", file=sys.stderr)
        return []
    nb = os.path.dirname(nanobind.__file__)
    return [Extension(
        "durak_env._native",
        sources=["native/module.cpp", os.path.join(nb, "src", "nb_combined.cpp")],
        depends=["native/durak.hpp", "native/search.hpp", "native/solve.hpp", "native/vector.hpp"],
        include_dirs=[os.path.join(nb, "include"), os.path.join(nb, "ext", "robin_map", "include"), numpy.get_include()],
        extra_compile_args=["-std=c++17", "-O3", "-fvisibility=hidden", "-fno-strict-aliasing", "-DNDEBUG",
                            "-DNB_COMPACT_ASSERTIONS", "-g0"],  # -g0: no debug information (a fifth of the size)
        language="c++",
        optional=True,  # no C++ compiler: build_ext warns and the Python engine alone is installed
    )]


setup(ext_modules=native_extension())
