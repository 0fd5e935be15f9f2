"""The challenges' bookkeeping alone (:mod:`blink.server.challenges`), on a virtual clock: the
limits of a sender and of one bot, expiry at its time, closed challenges forgotten after
:data:`KEPT`, a claimed challenge reopened when its room could not be opened."""

from __future__ import annotations

import pytest

from blink.server.challenges import EXPIRY, KEPT, ChallengeBook, ChallengeError, Party

ADA, BEA, CY = Party("a", "Ada", True), Party("b", "Bea", True), Party("c", "Cy", False)


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _send(book: ChallengeBook, sender: Party, to: Party) -> str:
    return book.send(sender, to, "classic", 2, 1, True).id


def test_limits_of_a_sender_and_of_a_bot() -> None:
    book = ChallengeBook(Clock(), max_open=2, max_incoming=3)
    _send(book, ADA, BEA)
    _send(book, ADA, BEA)
    with pytest.raises(ChallengeError) as over:
        _send(book, ADA, BEA)
    assert (over.value.status, over.value.code) == (429, "too_many_challenges")
    _send(book, CY, BEA)
    with pytest.raises(ChallengeError) as full:
        _send(book, Party("d", "Dee", False), BEA)
    assert full.value.code == "too_many_challenges" and "Bea" in full.value.message
    with pytest.raises(ChallengeError) as person:
        _send(book, ADA, CY)
    assert person.value.code == "no_such_bot"
    with pytest.raises(ChallengeError) as itself:
        _send(book, BEA, BEA)
    assert itself.value.code == "bad_challenge"


def test_expiry_and_forgetting() -> None:
    clock = Clock()
    book = ChallengeBook(clock)
    cid = _send(book, ADA, BEA)
    clock.now += EXPIRY - 0.001
    assert book.of("b")[0][0].status == "open"
    clock.now += 0.001
    assert book.of("b")[0][0].status == "expired"
    with pytest.raises(ChallengeError) as late:
        book.claim(cid, "b")
    assert (late.value.status, late.value.code) == (409, "challenge_expired")
    clock.now += KEPT
    assert book.of("b") == ([], []) and book.of("a") == ([], [])


def test_each_expiry_is_told_once() -> None:
    clock = Clock()
    told: list[str] = []
    book = ChallengeBook(clock, on_expired=lambda c: told.append(c.id))
    cid = _send(book, ADA, BEA)
    book.sweep()
    assert told == []
    clock.now += EXPIRY
    book.sweep()
    book.sweep()
    assert told == [cid]


def test_a_claim_is_reopened_when_its_room_fails() -> None:
    book = ChallengeBook(Clock())
    cid = _send(book, CY, BEA)
    c = book.claim(cid, "b")
    with pytest.raises(ChallengeError) as twice:
        book.claim(cid, "b")
    assert twice.value.code == "challenge_accepted"
    book.reopen(c)
    assert book.claim(cid, "b") is c
    book.opened(c, "K7PQ", {"c": {"seat": 0, "token": "t"}, "b": {"seat": 1, "token": None}})
    assert c.view("c")["token"] == "t" and c.view("b")["token"] is None
    assert "token" not in {k for k, v in c.view("x").items() if v is not None}
