"""Shared pytest settings: a Hypothesis profile with no per-example deadline.

The machine is shared, so timing-based Hypothesis deadlines would make tests flaky; each test
module keeps its own example budget small instead.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("blink", deadline=None, print_blob=True)
settings.load_profile("blink")
