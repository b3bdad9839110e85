"""The native engine (``durak_env._native``: native/*.cpp under nanobind), built by every install, and the hot
modules of the Python engine compiled by mypyc when the package is built as a wheel.

The native engine is built by ``pip install .`` and by the editable install of the test command alike, so that the
suite runs both engines and checks them against each other (tests/test_native.py).  nanobind comes from the
build requirements (pyproject.toml); its library is compiled from its one-file source (``nb_combined.cpp``, as
its documentation describes for build systems other than CMake).  Without a C++ compiler, or with
``DURAK_PURE_PYTHON=1``, the package is the Python engine alone and works the same (durak_env/native.py).

``pip install .`` and ``python -m build`` compile ``COMPILED`` (the same Python source, type-annotated) into C
extensions, which the package imports in place of the source: the engine plays 1.5-1.9x as fast
(benchmarks/RESULTS.md, "Speed, round three").  An editable install
(``pip install -e .``, the tests' set-up) keeps every module as Python source, so an edit takes effect at
once and the mutation tests mutate the code that runs.  Compiling is optional: with ``DURAK_PURE_PYTHON=1``,
without a C compiler, or if mypyc fails, the wheel holds the Python source alone and works the same.
Everything else about the package is in pyproject.toml.
"""

import os
import sys

from setuptools import Extension, setup

COMPILED = ["durak_env/engine/game.py", "durak_env/engine/actions.py", "durak_env/engine/loop.py",
            "durak_env/observation.py", "durak_env/vector_games.py"]
BUILDS = {"bdist_wheel", "build", "build_ext", "install"}
"""The setup commands that compile; metadata, the sdist and editable installs do not."""


def compiled_modules() -> list:
    if os.environ.get("DURAK_PURE_PYTHON") or not BUILDS & set(sys.argv):
        return []
    try:
        from mypyc.build import mypycify

        # Only the compiled modules must type-check; what they import is read for its types alone.
        options = ["--follow-imports=silent", "--ignore-missing-imports"]
        extensions = mypycify([*options, *COMPILED], opt_level="3", group_name="durak_env_engine")
    except (Exception, SystemExit) as err:  # mypy missing, or a type error: the Python source is installed
        print(f"setup.py: the engine is not compiled ({type(err).__name__}: {err}); it runs as Python", file=sys.stderr)
        return []
    for ext in extensions:
        ext.optional = True  # no C compiler: build_ext warns and the Python source is installed
    return extensions


def native_extension() -> list:
    """The native engine as one extension: its source and nanobind's, with nanobind's flags."""
    if os.environ.get("DURAK_PURE_PYTHON"):
        return []
    try:
        import nanobind
    except ImportError as err:  # built outside pip's isolated build without nanobind installed
        print(f"setup.py: the native engine is not built ({err}); the Python engine alone is installed", file=sys.stderr)
        return []
    nb = os.path.dirname(nanobind.__file__)
    return [Extension(
        "durak_env._native",
        sources=["native/module.cpp", os.path.join(nb, "src", "nb_combined.cpp")],
        depends=["native/durak.hpp", "native/search.hpp", "native/vector.hpp"],
        include_dirs=[os.path.join(nb, "include"), os.path.join(nb, "ext", "robin_map", "include")],
        extra_compile_args=["-std=c++17", "-O3", "-fvisibility=hidden", "-fno-strict-aliasing", "-DNDEBUG",
                            "-DNB_COMPACT_ASSERTIONS", "-g0"],  # -g0: no debug information (a fifth of the size)
        language="c++",
        optional=True,  # no C++ compiler: build_ext warns and the Python engine alone is installed
    )]


setup(ext_modules=compiled_modules() + native_extension())
