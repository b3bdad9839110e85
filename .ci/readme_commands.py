"""The README's two set-up commands, read from its first ``bash`` block, where each follows its comment:
"# Install and run the main job…" and "# Install and run the tests…".

    python3 .ci/readme_commands.py main     # prints the command, as a user would type it
    python3 .ci/readme_commands.py tests

``.ci/run`` runs what this prints, so a README edit that breaks a command fails CI, and tests/test_docs.py
checks that the block holds exactly these two."""

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
KINDS = {"main": "# Install and run the main job", "tests": "# Install and run the tests"}


def setup_commands(text: str) -> dict[str, str]:
    """``{"main": ..., "tests": ...}`` from the first bash block; raises ValueError if it is not two commented
    commands."""
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    lines = block.group(1).strip().splitlines() if block else []
    if len(lines) != 4:
        raise ValueError(f"the README's first bash block must hold two commands, each under its comment; it has "
                         f"{len(lines)} lines")
    found = {}
    for comment, command in zip(lines[::2], lines[1::2]):
        kind = next((k for k, start in KINDS.items() if comment.startswith(start)), None)
        if kind is None or command.startswith("#"):
            raise ValueError(f"unexpected lines in the README's set-up block: {comment!r}, {command!r}")
        found[kind] = command
    if set(found) != set(KINDS):
        raise ValueError(f"the README's set-up block must have one command of each kind ({', '.join(KINDS)})")
    return found


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in KINDS:
        print(f"usage: python3 {sys.argv[0]} {{{'|'.join(KINDS)}}}", file=sys.stderr)
        sys.exit(2)
    try:
        print(setup_commands(README.read_text())[sys.argv[1]])
    except ValueError as err:
        print(f"readme_commands: {err}", file=sys.stderr)
        sys.exit(1)
