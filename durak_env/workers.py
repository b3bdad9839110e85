"""Worker processes on pipes: the one pool that the vector environment's helpers (``durak_env.vector``) and the
trainer's rollout workers (``training.rollout``) run in.

Worker ``w`` is a spawned process running ``target(conn, *args)``, with ``conn`` its end of a pipe.  It starts
with Ctrl-C held back from its first instruction (blocked, until its target ignores it): the signal reaches every
process of the terminal's group, the parent handles it and stops the workers, and a worker still importing its
modules when it lands would print a traceback of its own (or, inside an extension module's import, die of an
ImportError).  The parent only holds Ctrl-C back while it spawns, never ignores it: one pressed then is raised
once the worker is started.  The parent waits on a pipe, never spins, and notices a worker that died within
``POLL`` seconds.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from multiprocessing import resource_tracker
from typing import Any, Callable


class WorkerGone(RuntimeError):
    """A worker process died (killed, out of memory) or closed its pipe."""

    def __init__(self, worker: int, exitcode: int | None):
        super().__init__(f"worker {worker} died (exit code {exitcode})")
        self.worker, self.exitcode = worker, exitcode


class Workers:
    """``len(args)`` worker processes, worker w running ``target(conn, *args[w])``."""

    POLL = 1.0
    """Seconds between checks that a worker being waited on is still alive."""

    def __init__(self, target: Callable[..., None], args: list[tuple]):
        self._ctx = mp.get_context("spawn")
        self._target = target
        self.procs: list[Any] = [None] * len(args)
        self.conns: list[Any] = [None] * len(args)
        for w, worker_args in enumerate(args):
            self.start(w, worker_args)

    def __len__(self) -> int:
        return len(self.conns)

    def start(self, w: int, args: tuple) -> None:
        """Start worker w (again, after it died) with these arguments."""
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=self._target, args=(child, *args), daemon=True)
        with _interrupts_held():  # the worker inherits the blocked signal through the spawn
            proc.start()
        child.close()
        self.procs[w], self.conns[w] = proc, parent

    def send(self, w: int, message: Any) -> bool:
        """Send worker w a message; False when its pipe is broken (the worker is gone)."""
        try:
            self.conns[w].send(message)
            return True
        except OSError:
            return False

    def receive(self, w: int) -> Any:
        """Worker w's next message, waiting on its pipe; WorkerGone if it dies first."""
        conn, proc = self.conns[w], self.procs[w]
        while True:
            try:
                if conn.poll(self.POLL):
                    return conn.recv()
            except (EOFError, OSError):
                pass  # the pipe closed: the worker is gone
            if not proc.is_alive():
                raise WorkerGone(w, proc.exitcode)

    def exitcodes(self) -> list[int | None]:
        return [proc.exitcode for proc in self.procs]

    def close(self) -> None:
        """Ask every worker to stop (a ``None`` message), wait a little, then terminate those still running."""
        for w in range(len(self.conns)):
            self.send(w, None)
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self.procs, self.conns = [], []


class _interrupts_held:
    """SIGINT blocked in this thread while a worker is spawned: a Ctrl-C pressed meanwhile waits (or reaches another
    thread, which passes it to Python's handler) instead of being lost, as it would be were it ignored here.  The
    standard library starts its resource tracker the same way, and unblocks SIGINT after it (not restoring the mask
    before), so the tracker is started first: the spawn's own call to start it is then a check."""

    def __enter__(self) -> None:
        resource_tracker.ensure_running()
        self._before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def __exit__(self, *exc: Any) -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, self._before)


def ignore_interrupts() -> None:
    """For a worker's first line: Ctrl-C is the parent's to handle (a Ctrl-C held back while it started is dropped
    with it; a worker of another pool, which starts with Ctrl-C neither held back nor ignored, is covered from here
    on)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


__all__ = ["WorkerGone", "Workers", "ignore_interrupts"]
