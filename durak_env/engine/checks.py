"""What counts as an integer where one comes from outside (arguments, files, JSON, YAML, numpy arrays).

``isinstance(x, int)`` gets both ways wrong: ``True`` passes it (JSON's and YAML's true where a count was meant)
and ``numpy.int64(3)`` fails it (a seat or an action read from an array).  Every check of an integer argument
asks ``is_integer`` instead.
"""

from __future__ import annotations

import operator
from typing import Any


def is_integer(value: Any, low: int | None = None, high: int | None = None) -> bool:
    """Whether ``value`` is an integer (Python's or numpy's, never true or false) from ``low`` to ``high``
    (None: no bound on that side)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        return False
    try:
        number = operator.index(value)
    except TypeError:  # numpy's bool_ has __index__ and refuses it
        return False
    return (low is None or number >= low) and (high is None or number <= high)


__all__ = ["is_integer"]
