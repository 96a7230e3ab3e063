"""The director's admin: actions seat and start rounds, standings, printable cards and sheet, swap."""

import pytest
from django.urls import reverse

from tests.factories import CpuPlayerFactory, LeagueFactory, UserFactory
from tournaments.competitions import services
from tournaments.models import Round

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_a_director_runs_a_round_from_the_admin_and_prints_it(admin_client):
    tournament = services.tournament_create(league=LeagueFactory(), name="Club night", seed=4)
    players = [CpuPlayerFactory(display_name=f"P{i}") for i in range(8)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    changelist = reverse("admin:tournaments_tournament_changelist")
    response = admin_client.post(changelist, {"action": "seat_round", "_selected_action": [tournament.pk]})
    assert response.status_code == 302
    round_ = Round.objects.get(tournament=tournament)
    assert round_.status == Round.Status.SEATED

    cards = admin_client.get(reverse("admin:tournaments_round_cards", args=[round_.pk]))
    assert cards.status_code == 200 and b"Table 2" in cards.content and b"P7" in cards.content

    t1, t2 = round_.tables.order_by("number")
    swap = admin_client.post(
        reverse("admin:tournaments_table_swap", args=[t1.pk]),
        {"player_out": t1.players[0], "player_in": t2.players[0]},
    )
    assert swap.status_code == 302
    moved = t2.players[0]
    t1.refresh_from_db()
    assert t1.players[0] == moved

    admin_client.post(changelist, {"action": "start_round", "_selected_action": [tournament.pk]})
    round_.refresh_from_db()
    assert round_.status == Round.Status.PLAYING
    refused = admin_client.post(
        reverse("admin:tournaments_table_swap", args=[t1.pk]),
        {"player_out": t1.players[1], "player_in": t1.players[2]},
    )
    assert refused.status_code == 200 and b"table_started" in refused.content

    standings = admin_client.get(reverse("admin:tournaments_tournament_standings", args=[tournament.pk]))
    assert standings.status_code == 200 and b"P0" in standings.content
    sheet = admin_client.get(reverse("admin:tournaments_tournament_results", args=[tournament.pk]))
    assert sheet.status_code == 200 and b"Round 1" in sheet.content
    for name in ("tournament", "round", "table", "season", "registration"):
        url = reverse(f"admin:tournaments_{name}_changelist") if name != "registration" else None
        if url:
            assert admin_client.get(url).status_code == 200
    assert admin_client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk])).status_code == 200
    assert admin_client.get(reverse("admin:tournaments_round_change", args=[round_.pk])).status_code == 200


