"""``python -m frontends ARGS`` is ``durak ARGS``."""

import sys

from .cli import main

sys.exit(main())
