"""Replay answers 200 at every position of random games, live and finished: between commands
and inside them (the card that completes a trick, a hand over but not yet scored), before the
first deal too, and never invents a hand. ``HEARTS_REPLAY_GAMES`` sets how many games
(``make test``: a few; CI: 100)."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tests.tournaments.helpers import client_for
from tournaments.autoplay.moves import game_cpu_move
from tournaments.games import eventstore
from tournaments.games.services import SeatSpec, game_create, game_execute_command
from tournaments.models import Game, GameEvent

REPLAY_GAMES = int(os.environ.get("HEARTS_REPLAY_GAMES", "5"))


def _rules(draw) -> dict:
    players = draw(st.sampled_from([3, 4, 5]))
    rules = {
        "players": players,
        "passing": draw(st.sampled_from(["cycle", "off"])),
        "moon": draw(st.sampled_from(["add_to_others", "shooter_chooses"])),
        "end_score": draw(st.sampled_from([1, 26])),
    }
    if players != 4:
        rules["leftover"] = draw(st.sampled_from(["kitty", "remove"]))
    return rules


@st.composite
def games(draw):
    return _rules(draw), draw(st.sampled_from([1, 2, None])), draw(st.integers(0, 2**32))


def _play(game: Game, me, rng: random.Random, until_seq: int | None = None) -> Game:
    for _ in range(3000):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED or (until_seq is not None and game.seq >= until_seq):
            return game
        to_act, view = eventstore.read_engine_game(game, lambda state: (state.to_act, state.view(0)))
        if 0 in to_act:
            if view["phase"] == "passing":
                command = {"type": "pass", "cards": rng.sample(view["hand"], 3)}
            elif view["phase"] == "moon_choice":
                command = {"type": "moon_choice", "choice": rng.choice(["add_to_others", "subtract_from_self"])}
            else:
                command = {"type": "play", "card": rng.choice(view["legal_plays"])}
            game_execute_command(game_id=game.pk, player=me, command=command)
        else:
            assert game_cpu_move(game_id=game.pk, seq=game.seq)
    raise AssertionError("the game did not end")


def _every_position(client, game: Game, *, seat_view: int | None, complete: bool) -> None:
    game.refresh_from_db()
    previous_counts = None
    # a replay is shown from the seat held once the log was at ``at``: none before the seating
    seated_at = GameEvent.objects.filter(game=game, type="PlayersSeated").values_list("seq", flat=True).first()
    for at in range(1, game.seq + 1):
        response = client.get(f"/api/games/{game.pk}/replay/", {"at": at})
        assert response.status_code == 200, (at, response.content)
        body = response.json()
        view = body["view"]
        assert body["at"] == at and ("hands" in body) == complete
        assert view["seat"] == (None if complete or at < seated_at else seat_view)
        if not complete and seat_view is None:
            assert view["hand"] is None
        counts = sum(view["hand_counts"]) + len(view["trick"])
        if view["phase"] == "dealing":
            assert counts == 0 and all(not hand for hand in body.get("hands", []))
        elif previous_counts is not None and view["phase"] == "playing" and body["event"]["type"] == "CardPlayed":
            assert counts <= previous_counts  # a card played leaves a hand for the table, never the reverse
        previous_counts = counts


@pytest.mark.generated
@pytest.mark.django_db
@settings(
    max_examples=REPLAY_GAMES,
    deadline=None,
    derandomize=os.environ.get("HEARTS_MATRIX_RANDOM") is None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(drawn=games())
def test_replay_answers_at_every_position_of_live_and_finished_games(drawn, scheduler):
    rules, hands, seed = drawn
    note(f"rules={rules} hand limit={hands} seed={seed}")
    rng = random.Random(seed)
    me = PlayerFactory()
    game = game_create(
        creator=me,
        rules=rules,
        hand_limit=hands,
        seats=[SeatSpec("me")]
        + [SeatSpec("cpu", bot=rng.choice(["random", "rule"])) for _ in range(rules["players"] - 1)],
    )
    game = _play(game, me, rng, until_seq=rng.randint(5, 100))
    if not game.is_over:
        _every_position(client_for(me), game, seat_view=0, complete=False)
    game = _play(game, me, rng)
    _every_position(APIClient(), game, seat_view=None, complete=True)
