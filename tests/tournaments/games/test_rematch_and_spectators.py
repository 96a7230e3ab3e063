"""Play again (the same players offered a new table, each accepting) and the spectators list
(names only; anonymous watchers counted, never named)."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from hearts_league.asgi import application
from tests.factories import PlayerFactory
from tests.tournaments.helpers import client_for, play_through_api, seated_table
from tournaments.clubs.services import player_get_or_create_cpu
from tournaments.games.services import SeatSpec, game_create
from tournaments.games.tickets import ws_ticket_issue
from tournaments.models import Game, SeatInvitation


def _finished_table():
    game, people, clients = seated_table(players=3, rules={"end_score": 1, "leftover": "remove"})
    return play_through_api(game, clients), people, clients


@pytest.mark.django_db
def test_play_again_offers_the_same_seats_and_each_player_accepts():
    game, people, clients = _finished_table()
    assert clients[0].get(f"/api/games/{game.pk}/").json()["rematch"] is None
    first = clients[1].post(f"/api/games/{game.pk}/rematch/", {"device_id": "d" * 20}, format="json")
    assert first.status_code == 200, first.json()
    rematch = Game.objects.get(pk=first.json()["id"])
    assert rematch.status == Game.Status.WAITING and rematch.rules == game.rules
    assert first.json()["your_seat"] == 1 and first.json()["state"] is None
    invited = {i.player_id: i.seat for i in SeatInvitation.objects.filter(game=rematch)}
    assert invited == {people[0].pk: 0, people[2].pk: 2}
    assert clients[0].get(f"/api/games/{game.pk}/").json()["rematch"] == rematch.pk
    # asking twice changes nothing; the others accept by asking too, and the table starts
    assert clients[1].post(f"/api/games/{game.pk}/rematch/", {}, format="json").json()["id"] == rematch.pk
    assert clients[0].post(f"/api/games/{game.pk}/rematch/", {}, format="json").json()["your_seat"] == 0
    assert Game.objects.get(pk=rematch.pk).status == Game.Status.WAITING
    assert clients[2].post(f"/api/games/{game.pk}/rematch/", {}, format="json").status_code == 200
    assert Game.objects.get(pk=rematch.pk).status == Game.Status.ACTIVE
    assert Game.objects.filter(rematch_of=game).count() == 1


@pytest.mark.django_db
def test_cpu_seats_stay_cpus_of_the_same_strength():
    me = PlayerFactory()
    game = game_create(
        creator=me,
        rules={"players": 4, "end_score": 1},
        seats=[
            SeatSpec("me"),
            SeatSpec("cpu", bot="random"),
            SeatSpec("cpu", bot="montecarlo"),
            SeatSpec("cpu", bot="rule"),
        ],
    )
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)  # as if played out
    response = client_for(me).post(f"/api/games/{game.pk}/rematch/", {}, format="json")
    kinds = [s["bot"] for s in response.json()["seats"]]
    assert kinds == [None, "random", "montecarlo", "rule"]
    assert response.json()["status"] == "active"  # nobody to wait for
    assert player_get_or_create_cpu(bot_kind="rule").pk in [s["player_id"] for s in response.json()["seats"]]


@pytest.mark.django_db
def test_play_again_is_refused_to_outsiders_before_the_end_and_for_ranked_games():
    game, _people, clients = seated_table(players=3, rules={"end_score": 1, "leftover": "remove"})
    response = clients[0].post(f"/api/games/{game.pk}/rematch/", {}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "game_not_over"
    play_through_api(game, clients)
    outsider = client_for(PlayerFactory())
    response = outsider.post(f"/api/games/{game.pk}/rematch/", {}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "not_seated"
    Game.objects.filter(pk=game.pk).update(ranked=True)
    response = clients[0].post(f"/api/games/{game.pk}/rematch/", {}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "rematch_not_offered"
    assert not Game.objects.filter(rematch_of=game).exists()
    assert clients[0].post("/api/games/999999/rematch/", {}, format="json").status_code == 404


async def _open(game, player=None):
    query = ""
    if player is not None:
        ticket = await database_sync_to_async(ws_ticket_issue)(user_id=player.user_id, game_id=game.pk)
        query = f"ticket={ticket}"
    communicator = WebsocketCommunicator(
        application,
        f"/ws/games/{game.pk}/?{query}",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def _next(communicator, kind):
    while True:
        frame = json.loads(await communicator.receive_from(timeout=5))
        if frame["type"] == kind:
            return frame


@pytest.mark.django_db(transaction=True)
async def test_spectators_are_listed_by_name_anonymous_ones_counted_and_players_pushed_a_rematch():
    await database_sync_to_async(cache.clear)()
    game, people, clients = await database_sync_to_async(_finished_table)()
    seated = await _open(game, people[0])
    anonymous = await _open(game)
    frame = await _next(seated, "spectators")
    assert frame == {"type": "spectators", "names": [], "anonymous": 1, "seq": frame["seq"]}
    fan = await database_sync_to_async(PlayerFactory)(display_name="Fan Club")
    named = await _open(game, fan)
    frame = await _next(seated, "spectators")
    assert frame["names"] == ["Fan Club"] and frame["anonymous"] == 1
    listed = await database_sync_to_async(lambda: clients[1].get(f"/api/games/{game.pk}/spectators/").json())()
    assert listed == {"names": ["Fan Club"], "anonymous": 1}  # names only: no ids, no seats
    await anonymous.disconnect()
    frame = await _next(seated, "spectators")
    assert frame["anonymous"] == 0 and frame["names"] == ["Fan Club"]

    await database_sync_to_async(lambda: clients[2].post(f"/api/games/{game.pk}/rematch/", {}, format="json"))()
    rematch = await database_sync_to_async(lambda: Game.objects.get(rematch_of=game).pk)()
    assert (await _next(seated, "rematch"))["game"] == rematch
    assert (await _next(named, "rematch"))["game"] == rematch
    await named.disconnect()
    await seated.disconnect()
    await asyncio.sleep(0)


def test_a_watcher_whose_server_died_lapses_without_a_sweeper(monkeypatch):
    from tournaments.games import watchers

    cache.clear()
    clock = [1000.0]
    monkeypatch.setattr(watchers.time, "time", lambda: clock[0])
    watchers.watcher_seen(game_id=7, connection_id="a", name="Ann")
    watchers.watcher_seen(game_id=7, connection_id="b", name="")
    watchers.watcher_seen(game_id=7, connection_id="c", name="ann")  # another tab, another case
    listed = watchers.watchers_of(7)
    assert sorted(listed["names"]) == ["Ann", "ann"] and listed["anonymous"] == 1
    clock[0] += watchers.WATCHER_TTL - 1
    watchers.watcher_seen(game_id=7, connection_id="a", name="Ann")  # a ping
    clock[0] += 2  # b and c never pinged again (their process died)
    assert watchers.watchers_of(7) == {"names": ["Ann"], "anonymous": 0}
    assert watchers.watcher_gone(game_id=7, connection_id="a") == {"names": [], "anonymous": 0}
    assert watchers.watchers_of(8) == {"names": [], "anonymous": 0}
