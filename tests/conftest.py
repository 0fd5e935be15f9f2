"""Shared pytest settings: the Hypothesis profiles.

The machine is shared, so nothing Hypothesis does may depend on how fast it runs: no profile has
a per-example deadline, and the health check that times data generation (``too_slow``) is off.

* ``ci`` (loaded when the environment variable ``CI`` is set, as CI runs with ``CI=true``):
  derandomized, so every run tries the same examples (a failure is the same failure on the next
  run and on any machine), and no example database (nothing from an earlier run is replayed).
* ``dev`` (otherwise): random examples, remembered in the local database as usual.

``HYPOTHESIS_PROFILE=ci`` (or ``dev``) chooses a profile explicitly, and so does Hypothesis' own
``--hypothesis-profile`` option. Recent Hypothesis versions have a built-in ``ci`` profile much
like this one, loaded whenever ``CI`` is in the environment (even ``CI=false``); it is replaced
here so that the choice does not depend on the Hypothesis version. Each test module keeps its own
example budget small.

The profile is loaded here, at import time, before any test module: a ``settings(...)`` object
takes the values it does not set from the profile loaded when it is created.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

HIGHCARD = Path(__file__).resolve().parent / "fixtures" / "highcard"
"""The distribution of High Card, a third-party game (its own pyproject.toml and entry point)."""
sys.path.insert(0, str(HIGHCARD))
"""Its package, ``highcard``, is importable by every test (``from highcard import HIGH_CARD``).
Not installed, it has no metadata here: its entry point is not found in this process, and the
tests that use it register it themselves; tests/e2e/test_third_party_game.py installs it.
"""

os.environ.setdefault("BLINK_WARM_BOTS", "0")
"""The servers the tests start as processes (``blink serve``, a cluster's nodes) do not load
the bots' compiled searches at start: dozens of them at once would share two cores with the
tests. ``tests/server/test_warm_bots.py`` checks the warm-up itself."""

TIMING_HEALTH_CHECKS = (HealthCheck.too_slow,)
"""Health checks whose verdict depends on the machine's speed (suppressed in every profile)."""

# Both from Hypothesis' own defaults: under CI, Hypothesis has already loaded its built-in "ci"
# profile, and a profile without a parent would start from that one.
_DEFAULTS = settings.get_profile("default")
settings.register_profile(
    "dev",
    _DEFAULTS,
    deadline=None,
    print_blob=True,
    suppress_health_check=TIMING_HEALTH_CHECKS,
)
settings.register_profile(
    "ci",
    _DEFAULTS,
    deadline=None,
    print_blob=True,
    derandomize=True,
    database=None,
    suppress_health_check=TIMING_HEALTH_CHECKS,
)


def profile_name(env: Mapping[str, str] = os.environ) -> str:
    """The profile to load: ``HYPOTHESIS_PROFILE`` if set, else ``ci`` under CI, else ``dev``.

    ``CI`` counts as set unless it is empty, ``0``, ``false`` or ``no``.
    """
    chosen = env.get("HYPOTHESIS_PROFILE", "").strip()
    if chosen:
        return chosen
    ci = env.get("CI", "").strip().lower()
    return "dev" if ci in ("", "0", "false", "no") else "ci"


settings.load_profile(profile_name())


@pytest.fixture(autouse=True)
def _terminal_speaks_english_after() -> Iterator[None]:
    """The terminal clients' language is one setting per process (``blink play --lang``): a
    test that changes it (or runs ``blink play``, which reads the environment) must not leave
    the next test speaking Spanish."""
    yield
    from blink.tui.i18n import set_language

    set_language("en")
