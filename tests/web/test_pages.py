"""Each page renders its shell (the scripts do the rest over the API), and the session views."""

import json

import pytest
from rest_framework.authtoken.models import Token

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

PAGES = [
    ("/", ["Play against the CPU", 'id="create-form"', 'id="open-tables"', "web/lobby.js"]),
    ("/tables/7/", ['id="table"', 'data-game="7"', 'id="hand"', 'role="alert"', 'id="scores"',
                    "web/table.js"]),
    ("/games/7/replay/", ['id="replay"', 'data-game="7"', 'aria-label="Next event"', 'id="hand-select"',
                          "web/replay.js", 'id="analysis"', "web/analysis.js"]),
    ("/tournaments/", ['id="tournaments"', "web/tournaments.js"]),
    ("/tournaments/3/", ['data-tournament="3"', 'id="standings"', 'id="rounds"', "web/tournament.js"]),
    ("/leaderboard/", ['id="leaderboard"', 'id="pool"', "web/leaderboard.js"]),
    ("/players/5/", ['data-player="5"', 'id="chart"', "web/player.js"]),
    ("/web/login", ['name="username"', 'name="password"']),
]


@pytest.mark.parametrize(("url", "needles"), PAGES)
def test_each_page_renders_its_shell(client, url, needles):
    response = client.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    for needle in needles:
        assert needle in body
    assert '<main id="main"' in body and 'aria-live="polite"' in body
    assert 'name="viewport"' in body
    assert "csrftoken" in response.cookies  # the scripts send it back on writes


@pytest.mark.parametrize("asset", ["site.css", "api.js", "cards.js", "lobby.js", "table.js", "replay.js", "analysis.js",
                                   "tournaments.js", "tournament.js", "leaderboard.js", "player.js"])
def test_static_files_are_found(asset):
    from django.contrib.staticfiles import finders

    assert finders.find(f"web/{asset}"), asset


def test_a_signed_in_player_sees_their_name(client):
    player = PlayerFactory(display_name="Alice")
    client.force_login(player.user)
    body = client.get("/").content.decode()
    assert f'data-player-id="{player.pk}"' in body and "Alice" in body


def test_a_guest_token_logs_the_browser_session_in(client):
    response = client.post("/api/auth/guest", {"device_id": "d" * 32}, content_type="application/json")
    token = response.json()["token"]
    response = client.post("/web/session", json.dumps({"token": token}), content_type="application/json")
    assert response.status_code == 200
    assert response.json()["is_guest"] is True
    assert client.get("/api/games/").status_code == 200
    body = client.get("/").content.decode()
    assert f'data-player-id="{response.json()["player_id"]}"' in body


def test_an_unknown_token_logs_nobody_in(client):
    response = client.post("/web/session", json.dumps({"token": "nope"}), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_token"
    assert 'data-player-id=""' in client.get("/").content.decode()


def test_the_session_view_needs_the_csrf_token():
    from django.test import Client

    player = PlayerFactory()
    token = Token.objects.create(user=player.user)
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/web/session", json.dumps({"token": token.key}), content_type="application/json")
    assert response.status_code == 403


def test_the_login_form_signs_a_member_in(client):
    player = PlayerFactory()
    response = client.post("/web/login", {"username": player.user.username, "next": "/leaderboard/",
                                          "password": "correct horse battery staple"})
    assert response.status_code == 302 and response["Location"] == "/leaderboard/"
    response = client.post("/web/login", {"username": player.user.username, "password": "wrong",
                                          "next": "https://evil.example/"})
    assert response.status_code == 200 and "Wrong username or password." in response.content.decode()


def test_the_login_form_does_not_redirect_off_site(client):
    player = PlayerFactory()
    response = client.post("/web/login", {"username": player.user.username,
                                          "password": "correct horse battery staple",
                                          "next": "https://evil.example/"})
    assert response["Location"] == "/"
