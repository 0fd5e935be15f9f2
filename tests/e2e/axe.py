"""axe-core, the accessibility checker from the npm registry (``npm ci`` at the project's root,
which scripts/test runs, puts it in ``node_modules/``), run inside a page under test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
"""The checker's script; the tests fail with a sentence saying how to get it when it is missing."""

SERIOUS = ("serious", "critical")
"""The impacts a page may not have."""

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
"""The rules run: WCAG 2.2 levels A and AA, and axe's best practices."""


def violations(page: Page, context: str = "document") -> list[dict[str, Any]]:
    """The serious and critical violations axe-core finds in ``page`` now (within the elements
    the CSS selector ``context`` picks, or the whole document)."""
    if not AXE.exists():
        raise AssertionError(f"axe-core is missing ({AXE}): run `npm ci` in the project's root")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """async ([context, tags]) => {
            const root = context === "document" ? document : document.querySelector(context);
            const result = await window.axe.run(root, { runOnly: { type: "tag", values: tags } });
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5),
            }));
        }""",
        [context, TAGS],
    )
    return [v for v in found if v["impact"] in SERIOUS]


def describe(found: list[dict[str, Any]]) -> str:
    """The violations, one line each, for an assertion's message."""
    return "\n".join(f"{v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}" for v in found)


def contrast_failures(page: Page) -> str:
    """What axe-core's colour-contrast rule finds in ``page`` now, one line per element (its
    selector, the colours and the ratio), or an empty string."""
    if not AXE.exists():
        raise AssertionError(f"axe-core is missing ({AXE}): run `npm ci` in the project's root")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found: list[str] = page.evaluate(
        """async () => {
            const result = await window.axe.run(document, { runOnly: ["color-contrast"] });
            return result.violations.flatMap((v) => v.nodes.map((n) => {
                const d = (n.any[0] || {}).data || {};
                return `${n.target.join(" ")}: ${d.fgColor} on ${d.bgColor}, ${d.contrastRatio}:1`
                    + ` (${JSON.stringify((n.html || "").slice(0, 80))})`;
            }));
        }"""
    )
    return "\n".join(found)
