"""tests/install-browser, the README's test command's first step (issue 26): it installs Debian's chromium (and npm,
for the site's tests: issue 30) where they are missing, as root with apt-get or as a user through sudo, and otherwise stops with one line that says what to run.

Each case runs the script with a PATH of stand-ins (``id``, ``apt-get``, ``sudo``, ``chromium``) that record
their calls, so nothing is installed and the machine's own browser does not matter."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "install-browser"
TOOLS = ("mktemp", "grep", "tail", "rm", "env")
"""The real programs the script uses besides the stand-ins."""


def run(tmp_path: Path, uid: int, have: set[str], apt_fails: bool = False) -> tuple[subprocess.CompletedProcess, list]:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    calls = tmp_path / "calls"
    for tool in TOOLS:
        (bin_ / tool).symlink_to(shutil.which(tool))

    def stand_in(name: str, body: str) -> None:
        (bin_ / name).write_text(f"#!/bin/sh\necho {name} \"$@\" >> {calls}\n{body}\n")
        (bin_ / name).chmod(0o755)

    stand_in("id", f"echo {uid}")
    if "apt-get" in have:
        stand_in("apt-get", "echo 'E: Unable to locate package chromium' >&2; exit 100" if apt_fails else "exit 0")
    if "sudo" in have:
        stand_in("sudo", 'exec "$@"')
    for tool in ("chromium", "npm"):
        if tool in have:
            stand_in(tool, "exit 0")
    proc = subprocess.run(["/bin/sh", str(SCRIPT)], capture_output=True, text=True, timeout=60,
                          env={"PATH": str(bin_), "HOME": str(tmp_path)})
    lines = calls.read_text().splitlines() if calls.exists() else []
    return proc, [line for line in lines if not line.startswith("id")]


def test_a_machine_with_chromium_installs_nothing(tmp_path):
    proc, calls = run(tmp_path, uid=1000, have={"chromium", "npm", "apt-get", "sudo"})
    assert proc.returncode == 0 and calls == [] and proc.stderr == ""


def test_root_installs_chromium_with_apt_get(tmp_path):
    proc, calls = run(tmp_path, uid=0, have={"apt-get", "npm"})
    assert proc.returncode == 0, proc.stderr
    assert calls == ["apt-get update -qq", "apt-get install -y -qq chromium"]


def test_what_is_missing_is_installed_and_only_that(tmp_path):
    proc, calls = run(tmp_path, uid=0, have={"apt-get", "chromium"})
    assert proc.returncode == 0, proc.stderr
    assert calls == ["apt-get update -qq", "apt-get install -y -qq npm"]
    (tmp_path / "both").mkdir()
    proc, calls = run(tmp_path / "both", uid=0, have={"apt-get"})
    assert calls == ["apt-get update -qq", "apt-get install -y -qq chromium npm"]


def test_a_user_installs_it_through_sudo(tmp_path):
    proc, calls = run(tmp_path, uid=1000, have={"apt-get", "sudo", "npm"})
    assert proc.returncode == 0, proc.stderr
    assert calls == ["sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq", "apt-get update -qq",
                     "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium",
                     "apt-get install -y -qq chromium"]


@pytest.mark.parametrize("uid, have, apt_fails, says", [
    (1000, {"apt-get"}, False, "run 'apt-get install -y chromium' as root"),
    (0, set(), False, "need chromium and this system has no apt-get"),
    (1000, {"apt-get", "sudo"}, True, "(E: Unable to locate package chromium): run 'sudo apt-get install -y chromium'"),
], ids=["user-without-sudo", "no-apt-get", "apt-get-fails"])
def test_where_it_cannot_install_it_fails_in_one_line_that_says_what_to_run(tmp_path, uid, have, apt_fails, says):
    proc, _ = run(tmp_path, uid=uid, have=have | {"npm"}, apt_fails=apt_fails)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("tests/install-browser: ") and says in last, proc.stderr
    assert "then" in last and "again" in last


def test_the_readme_test_command_runs_it_first():
    readme = (SCRIPT.parent.parent / "README.md").read_text()
    assert "sh tests/install-browser && " in readme
    assert os.access(SCRIPT, os.X_OK)
