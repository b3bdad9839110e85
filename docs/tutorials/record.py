"""Record a tutorial's full run, whose figures its page quotes: the command, what it printed and how long it took,
in docs/tutorials/records/<script>.txt.  tests/test_tutorials.py holds each page's quoted figures to its record, and
the record to what the script prints now.

    python docs/tutorials/record.py ladder_bot.py      # from the checkout's root; 11 s
    python docs/tutorials/record.py sb3_bot.py         # about eight minutes
"""

import argparse
import datetime
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDED = {"ladder_bot.py": "PYTHONPATH=docs/tutorials python docs/tutorials/ladder_bot.py",
            "sb3_bot.py": "python docs/tutorials/sb3_bot.py"}
"""The tutorials whose pages quote a full run, and the command each page gives for it."""


def record_path(script: str) -> Path:
    return HERE / "records" / (Path(script).stem + ".txt")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("script", choices=sorted(RECORDED))
    args = parser.parse_args()
    root = HERE.parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(root)])}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(HERE / args.script)], cwd=root, env=env, capture_output=True,
                          text=True)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return proc.returncode
    path = record_path(args.script)
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"$ {RECORDED[args.script]}\n{proc.stdout.rstrip()}\n"
                    f"# {seconds:.0f} s on {os.cpu_count()} cores, {datetime.date.today().isoformat()}\n")
    print(path.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
