"""A network namespace of the test's own, linked to this machine's by a veth pair, whose link
can be cut and healed: a node run inside it (``ip netns exec``) is reached, and reaches
PostgreSQL and Redis, over that link only, so cutting it cuts the node off silently (no
connection is closed: packets just stop), as a machine that froze or a dropped cable would.

Making a namespace needs root (``CAP_NET_ADMIN``) and iproute2: without them the test fails
saying so (a partition that cannot be made is a failure, not a skip).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Namespace:
    """The namespace ``name``, reached from here at ``node`` (its end of the link), reaching
    this machine at ``host`` (this end, the veth ``link``)."""

    name: str
    link: str
    host: str
    node: str

    @property
    def prefix(self) -> tuple[str, ...]:
        """The command prefix that runs a program inside the namespace."""
        return ("ip", "netns", "exec", self.name)

    def cut(self) -> None:
        """Take this end of the link down: nothing passes either way any more."""
        ip("link", "set", self.link, "down")

    def heal(self) -> None:
        """Bring the link back up."""
        ip("link", "set", self.link, "up")


def ip(*args: str) -> None:
    """Run ``ip ARGS``; fail the test with its error when it fails."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")


@contextlib.contextmanager
def namespace() -> Iterator[Namespace]:
    """A fresh namespace and link (named after this process), removed at the end whatever
    happened."""
    if os.geteuid() != 0:
        pytest.fail("the partition test makes a network namespace: it must run as root")
    if shutil.which("ip") is None:
        pytest.fail("the partition test needs iproute2's `ip` (apt-get install iproute2)")
    n = os.getpid() % 250 + 1
    ns = Namespace(f"blinkpart{os.getpid()}", f"bpt{os.getpid()}", f"10.213.{n}.1", f"10.213.{n}.2")
    peer = f"{ns.link}n"
    try:
        ip("netns", "add", ns.name)
        ip("link", "add", ns.link, "type", "veth", "peer", "name", peer)
        ip("link", "set", peer, "netns", ns.name)
        ip("addr", "add", f"{ns.host}/24", "dev", ns.link)
        ip("link", "set", ns.link, "up")
        inside = ("netns", "exec", ns.name, "ip")
        ip(*inside, "addr", "add", f"{ns.node}/24", "dev", peer)
        ip(*inside, "link", "set", peer, "up")
        ip(*inside, "link", "set", "lo", "up")
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns.name], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", ns.link], capture_output=True, check=False)
