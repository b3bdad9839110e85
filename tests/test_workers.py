"""The one pool of worker processes (durak_env/workers.py) that the vector environment's helpers and the
trainer's rollout workers run in: each worker ignores Ctrl-C from its first instruction (CI once saw a run
stopped with Ctrl-C end in a traceback, the signal having landed while an extension module loaded), a dead
worker is reported rather than waited for, and a worker can be started again in its place."""

import os
import signal
import time

import pytest

from durak_env.workers import WorkerGone, Workers
from helpers import report_sigint


def test_workers_ignore_ctrl_c_from_birth_and_the_parent_keeps_its_handler():
    handler = signal.getsignal(signal.SIGINT)
    pool = Workers(report_sigint, [("a",), ("b",)])
    try:
        assert signal.getsignal(signal.SIGINT) is handler
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # held back only while spawning
        for w in range(len(pool)):
            os.kill(pool.procs[w].pid, signal.SIGINT)  # while it may still be importing: it must live on
        time.sleep(0.5)
        for w, tag in enumerate("ab"):
            assert pool.send(w, "hello")
            assert pool.receive(w) == (tag, "hello", True)
    finally:
        pool.close()
    assert pool.procs == [] and pool.conns == []


def test_a_ctrl_c_pressed_while_a_worker_is_spawned_is_raised_not_lost(monkeypatch, ctrl_c_handled):
    """The parent holds Ctrl-C back while it spawns a worker (so the worker is born with it held back) and never
    ignores it: one pressed then is raised once the signal is let through.  CI saw runs go on after their Ctrl-C."""
    import multiprocessing as mp

    spawn = mp.get_context("spawn").Process
    original = spawn.start

    def start_with_ctrl_c(self):
        os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, in the middle of the spawn
        original(self)

    monkeypatch.setattr(spawn, "start", start_with_ctrl_c)
    others = set(mp.active_children())
    try:
        with pytest.raises(KeyboardInterrupt):
            Workers(report_sigint, [("a",)])
    finally:
        for child in set(mp.active_children()) - others:  # the worker, started or not: no pool is left to close it
            child.terminate()
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


def test_a_dead_worker_is_reported_and_can_be_started_again():
    pool = Workers(report_sigint, [("a",)])
    pool.POLL = 0.1
    try:
        pool.procs[0].kill()
        pool.procs[0].join(5)
        pool.send(0, "anyone?")
        with pytest.raises(WorkerGone, match="worker 0 died") as gone:
            pool.receive(0)
        assert gone.value.exitcode == -signal.SIGKILL and pool.exitcodes() == [-signal.SIGKILL]
        pool.start(0, ("again",))
        assert pool.send(0, 1) and pool.receive(0) == ("again", 1, True)
    finally:
        pool.close()


def test_a_ctrl_c_that_comes_out_as_a_lost_worker_stops_the_run_instead_of_replacing_it():
    """Ray's wait for an actor on a node being lost can end in the actor's error with the Ctrl-C that landed meanwhile
    under it: that is the user's stop (as ``interrupted`` reads any error), not a death to replace the worker for."""
    from training.rollout import Rollouts

    class LostWithCtrlC:
        started = 0

        def receive(self, w):
            try:
                try:
                    raise KeyboardInterrupt
                except KeyboardInterrupt:
                    raise RuntimeError("the actor died")  # what Ray raises, the interrupt its context
            except RuntimeError:
                raise WorkerGone(w, None) from None

        def start(self, w, args):
            self.started += 1

    rollouts = Rollouts.__new__(Rollouts)
    rollouts.workers, rollouts.restarts = LostWithCtrlC(), 0
    with pytest.raises(KeyboardInterrupt):
        rollouts._receive_from(0)
    assert rollouts.workers.started == 0 and rollouts.restarts == 0
