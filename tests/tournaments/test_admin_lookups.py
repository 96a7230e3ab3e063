"""The admin's changelists filter by their own list filters and the project's links, nothing else:
a lookup on a hidden field (a dealt hand, a live deal salt, a round's seed) would answer yes or no
by the rows it shows (hearts_league.admin.GuardedLookupsAdmin). And no admin page shows a seed."""

import re
from html import unescape

import pytest
from django.contrib import admin

from hearts_league.admin import GuardedLookupsAdmin
from tests.factories import CpuPlayerFactory, LeagueFactory, RatingFactory, UserFactory
from tests.tournaments.helpers import seated_table
from tournaments.competitions import services
from tournaments.models import Game, GameEvent, Round

pytestmark = pytest.mark.django_db

PROJECT_APPS = {"tournaments", "ratings", "analysis", "web"}


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def live():
    """A live game (its hands dealt, not shown) and a seated round of a seeded tournament."""
    game, _, _ = seated_table()
    game = Game.objects.get(pk=game.pk)
    hand = GameEvent.objects.filter(game=game, type="HandDealt").order_by("seq").first()
    tournament = services.tournament_create(league=LeagueFactory(), name="Club night", seed=4)
    for _ in range(4):
        services.tournament_register(tournament_id=tournament.pk, player=CpuPlayerFactory())
    round_ = services.tournament_seat_round(tournament_id=tournament.pk)
    return game, hand, tournament, Round.objects.get(pk=round_.pk)


def _probes(game, hand, tournament, round_):
    card = hand.payload["hands"][1][0]
    events, games = "/admin/tournaments/gameevent/", "/admin/tournaments/game/"
    rounds, tournaments = "/admin/tournaments/round/", "/admin/tournaments/tournament/"
    return [
        f"{events}?game__id__exact={game.pk}&type=HandDealt&payload__hands__1__icontains={card}",
        f"{events}?game__id__exact={game.pk}&payload__hands__1__contains={card}",
        f"{events}?payload__hands__1__regex=(",
        f"{events}?payload__has_key=hands",
        f"{events}?game__deal_salt__startswith={game.deal_salt[:1]}",
        f"{games}?id__exact={game.pk}&deal_salt__startswith={game.deal_salt[:1]}",
        f"{games}?deal_salt__regex=(",
        f"{games}?id__exact={game.pk}&planned_deals__isnull=False",
        f"{games}?planned_deals__0__0__icontains={card}",
        f"{games}?created_by__user__password__startswith=pbkdf2",
        f"{rounds}?id__exact={round_.pk}&seed__lte={round_.seed}",
        f"{rounds}?id__exact={round_.pk}&deals_salt__startswith={round_.deals_salt[:1]}",
        f"{rounds}?deals__0__0__0__icontains={card}",
        f"{rounds}?tournament__seed__gte=4",
        f"{tournaments}?seed__lte=4",
        f"{tournaments}?seed=4",
        "/admin/tournaments/table/?round__seed__lte=1",
        "/admin/ratings/rating/?model_params__isnull=False",
    ]


def test_lookups_on_hidden_fields_get_a_400_and_no_rows(admin_client, live):
    for url in _probes(*live):
        response = admin_client.get(url)
        assert response.status_code == 400, (url, response.status_code)
        assert response.json()["code"] == "bad_request", url
        assert b"result" not in response.content and b"<table" not in response.content, url


def test_the_projects_own_links_and_filters_still_filter(admin_client, live):
    game = live[0]
    RatingFactory()
    events = admin_client.get(f"/admin/tournaments/gameevent/?game__id__exact={game.pk}")
    assert events.status_code == 200
    count = GameEvent.objects.filter(game=game).count()
    assert f"{count} game event".encode() in events.content
    dealt = admin_client.get(f"/admin/tournaments/gameevent/?game__id__exact={game.pk}&type=HandDealt")
    assert dealt.status_code == 200 and b"1 game event" in dealt.content
    # every filter link of every changelist of the project (the sidebar's): followed, a 200
    followed = 0
    for model in admin.site._registry:
        if model._meta.app_label not in PROJECT_APPS:
            continue
        changelist = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        page = admin_client.get(changelist)
        assert page.status_code == 200, changelist
        for link in set(re.findall(r'href="(\?[^"]+)"', page.content.decode())):
            query = unescape(link)
            if query.startswith("?o=") or "_facets" in query:
                continue  # sorting, facet counts: no lookups
            response = admin_client.get(changelist + query)
            assert response.status_code == 200, (changelist + query, response.status_code)
            followed += 1
    assert followed > 10


def test_a_bad_value_in_an_allowed_filter_is_no_500(admin_client, live):
    """Django sends a value its field refuses to the changelist's "?e=1" page (a 302); a number
    beyond a bigint finds nothing."""
    for value in ("²", "١٢", "abc", "9" * 25, "9" * 5000, "("):
        for url in (
            f"/admin/tournaments/gameevent/?game__id__exact={value}",
            f"/admin/tournaments/game/?league__id__exact={value}",
            f"/admin/tournaments/game/?ranked__exact={value}",
            f"/admin/tournaments/table/?round__tournament__id__exact={value}",
        ):
            response = admin_client.get(url)
            assert response.status_code in (200, 302), (url[:80], response.status_code)
            if response.status_code == 200 and "game__id" in url:
                assert b"0 game events" in response.content, url[:80]


def test_every_modeladmin_guards_its_lookups_the_projects_djangos_and_the_libraries():
    everyone = admin.site._registry.values()
    assert len([ma for ma in everyone if ma.model._meta.app_label in PROJECT_APPS]) >= 10
    assert {"auth", "axes", "authtoken"} <= {ma.model._meta.app_label for ma in everyone}
    assert all(isinstance(model_admin, GuardedLookupsAdmin) for model_admin in everyone), [
        type(ma).__name__ for ma in everyone if not isinstance(ma, GuardedLookupsAdmin)
    ]


def test_djangos_and_the_libraries_changelists_refuse_lookups_on_what_they_do_not_show(admin_client):
    """A password hash's or an API token's prefix, found one character at a time by row counts."""
    from rest_framework.authtoken.models import Token

    user = UserFactory()
    token = Token.objects.create(user=user)
    for url in (
        "/admin/auth/user/?password__startswith=pbkdf2",
        f"/admin/authtoken/tokenproxy/?key__startswith={token.key[:2]}",
        "/admin/axes/accessattempt/?get_data__icontains=password",
    ):
        response = admin_client.get(url)
        assert response.status_code == 400 and response.json()["code"] == "bad_request", (url, response.status_code)
    # their own filters still filter
    assert admin_client.get("/admin/auth/user/?is_staff__exact=1").status_code == 200


def test_the_tournament_admin_shows_no_seed(admin_client, live):
    _, _, tournament, round_ = live
    for url in (f"/admin/tournaments/tournament/{tournament.pk}/change/", "/admin/tournaments/tournament/add/"):
        page = admin_client.get(url)
        assert page.status_code == 200, url
        assert b'name="seed"' not in page.content and b'id="id_seed"' not in page.content, url
        assert b">Seed:<" not in page.content, url
    round_page = admin_client.get(f"/admin/tournaments/round/{round_.pk}/change/")
    assert round_page.status_code == 200
    assert str(round_.seed).encode() not in round_page.content
