"""Go Blink's fast engine (blink.games.goblink.fast): every game it plays is a legal game of
GoGame with the result GoGame gives it, its results depend only on each game's seed, and its
statistics agree with the exact simulator's.

The kernels are compiled once and cached on disk by numba (beside the modules, in
__pycache__), so only the first run on a machine pays the compile time.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from blink.cards import STANDARD_DECK
from blink.cli import app
from blink.games.goblink import fast
from blink.games.goblink.bots import GOBOTS, MemoryBot, winning_partition
from blink.games.goblink.engine import matches_in
from blink.games.goblink.sim import GoJob, run_games
from blink.sim.seeds import derive_seed, derive_seeds

BOTS = sorted(fast.KERNEL_BOTS)


def _seeds(master: int, n: int) -> list[int]:
    return [derive_seed(master, "goblink", i) for i in range(n)]


def _check_replays(bots: Sequence[str], seeds: Sequence[int], turn_limit: int | None) -> None:
    """Every game of ``seeds`` replays through GoGame to the kernel's own result."""
    players = len(bots)
    dealers = [i % players for i in range(len(seeds))]
    run = fast.run(bots, seeds, dealers, turn_limit=turn_limit, records=True)
    games = fast.games_of(run)
    assert [g.seed for g in games] == list(seeds)
    for g, row in zip(games, run.fields.tolist(), strict=True):
        engine = fast.replay(g)
        assert engine.over, (bots, g.seed)
        assert engine.outcome == g.outcome, (bots, g.seed)
        assert (engine.turns, engine.asks) == (g.turns, g.asks)
        assert len(engine.discard()) == g.matches
        assert len(engine.history) == row[fast.F_ACTIONS] == len(g.actions)
        assert engine.first_player == row[fast.F_FIRST]
        assert tuple(len(engine.hand(p)) for p in range(players)) == g.hand_counts


@pytest.mark.parametrize(
    "bots",
    [
        ("greedy", "greedy", "memory", "memory"),
        ("memory", "memory"),
        ("random", "greedy", "memory"),
        ("random", "random", "random", "random", "random"),
        ("memory", "greedy", "random", "memory", "greedy", "random"),
    ],
)
def test_every_fast_game_is_a_legal_engine_game(bots: tuple[str, ...]) -> None:
    _check_replays(bots, _seeds(11, 600), 1000)


@settings(max_examples=25, deadline=None)
@given(
    bots=st.lists(st.sampled_from(BOTS), min_size=2, max_size=6),
    master=st.integers(0, 2**32),
    turn_limit=st.sampled_from([1, 4, 30, 1000]),
)
def test_random_settings_replay_through_the_engine(
    bots: list[str], master: int, turn_limit: int
) -> None:
    _check_replays(bots, _seeds(master, 30), turn_limit)


def test_games_without_a_turn_limit_replay_through_the_engine() -> None:
    """No turn limit (the rulebook's game): these seeds' games all end by the rules."""
    _check_replays(("memory", "greedy", "random"), _seeds(5, 200), None)


def test_a_long_game_keeps_every_action_in_its_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game longer than the log's first capacity is played again with room for all."""
    monkeypatch.setattr(fast, "LOG_CAPACITY", 20)
    bots = ("random", "memory", "greedy")
    seeds = _seeds(3, 100)
    run = fast.run(bots, seeds, [i % 3 for i in range(100)], turn_limit=1000)
    assert (run.fields[:, fast.F_ACTIONS] > 20).sum() > 10
    _check_replays(bots, seeds, 1000)


def test_a_game_depends_only_on_its_seed() -> None:
    bots = ("memory", "greedy", "random", "memory")
    seeds = _seeds(21, 200)
    dealers = [i % 4 for i in range(200)]
    whole = fast.run(bots, seeds, dealers, turn_limit=1000)
    order = list(range(200))
    random.Random(4).shuffle(order)
    shuffled = fast.run(
        bots, [seeds[i] for i in order], [dealers[i] for i in order], turn_limit=1000
    )
    assert (shuffled.fields == whole.fields[order]).all()
    assert derive_seeds(21, "goblink", 3, 200) == seeds[3:]  # what the simulator's chunks use
    alone = fast.run(bots, seeds[7:8], dealers[7:8], turn_limit=1000)
    assert (alone.fields[0] == whole.fields[7]).all()
    job = GoJob(bots, seed=21, engine="fast")
    assert run_games(job, 50, workers=1) == run_games(job, 50, workers=2)


