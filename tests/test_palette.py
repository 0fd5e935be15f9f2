"""The card palette: one source (cards.py, mirrored by style.css), and distinguishable.

Every pair of the six display colours must differ by at least ``THRESHOLD`` (CIE CAM02-UCS
colour difference, colorspacious) for normal vision and under a full-severity simulation
(Machado et al. 2009) of deuteranopia, protanopia and tritanopia. docs/accessibility.md
states the threshold and the measured minimums.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from colorspacious import cspace_convert, deltaE

from blink.cards import Color

THRESHOLD = 20.0
STYLE = Path(__file__).resolve().parents[1] / "src" / "blink" / "web" / "style.css"
CVD_TYPES = ("deuteranomaly", "protanomaly", "tritanomaly")


def _rgb(hex_code: str) -> np.ndarray:
    return np.array([int(hex_code[i : i + 2], 16) for i in (1, 3, 5)]) / 255.0


def _seen(hex_code: str, vision: str) -> np.ndarray:
    rgb = _rgb(hex_code)
    if vision == "normal":
        return rgb
    cvd = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
    return np.clip(cspace_convert(rgb, cvd, "sRGB1"), 0.0, 1.0)


def _closest_pair(vision: str) -> tuple[float, str, str]:
    seen = {c.label: _seen(c.hex, vision) for c in Color}
    return min(
        (float(deltaE(seen[a], seen[b], input_space="sRGB1")), a, b)
        for a, b in itertools.combinations(seen, 2)
    )


def test_css_variables_match_the_python_palette() -> None:
    css = STYLE.read_text(encoding="utf-8")
    found = dict(re.findall(r"--card-([a-z]+):\s*(#[0-9A-Fa-f]{6})\s*;", css))
    assert {k: v.upper() for k, v in found.items()} == {c.label: c.hex.upper() for c in Color}


def test_the_javascript_has_no_copy_of_the_palette() -> None:
    js = (STYLE.parent / "js" / "cards.js").read_text(encoding="utf-8")
    for c in Color:
        assert c.hex.lower() not in js.lower()


@pytest.mark.parametrize("vision", ("normal", *CVD_TYPES))
def test_every_pair_of_colours_is_distinguishable(vision: str) -> None:
    distance, a, b = _closest_pair(vision)
    assert distance >= THRESHOLD, f"{vision}: {a} and {b} differ by only {distance:.1f}"


def test_red_is_not_orange_and_purple_is_not_pink() -> None:
    # Hue angles (CIECAM02 h, degrees) for normal vision: red stays well away from orange,
    # and purple sits on the blue side of magenta rather than the pink one.
    def hue(color: Color) -> float:
        jch = cspace_convert(_rgb(color.hex), "sRGB1", "JCh")
        return float(jch[2])

    assert hue(Color.ORANGE) - hue(Color.RED) >= 30
    assert 270 <= hue(Color.PURPLE) <= 320
