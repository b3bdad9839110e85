import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# CI and mutation testing (mutmut runs the tests from its copy of the project in mutants/) replay the same
# examples every run, a fixed derandomized search; locally hypothesis explores afresh.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") or Path(__file__).resolve().parent.parent.name == "mutants":
    settings.load_profile("ci")
