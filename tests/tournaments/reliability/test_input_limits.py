"""REST input limits: nested JSON, oversized bodies, impossible dates, huge integers, director
inputs. Each used to be a 500 (or Django's HTML 400 page); now a 4xx in the API's error shape."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import LeagueFactory, PlayerFactory
from tests.tournaments.helpers import client_for, seated_table

pytestmark = pytest.mark.django_db

DEEP = "[" * 5000 + "]" * 5000


def _post_raw(client, url, body: str | bytes, content_type="application/json", **extra):
    return client.generic("POST", url, body, content_type=content_type, **extra)


def test_deeply_nested_json_gets_400_json_too_deep_on_every_json_endpoint():
    game, _, clients = seated_table()
    staff = PlayerFactory(user__is_staff=True)
    anonymous = Client()
    for url in ("/api/auth/guest", "/api/auth/register", "/api/auth/token"):
        response = _post_raw(anonymous, url, DEEP)
        assert response.status_code == 400, (url, response.status_code)
        assert response.json()["code"] == "json_too_deep"
    for client, url in (
        (clients[0], f"/api/games/{game.pk}/commands/"),
        (clients[0], "/api/games/"),
        (client_for(staff), "/api/tournaments/"),
        (client_for(staff), "/api/leagues/"),
        (clients[0], "/api/ranked/queue"),
    ):
        response = _post_raw(client, url, DEEP)
        assert response.status_code == 400, (url, response.status_code)
        assert response.json()["code"] == "json_too_deep"
    # the web page's token-to-session door reads JSON too
    response = _post_raw(anonymous, "/web/session", DEEP)
    assert response.status_code == 400 and response.json()["code"] == "invalid_token"


def test_a_body_over_the_size_limit_gets_413_in_the_json_error_shape(settings):
    big = b'{"device_id": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    response = _post_raw(Client(), "/api/auth/guest", big)
    assert response.status_code == 413
    assert response.json()["code"] == "body_too_large"
    # a form post that large is refused by Django itself, answered the same way
    form = _post_raw(
        Client(),
        "/web/login",
        b"username=" + b"x" * (3 * 1024 * 1024),
        content_type="application/x-www-form-urlencoded",
    )
    assert form.status_code == 413 and form.json()["code"] == "body_too_large"


def test_a_bad_host_header_gets_400_in_the_json_error_shape():
    response = Client().get("/api/games/", HTTP_HOST="evil.example.org")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_host"


def test_impossible_dates_in_game_filters_get_400_invalid_parameter(api_client):
    for query in (
        "created_after=2026-02-30T10:00",
        "created_before=2026-01-01T25:00",
        "created_after=2026-13-01T00:00",
    ):
        response = api_client.get(f"/api/games/?{query}")
        assert response.status_code == 400, query
        assert response.json()["code"] == "invalid_parameter"
    assert api_client.get("/api/games/?created_after=2026-02-28T10:00").status_code == 200


def test_league_filters_beyond_a_bigint_get_400_invalid_parameter(api_client):
    player = PlayerFactory()
    huge = str(2**64 + 1)
    for url in (
        f"/api/tournaments/?league={huge}",
        f"/api/players/{player.pk}/ratings?league={huge}",
        f"/api/tournaments/?league=-{huge}",
    ):
        response = api_client.get(url)
        assert response.status_code == 400, url
        assert response.json()["code"] == "invalid_parameter"
    league = LeagueFactory()
    assert api_client.get(f"/api/tournaments/?league={league.pk}").status_code == 200


def test_a_tournament_seed_beyond_a_bigint_or_an_infinite_place_point_gets_400():
    league = LeagueFactory()
    director = client_for(PlayerFactory(user__is_staff=True))
    body = {"league": league.pk, "name": "Cup"}
    response = _post_raw(director, "/api/tournaments/", f'{{"league": {league.pk}, "name": "Cup", "seed": {10**30}}}')
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    response = director.post("/api/tournaments/", {**body, "seed": 2**63}, format="json")
    assert response.status_code == 400 and "seed" in response.json()["errors"]
    # a form post reaches the serializer with the number as text, so the bound is the serializer's
    response = director.post("/api/tournaments/", {**body, "seed": str(10**30)})
    assert response.status_code == 400 and "seed" in response.json()["errors"]
    response = _post_raw(
        director,
        "/api/tournaments/",
        f'{{"league": {league.pk}, "name": "Cup", "points_by_place": {{"4": [4, 2, 1, 1e309]}}}}',
    )
    assert response.status_code == 400
    assert director.post("/api/tournaments/", {**body, "seed": 2**63 - 1}, format="json").status_code == 201
