"""The Hypothesis profile loaded by tests/conftest.py: derandomized under CI, never timed."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def test_no_profile_depends_on_the_machine_speed() -> None:
    for name in ("ci", "dev"):
        profile = settings.get_profile(name)
        assert profile.deadline is None
        assert HealthCheck.too_slow in profile.suppress_health_check


def test_ci_profile_tries_the_same_examples_every_run() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize
    assert ci.database is None
    assert not settings.get_profile("dev").derandomize


def test_the_loaded_profile_follows_the_environment(pytestconfig: pytest.Config) -> None:
    option = pytestconfig.getoption("hypothesis_profile", default=None)
    chosen = option or os.environ.get("HYPOTHESIS_PROFILE", "").strip()
    expected = settings.get_profile(chosen or ("ci" if _ci() else "dev"))
    assert settings.default is expected
