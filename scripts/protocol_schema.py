"""Write the game protocol's JSON Schema to docs/protocol.schema.json (or check it with --check).

python scripts/protocol_schema.py          # write it
python scripts/protocol_schema.py --check  # exit 1 when the published file is out of date
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from blink.server.protocol import protocol_schema

OUT = Path(__file__).resolve().parents[1] / "docs" / "protocol.schema.json"


def main() -> int:
    """Write or check the schema."""
    text = json.dumps(protocol_schema(), indent=2, sort_keys=True) + "\n"
    if "--check" in sys.argv[1:]:
        if not OUT.is_file() or OUT.read_text() != text:
            print(f"{OUT.name} is out of date: run python scripts/protocol_schema.py")
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
