"""The card palettes: the browser's (one source, cards.py, mirrored by style.css) and the
terminal's (tui/render.py), each distinguishable.

Every pair of the six display colours must differ by at least ``THRESHOLD`` in the browser and
``TERMINAL_THRESHOLD`` in the terminal (CIE CAM02-UCS colour difference, colorspacious) for
normal vision and under a full-severity simulation (Machado et al. 2009) of deuteranopia,
protanopia and tritanopia; the terminal's colours must also be readable on the dark backgrounds
the tables use. docs/accessibility.md states the thresholds and the measured minimums.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from colorspacious import cspace_convert, deltaE
from textual.theme import BUILTIN_THEMES

from blink.cards import Color
from blink.tui.render import TERMINAL_COLORS

THRESHOLD = 20.0
TERMINAL_THRESHOLD = 18.0
"""Lower than the browser's: bright colours that all read on a dark background leave less room
apart (the search for this palette found none above 18.8 with every colour in its hue range)."""
TERMINAL_CONTRAST = 4.5
"""WCAG's contrast ratio for normal text, against each background the cards are drawn on."""
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


def _closest_pair(vision: str, palette: dict[Color, str] | None = None) -> tuple[float, str, str]:
    seen = {c.label: _seen((palette or {}).get(c, c.hex), vision) for c in Color}
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


@pytest.mark.parametrize("vision", ("normal", *CVD_TYPES))
def test_the_terminal_colours_are_distinguishable(vision: str) -> None:
    distance, a, b = _closest_pair(vision, TERMINAL_COLORS)
    assert distance >= TERMINAL_THRESHOLD, f"{vision}: {a} and {b} differ by only {distance:.1f}"


def _luminance(hex_code: str) -> float:
    c = _rgb(hex_code)
    linear = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def test_the_terminal_colours_read_on_the_tables_backgrounds() -> None:
    # The classic table draws on the theme's background, Go Blink's discard pile on its panel.
    theme = BUILTIN_THEMES["textual-dark"].to_color_system().generate()
    for name in ("background", "surface", "panel"):
        bg = _luminance(theme[name])
        for color, hex_code in TERMINAL_COLORS.items():
            ratio = (_luminance(hex_code) + 0.05) / (bg + 0.05)
            assert ratio >= TERMINAL_CONTRAST, f"{color.label} on {name}: {ratio:.2f}"


def test_each_terminal_colour_looks_like_its_name() -> None:
    # Hue ranges (CIECAM02 h, degrees) for normal vision, and enough colourfulness (C) not to
    # read as grey.
    hues = {
        Color.RED: (10, 40),
        Color.ORANGE: (50, 80),
        Color.YELLOW: (85, 110),
        Color.GREEN: (135, 175),
        Color.BLUE: (225, 255),
        Color.PURPLE: (270, 320),
    }
    for color, (lo, hi) in hues.items():
        _, chroma, hue = cspace_convert(_rgb(TERMINAL_COLORS[color]), "sRGB1", "JCh")
        assert lo <= hue <= hi, f"{color.label}: hue {hue:.0f}"
        assert chroma >= 40, f"{color.label}: colourfulness {chroma:.0f}"
