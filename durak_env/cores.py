"""How many cores this process may use: what worker pools and thread counts follow.

``os.cpu_count()`` counts the machine's cores; a process pinned to fewer (``taskset``,
a container's cpuset, a job scheduler) must not start a worker per core it cannot run
on, or its workers queue behind each other.  ``os.sched_getaffinity`` says which cores
this process may run on, where the platform tells.
"""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)
