"""The "Download record" button on the end screen (classic and Go Blink) and in the replay
viewer: the downloaded file is named after its room and game, and loads and verifies as a
record through blink.model.records."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from blinkweb import AppThread, collect_errors
from playwright.sync_api import BrowserContext, Page, expect

from blink.games.classic.record import GameRecord
from blink.games.goblink.record import GoRecord
from blink.model.records import loads
from blink.server.settings import Settings, sqlite_url

pytestmark = pytest.mark.timeout(170)


class _Server(AppThread):
    """The real app in a thread, with quick bots, for finished games to watch."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(
            Settings(
                database_url=sqlite_url(tmp / "download.db"),
                countdown=0.05,
                stall_pause=0.05,
                between_games=0.5,
                deal_seed=21,
                turn_time=45.0,
                bot_delay=0.02,
            )
        )

    def room(self, body: dict[str, object]) -> str:
        import httpx

        r = httpx.post(self.url + "/api/rooms", json={"take_seat": None, **body}, timeout=10)
        r.raise_for_status()
        return str(r.json()["code"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Server]:
    s = _Server(tmp_path_factory.mktemp("e2e-download"))
    yield s
    s.stop()


def download(page: Page, link: str, tmp: Path) -> tuple[str, str]:
    """Click the link, wait for the download; its suggested name and its text."""
    with page.expect_download() as info:
        page.click(link)
    d = info.value
    path = tmp / d.suggested_filename
    d.save_as(path)
    return d.suggested_filename, path.read_text(encoding="utf-8")


def test_classic_end_screen_and_replay_download_the_record(
    context: BrowserContext, server: _Server, tmp_path: Path
) -> None:
    # A private room of two bots, watched to its end: its record_url carries ?room=CODE.
    code = server.room(
        {"players": 2, "seats": ["inhuman:first@40", "expert:blocker@40"], "public": False}
    )
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/watch/{code}")
    button = page.locator("#download-record")
    expect(button).to_be_visible(timeout=90000)
    expect(button).to_have_text("Download record")
    assert re.search(rf"\?room={code}$", button.get_attribute("href") or "")
    name, text = download(page, "#download-record", tmp_path)
    assert name == f"blink-{code}-1.json"
    record = loads(text)
    assert isinstance(record, GameRecord)
    assert record.verify().over
    # The replay viewer offers the same record, in both languages.
    page.click('[data-act="replay"]')
    expect(page.locator("#rp-step")).to_contain_text("Step 0 of", timeout=10000)
    expect(page.locator("#rp-download")).to_have_text("Download record")
    page.select_option("#lang", "es")
    expect(page.locator("#rp-download")).to_have_text("Descargar partida")
    name2, text2 = download(page, "#rp-download", tmp_path)
    assert name2 == name
    again = loads(text2)
    assert isinstance(again, GameRecord) and again.to_dict() == record.to_dict()
    assert not errors, errors


def test_a_record_file_in_the_replay_viewer_can_be_downloaded_again(
    context: BrowserContext, server: _Server, tmp_path: Path
) -> None:
    from blink.games.classic.engine import ClassicGame

    source = tmp_path / "mine.json"
    source.write_text(GameRecord.from_game(ClassicGame.new(2, seed=4)).to_json(), "utf-8")
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/#replay")
    page.set_input_files("#rp-file", str(source))
    expect(page.locator("#rp-download")).to_be_visible(timeout=10000)
    out = tmp_path / "out"
    out.mkdir()
    name, text = download(page, "#rp-download", out)
    assert name == "mine.json"
    assert loads(text).to_dict() == loads(source.read_text("utf-8")).to_dict()
    assert not errors, errors


def test_go_blink_end_screen_downloads_the_record(
    context: BrowserContext, server: _Server, tmp_path: Path
) -> None:
    code = server.room({"game": "goblink", "players": 2, "seats": ["greedy", "memory"]})
    page = context.new_page()
    errors = collect_errors(page)
    page.goto(f"{server.url}/watch/{code}")
    link = page.locator("#go-download")
    expect(link).to_be_visible(timeout=120000)
    expect(link).to_have_text("Download record")
    name, text = download(page, "#go-download", tmp_path)
    assert name == f"blink-{code}-1.json"
    record = loads(text)
    assert isinstance(record, GoRecord)
    assert record.verify() is not None and record.result is not None
    page.select_option("#lang", "es")
    expect(link).to_have_text("Descargar partida")
    assert not errors, errors
