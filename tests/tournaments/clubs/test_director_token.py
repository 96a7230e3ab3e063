"""The demo director (staff, no player profile) gets an API token, and with it runs tournaments."""

import pytest
from django.core.management import call_command

from tests.factories import LeagueFactory
from tournaments.management.commands.seed_demo import DEMO_PASSWORD

pytestmark = pytest.mark.django_db


def test_the_demo_director_gets_a_token_and_creates_a_tournament_with_it(api_client):
    call_command("seed_demo")
    response = api_client.post("/api/auth/token", {"username": "director", "password": DEMO_PASSWORD}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["player_id"] is None and body["display_name"] == "director" and body["is_guest"] is False
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    created = api_client.post("/api/tournaments/", {"league": LeagueFactory().pk, "name": "Cup"}, format="json")
    assert created.status_code == 201
    # what needs a player says so
    assert api_client.get("/api/ranked/queue").json()["code"] == "no_player_profile"


def test_an_inactive_account_gets_no_token(api_client):
    from tests.factories import PlayerFactory

    member = PlayerFactory(user__is_active=False)
    response = api_client.post(
        "/api/auth/token", {"username": member.user.username, "password": "correct horse battery staple"}, format="json"
    )
    assert response.status_code == 401
