"""The native engine's tests under AddressSanitizer and UndefinedBehaviorSanitizer.

    python benchmarks/sanitize_native.py                       # the native, AEC, vector and search tests
    python benchmarks/sanitize_native.py tests/test_loop.py    # other tests

Builds ``durak_env._native`` with gcc's ``-fsanitize=address,undefined`` (an error stops the process) into a copy
of the files git tracks under build/sanitize/, and runs the tests there with the sanitizer's runtime preloaded
into the interpreter: every read and write of the native code is checked while the differential tests, the
vector environments and the tree search run.  Leak checking is off (the interpreter keeps its objects to the end).
Exits with pytest's status; appends a line to benchmarks/sanitize.log.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import numpy

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "sanitize"
TESTS = ["tests/test_native.py", "tests/test_env.py", "tests/test_vector.py", "tests/test_mcts.py", "tests/test_training.py"]


def copy_tree() -> None:
    shutil.rmtree(TREE, ignore_errors=True)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        source = ROOT / name
        if source.is_file():
            (TREE / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, TREE / name)


def build() -> None:
    import nanobind

    nb = Path(nanobind.__file__).parent
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    flags = ["-std=c++17", "-O1", "-g", "-fPIC", "-shared", "-fsanitize=address,undefined",
             "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-fvisibility=hidden",
             "-fno-strict-aliasing", "-DNB_COMPACT_ASSERTIONS", f"-I{sysconfig.get_paths()['include']}",
             f"-I{nb / 'include'}", f"-I{nb / 'ext' / 'robin_map' / 'include'}", f"-I{numpy.get_include()}"]
    subprocess.run(["g++", *flags, str(TREE / "native" / "module.cpp"), str(nb / "src" / "nb_combined.cpp"), "-o",
                    str(TREE / "durak_env" / f"_native{suffix}")], check=True)


def main(argv: list[str]) -> int:
    tests = argv or TESTS
    copy_tree()
    print("building the native engine with AddressSanitizer and UndefinedBehaviorSanitizer ...", flush=True)
    build()
    # The sanitizer's runtime first, and the C++ runtime with it: loaded later, its exceptions would reach an
    # interceptor that found nothing to wrap (ASan's "CHECK failed" in __cxa_throw).
    runtime = [subprocess.run(["g++", f"-print-file-name={name}"], capture_output=True, text=True,
                              check=True).stdout.strip() for name in ("libasan.so", "libstdc++.so")]
    env = {**os.environ, "LD_PRELOAD": " ".join(runtime), "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
           "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1", "PYTHONPATH": str(TREE)}
    started = time.time()
    run = subprocess.run([sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=TREE,
                         env=env)
    line = (f"{time.strftime('%Y-%m-%d %H:%M')} {' '.join(tests)}: pytest exit {run.returncode} under ASan and "
            f"UBSan ({time.time() - started:,.0f} s)")
    print(line)
    with open(ROOT / "benchmarks" / "sanitize.log", "a") as log:
        log.write(line + "\n")
    return run.returncode


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
