"""Progress that tells the truth: a bar that counts toward whatever will end the run, and a last line that says
why it ended.

A training run ends at its step total or at its time budget, whichever comes first; a bar that counted steps alone
showed "41% … 17:22 remaining" and then stopped at the budget, which reads as a crash (issue 26).  ``Progress``
fills its bar by the larger of the two fractions (units done of ``total``, seconds spent of ``budget``), shows both,
and estimates the time left from both.  Its ``end(why)`` prints one line, for example

    train: ended at the time budget (14.5 min): 9.61M of 40.0M steps in 14:29
    eval: ended at the game total: 2,000 games in 0:41
    train: stopped by the user: 3.10M of 40.0M steps in 4:02

The bar and the line go to standard error, and only when the bar is on (``enabled``)."""

from __future__ import annotations

import signal
import sys
import threading
import time


def count(n: float) -> str:
    """3,100 / 3.10M: a count short enough for a bar."""
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n:,.0f}"


def clock(seconds: float) -> str:
    """0:41, 14:29, 1:02:05."""
    s = int(max(0.0, seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


REASONS = ("budget", "total", "stopped")
"""Why a run ended: its time budget, its total of units, or the user (Ctrl-C)."""


def interrupted(err: BaseException) -> bool:
    """Whether Ctrl-C lies under ``err``.  A KeyboardInterrupt that lands while an extension module loads comes
    out as that module's own error, the interrupt its cause (onnxruntime's pybind11: "ImportError:
    initialization failed"); so does one that lands while torch writes a file (a RuntimeError of its writer)."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


class CtrlC:
    """Ctrl-C remembered as well as raised, for a loop that must not run on after one.  Inside ``with CtrlC():``
    (every ``durak`` command runs inside one) Ctrl-C raises KeyboardInterrupt as Python's own handler does and is
    noted, and ``CtrlC.check()``, which a loop calls at each step, raises it again.  A KeyboardInterrupt can be
    lost on its way up: one raised while a ``__del__`` or a library's callback runs is printed as "Exception
    ignored" and dropped, and a library may catch it among its own errors; the loop then stops at its next step
    instead of running on (CI saw training runs go on after their Ctrl-C).  Only where Python's own handler is in
    place, in the main thread: a process that ignores Ctrl-C goes on ignoring it."""

    pressed = False

    def __enter__(self) -> "CtrlC":
        CtrlC.pressed = False
        self._before = None
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._before = signal.signal(signal.SIGINT, CtrlC._note)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._before is not None:
            signal.signal(signal.SIGINT, self._before)
        CtrlC.pressed = False

    @staticmethod
    def _note(signum: int, frame: object) -> None:
        CtrlC.pressed = True
        raise KeyboardInterrupt

    @staticmethod
    def check() -> None:
        """KeyboardInterrupt if Ctrl-C was pressed inside the ``with``, wherever its first one went."""
        if CtrlC.pressed:
            raise KeyboardInterrupt


class Progress:
    """A bar over ``total`` units (steps, games) and, when there is one, ``budget`` seconds; it starts at ``done``
    units and ``elapsed`` seconds (a resumed run)."""

    SCALE = 1000
    FORMAT = "{desc}: {percentage:3.0f}%|{bar}| "
    """The bar's fraction is in thousandths of the run; the text after it (``_format``) says what it counts."""

    def __init__(self, desc: str, total: int, unit: str, budget: float | None = None, done: int = 0,
                 elapsed: float = 0.0, enabled: bool = True, leave: bool = True):
        self.desc, self.total, self.unit, self.budget = desc, max(1, total), unit, budget
        self.done, self.first_done = done, done
        self.started = time.monotonic() - elapsed
        self.first_elapsed = elapsed
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=self.SCALE, initial=self._filled(), desc=desc, leave=leave, dynamic_ncols=True,
                            file=sys.stderr, bar_format=self._format({}))

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def fraction(self) -> float:
        """How far the run is toward the limit that comes first."""
        by_units = self.done / self.total
        by_time = self.elapsed() / self.budget if self.budget else 0.0
        return min(1.0, max(by_units, by_time))

    def left(self) -> float | None:
        """Seconds left: until the budget, or until the total at the pace so far, whichever is sooner."""
        spent = self.elapsed()
        options = [self.budget - spent] if self.budget else []
        pace = (self.done - self.first_done) / max(1e-9, spent - self.first_elapsed)
        if pace > 0:
            options.append((self.total - self.done) / pace)
        return min(options) if options else None

    def update(self, done: int, **postfix) -> None:
        self.done = done
        if self.bar is not None:
            self.bar.bar_format = self._format(postfix)
            self.bar.update(self._filled() - self.bar.n)  # redraws at most every tenth of a second, as tqdm does

    def end(self, reason: str | None, note: str = "") -> None:
        """Close the bar (full when a limit was reached) and print the line that says why the run ended, one of
        ``REASONS``, followed by ``note``; ``None`` closes the bar and says nothing (a fault reported elsewhere)."""
        if self.bar is None:
            return
        if reason in ("budget", "total"):
            self.bar.update(self.SCALE - self.bar.n)
        self.bar.close()
        self.bar = None
        if reason is not None:
            print(f"{self.desc}: {self.summary(reason)}{note}", file=sys.stderr, flush=True)

    def summary(self, reason: str) -> str:
        so_far = f"{count(self.done)} of {count(self.total)} {self.unit}s in {clock(self.elapsed())}"
        if reason == "budget":
            return f"ended at the time budget ({self.budget / 60:g} min): {so_far}"
        if reason == "total":
            return f"ended at the {self.unit} total: {count(self.done)} {self.unit}s in {clock(self.elapsed())}"
        if reason == "stopped":
            return f"stopped by the user: {so_far}"
        raise ValueError(f"unknown reason {reason!r}; reasons: {', '.join(REASONS)}")

    def _filled(self) -> int:
        return int(self.fraction() * self.SCALE)

    def _format(self, postfix: dict) -> str:
        parts = [f"{count(self.done)}/{count(self.total)} {self.unit}s"]
        if self.budget:
            parts.append(f"{clock(self.elapsed())}/{clock(self.budget)} budget")
        left = self.left()
        if left is not None:
            parts.append(f"{clock(left)} left")
        parts += [f"{k}={v}" for k, v in postfix.items()]
        return self.FORMAT + " · ".join(parts).replace("{", "{{").replace("}", "}}")


__all__ = ["CtrlC", "Progress", "REASONS", "interrupted"]
