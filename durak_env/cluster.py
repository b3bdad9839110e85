"""Ray, for work spread over the cores of many machines: the one place the project talks to a Ray cluster.

``connect`` joins a cluster (``address``: "auto" for the one this machine is a node of, ``ray://host:10001`` for a
remote one) or starts a Ray of this machine's own.  ``RayWorkers`` is ``durak_env.workers.Workers``' interface
(start, send, receive, close) over Ray actors, so that a pool written for worker processes on pipes runs on a
cluster unchanged: worker ``w`` is an actor made with ``args[w]``, a message is a call of its ``handle`` method,
and an actor lost with its process or its node is a ``WorkerGone``, which the pool answers as it answers a dead
process (a new worker takes its place and is sent the same request).  The large parts of a message (the
network's weights) go into Ray's object store once however many workers read them.

Ray is imported here only, and only when used: the engine and the environments never need it.  Ray moves
messages with pickle, like the worker processes' pipes: a cluster is the user's own machines, trusted as this one.
"""

from __future__ import annotations

from typing import Any

from .workers import WorkerGone

LOG_TO_DRIVER = False
"""Whether the actors' printing reaches this terminal (Ray's per-actor log prefixes would drown the progress bar)."""


def connect(address: str | None = None, num_cpus: int | None = None) -> dict[str, Any]:
    """Join the Ray cluster at ``address`` (or start one on this machine with ``num_cpus`` cores when None), once
    per process; returns the cluster's resources (``{"CPU": 8.0, ...}``).  ValueError, one line, where the cluster
    cannot be reached or Ray is not installed."""
    try:
        import ray
    except ImportError:
        raise ValueError("Ray is not installed: pip install 'durak-env[rllib]' (or ray) on every node") from None
    if not ray.is_initialized():
        try:
            ray.init(address=address, num_cpus=None if address else num_cpus, log_to_driver=LOG_TO_DRIVER,
                     include_dashboard=False, configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as err:
            where = f"the Ray cluster at {address}" if address else "a Ray of this machine's own"
            raise ValueError(f"could not start or reach {where} ({str(err).strip().splitlines()[0]})") from None
    return ray.cluster_resources()


def disconnect() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()


class RayWorkers:
    """``len(args)`` Ray actors, actor w an instance of ``actor_class(*args[w])`` taking one CPU; ``send(w, msg)``
    calls ``handle(*msg)`` on it and ``receive(w)`` waits for the answer (``WorkerGone`` if the actor, its process
    or its node died meanwhile).  Call ``connect`` first."""

    def __init__(self, actor_class: type, args: list[tuple], num_cpus: float = 1):
        import ray

        self._ray = ray
        self._remote = ray.remote(num_cpus=num_cpus, max_restarts=0)(actor_class)  # the pool restarts, not Ray
        self.actors: list[Any] = [None] * len(args)
        self._calls: list[Any] = [None] * len(args)
        self._shared: list[tuple[Any, Any]] = []  # (object, its ref): the parts put in the object store lately
        for w, actor_args in enumerate(args):
            self.start(w, actor_args)

    def __len__(self) -> int:
        return len(self.actors)

    def start(self, w: int, args: tuple) -> None:
        """Start actor w (again, after it was lost) with these arguments; Ray places it where a CPU is free."""
        if self.actors[w] is not None:
            self._ray.kill(self.actors[w], no_restart=True)
        self.actors[w] = self._remote.remote(*args)
        self._calls[w] = None

    def send(self, w: int, message: tuple) -> bool:
        self._calls[w] = self.actors[w].handle.remote(*(self._put(part) for part in message))
        return True

    def _put(self, part: Any) -> Any:
        """A large part (a dict or a list: weights, the opponent pool) as one object-store entry shared by every
        actor it is sent to; small values go as they are."""
        if not isinstance(part, (dict, list)):
            return part
        for obj, ref in self._shared:
            if obj is part:
                return ref
        ref = self._ray.put(part)
        self._shared = [*self._shared[-3:], (part, ref)]
        return ref

    def receive(self, w: int) -> Any:
        from ray.exceptions import ObjectLostError, RayActorError, WorkerCrashedError

        try:
            return self._ray.get(self._calls[w])
        except (RayActorError, WorkerCrashedError, ObjectLostError):
            raise WorkerGone(w, None) from None

    def nodes(self) -> list[str]:
        """The node each actor runs on (its IP address), asked of each actor."""
        return self._ray.get([actor.node.remote() for actor in self.actors])

    def close(self) -> None:
        for actor in self.actors:
            if actor is not None:
                self._ray.kill(actor, no_restart=True)
        self.actors, self._calls, self._shared = [], [], []


def run_tasks(function, items: list, retries: int = 3):
    """``function(item)`` for every item as Ray tasks spread over the cluster (one CPU each), yielding the results
    in the items' order.  A task lost with its process or its node is run again by Ray (``retries`` times), so
    ``function`` must give the same result whenever it runs (a seeded deal does); each result is yielded once.
    Call ``connect`` first."""
    import ray

    remote = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(function)
    pending = [remote.remote(item) for item in items]
    for ref in pending:
        yield ray.get(ref)


def alive_nodes() -> list[str]:
    """The cluster's nodes still alive, by address, as Ray's control store lists them."""
    import ray

    return sorted(n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"])


def node_address() -> str:
    """This process's node, as Ray names it (its IP address): for an actor's ``node`` method."""
    import ray

    return ray.util.get_node_ip_address()


__all__ = ["RayWorkers", "alive_nodes", "connect", "disconnect", "node_address", "run_tasks"]
