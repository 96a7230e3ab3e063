"""``/api/games/{id}/analysis``: started by a POST, read by a GET, only for a game anyone may see whole."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from analysis.models import GameAnalysis
from tests.factories import PlayerFactory, TableFactory
from tests.tournaments.helpers import api_step, client_for, seated_table
from tournaments.models import Game, GameEvent

pytestmark = pytest.mark.django_db


def post(client, game, capture):
    with capture(execute=True):  # the chunks are sent on commit (here: run in this process)
        return client.post(f"/api/games/{game.pk}/analysis")


def test_a_finished_game_is_analysed_and_served_per_decision_and_per_seat(
    queen_game, django_capture_on_commit_callbacks
):
    game, _, clients = queen_game
    started = post(clients[1], game, django_capture_on_commit_callbacks)
    assert started.status_code == 202, started.json()
    assert started.json()["game"] == game.pk and started.json()["decisions_total"] == 52
    body = APIClient().get(f"/api/games/{game.pk}/analysis").json()  # anyone may read it
    assert body["status"] == "done" and body["progress"] == 1.0
    assert len(body["decisions"]) == 52 and [s["seat"] for s in body["summaries"]] == [0, 1, 2, 3]
    queen_seq = GameEvent.objects.get(game=game, type="CardPlayed", payload__card="QS").seq
    queen = next(d for d in body["decisions"] if d["seq"] == queen_seq)
    assert queen["grade"] == "blunder" and queen["best"] in ("2S", "3S", "6S") and queen["options"]
    assert body["summaries"][0]["counts"]["blunder"] >= 1
    again = post(clients[2], game, django_capture_on_commit_callbacks)
    assert again.status_code == 200 and again.json()["decisions"] == body["decisions"]


def test_a_live_game_is_never_analysed(scheduler, django_capture_on_commit_callbacks):
    game, _, clients = seated_table()
    for _ in range(6):
        api_step(game.pk, clients)
    for client in (clients[0], client_for(PlayerFactory()), client_for(PlayerFactory(user__is_staff=True))):
        refused = post(client, game, django_capture_on_commit_callbacks)
        assert refused.status_code == 409 and refused.json()["code"] == "game_not_over"
        read = client.get(f"/api/games/{game.pk}/analysis")
        assert read.status_code == 409 and read.json()["code"] == "game_not_over"
    assert not GameAnalysis.objects.exists()


def test_a_sealed_table_is_not_analysed_until_its_round_is_over(queen_game, django_capture_on_commit_callbacks):
    game, _, clients = queen_game
    Game.objects.filter(pk=game.pk).update(sealed=True)
    seated = post(clients[0], game, django_capture_on_commit_callbacks)
    assert seated.status_code == 409 and seated.json()["code"] == "round_not_over"
    outsider = client_for(PlayerFactory())
    assert post(outsider, game, django_capture_on_commit_callbacks).json()["code"] == "hidden_until_round_over"
    assert APIClient().get(f"/api/games/{game.pk}/analysis").status_code == 403
    assert not GameAnalysis.objects.exists()
    Game.objects.filter(pk=game.pk).update(sealed=False)  # the round is over
    assert post(outsider, game, django_capture_on_commit_callbacks).status_code == 202


def test_refusals_carry_a_code(queen_game, django_capture_on_commit_callbacks):
    game, _, clients = queen_game
    assert APIClient().post(f"/api/games/{game.pk}/analysis").status_code in (401, 403)
    unread = clients[0].get(f"/api/games/{game.pk}/analysis")
    assert unread.status_code == 200 and unread.json()["status"] == "none" and unread.json()["decisions"] is None
    for bad in (0, 10**25):
        missing = clients[0].get(f"/api/games/{bad}/analysis")
        assert missing.status_code == 404 and missing.json()["code"] in ("game_not_found", "not_found")


def test_one_user_cannot_fill_the_workers(queen_game, django_capture_on_commit_callbacks, monkeypatch):
    game, _, clients = queen_game
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "analysis", "2/hour")
    codes = [post(clients[3], game, django_capture_on_commit_callbacks).status_code for _ in range(3)]
    assert codes == [202, 200, 429]
    refused = post(clients[3], game, django_capture_on_commit_callbacks)
    assert refused.json()["code"] == "throttled"
    assert clients[3].get(f"/api/games/{game.pk}/analysis").status_code == 200  # reading is not throttled
    assert post(clients[2], game, django_capture_on_commit_callbacks).status_code == 200  # another user


def test_the_command_analyses_the_games_given(queen_game, capsys):
    game, _, _ = queen_game
    call_command("analyse_games", str(game.pk), verbosity=0)
    analysis = GameAnalysis.objects.get(game=game)
    assert analysis.status == "done" and analysis.decisions.count() == 52
    live, _, _ = seated_table()
    with pytest.raises(CommandError, match="Not finished"):
        call_command("analyse_games", str(live.pk), verbosity=0)


def test_a_director_analyses_every_finished_game_of_a_tournament(queen_game):
    game, _, _ = queen_game
    table = TableFactory(game=game)
    live, _, _ = seated_table()
    TableFactory(game=live, round=table.round, status="playing")  # skipped: still being played
    TableFactory(round=table.round)  # no game
    call_command("analyse_games", "--tournament", str(table.round.tournament_id), verbosity=0)
    assert list(GameAnalysis.objects.values_list("game_id", "status")) == [(game.pk, "done")]


def test_the_doors_are_in_the_openapi_schema(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    door = schema["paths"]["/api/games/{game_id}/analysis"]
    assert set(door) >= {"get", "post"}
