"""Statistics every simulator uses: Wilson intervals for win rates, percentiles, distributions."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Distribution", "percentile", "wilson"]


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval (95 % by default) for a proportion ``successes / n`` (0 to 1
    when ``n`` is 0): the one every win rate of the project uses (simulations, a trained
    policy's evaluation)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of sorted values, by linear interpolation."""
    if not sorted_values:
        return math.nan
    k = (len(sorted_values) - 1) * q / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


@dataclass(frozen=True)
class Distribution:
    """Mean, median and the 10th and 90th percentiles of a sample."""

    mean: float
    median: float
    p10: float
    p90: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        """Describe ``values``."""
        if not values:
            return cls(math.nan, math.nan, math.nan, math.nan)
        s = sorted(values)
        return cls(
            math.fsum(s) / len(s), statistics.median(s), percentile(s, 10), percentile(s, 90)
        )

    def to_dict(self) -> dict[str, float]:
        """JSON-ready."""
        return {"mean": self.mean, "median": self.median, "p10": self.p10, "p90": self.p90}
