"""Profile names people can tell apart.

A name is compared by its key: Unicode NFKC, then case-folded, so "Alice", "ALICE" and the
full-width "Ａｌｉｃｅ" are one name. A name may not hold invisible or direction-changing
characters (format characters such as a zero-width space or U+202E, control characters, line
separators), and may not mix scripts whose letters look alike ("Аlice" with a Cyrillic "А"),
which the ``confusable_homoglyphs`` library tells.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from confusable_homoglyphs import confusables

__all__ = ["MAX_NAME", "NameError_", "check_name", "name_key"]

MAX_NAME: Final = 24
"""The longest name, in characters (after NFKC)."""

_INVISIBLE: Final = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


class NameError_(ValueError):
    """A name that cannot be used: ``code`` is stable, the message one sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def name_key(name: str) -> str:
    """What two names are compared by."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_name(name: str) -> str:
    """``name`` trimmed, if it may be used; else :class:`NameError_`."""
    name = unicodedata.normalize("NFC", name).strip()
    shown = unicodedata.normalize("NFKC", name)
    if not shown or len(shown) > MAX_NAME:
        raise NameError_("bad_name", f"a name has 1 to {MAX_NAME} characters")
    hidden = [c for c in name if unicodedata.category(c) in _INVISIBLE]
    if hidden:
        code = f"U+{ord(hidden[0]):04X}"
        raise NameError_(
            "bad_name", f"a name may not hold invisible or control characters (it has {code})"
        )
    if confusables.is_dangerous(name):
        raise NameError_("confusable_name", "a name may not mix scripts whose letters look alike")
    return name
