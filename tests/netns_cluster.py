"""A Ray cluster of several hosts on this one machine, for the tests and benchmarks that need a real one: each node
is a network namespace of its own (``ip netns``) joined to the others by a veth pair on a bridge, with an address
of 10.77.0.0/24 and no route anywhere else, and runs its own ``ray start``.  The cluster checks who joins it with a
token drawn here (Ray's token authentication), and nothing can be sent to an address outside the namespaces.

    with NetnsCluster(nodes=3, cpus=2) as cluster:
        cluster.run(["durak", "train", ..., "--address", cluster.address])   # a command on the head node
        cluster.kill(2)                                                     # node 2 is gone, as a machine would go

It needs root (``ip netns``); without it, or without iproute2, it fails with one line saying so.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import sigint_at_its_default

BIN = Path(sys.executable).parent
"""The virtual environment's scripts: ``ray`` and ``durak`` as the test's own Python has them."""


class NetnsCluster:
    """``nodes`` hosts, node 0 the head, each with ``cpus`` logical CPUs for Ray; ``address`` is the head's."""

    def __init__(self, nodes: int = 3, cpus: int = 2):
        if os.geteuid() != 0 or shutil.which("ip") is None:
            raise RuntimeError("a cluster of network namespaces needs root and iproute2 (ip netns): run the tests "
                               "as root, or apt-get install -y iproute2")
        tag = f"{os.getpid() % 100000}"
        self.names = [f"dk{tag}n{i}" for i in range(nodes)]
        self.bridge = f"dk{tag}br"
        self.ips = [f"10.77.0.{i + 1}" for i in range(nodes)]
        self.address = f"{self.ips[0]}:6379"
        self.temp = Path(f"/tmp/dk{tag}")  # short: Ray's socket paths must fit 107 bytes
        self.env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
                    "RAY_USAGE_STATS_ENABLED": "0",
                    # A lost node is declared dead within seconds (Ray's default takes half a minute).
                    "RAY_health_check_period_ms": "1000", "RAY_health_check_timeout_ms": "2000",
                    "RAY_health_check_failure_threshold": "3"}
        self.cpus = cpus
        self.started: list[int] = []

    # ----- the network ---------------------------------------------------------------------------------------------

    def __enter__(self) -> "NetnsCluster":
        try:
            self._ip("link", "add", self.bridge, "type", "bridge")
            self._ip("link", "set", self.bridge, "up")
            for i, name in enumerate(self.names):
                inside, outside = f"{name}a", f"{name}b"
                self._ip("netns", "add", name)
                self._ip("link", "add", inside, "type", "veth", "peer", "name", outside)
                self._ip("link", "set", inside, "netns", name)
                self._ip("link", "set", outside, "master", self.bridge)
                self._ip("link", "set", outside, "up")
                self._ip("-n", name, "addr", "add", f"{self.ips[i]}/24", "dev", inside)
                self._ip("-n", name, "link", "set", inside, "up")
                self._ip("-n", name, "link", "set", "lo", "up")
            for i in range(len(self.names)):
                self.start(i)
        except BaseException:
            self.__exit__()
            raise
        return self

    def _ip(self, *args: str) -> None:
        done = subprocess.run(["ip", *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")

    def routes(self, node: int) -> str:
        return subprocess.run(["ip", "-n", self.names[node], "route"], capture_output=True, text=True).stdout

    # ----- Ray -------------------------------------------------------------------------------------------------------

    def start(self, node: int) -> None:
        """``ray start`` on a node: the head, or a worker that joins it."""
        where = (["--head", f"--port={self.address.split(':')[1]}", "--include-dashboard=false"] if node == 0
                 else [f"--address={self.address}"])
        self.command(node, [str(BIN / "ray"), "start", *where, f"--node-ip-address={self.ips[node]}",
                            f"--num-cpus={self.cpus}", "--disable-usage-stats", f"--temp-dir={self.temp}"],
                     check=True, timeout=120)
        self.started.append(node)

    def command(self, node: int, argv: list[str], check: bool = False, timeout: float | None = None,
                **kwargs) -> subprocess.CompletedProcess:
        """Run a command on a node, to its end."""
        done = subprocess.run(["ip", "netns", "exec", self.names[node], *argv], env=self.env, capture_output=True,
                              text=True, timeout=timeout, **kwargs)
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[:3])} on node {node}: {(done.stderr or done.stdout).strip()[-600:]}")
        return done

    def spawn(self, node: int, argv: list[str], log: Path) -> subprocess.Popen:
        """Start a command on a node in the background, its output to ``log``."""
        with open(log, "w") as out:
            return subprocess.Popen(["ip", "netns", "exec", self.names[node], *argv], env=self.env, stdout=out,
                                    stderr=subprocess.STDOUT, preexec_fn=sigint_at_its_default)

    def pids(self, node: int) -> list[int]:
        listed = subprocess.run(["ip", "netns", "pids", self.names[node]], capture_output=True, text=True).stdout
        return [int(p) for p in listed.split()]

    def kill(self, node: int) -> None:
        """Every process of a node killed at once (SIGKILL): the node is gone, as a machine that lost its power."""
        for _ in range(20):
            pids = self.pids(node)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)

    def __exit__(self, *exc) -> None:
        for node in range(len(self.names)):
            self.kill(node)
        for name in self.names:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            subprocess.run(["ip", "link", "del", f"{name}b"], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
        shutil.rmtree(self.temp, ignore_errors=True)
