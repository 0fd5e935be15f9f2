"""Update the terminal clients' catalogs: extract the strings, merge them into each language's
``.po`` (keeping its translations) and compile the ``.mo`` files gettext reads.

    python scripts/tui_catalog.py          # write the .po and .mo files
    python scripts/tui_catalog.py --check  # exit 1 if any of them is out of date
"""

from __future__ import annotations

import sys

from blink.tui.catalog import compile_mo, extract, merge, po_path, read_po, source_files, write_po
from blink.tui.i18n import LANGUAGES


def main(argv: list[str]) -> int:
    """Write (or with ``--check``, compare) every translated language's catalog."""
    check = "--check" in argv
    found = extract(source_files())
    stale = []
    for lang in LANGUAGES[1:]:
        po, mo = po_path(lang), po_path(lang, ".mo")
        old = read_po(po.read_text(encoding="utf-8"))[1] if po.exists() else []
        entries = merge(found, {e.key: e for e in old})
        text, binary = write_po(lang, entries), compile_mo(lang, entries)
        missing = [e.msgid for e in entries if not e.translated]
        for msgid in missing:
            print(f"{lang}: untranslated: {msgid!r}", file=sys.stderr)
        if check:
            if not po.exists() or po.read_text(encoding="utf-8") != text:
                stale.append(str(po))
            if not mo.exists() or mo.read_bytes() != binary:
                stale.append(str(mo))
            continue
        po.parent.mkdir(parents=True, exist_ok=True)
        po.write_text(text, encoding="utf-8")
        mo.write_bytes(binary)
    for path in stale:
        print(f"out of date: {path} (run python scripts/tui_catalog.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
