"""Permissions, one test each: acting for another seat, seeing another player's private data,
joining a full table or the same table twice, changing a tournament, managing leagues."""

from __future__ import annotations

import json

import pytest
from rest_framework.authtoken.models import Token

from tests.factories import ClubFactory, LeagueFactory, PlayerFactory, TournamentFactory, UserFactory
from tests.tournaments.helpers import client_for, next_command, seated_table
from tests.tournaments.reliability.support import CARD, forbidden_cards
from tournaments.games import eventstore
from tournaments.games.services import SeatSpec, game_create
from tournaments.models import Game, GameEvent, GameSeat

pytestmark = pytest.mark.django_db


def _state(game, seat):
    return eventstore.read_engine_game(Game.objects.get(pk=game.pk), lambda s: s.view(seat))


def test_a_player_cannot_act_for_another_seat():
    game, _, clients = seated_table(rules={"passing": "off"})
    to_act = _state(game, None)["to_act"][0]
    other = (to_act + 1) % 4
    command = next_command(_state(game, to_act))
    seq = Game.objects.get(pk=game.pk).seq
    # the body may name the seat (or a player) it likes: the seat is the login's
    for body in (
        {**command, "seat": to_act},
        {**command, "player_id": game.seats.get(seat=to_act).player_id},
        {**command, "actor_seat": to_act},
    ):
        response = clients[other].post(f"/api/games/{game.pk}/commands/", body, format="json")
        assert response.status_code == 400 and response.json()["code"] in {"not_your_turn", "card_not_in_hand"}
    assert Game.objects.get(pk=game.pk).seq == seq
    assert not GameEvent.objects.filter(game=game, type="CardPlayed").exists()
    # a stranger (not seated) and an anonymous client cannot act at all
    stranger = client_for(PlayerFactory()).post(f"/api/games/{game.pk}/commands/", command, format="json")
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_seated"
    from rest_framework.test import APIClient

    anonymous = APIClient().post(f"/api/games/{game.pk}/commands/", command, format="json")
    assert anonymous.status_code in (401, 403) and "code" in anonymous.json()


def test_a_player_cannot_see_another_players_hand_passes_device_hash_or_token():
    guest_device = "guest-device-0123456789abcdef"
    people = [PlayerFactory() for _ in range(3)]
    guest = PlayerFactory(is_guest=True)
    game = game_create(
        creator=guest,
        device_id=guest_device,
        seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people],
    )
    players = [guest, *people]
    clients = [client_for(p) for p in players]
    # seat 0 passes: its cards stay its own until everyone has passed
    passed = _state(game, 0)["hand"][:3]
    assert (
        clients[0].post(f"/api/games/{game.pk}/commands/", {"type": "pass", "cards": passed}, format="json").status_code
        == 200
    )
    secrets = {
        GameSeat.objects.get(game=game, seat=0).device_token_hash,
        guest_device,
        *(Token.objects.get(user=p.user).key for p in players),
    }
    assert all(secrets)
    looker = clients[1]
    own_token = Token.objects.get(user=players[1].user).key
    bodies = [
        looker.get(path)
        for path in (
            f"/api/games/{game.pk}/",
            f"/api/games/{game.pk}/events/",
            "/api/games/",
            "/api/players/",
            f"/api/players/{players[0].pk}/",
            f"/api/games/{game.pk}/replay/?seat=1",
        )
    ]
    assert all(b.status_code == 200 for b in bodies), [b.status_code for b in bodies]
    text = json.dumps([b.json() for b in bodies])
    for secret in secrets - {own_token}:
        assert secret not in text
    assert "device_token_hash" not in text and "password" not in text
    hidden = forbidden_cards(game.pk)[1]
    assert set(passed) <= hidden
    shown = set(CARD.findall(json.dumps(bodies[0].json())))
    assert not shown & hidden and set(_state(game, 1)["hand"]) <= shown
    events = bodies[1].json()["events"]
    dealt = next(e for e in events if e["type"] == "HandDealt")["payload"]["hands"]
    assert [h is not None for h in dealt] == [False, True, False, False]
    cards_passed = next(e for e in events if e["type"] == "CardsPassed")["payload"]
    assert cards_passed["seat"] == 0 and cards_passed["cards"] is None
    # another seat's view, while the game is live
    other = looker.get(f"/api/games/{game.pk}/replay/?seat=0")
    assert other.status_code == 403 and other.json()["code"] == "hidden_until_over"


def test_a_player_cannot_join_a_full_table_or_the_same_table_twice():
    creator, second = PlayerFactory(), PlayerFactory()
    game = game_create(
        creator=creator,
        seats=[SeatSpec("me"), SeatSpec("open"), SeatSpec("cpu", bot="rule"), SeatSpec("cpu", bot="rule")],
    )
    assert client_for(creator).post(f"/api/games/{game.pk}/join/", {}, format="json").json()["code"] == "already_seated"
    taken = client_for(second).post(f"/api/games/{game.pk}/join/", {"seat": 0}, format="json")
    assert taken.status_code == 409 and taken.json()["code"] == "seat_taken"
    assert client_for(second).post(f"/api/games/{game.pk}/join/", {}, format="json").status_code == 200
    again = client_for(second).post(f"/api/games/{game.pk}/join/", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_seated"
    full = client_for(PlayerFactory()).post(f"/api/games/{game.pk}/join/", {}, format="json")
    assert full.status_code == 409 and full.json()["code"] in {"table_full", "game_already_started"}
    assert GameSeat.objects.filter(game=game, player__isnull=False).count() == 4
    assert list(GameSeat.objects.filter(game=game).values_list("player_id", flat=True)).count(second.pk) == 1


def test_a_player_cannot_change_a_tournament():
    tournament = TournamentFactory()
    member = client_for(PlayerFactory())
    other = PlayerFactory()
    base = f"/api/tournaments/{tournament.pk}"
    for path in ("seat-round", "start-round", "finish-round"):
        response = member.post(f"{base}/{path}/", {}, format="json")
        assert response.status_code == 403 and response.json()["code"] == "director_only", (path, response.json())
    for method in ("put", "patch", "delete"):
        response = getattr(member, method)(f"{base}/", {"name": "mine now"}, format="json")
        assert response.status_code in (403, 405), (method, response.status_code)
    registered_other = member.post(f"{base}/register/", {"player_id": other.pk}, format="json")
    assert registered_other.status_code == 403 and registered_other.json()["code"] == "director_only"
    created = member.post("/api/tournaments/", {"league": tournament.league_id, "name": "x"}, format="json")
    assert created.status_code == 403 and created.json()["code"] == "director_only"
    tournament.refresh_from_db()
    assert tournament.name != "mine now" and tournament.registrations.count() == 0


def test_only_staff_directors_manage_leagues():
    club = ClubFactory()
    body = {"club": club.pk, "name": "Friday", "slug": "friday"}
    from rest_framework.test import APIClient

    anonymous = APIClient().post("/api/leagues/", body, format="json")
    assert anonymous.status_code in (401, 403)
    member = client_for(PlayerFactory()).post("/api/leagues/", body, format="json")
    assert member.status_code == 403 and member.json()["code"] == "director_only"
    league = LeagueFactory()
    for method in ("put", "patch", "delete"):
        response = getattr(client_for(PlayerFactory()), method)(f"/api/leagues/{league.pk}/", body, format="json")
        assert response.status_code in (403, 405)
    director = client_for(PlayerFactory(user=UserFactory(is_staff=True)))
    assert director.post("/api/leagues/", body, format="json").status_code == 201