def _win_rates(winners: Sequence[tuple[int, ...]], players: int) -> list[float]:
    n = len(winners)
    rates = [sum(1 for w in winners if w == (s,)) / n for s in range(players)]
    return [*rates, sum(1 for w in winners if len(w) > 1) / n]


@pytest.mark.parametrize(
    "bots",
    [
        ("greedy", "greedy", "memory", "memory"),
        ("memory", "greedy"),
        ("random", "greedy"),
        ("random", "greedy", "memory"),
    ],
)
def test_statistics_agree_with_the_exact_engine(bots: tuple[str, ...]) -> None:
    """Win rates per seat, ties and the mean game length within four standard errors of the
    difference between the two engines (exact: 800 games; fast: 20,000)."""
    players = len(bots)
    exact = run_games(GoJob(bots, seed=8), 800, workers=1)
    quick = run_games(GoJob(bots, seed=9, engine="fast"), 20000, workers=1)
    for p, q in zip(
        _win_rates([r.winners for r in exact], players),
        _win_rates([r.winners for r in quick], players),
        strict=True,
    ):
        pooled = (p * len(exact) + q * len(quick)) / (len(exact) + len(quick))
        sigma = math.sqrt(pooled * (1 - pooled) * (1 / len(exact) + 1 / len(quick)))
        assert abs(p - q) <= 4 * sigma + 1e-9, (bots, p, q)
    for field in ("turns", "matches"):
        a = [getattr(r, field) for r in exact]
        b = [getattr(r, field) for r in quick]
        sigma = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
        assert abs(statistics.fmean(a) - statistics.fmean(b)) <= 4 * sigma, (bots, field)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(range(60)), min_size=0, max_size=14, unique=True))
def test_the_kernels_matches_and_wins_are_the_bots(indices: list[int]) -> None:
    """The kernels' count of lay-downs and their search for a winning lay-out agree with the
    Python functions the bots use."""
    from blink.games.goblink.fast import rules

    hand = [STANDARD_DECK[i] for i in indices]
    mask = np.uint64(sum(1 << i for i in indices))
    assert rules.count_matches(mask, len(hand)) == len(matches_in(hand))
    assert rules.count_matches(mask, len(hand) - 1) == sum(
        1 for m in matches_in(hand) if len(m) < len(hand)
    )
    group = rules.first_group(mask)
    plan = winning_partition(hand)
    assert (group != rules.NO_PLAN) == (plan is not None)
    if plan:
        laid = [STANDARD_DECK[i] for i in range(60) if int(group) >> i & 1]
        assert laid in [sorted(m, key=STANDARD_DECK.index) for m in matches_in(hand)]
        rest = [c for c in hand if c not in laid]
        assert winning_partition(rest) is not None


def test_the_kernels_state_what_the_python_side_reads() -> None:
    """The field numbers the wrapper reads, the memory bot's weights and the bot codes are the
    kernels' own."""
    from blink.games.goblink.fast import bots, rules

    assert (fast.F_TURNS, fast.F_ASKS, fast.F_WINNERS, fast.F_REASON) == (
        rules.G_TURNS, rules.G_ASKS, rules.G_WINNERS, rules.G_REASON,
    )  # fmt: skip
    assert (fast.F_ACTIONS, fast.F_MATCHES, fast.F_FIRST, fast.F_STATUS, fast.N_FIELDS) == (
        rules.G_NACT, rules.G_MATCHES, rules.G_FIRST, rules.G_STATUS, rules.G_FIELDS,
    )  # fmt: skip
    weights = ("PAIR_WORTH", "SURE_PAIR_WORTH", "FINISH_WORTH", "WIN_BONUS", "EXPLORE")
    assert [getattr(bots, w) for w in weights] == [getattr(MemoryBot, w) for w in weights]
    assert dict(fast.KERNEL_BOTS) == {"random": bots.RANDOM, "greedy": bots.GREEDY,
                                      "memory": bots.MEMORY}  # fmt: skip
    refused = {"master"}  # a search: the fast engine refuses it (the exact engine plays it)
    assert set(fast.KERNEL_BOTS) == set(GOBOTS) - refused, "a new bot needs a kernel form"


