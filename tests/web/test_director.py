"""The director's console: who may open it, the tournament form generated from engine.Rules,
field errors with nothing half-created, and the console's actions through the services."""

import re
from dataclasses import fields

import pytest
from django.test import Client

import engine
from engine import rules as engine_rules
from tests.factories import CpuPlayerFactory, LeagueFactory, PlayerFactory, UserFactory
from tournaments.competitions import services
from tournaments.models import Player, Registration, Round, Ruling, Tournament

pytestmark = pytest.mark.django_db


def _browser(player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


@pytest.fixture
def staff():
    return PlayerFactory(user=UserFactory(is_staff=True))


def _valid(league, **extra):
    body = {
        "league": league.pk,
        "name": "Thursday",
        "format": "swiss",
        "seeding": "lot",
        "rounds_planned": 3,
        "round_mode": "fixed_hands",
        "hands_per_round": 2,
        "final_table_size": 0,
        "preferred_table_size": 4,
        "prefer": "smaller",
        "cpu_bot": "rule",
        "rule_leftover": "remove",
        "rule_passing": "cycle",
        "rule_first_lead": "lowest_club",
        "rule_no_points_first_trick": "on",
        "rule_moon": "add_to_others",
        "rule_end_score": 100,
    }
    body.update(extra)
    return {k: v for k, v in body.items() if v is not None}


def test_the_console_is_for_staff_and_league_directors_only(staff):
    assert Client().get("/director/").status_code == 302  # to the sign-in page
    assert _browser(PlayerFactory()).get("/director/").status_code == 403
    assert _browser(staff).get("/director/").status_code == 200
    league_director = PlayerFactory()
    league = LeagueFactory()
    league.directors.add(league_director)
    page = _browser(league_director).get("/director/tournaments/new/")
    assert page.status_code == 200
    assert f'<option value="{league.pk}">' in page.content.decode()
    other = services.tournament_create(league=LeagueFactory(), name="Elsewhere")
    assert _browser(league_director).get(f"/director/tournaments/{other.pk}/").status_code == 403


def test_the_tournament_form_has_every_rule_with_its_default_and_a_line_of_help_and_no_json(staff):
    page = _browser(staff).get("/director/tournaments/new/").content.decode()
    for rule in fields(engine.Rules):
        if rule.name == "players":
            continue
        assert f'name="rule_{rule.name}"' in page, rule.name
        helptext = re.search(rf'id="id_rule_{rule.name}_helptext"[^>]*>(.*?)</div>', page, re.S)
        assert helptext and helptext.group(1).strip(), rule.name
    assert "(default: 100)" in page and "(default: add to others)" in page
    for rule, words in engine_rules.OPTION_VALUES.items():  # a list to pick from, not a box to type in
        select = re.search(rf'<select name="rule_{rule}"[^>]*>(.*?)</select>', page, re.S)
        assert select, rule
        assert re.findall(r'<option value="([^"]*)"', select.group(1)) == list(words), rule
    assert 'name="rules_overrides"' not in page and "{" not in re.sub(r"<script.*?</script>", "", page, flags=re.S)


def test_bad_input_shows_each_fields_error_and_creates_nothing(staff):
    league = LeagueFactory()
    response = _browser(staff).post(
        "/director/tournaments/new/", _valid(league, name="", rule_end_score=0, points_4="4 2 x")
    )
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert set(errors) == {"name", "rule_end_score", "points_4"}
    assert not Tournament.objects.exists()
    # a refusal by the engine's rules lands on the rule it is about
    clash = _browser(staff).post(
        "/director/tournaments/new/", _valid(league, rule_hearts_any_time="on", rule_queen_breaks_hearts="on")
    )
    assert clash.status_code == 400
    assert list(clash.context["form"].errors) == ["rule_queen_breaks_hearts"]
    assert 'id="field-rule_queen_breaks_hearts"' in clash.content.decode()
    wrong_size = _browser(staff).post("/director/tournaments/new/", _valid(league, points_3="4 2"))
    assert list(wrong_size.context["form"].errors) == ["points_3"]
    assert not Tournament.objects.exists()


def test_a_tournament_created_from_the_form_has_the_rules_chosen(staff):
    league = LeagueFactory()
    response = _browser(staff).post(
        "/director/tournaments/new/", _valid(league, rule_end_score=50, rule_black_maria="on", points_4="5 3 1 0")
    )
    assert response.status_code == 302
    tournament = Tournament.objects.get()
    assert response["Location"] == f"/director/tournaments/{tournament.pk}/"
    assert tournament.rules_overrides["end_score"] == 50 and tournament.rules_overrides["black_maria"] is True
    assert tournament.points_by_place == {"4": [5, 3, 1, 0]} and tournament.seeding == "lot"
    assert tournament.created_by == staff


def test_the_console_registers_a_member_and_a_walk_in_runs_a_round_and_rules(staff):
    tournament = services.tournament_create(
        league=LeagueFactory(), name="Night", seed=2, round_mode="fixed_hands", hands_per_round=1
    )
    cpus = [CpuPlayerFactory() for _ in range(2)]
    for cpu in cpus:
        services.tournament_register(tournament_id=tournament.pk, player=cpu)
    member = PlayerFactory(display_name="Rosa Parra")
    browser = _browser(staff)
    url = f"/director/tournaments/{tournament.pk}/"
    found = browser.get(url, {"q": "rosa"}).content.decode()
    assert "Rosa Parra" in found
    assert browser.post(url, {"action": "register", "player": member.pk}).status_code == 302
    assert browser.post(url, {"action": "walk_in", "walkin-display_name": "Tomás"}).status_code == 302
    taken = browser.post(url, {"action": "walk_in", "walkin-display_name": "tomás"})
    assert taken.status_code == 400 and "display_name" in taken.context["walk_in"].errors
    assert Registration.objects.filter(tournament=tournament).count() == 4
    assert browser.post(url, {"action": "start"}).status_code == 302
    round_ = Round.objects.get(tournament=tournament)
    assert round_.status == Round.Status.PLAYING and round_.tables.count() == 1
    # ruling on a table still playing: the form shows why (the table is not offered)
    refused = browser.post(
        url,
        {
            "action": "rule",
            "ruling-table": round_.tables.get().pk,
            "ruling-seat": 0,
            "ruling-hearts_points": 3,
            "ruling-reason": "x",
        },
    )
    assert refused.status_code == 400 and "table" in refused.context["ruling"].errors
    assert not Ruling.objects.exists()
    page = browser.get(url).content.decode()
    assert 'id="board"' in page and "Tomás" in page
    walk_in = Player.objects.get(display_name="Tomás")
    assert browser.post(url, {"action": "withdraw", "player": walk_in.pk}).status_code == 302
    assert Registration.objects.get(player=walk_in).status == Registration.Status.WITHDRAWN


def test_the_projector_screen_is_a_page_without_controls():
    tournament = services.tournament_create(league=LeagueFactory(), name="Screen night")
    page = Client().get(f"/tournaments/{tournament.pk}/screen/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "screen.js" in body and "<form" not in body and "<button" not in body


def test_a_guest_is_turned_into_an_account_of_the_club_and_registered(staff):
    from tournaments.clubs.services import player_guest_for_device

    tournament = services.tournament_create(league=LeagueFactory(), name="Guests welcome")
    guest = player_guest_for_device(device_id="phone-of-pat", display_name="Pat Guest")
    browser = _browser(staff)
    url = f"/director/tournaments/{tournament.pk}/"
    assert "make an account and register" in browser.get(url, {"q": "pat"}).content.decode()
    assert browser.post(url, {"action": "register_guest", "player": guest.pk}).status_code == 302
    guest.refresh_from_db()
    assert not guest.is_guest and guest.club == tournament.league.club
    assert Registration.objects.filter(tournament=tournament, player=guest).exists()


def test_a_guest_whose_name_a_member_of_the_club_has_stays_a_guest(staff):
    from tests.tournaments.helpers import client_for
    from tournaments.clubs.services import player_guest_for_device

    tournament = services.tournament_create(league=LeagueFactory(), name="Guests welcome")
    PlayerFactory(display_name="Sam", club=tournament.league.club)
    guest = player_guest_for_device(device_id="phone-of-sam", display_name="SAM")
    response = client_for(staff).post(
        f"/api/tournaments/{tournament.pk}/register/", {"player_id": guest.pk, "make_account": True}, format="json"
    )
    assert response.status_code == 409 and response.json()["code"] == "display_name_taken"
    guest.refresh_from_db()
    assert guest.is_guest and not Registration.objects.exists()
    plain = client_for(staff).post(
        f"/api/tournaments/{tournament.pk}/register/", {"player_id": guest.pk}, format="json"
    )
    assert plain.status_code == 403 and plain.json()["code"] == "account_required"


def test_staff_create_a_league_and_a_season_in_the_console_with_errors_on_their_fields(staff):
    from tests.factories import ClubFactory
    from tournaments.models import League, Season

    club = ClubFactory()
    browser = _browser(staff)
    body = {"action": "league", "league-club": club.pk, "league-name": "Monday", "league-slug": "monday"}
    assert browser.post("/director/", body).status_code == 302
    taken = browser.post("/director/", body)
    assert taken.status_code == 400 and "slug" in taken.context["league_form"].errors
    league = League.objects.get()
    season = {
        "action": "season",
        "season-league": league.pk,
        "season-name": "Spring",
        "season-starts_on": "2027-03-01",
        "season-ends_on": "2027-01-01",
    }
    backwards = browser.post("/director/", season)
    assert "ends_on" in backwards.context["season_form"].errors and not Season.objects.exists()
    assert browser.post("/director/", {**season, "season-ends_on": "2027-06-01"}).status_code == 302
    assert Season.objects.get().league == league


def test_a_walk_in_with_a_password_signs_in_at_once_with_the_username_shown(staff):
    tournament = services.tournament_create(league=LeagueFactory(), name="Walk-in night")
    browser = _browser(staff)
    url = f"/director/tournaments/{tournament.pk}/"
    short = browser.post(url, {"action": "walk_in", "walkin-display_name": "Olga", "walkin-password": "short"})
    assert short.status_code == 400 and "password" in short.context["walk_in"].errors
    assert not Player.objects.filter(display_name="Olga").exists()
    done = browser.post(
        url, {"action": "walk_in", "walkin-display_name": "Olga", "walkin-password": "a long pass phrase"}, follow=True
    )
    olga = Player.objects.get(display_name="Olga")
    assert olga.user.username in done.content.decode()
    assert olga.user.check_password("a long pass phrase")


def test_a_refusal_in_the_console_speaks_the_directors_language():
    """Found by review: the console showed every service refusal in English on a Spanish page."""
    from tests.tournaments.reliability.test_fair_play import _duplicate_round

    tournament, _, tables, seated, staff = _duplicate_round()
    services.tournament_register(tournament_id=tournament.pk, player=staff)  # plays nowhere: refused
    swap = {
        "action": "swap",
        "swap-table": tables[1].pk,
        "swap-player_out": seated[1][0].pk,
        "swap-player_in": staff.pk,
        "swap-correction": "on",
    }
    for language, refusal in (("es", "como miembro del personal"), ("en", "as staff, may have watched")):
        page = _browser(staff).post(f"/director/tournaments/{tournament.pk}/", swap, HTTP_ACCEPT_LANGUAGE=language)
        assert page.status_code == 400 and refusal in page.content.decode(), language
    assert tables[1].game.seats.get(seat=0).player_id == seated[1][0].pk
