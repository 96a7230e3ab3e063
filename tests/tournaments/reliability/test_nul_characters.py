"""A NUL character, which PostgreSQL stores in no text, is refused at the door (400
``nul_character``) wherever a client can send one: found by review, each of these was a 500."""

import json

import pytest
from django.test import Client

from tests.factories import PlayerFactory
from tests.tournaments.helpers import client_for
from tests.tournaments.reliability.test_fair_play import _duplicate_round


def _refused(response) -> None:
    assert response.status_code == 400, (response.status_code, response.content[:200])
    assert response.json()["code"] == "nul_character"


@pytest.mark.django_db
def test_anonymous_forms_and_json_with_a_nul_are_refused():
    anonymous = Client()
    _refused(anonymous.post("/web/login", {"username": "a\x00b", "password": "x"}))
    session = anonymous.post("/web/session", json.dumps({"token": "a\x00b"}), content_type="application/json")
    assert session.status_code == 400 and session.json()["code"] == "invalid_token"  # as any unreadable token
    _refused(anonymous.get("/api/tournaments/", {"league": "\x00"}))
    _refused(anonymous.get("/api/games/1\x00/"))
    _refused(client_for(PlayerFactory()).post("/api/games/", {"players": 4, "x\x00": 1}, format="json"))


@pytest.mark.django_db
def test_directors_searches_and_the_admins_filters_with_a_nul_are_refused(scheduler):
    tournament, *_, director = _duplicate_round()
    director.user.is_superuser = True
    director.user.save()
    browser = Client()
    browser.force_login(director.user)
    for page in (
        f"/director/tournaments/{tournament.pk}/?q=%00",
        "/admin/tournaments/game/?status__exact=%00",
        "/admin/tournaments/tournament/?q=a%00",
        "/admin/autocomplete/?app_label=tournaments&model_name=registration&field_name=player&term=%00",
    ):
        _refused(browser.get(page))
    assert browser.get("/admin/tournaments/game/?status__exact=active").status_code == 200