def test_creating_a_tournament_in_the_admin_goes_through_the_service(admin_client):
    league = LeagueFactory()
    response = admin_client.post(
        reverse("admin:tournaments_tournament_add"),
        {
            "league": league.pk,
            "name": "Spring cup",
            "format": "random",
            "round_mode": "fixed_hands",
            "hands_per_round": 3,
            "rounds_planned": 4,
            "final_table_size": 0,
            "preferred_table_size": 4,
            "prefer": "smaller",
            "cpu_bot": "rule",
            "seeding": "league",
            "rules_overrides": '{"end_score": 50}',
            "points_by_place": "{}",
            "registrations-TOTAL_FORMS": 0,
            "registrations-INITIAL_FORMS": 0,
            "rounds-TOTAL_FORMS": 0,
            "rounds-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content[:2000]
    from tournaments.models import Tournament

    tournament = Tournament.objects.get(name="Spring cup")
    assert tournament.rules_overrides == {"end_score": 50} and tournament.hands_per_round == 3


def test_the_admin_takes_a_walk_in_and_a_ruling_through_the_services(admin_client):
    from tournaments.models import Player, Ruling, TableResult

    tournament = services.tournament_create(
        league=LeagueFactory(), name="Admin night", seed=4, round_mode="fixed_hands", hands_per_round=1
    )
    for _ in range(3):
        services.tournament_register(tournament_id=tournament.pk, player=CpuPlayerFactory())
    walk_in = admin_client.post(
        reverse("admin:tournaments_tournament_walk_in", args=[tournament.pk]), {"display_name": "Nora"}
    )
    assert walk_in.status_code == 302
    nora = Player.objects.get(display_name="Nora")
    again = admin_client.post(
        reverse("admin:tournaments_tournament_walk_in", args=[tournament.pk]), {"display_name": "NORA"}
    )
    assert again.status_code == 200 and b"display_name_taken" in again.content
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    table = round_.tables.get()
    # Nora's seat is a human's: play it as a CPU would (the test has no browser)
    from tournaments.models import GameSeat

    GameSeat.objects.filter(game=table.game, player=nora).update(away=True)
    from tests.tournaments.competitions.test_services import _play_round

    _play_round(round_)
    seat = table.players.index(nora.pk)
    ruled = admin_client.post(
        reverse("admin:tournaments_table_rule", args=[table.pk]),
        {"seat": seat, "hearts_points": 99, "reason": "late to the table"},
    )
    assert ruled.status_code == 302, ruled.content[:500]
    assert Ruling.objects.get().reason == "late to the table"
    assert TableResult.objects.get(table=table, seat=seat).hearts_points == 99
    sheet = admin_client.get(reverse("admin:tournaments_tournament_results", args=[tournament.pk]))
    assert b"late to the table" in sheet.content
    assert admin_client.get(reverse("admin:tournaments_table_change", args=[table.pk])).status_code == 200


@pytest.mark.django_db
def test_a_tournaments_duplicate_deals_cannot_change_once_a_round_is_played(scheduler):
    """Found by review: switched off mid-round, the standings and the results sheet stopped
    hiding the sealed tables' results, which the REST tables (each game's own seal) still hid."""
    from django.test import Client

    from tests.tournaments.reliability.test_fair_play import _duplicate_round

    tournament, *_, director = _duplicate_round()
    director.user.is_superuser = True
    director.user.save()
    browser = Client()
    browser.force_login(director.user)
    page = browser.get(f"/admin/tournaments/tournament/{tournament.pk}/change/").content.decode()
    assert 'name="duplicate_deals"' not in page and "field-duplicate_deals" in page  # shown, not a field


def test_a_registrations_player_cannot_be_changed_from_the_tournament_page(admin_client):
    """The inline shows each registration read-only; a forged form that puts another player on
    an existing row changes nobody's registration (new rows register through the service)."""
    from tournaments.models import Registration

    tournament = services.tournament_create(league=LeagueFactory(), name="Forged night", seed=4)
    kept, other = CpuPlayerFactory(display_name="Kept"), CpuPlayerFactory(display_name="Other")
    registration = services.tournament_register(tournament_id=tournament.pk, player=kept)
    page = admin_client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert page.status_code == 200
    assert b'name="registrations-0-player"' not in page.content  # shown as text, not a field
    form = {
        key: value
        for key, value in page.context["adminform"].form.initial.items()
        if not isinstance(value, list | dict) and value is not None
    }
    form.update(
        {
            "rules_overrides": "{}",
            "points_by_place": "{}",
            "registrations-TOTAL_FORMS": 1,
            "registrations-INITIAL_FORMS": 1,
            "registrations-0-id": registration.pk,
            "registrations-0-tournament": tournament.pk,
            "registrations-0-player": other.pk,
            "rounds-TOTAL_FORMS": 0,
            "rounds-INITIAL_FORMS": 0,
        }
    )
    response = admin_client.post(reverse("admin:tournaments_tournament_change", args=[tournament.pk]), form)
    assert response.status_code == 302, response.context and response.context["adminform"].form.errors
    registration.refresh_from_db()
    assert registration.player == kept and registration.status == Registration.Status.ACTIVE
    assert not Registration.objects.filter(tournament=tournament, player=other).exists()
