"""The room core loads no web framework, database driver or Redis client.

The room takes messages and time and gives frames, storage records and timers; the drivers
around it (the hub on asyncio, the WebSocket sessions, the storage writer) do the I/O. Each
core module is imported alone in a fresh interpreter, and none of the packages below may be
loaded by it (import-linter's ``room-core`` contract forbids the direct and indirect imports
too; this test also catches one made at import time through a module outside ``blink``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOM = Path(__file__).resolve().parents[2] / "src" / "blink" / "server" / "room"

CORE = [
    "blink.server.room",
    *(f"blink.server.room.{m.stem}" for m in sorted(ROOM.glob("*.py")) if m.stem != "__init__"),
    "blink.server.room_writes",
    "blink.server.message_limits",
]
"""The room core's modules: the package's, its storage records and the message limiter."""


def test_the_room_core_is_every_module_of_its_package() -> None:
    assert "blink.server.room.room" in CORE and "blink.server.room.clock" in CORE


FORBIDDEN = ("fastapi", "starlette", "sqlalchemy", "psycopg", "uvicorn", "redis", "alembic")
"""Packages the room core may not load."""

DRIVERS = ("storage", "pg_writer", "session", "routes", "app", "hub", "jobs", "schema", "stored")
"""The server's modules (under ``blink.server``) that do I/O or build SQL for it."""


def _loaded(module: str) -> list[str]:
    """The modules loaded by importing ``module`` alone in a fresh interpreter."""
    code = f"import sys, json, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded: list[str] = json.loads(out.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("module", CORE)
def test_importing_the_room_core_loads_no_framework_database_or_driver(module: str) -> None:
    loaded = _loaded(module)
    frameworks = sorted({m for m in loaded if m.split(".")[0] in FORBIDDEN})
    assert frameworks == [], f"{module} loads {frameworks}"
    drivers = sorted(
        m for m in loaded if m.startswith("blink.server.") and m.split(".")[2] in DRIVERS
    )
    assert drivers == [], f"{module} loads the server's drivers {drivers}"
