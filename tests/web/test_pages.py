"""Each page renders its shell (the scripts do the rest over the API), and the session views."""

import json

import pytest
from rest_framework.authtoken.models import Token

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

PAGES = [
    ("/", ["Play against the CPU", 'id="create-form"', 'id="open-tables"', "web/lobby.js"]),
    ("/tables/7/", ['id="table"', 'data-game="7"', 'id="hand"', 'role="alert"', 'id="scores"', "web/table.js"]),
    (
        "/games/7/replay/",
        [
            'id="replay"',
            'data-game="7"',
            'aria-label="Next event"',
            'id="hand-select"',
            "web/replay.js",
            'id="analysis"',
            "web/analysis.js",
        ],
    ),
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


@pytest.mark.parametrize(
    "asset",
    [
        "site.css",
        "api.js",
        "cards.js",
        "lobby.js",
        "table.js",
        "replay.js",
        "analysis.js",
        "tournaments.js",
        "tournament.js",
        "leaderboard.js",
        "player.js",
    ],
)
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
    response = client.post(
        "/web/login",
        {"username": player.user.username, "next": "/leaderboard/", "password": "correct horse battery staple"},
    )
    assert response.status_code == 302 and response["Location"] == "/leaderboard/"
    response = client.post(
        "/web/login", {"username": player.user.username, "password": "wrong", "next": "https://evil.example/"}
    )
    assert response.status_code == 200 and "Wrong username or password." in response.content.decode()


def test_the_login_form_does_not_redirect_off_site(client):
    player = PlayerFactory()
    response = client.post(
        "/web/login",
        {"username": player.user.username, "password": "correct horse battery staple", "next": "https://evil.example/"},
    )
    assert response["Location"] == "/"


# --- the rules pages (issue 21) ------------------------------------------------------------------


def _rule_items(html: str) -> dict[str, str]:
    import re

    found = re.findall(r'<li data-rule="([^"]+)"[^>]*><strong>([^<]+)</strong>: ([^<]+)', html)
    return {key: f"{title}: {text.strip()}" for key, title, text in found}


@pytest.mark.django_db
def test_the_rules_page_says_every_option_of_engine_rules_in_english_and_reglas_in_spanish(client):
    from dataclasses import fields

    from engine import Rules

    english = _rule_items(client.get("/rules/", HTTP_ACCEPT_LANGUAGE="en").content.decode())
    spanish_response = client.get("/reglas/", HTTP_ACCEPT_LANGUAGE="en")
    spanish = _rule_items(spanish_response.content.decode())
    said = {name for key in english for name in key.split(",")}
    assert {f.name for f in fields(Rules)} <= said | {"players"}
    assert english["moon"] == "Shooting the moon: the other players take 26 each."
    assert spanish["moon"] == "Disparar a la luna: los demás se llevan 26 cada uno."
    assert spanish_response["Content-Language"] == "es"
    assert client.get("/rules/", HTTP_ACCEPT_LANGUAGE="es").content.decode().count("Disparar a la luna") == 1


@pytest.mark.django_db
def test_a_tables_rules_page_shows_the_rules_in_force_there(client):
    from tests.tournaments.helpers import seated_table

    game, _, _ = seated_table(
        players=5, rules={"leftover": "kitty", "moon": "subtract_from_self", "jack_of_diamonds": True, "end_score": 50}
    )
    page = client.get(f"/tables/{game.pk}/rules/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    items = _rule_items(page)
    assert items["players"] == "Jugadores: 5 jugadores, 10 cartas cada uno."
    assert items["leftover,removed_cards"].startswith("Cartas sobrantes: las 2 cartas que sobran van boca abajo")
    assert items["moon"].startswith("Disparar a la luna: quien dispara resta 26 de su propia puntuación.")
    assert items["jack_of_diamonds"] == "Jota de diamantes: quien se lleva la J♦ suma −10."
    assert "50" in items["end_score"]
    assert 'class="changed"' in page
    assert f'href="/tables/{game.pk}/rules/"' in client.get(f"/tables/{game.pk}/").content.decode()
    assert client.get("/tables/999999/rules/").status_code == 404
