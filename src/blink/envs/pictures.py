"""Cards as pictures, for the environments' ``render_mode="rgb_array"``.

Each card is drawn as the browser draws it (``web/js/cards.js``): a cream card with a border in
its colour, and its count of symbols of its shape in its colour, outlined, in the same dice-like
layouts and sizes. The shapes are the browser's paths, turned into polygons and circles and
filled with numpy at twice the size, then averaged down (smooth edges). A card's picture is
made once and kept. Nothing here knows a game: a game's environment lays the cards out
(:func:`table`). Not pixel-identical to the browser, but a card reads the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Final

import numpy as np
from matplotlib.path import Path
from numpy.typing import NDArray

from blink.cards import Card, Shape

__all__ = ["CARD_HEIGHT", "CARD_WIDTH", "Image", "bar", "card_image", "table"]

Image = NDArray[np.uint8]
"""An RGB picture: ``(height, width, 3)`` bytes."""

CARD_WIDTH: Final = 50
CARD_HEIGHT: Final = 70
_SS: Final = 2  # drawn at twice the size (the browser's 100 x 140 view box), then averaged
_GAP: Final = 6
_FELT: Final = (32, 96, 61)
_CREAM: Final = (255, 253, 246)
_EDGE: Final = (201, 195, 180)
_INK: Final = (31, 31, 36)
_SLOT: Final = (52, 120, 82)

_LAYOUTS: Final[dict[int, tuple[tuple[int, int], ...]]] = {
    1: ((50, 70),),
    2: ((50, 42), (50, 98)),
    3: ((50, 28), (50, 70), (50, 112)),
    4: ((29, 42), (71, 42), (29, 98), (71, 98)),
    5: ((28, 30), (72, 30), (50, 70), (28, 110), (72, 110)),
}
_SCALES: Final = {1: 2.3, 2: 1.75, 3: 1.5, 4: 1.5, 5: 1.3}


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _star() -> list[tuple[float, float]]:
    points = []
    for i in range(10):
        r = 4.6 if i % 2 else 11.0
        a = -math.pi / 2 + i * math.pi / 5
        points.append((r * math.cos(a), r * math.sin(a) + 0.8))
    return points


def _drop() -> list[tuple[float, float]]:
    """The browser's water drop: a pointed top, a round bottom (radius 8.5 about y 3.5)."""
    top = [(0.0, -11.5)]
    right = [(8.5 * t**0.5, -11.5 + 15 * t) for t in np.linspace(0.05, 1, 8)]
    arc = [(8.5 * math.cos(a), 3.5 + 8.5 * math.sin(a)) for a in np.linspace(0, math.pi, 16)[1:-1]]
    left = [(-x, y) for x, y in reversed(right)]
    return top + right + arc + left


_POLYGONS: Final[dict[Shape, list[tuple[float, float]]]] = {
    Shape.PYRAMID: [(0, -10.5), (11, 9), (-11, 9)],
    Shape.STAR: _star(),
    Shape.WATER: _drop(),
    Shape.LIGHTNING: [
        (-0.5, -11.5),
        (7, -11.5),
        (1.5, -2.5),
        (8, -2.5),
        (-5, 11.5),
        (-1.5, 1.5),
        (-7.5, 1.5),
    ],
}


