"""``python -m training --config configs/default.yaml`` is ``durak train --config ...``."""

import sys

from durak_env.cli import main

sys.exit(main(["train", *sys.argv[1:]]))
