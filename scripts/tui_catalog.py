"""Update the terminal clients' catalogs with Babel: extract the strings, merge them into each
language's ``.po`` (keeping its translations) and compile the ``.mo`` files gettext reads.

    python scripts/tui_catalog.py          # write the .po and .mo files that are out of date
    python scripts/tui_catalog.py --check  # exit 1 if any of them is out of date

A file is out of date when its messages or translations differ from what the sources and the
``.po`` give (not its bytes: a ``.po`` header carries dates and Babel's version), so a current
file is never rewritten. Messages without a translation, or with a fuzzy one (a close old
message's, to check), are listed; gettext shows them in English.
"""

from __future__ import annotations

import sys

from blink.tui.catalog import extract, refresh, source_files, translated
from blink.tui.i18n import LANGUAGES


def main(argv: list[str]) -> int:
    """Write (or with ``--check``, compare) every translated language's catalog."""
    check = "--check" in argv
    template = extract(source_files())
    stale = []
    for lang in LANGUAGES[1:]:
        catalog, out_of_date = refresh(lang, template, write=not check)
        stale += out_of_date
        for message in catalog:
            if message.id and not translated(message):
                what = "fuzzy" if message.fuzzy else "untranslated"
                print(f"{lang}: {what}: {message.id!r}", file=sys.stderr)
    for path in stale:
        if check:
            print(f"out of date: {path} (run python scripts/tui_catalog.py)", file=sys.stderr)
        else:
            print(f"written: {path}", file=sys.stderr)
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
