"""Driving games in tests: the lowest legal card, through the API or the services."""

from __future__ import annotations

import itertools

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tournaments.models import Game

_command_ids = itertools.count(1)


def client_for(player) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=player.user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def seated_table(players=4, rules=None, **options):
    """A started table of human players; returns (game, players, clients by seat)."""
    people = [PlayerFactory() for _ in range(players)]
    from tournaments.games.services import SeatSpec, game_create

    game = game_create(
        creator=people[0],
        rules={"players": players, **(rules or {})},
        seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
        **options,
    )
    return game, people, [client_for(p) for p in people]


def next_command(view: dict) -> dict:
    """A legal command for the seat whose view this is: the first three cards, the first legal card."""
    if view["phase"] == "passing":
        return {"type": "pass", "cards": view["hand"][:3]}
    if view["phase"] == "moon_choice":
        return {"type": "moon_choice", "choice": "add_to_others"}
    return {"type": "play", "card": view["legal_plays"][0]}


def api_step(game_id: int, clients) -> dict:
    """Have one awaited seat act through the REST API; returns the command response body."""
    view = clients[0].get(f"/api/games/{game_id}/").json()["state"]
    seat = view["to_act"][0]
    state = clients[seat].get(f"/api/games/{game_id}/").json()["state"]
    body = {**next_command(state), "command_id": f"t{next(_command_ids)}"}
    response = clients[seat].post(f"/api/games/{game_id}/commands/", body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def play_through_api(game: Game, clients, max_steps=5000) -> Game:
    for _ in range(max_steps):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return game
        api_step(game.pk, clients)
    raise AssertionError("the game did not end")


def play_through_services(game: Game, people, max_steps=5000, until=None) -> Game:
    """Play to the end through the service layer (faster than HTTP), lowest legal card; with
    ``until`` (a test of the engine state), only until it holds."""
    from tournaments.games import eventstore
    from tournaments.games.services import game_execute_command

    for _ in range(max_steps):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED or (until is not None and eventstore.read_engine_game(game, until)):
            return game
        seat = eventstore.read_engine_game(game, lambda state: state.to_act[0])
        view = eventstore.read_engine_game(game, lambda state, seat=seat: state.view(seat))
        game_execute_command(game_id=game.pk, player=people[seat], command=next_command(view))
    raise AssertionError("the game did not end")
