"""The client's pages share one top bar, written once in ``web/partials/topbar.html``: the
server puts it into each page (in place of the page's ``<!-- topbar status=ID -->`` line)
when it starts, and serves the pages with an ETag of what it sends
(:mod:`blink.server.routes.pages`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from srvkit import ServerThread

import blink
from blink.server.routes.pages import PageError, pages, render

SRC = Path(blink.__file__).parent
WEB = SRC / "web"
PARTIAL = WEB / "partials" / "topbar.html"
HEADER = '<header class="topbar">'

STATUS = {
    "index.html": "net",
    "tournament.html": "tstatus",
    "leaderboard.html": "lstatus",
    "daily.html": "dstatus",
    "player.html": "pstatus",
}
"""Each page's status line, which its script looks up (page.js, tournament.js,
leaderboard.js)."""


def _expected_topbar(page: str) -> str:
    """The partial as a page gets it: its status line's id, and on the router's page
    (index.html) the ids and links app.js's router follows."""
    router = page == "index.html"
    bar = PARTIAL.read_text("utf-8").removesuffix("\n")
    bar = bar.replace("$status", STATUS[page])
    bar = bar.replace("$home", ' id="home-link"' if router else "")
    return bar.replace("$rules_link", " data-link" if router else "")


def _topbar_of(html: str) -> str:
    start = html.index(HEADER)
    return html[start : html.index("</header>", start) + len("</header>")]


def test_no_html_file_of_the_package_has_a_top_bar_of_its_own() -> None:
    """The partial is the one ``<header class="topbar">`` in the package's HTML (the client's
    and every game's own browser folder); each page of the client but the offline page says
    where the top bar goes, once."""
    copies = [
        str(p.relative_to(SRC))
        for p in sorted(SRC.rglob("*.html"))
        if p != PARTIAL and HEADER in p.read_text("utf-8")
    ]
    assert not copies, f"a copy of the top bar in {copies}; put <!-- topbar status=ID --> instead"
    assert PARTIAL.read_text("utf-8").count(HEADER) == 1
    marked = sorted(p.name for p in WEB.glob("*.html") if "<!-- topbar " in p.read_text("utf-8"))
    assert marked == sorted(STATUS)
    assert sorted(p.name for p in WEB.glob("*.html")) == sorted([*STATUS, "offline.html"])


def test_every_served_page_has_the_one_top_bar(make_server: Any) -> None:
    """Every page, at each of its addresses, comes with the partial's top bar (the page's own
    status id; the router's home link and data-link on the lobby's page alone), once, and
    nothing of the partial's placeholders or the page's line; a browser that has the page
    gets 304 Not Modified; the partial itself is not served."""
    server: ServerThread = make_server(web_dir=WEB)
    assert server.post("/api/profiles", {"name": "Bar Owner"}).status_code == 201
    addresses = {
        "/": "index.html",
        "/index.html": "index.html",
        "/play/ABCDEF": "index.html",
        "/watch/ABCDEF": "index.html",
        "/tournament.html": "tournament.html",
        "/tournament.html?id=x": "tournament.html",
        "/leaderboard.html": "leaderboard.html",
        "/daily.html": "daily.html",
        "/player.html": "player.html",
        "/@/Bar%20Owner": "player.html",
    }
    assert set(addresses.values()) == set(STATUS)
    for url, page in addresses.items():
        r = httpx.get(server.http + url, timeout=10)
        assert r.status_code == 200, url
        assert r.headers["content-type"] == "text/html; charset=utf-8", url
        html = r.text
        assert html.count(HEADER) == 1, url
        assert _topbar_of(html) == _expected_topbar(page), url
        assert f'<span id="{STATUS[page]}" class="net"' in html, url
        assert ('id="home-link"' in html) == (page == "index.html"), url
        assert "<!-- topbar" not in html and "$" not in _topbar_of(html), url
        # The rest of the page is the page's file around its line.
        source = (WEB / page).read_text("utf-8")
        line_start = source.index("<!-- topbar ")
        line_end = source.index("-->", line_start) + len("-->")
        assert html == source[:line_start] + _topbar_of(html) + source[line_end:], url
        again = httpx.get(server.http + url, headers={"if-none-match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b"", url
        stale = httpx.get(server.http + url, headers={"if-none-match": '"other"'})
        assert stale.status_code == 200 and stale.text == html, url
    assert httpx.get(server.http + "/@/Bar%20Owner").headers["cache-control"] == "no-cache"
    assert httpx.get(server.http + "/partials/topbar.html").status_code == 404
    assert httpx.get(server.http + "/offline.html").text == (WEB / "offline.html").read_text()


def test_a_page_is_rendered_once(tmp_path: Path) -> None:
    """The pages of a folder are put together once: a later change of a file shows only
    after the server starts again (like the service worker's shell)."""
    (tmp_path / "partials").mkdir()
    (tmp_path / "partials" / "topbar.html").write_text('<header class="topbar" id="$status">\n')
    (tmp_path / "a.html").write_text("<body>\n<!-- topbar status=s1 -->\n<main></main>\n")
    (tmp_path / "plain.html").write_text("<body></body>\n")
    first = pages(tmp_path)
    assert set(first) == {"a.html"}
    assert first["a.html"].body == b'<body>\n<header class="topbar" id="s1">\n<main></main>\n'
    (tmp_path / "a.html").write_text("changed")
    assert pages(tmp_path) is first


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("<!-- topbar -->", "names no status=ID"),
        ("<!-- topbar status= -->", "has 'status='"),
        ("<!-- topbar status=net wide -->", "has 'wide'"),
        ("<!-- topbar status=a -->\n<!-- topbar status=b -->", "comes 2 times"),
    ],
)
def test_a_malformed_top_bar_line_is_named(line: str, words: str) -> None:
    with pytest.raises(PageError, match=words):
        render(f"<body>\n{line}\n</body>\n", "<header>$status</header>\n", "x.html")


def test_a_page_without_its_partial_stops_the_server(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!-- topbar status=net -->\n")
    with pytest.raises(PageError, match=re.escape("partials/topbar.html is missing")):
        pages(tmp_path)
    (tmp_path / "partials").mkdir()
    (tmp_path / "partials" / "topbar.html").write_text("<header>$unknown</header>\n")
    with pytest.raises(PageError, match="names no parameter"):
        pages(tmp_path)
