"""What docs/security.md and docs/cluster.md promise an operator of a cluster, against the code:
the bounds of the bus's messages, the Redis user's rules, the per-node limits and the fences
they name (as tests/test_i18n_glossary.py checks docs/i18n.md against the string tables)."""

from __future__ import annotations

import re
from pathlib import Path

from blink.cluster.haproxy import HaproxyConfig, render
from blink.cluster.local import REDIS_RULES, REDIS_USER
from blink.server import bus, feeds, hub, quickplay, shared_connections, shared_limits

ROOT = Path(__file__).resolve().parent.parent


def _text(name: str) -> str:
    """A doc's text with every run of white space made one space (lines wrap anywhere)."""
    return re.sub(r"\s+", " ", (ROOT / "docs" / name).read_text())


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find(" ## ", start + 3)
    return text[start : end if end != -1 else None]


def test_the_cluster_sections_name_what_is_fenced_authenticated_and_private() -> None:
    security = _section(_text("security.md"), "A cluster")
    cluster = _section(_text("cluster.md"), "What is fenced, what is authenticated")
    for text in (security, cluster):
        for words in ("fenced", "authenticated", "private", "gaps"):
            assert words in text.lower(), words
        for thing in ("tournament", "Redis", "PostgreSQL", "--forwarded-allow-ips", "/metrics"):
            assert thing in text, thing
        # The windows are the cluster's (in Redis), each node's own while Redis does not answer.
        assert "one window per address" in text and "Redis does not answer" in text
    limits = _section(_text("cluster.md"), "Per-address limits")
    assert f"under `{shared_limits.PREFIX}:`" in limits
    assert f"at most {shared_limits.WAIT:g} s" in limits
    assert f"at most {shared_limits.WAIT:g} s" in security
    # The WebSockets' shared count: its expiry and refresh as the code has them.
    assert f"every {shared_connections.REFRESH:g} s (`REFRESH`)" in limits
    assert f"expires after {shared_connections.TTL:g} s (`TTL`)" in limits
    assert f"expires {shared_connections.TTL:g} s" in security


def test_the_bounds_said_are_the_codes() -> None:
    security = _section(_text("security.md"), "A cluster")
    cluster = _section(_text("cluster.md"), "What is fenced, what is authenticated")
    assert f"at most {feeds.MAX_REMOTE:,} remembered" in security
    assert f"at most {feeds.MAX_REMOTE:,} remembered" in cluster
    assert f"at most {quickplay.MAX_NODES} other nodes" in security
    assert f"{quickplay.MAX_NODES} other nodes counted" in cluster
    assert f"at most {bus.MAX_ONLINE:,}" in security
    assert f"dropped after {quickplay.SILENT_AFTER:g} s of silence" in security
    moves = f"at most once every {hub.MOVE_BACK_AFTER:g} s"
    assert moves in security and moves in cluster


def test_the_redis_user_said_is_the_local_clusters() -> None:
    cluster = _text("cluster.md")
    assert f"user {REDIS_USER} on >REDIS_PASSWORD {REDIS_RULES}" in cluster
    assert "user default off" in cluster
    # The keys it may touch are the shared windows' only.
    assert [r for r in REDIS_RULES.split() if r.startswith("~")] == [f"~{shared_limits.PREFIX}:*"]


def test_the_router_removes_the_headers_the_nodes_believe() -> None:
    cfg = render(HaproxyConfig(nodes=("127.0.0.1:8001",)))
    for header in ("X-Forwarded-For", "X-Blink-Room"):
        assert f"http-request del-header {header}" in cfg
        assert header in _section(_text("security.md"), "A cluster")
    assert "return status 404" in cfg and "metrics" in cfg