def _shape_mask(shape: Shape, x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Where ``shape`` (in its own units, centred on 0) covers the points ``x``, ``y``."""
    if shape is Shape.MOON:  # a disc less a larger disc to its right
        return ((x + 0.5) ** 2 + y**2 <= 10.5**2) & ((x - 5.5) ** 2 + y**2 > 11.5**2 * 0.62)
    if shape is Shape.FLOWER:
        out = np.zeros(x.shape, dtype=bool)
        for i in range(5):
            a = -math.pi / 2 + i * 2 * math.pi / 5
            out |= (x - 6 * math.cos(a)) ** 2 + (y - 6 * math.sin(a) - 0.5) ** 2 <= 4.9**2
        return out
    path = Path(_POLYGONS[shape])
    points = np.column_stack([x.ravel(), y.ravel()])
    return path.contains_points(points).reshape(x.shape)


def _grow(mask: NDArray[np.bool_], by: int) -> NDArray[np.bool_]:
    out = mask.copy()
    for _ in range(by):
        grown = out.copy()
        grown[1:] |= out[:-1]
        grown[:-1] |= out[1:]
        grown[:, 1:] |= out[:, :-1]
        grown[:, :-1] |= out[:, 1:]
        out = grown
    return out


def _rounded(h: int, w: int, inset: float, radius: float) -> NDArray[np.bool_]:
    grid: NDArray[np.float64] = np.mgrid[0:h, 0:w] + 0.5
    ys, xs = grid
    x = np.clip(xs, inset + radius, w - inset - radius)
    y = np.clip(ys, inset + radius, h - inset - radius)
    inside: NDArray[np.bool_] = (xs - x) ** 2 + (ys - y) ** 2 <= radius**2
    return inside


@cache
def card_image(card: Card | None) -> Image:
    """``card``'s picture, ``CARD_HEIGHT`` x ``CARD_WIDTH``; ``None``: an empty place."""
    h, w = CARD_HEIGHT * _SS, CARD_WIDTH * _SS
    img = np.empty((h, w, 3), dtype=np.float64)
    img[:] = _FELT
    if card is None:
        img[_rounded(h, w, 3, 18) & ~_rounded(h, w, 6, 15)] = _SLOT
        return _down(img)
    outer = _rounded(h, w, 1.5, 10)
    img[outer] = _EDGE
    img[_rounded(h, w, 3, 9)] = _CREAM
    colour = _rgb(card.color.hex)
    img[_rounded(h, w, 6, 7) & ~_rounded(h, w, 8, 5)] = colour
    ys, xs = np.mgrid[0:h, 0:w] + 0.5
    scale = _SCALES[card.count]
    for cx, cy in _LAYOUTS[card.count]:
        inside = _shape_mask(card.shape, (xs - cx) / scale, (ys - cy) / scale)
        img[_grow(inside, 2)] = _INK
        img[inside] = colour
    return _down(img)


def _down(img: NDArray[np.float64]) -> Image:
    h, w, _ = img.shape
    small = img.reshape(h // _SS, _SS, w // _SS, _SS, 3).mean(axis=(1, 3))
    out: Image = small.round().astype(np.uint8)
    out.flags.writeable = False
    return out


def bar(width: int, fraction: float, colour: tuple[int, int, int] = _CREAM) -> Image:
    """A bar ``width`` pixels wide and 6 high, filled to ``fraction`` (0 to 1)."""
    out = np.empty((6, width, 3), dtype=np.uint8)
    out[:] = _SLOT
    out[1:5, : round(max(0.0, min(1.0, fraction)) * width)] = colour
    return out


def table(rows: Sequence[Sequence[Card | None]], columns: int, bars: Sequence[float] = ()) -> Image:
    """Rows of cards (``None``: an empty place) on the felt, ``columns`` places wide, then one
    bar per number of ``bars`` (each a fraction), one under the other. Its size depends only
    on the number of rows, ``columns`` and the number of bars."""
    width = _GAP + columns * (CARD_WIDTH + _GAP)
    height = _GAP + len(rows) * (CARD_HEIGHT + _GAP) + len(bars) * 10
    out = np.empty((height, width, 3), dtype=np.uint8)
    out[:] = _FELT
    for r, row in enumerate(rows):
        top = _GAP + r * (CARD_HEIGHT + _GAP)
        for c, card in enumerate(row[:columns]):
            left = _GAP + c * (CARD_WIDTH + _GAP)
            out[top : top + CARD_HEIGHT, left : left + CARD_WIDTH] = card_image(card)
    top = _GAP + len(rows) * (CARD_HEIGHT + _GAP)
    for i, fraction in enumerate(bars):
        out[top + 10 * i : top + 10 * i + 6, _GAP : width - _GAP] = bar(width - 2 * _GAP, fraction)
    return out
