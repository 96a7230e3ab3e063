"""Accounts: usernames NFKC-normalised and unique whatever their case, in the database; display
names without invisible or text-steering characters, unique per club; guests need an account
for tournaments and ranked play."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.test import Client

from tests.factories import ClubFactory, PlayerFactory, TournamentFactory
from tests.tournaments.helpers import client_for
from tournaments.models import Player

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough password 1"


@pytest.fixture(autouse=True)
def fast_hashes(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.cache import cache

    cache.clear()  # the auth throttle


def _register(client, username, display_name=None):
    body = {"username": username, "password": PASSWORD}
    if display_name is not None:
        body["display_name"] = display_name
    return client.post("/api/auth/register", body, content_type="application/json")


@pytest.mark.django_db(transaction=True)  # real concurrent transactions
def test_concurrent_registrations_of_one_username_give_one_201_and_409_username_taken():
    barrier = threading.Barrier(12)
    codes, bodies = [], []

    def register(i):
        try:
            barrier.wait()
            response = _register(Client(REMOTE_ADDR=f"192.0.2.{i}"), ["alice", "Alice", "ALICE"][i % 3])
            codes.append(response.status_code)
            bodies.append(response.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=register, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [201] + [409] * 11, codes
    assert {body["code"] for body in bodies if "code" in body} == {"username_taken"}
    assert get_user_model().objects.filter(username__iexact="alice").count() == 1


def test_case_variants_and_full_width_forms_of_a_username_are_one_account():
    client = Client()
    assert _register(client, "bob.smith").status_code == 201
    for variant in ("Bob.Smith", "BOB.SMITH", "ｂｏｂ.smith", "ＢＯＢ．ＳＭＩＴＨ"):
        response = _register(client, variant, display_name=f"Other {len(variant)}{variant[-1]}")
        assert response.status_code == 409 and response.json()["code"] == "username_taken", variant
    assert get_user_model().objects.filter(username__iexact="bob.smith").count() == 1


def test_a_full_width_username_registers_as_its_nfkc_form_and_signs_in():
    response = _register(Client(), "ａlice")
    assert response.status_code == 201, response.json()
    assert get_user_model().objects.filter(username="alice").exists()
    token = Client().post(
        "/api/auth/token", {"username": "alice", "password": PASSWORD}, content_type="application/json"
    )
    assert token.status_code == 200


def test_the_database_refuses_a_username_equal_but_for_case():
    get_user_model().objects.create_user(username="carol")
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user(username="CAROL")


def test_usernames_outside_the_allowed_characters_are_refused():
    for username in ("ab", "al ice", "alice\u202e", "ålice", "a" * 151, "al\u200bice"):
        response = _register(Client(), username)
        assert response.status_code == 400, username
        assert response.json()["errors"]["username"], username


@pytest.mark.parametrize(
    "name",
    [
        "\u202eevil",
        "Al\u200bice",
        "Bob\u200d",
        "\u2066Eve\u2069",
        "tab\there",
        "\u3164",
        "new\nline",
        "\u2800\u2800",
        "\ufeffBom",
        " ",
    ],
)
def test_display_names_with_invisible_or_text_steering_characters_are_refused(name):
    response = _register(Client(), "member-one", display_name=name)
    if name.strip():
        assert response.status_code == 400, name
        assert response.json()["errors"]["display_name"][0], name
    guest = Client().post(
        "/api/auth/guest",
        {"device_id": "device-0123456789abcdef", "display_name": name},
        content_type="application/json",
    )
    if name.strip():
        assert guest.status_code == 400, name


def test_display_names_are_nfkc_normalised_and_may_be_any_script():
    response = _register(Client(), "member-two", display_name="\u00a0Ｊｏｓé  Müller 李")
    assert response.status_code == 201
    assert response.json()["display_name"] == "José Müller 李"


def test_display_names_are_unique_per_club_whatever_the_case():
    club, other_club = ClubFactory(), ClubFactory()
    PlayerFactory(display_name="Dana", club=club)
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerFactory(display_name="DANA", club=club)
    PlayerFactory(display_name="dana", club=other_club)  # another club: fine
    # people of no club (guests, accounts registered online) share one namespace
    assert _register(Client(), "erin", display_name="Frank").status_code == 201
    response = _register(Client(), "frank.b", display_name="FRANK")
    assert response.status_code == 409 and response.json()["code"] == "display_name_taken"
    guest = Client().post(
        "/api/auth/guest",
        {"device_id": "device-0123456789abcdef", "display_name": "frank"},
        content_type="application/json",
    )
    assert guest.status_code == 409 and guest.json()["code"] == "display_name_taken"


def test_guests_without_a_name_get_distinct_ones():
    names = {
        Client()
        .post("/api/auth/guest", {"device_id": f"device-{i:016d}"}, content_type="application/json")
        .json()["display_name"]
        for i in range(5)
    }
    assert len(names) == 5 and all(name.startswith("Guest ") for name in names)


def _guest():
    response = Client().post(
        "/api/auth/guest", {"device_id": "device-guest-0123456789"}, content_type="application/json"
    )
    return Player.objects.get(pk=response.json()["player_id"])


def test_guests_get_403_account_required_from_tournament_registration():
    guest = _guest()
    tournament = TournamentFactory()
    response = client_for(guest).post(f"/api/tournaments/{tournament.pk}/register/", {}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "account_required"
    director = client_for(PlayerFactory(user__is_staff=True))
    response = director.post(f"/api/tournaments/{tournament.pk}/register/", {"player_id": guest.pk}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "account_required"
    assert (
        client_for(PlayerFactory()).post(f"/api/tournaments/{tournament.pk}/register/", {}, format="json").status_code
        == 201
    )


def test_guests_get_403_account_required_from_the_ranked_queue():
    response = client_for(_guest()).post("/api/ranked/queue", {"table_size": 4}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "account_required"


def test_a_guest_picks_a_name_then_changes_it_and_tables_show_it():
    guest = _guest()
    client = client_for(guest)
    assert client.get("/api/players/me/").json()["display_name"].startswith("Guest ")
    response = client.patch("/api/players/me/", {"display_name": "  Ｌuna  "}, format="json")
    assert response.status_code == 200 and response.json()["display_name"] == "Luna"
    assert client.patch("/api/players/me/", {"display_name": "Luna Rosa"}, format="json").status_code == 200
    guest.refresh_from_db()
    assert guest.display_name == "Luna Rosa" and guest.name_key == "luna rosa"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"display_name": "\u202eevil"}, 400, "invalid"),
        ({"display_name": ""}, 400, "invalid"),
        ({"display_name": "x" * 61}, 400, "invalid"),
        ({}, 400, "invalid"),
        ({"display_name": 7}, 400, "invalid"),
        ({"display_name": "TAKEN"}, 409, "display_name_taken"),
    ],
)
def test_a_refused_name_changes_nothing(body, status, code):
    PlayerFactory(display_name="taken")
    guest = _guest()
    before = guest.display_name
    response = client_for(guest).patch("/api/players/me/", body, format="json")
    assert response.status_code == status, response.content
    assert response.json()["code"] == code or (status == 400 and "display_name" in response.json()["errors"])
    guest.refresh_from_db()
    assert guest.display_name == before


def test_only_a_signed_in_person_has_a_me():
    assert Client().get("/api/players/me/").status_code in (401, 403)
    assert Client().patch("/api/players/me/", {"display_name": "Zed"}, content_type="application/json").status_code in (
        401,
        403,
    )
