"""Fixtures for the analysis tests: a small budget (the classes need no precision here) and a
finished one-hand game whose seat 0 dumps the queen of spades on its own trick."""

from __future__ import annotations

import pytest

from tests.engine.test_analysis import QUEEN_ON_OWN_TRICK
from tests.tournaments.conftest import scheduler  # noqa: F401  (a fixture: CPU moves and timers recorded, not sent)
from tests.tournaments.helpers import next_command, seated_table
from tournaments.games import eventstore
from tournaments.games.services import game_execute_command
from tournaments.models import Game

SMALL = {"play_samples": 40, "pass_screen": 6, "pass_finalists": 1, "pass_samples": 30}
QUEEN_PLAYS = [(0, "2C"), (1, "AC"), (2, "6C"), (3, "TC"), (1, "5S"), (2, "JS"), (3, "4S"), (0, "QS")]


@pytest.fixture(autouse=True)
def _small_budget(settings):
    settings.HEARTS_ANALYSIS_BUDGET = SMALL


@pytest.fixture(autouse=True)
def _chunks_run_here(monkeypatch):
    """The chunks a request sends run in this process (with Redis they would go to a broker no
    worker here consumes); the Celery path is the browser test's (the embedded worker)."""
    from analysis import services

    monkeypatch.setattr(services, "scheduler", services.InlineRunner())


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """Test databases reuse user ids: start with no analysis requests counted."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def play_scripted(game: Game, people, script=()) -> Game:
    """Play ``script`` (seat, card) first, then the lowest legal card to the end."""
    script = list(script)
    for _ in range(5000):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return game
        seat = eventstore.read_engine_game(game, lambda state: state.to_act[0])
        view = eventstore.read_engine_game(game, lambda state, seat=seat: state.view(seat))
        if script:
            expected, card = script.pop(0)
            assert expected == seat
            command = {"type": "play", "card": card}
        else:
            command = next_command(view)
        game_execute_command(game_id=game.pk, player=people[seat], command=command)
    raise AssertionError("the game did not end")


@pytest.fixture
def queen_game(scheduler):  # noqa: F811
    """A one-hand game (no passing) played to the end; seat 0 dumps QS on its own trick at trick 2."""
    game, people, clients = seated_table(rules={"passing": "off"}, deals=[QUEEN_ON_OWN_TRICK], hand_limit=1)
    game = play_scripted(game, people, QUEEN_PLAYS)
    return game, people, clients