def test_the_compiled_modules_name_the_files_compiled_into_them() -> None:
    """numba's cache checks only a function's own file: the bots' module records the rules'
    digest, so a change to the rules changes it too."""
    from blink.games.goblink.fast import bots, rules

    digest = hashlib.sha256(Path(str(rules.__file__)).read_bytes()).hexdigest()[:16]
    assert digest == bots.RULES_DIGEST, "update RULES_DIGEST in fast/bots.py"


@pytest.mark.parametrize(
    ("bots", "what"),
    [
        (("greedy", "genius"), "'genius'"),
        (("master", "memory"), "'master'"),
        (("greedy",), "1 players"),
        (("random",) * 7, "7"),
    ],
)
def test_what_the_fast_engine_cannot_play_is_refused_with_a_sentence(
    bots: tuple[str, ...], what: str
) -> None:
    with pytest.raises(fast.NoKernelFormError, match=what) as caught:
        fast.run(bots, [1], [0])
    assert "--engine exact" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="engine"):
        GoJob(("greedy", "greedy"), engine="turbo")
    with pytest.raises(ValueError, match="dealer"):
        fast.run(("greedy", "greedy"), [1], [2])


def test_the_cli_runs_the_fast_engine_by_default_and_the_exact_one_when_asked() -> None:
    cli = CliRunner()
    args = ["goblink", "simulate", "--games", "300", "--workers", "1", "--json"]
    args += ["--bot", "greedy,memory,random"]
    default = cli.invoke(app, args)
    assert default.exit_code == 0, default.stderr
    data = json.loads(default.stdout)
    assert data["engine"] == "fast" and data["games"] == 300
    assert sum(data["wins"]) + data["ties"] == 300
    asked = cli.invoke(app, ["simulate", "--game", "goblink", *args[2:], "--engine", "FAST"])
    assert json.loads(asked.stdout)["wins"] == data["wins"]
    exact = cli.invoke(app, [*args[:3], "20", *args[4:], "--engine", "exact"])
    assert exact.exit_code == 0, exact.stderr
    assert json.loads(exact.stdout)["engine"] == "exact"
    for command in (["goblink", "simulate"], ["simulate", "--game", "goblink"]):
        bad = cli.invoke(app, [*command, "--engine", "turbo", "--games", "5"])
        assert bad.exit_code == 2
        assert bad.stderr.strip() == (
            "blink simulate: unknown engine 'turbo': the engines are exact, fast"
        )


def test_the_cli_plays_the_master_on_the_exact_engine_and_refuses_it_on_the_fast_one() -> None:
    cli = CliRunner()
    args = ["goblink", "simulate", "--games", "2", "--workers", "1", "--bot", "master,greedy"]
    played = cli.invoke(app, [*args, "--json"])
    assert played.exit_code == 0, played.stderr
    data = json.loads(played.stdout)
    assert data["engine"] == "exact" and sum(data["wins"]) + data["ties"] == 2
    refused = cli.invoke(app, [*args, "--engine", "fast"])
    assert refused.exit_code == 2
    message = refused.stderr.strip()
    assert "\n" not in message and "Traceback" not in refused.output
    assert message.startswith("blink simulate: the fast engine has no kernel form of the bot")
    assert "'master'" in message and "--engine exact" in message


_NO_NUMBA = """
import sys
class _Refuse:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("No module named 'numba' (hidden for a test)")
        return None
sys.meta_path.insert(0, _Refuse())
"""


def test_without_numba_the_cli_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    """A real process whose numba cannot be imported (a sitecustomize that refuses it): the
    fast engine, the default, is refused in one line; the exact engine still plays."""
    (tmp_path / "sitecustomize.py").write_text(_NO_NUMBA)
    src = Path(fast.__file__).parents[4]
    env = {"PYTHONPATH": f"{tmp_path}:{src}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    command = [sys.executable, "-m", "blink", "goblink", "simulate", "--games", "3"]
    command += ["--workers", "1", "--json"]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("blink simulate: the fast engine needs numba"), lines
    assert "--engine exact" in lines[0] and "Traceback" not in out.stderr
    exact = subprocess.run(
        [*command, "--engine", "exact"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert exact.returncode == 0, exact.stderr
    assert json.loads(exact.stdout)["engine"] == "exact"
