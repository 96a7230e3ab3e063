"""The director's actions over the API: walk-in entry, swap, a ruling on a score (shown in the
results and the standings), and league directors who are not staff."""

import csv
import io

import pytest

from tests.factories import CpuPlayerFactory, LeagueFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import client_for
from tournaments.competitions import services
from tournaments.competitions.selectors import standings_for_tournament
from tournaments.models import Player, Registration, Ruling, TableResult

pytestmark = pytest.mark.django_db


@pytest.fixture
def director():
    return PlayerFactory(user=UserFactory(is_staff=True))


def _tournament(n, **options):
    tournament = services.tournament_create(
        league=LeagueFactory(), name="Night", seed=5, round_mode="fixed_hands", hands_per_round=1, **options
    )
    players = [CpuPlayerFactory() for _ in range(n)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    return tournament, players


def _played(tournament):
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    for table in round_.tables.order_by("number"):
        services.table_play_cpus(table_id=table.pk)
    return round_


def test_a_walk_in_gets_an_account_of_the_club_and_a_registration_in_one_step(director):
    tournament, _ = _tournament(4)
    client = client_for(director)
    response = client.post(f"/api/tournaments/{tournament.pk}/walk-in/", {"display_name": "Lucía"}, format="json")
    assert response.status_code == 201, response.json()
    player = Player.objects.get(pk=response.json()["player_id"])
    assert player.display_name == "Lucía" and player.club == tournament.league.club and player.user is not None
    assert not player.user.has_usable_password()
    assert response.json()["username"] == player.user.username
    with_password = client.post(
        f"/api/tournaments/{tournament.pk}/walk-in/",
        {"display_name": "Marta", "password": "a long pass phrase"},
        format="json",
    )
    assert with_password.status_code == 201
    assert Player.objects.get(display_name="Marta").user.check_password("a long pass phrase")
    again = client.post(f"/api/tournaments/{tournament.pk}/walk-in/", {"display_name": "lucía"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "display_name_taken"
    assert Player.objects.filter(name_key=player.name_key).count() == 1  # nothing half-created
    member = client_for(PlayerFactory())
    refused = member.post(f"/api/tournaments/{tournament.pk}/walk-in/", {"display_name": "Ana"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "director_only"


def test_swap_over_the_api_before_the_start_exchanges_two_seats(director):
    tournament, _ = _tournament(8)
    round_ = services.tournament_seat_round(tournament_id=tournament.pk)
    first, second = round_.tables.order_by("number")
    out, into = first.players[0], second.players[1]
    response = client_for(director).post(
        f"/api/tournaments/{tournament.pk}/swap/",
        {"table": first.pk, "player_out": out, "player_in": into},
        format="json",
    )
    assert response.status_code == 200, response.json()
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.players[0] == into and second.players[1] == out
    other = _tournament(4)[0]
    wrong = client_for(director).post(
        f"/api/tournaments/{other.pk}/swap/", {"table": first.pk, "player_out": out, "player_in": into}, format="json"
    )
    assert wrong.status_code == 404 and wrong.json()["code"] == "table_not_found"


def test_a_ruling_adjusts_the_score_reworks_the_places_and_shows_in_the_results(director):
    tournament, _ = _tournament(4)
    round_ = _played(tournament)
    table = round_.tables.get()
    results = list(table.results.order_by("seat"))
    best = min(results, key=lambda r: r.hearts_points)
    client = client_for(director)
    body = {"table": table.pk, "seat": best.seat, "hearts_points": 200, "reason": "played a card from the wrong hand"}
    response = client.post(f"/api/tournaments/{tournament.pk}/rulings/", body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["hearts_points_before"] == best.hearts_points
    ruled = TableResult.objects.get(pk=best.pk)
    assert ruled.hearts_points == 200 and ruled.table_points == 0.0  # now last at the table
    lines = standings_for_tournament(tournament)
    assert lines[-1].player_id == best.player_id and lines[-1].hearts_points == 200
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(f"/api/tournaments/{tournament.pk}/results/?format=csv").content.decode())
        )
    )
    assert [r["ruling"] for r in rows if r["seat"] == str(best.seat)] == ["played a card from the wrong hand"]
    tables = client.get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()
    assert [r["ruling"] for r in tables[0]["results"] if r["seat"] == best.seat] == [body["reason"]]
    assert len(client.get(f"/api/tournaments/{tournament.pk}/rulings/").json()) == 1


def test_a_ruling_is_refused_with_a_code_and_records_nothing(director):
    tournament, _ = _tournament(4)
    round_ = services.tournament_start_round(tournament_id=tournament.pk)
    table = round_.tables.get()
    client = client_for(director)
    url = f"/api/tournaments/{tournament.pk}/rulings/"
    playing = client.post(url, {"table": table.pk, "seat": 0, "hearts_points": 5, "reason": "x"}, format="json")
    assert playing.status_code == 409 and playing.json()["code"] == "table_not_finished"
    services.table_play_cpus(table_id=table.pk)
    blank = client.post(url, {"table": table.pk, "seat": 0, "hearts_points": 5, "reason": "  "}, format="json")
    assert blank.status_code == 400
    seat = client.post(url, {"table": table.pk, "seat": 4, "hearts_points": 5, "reason": "r"}, format="json")
    assert seat.status_code == 400 and seat.json()["code"] == "invalid_seat"
    member = client_for(PlayerFactory()).post(
        url, {"table": table.pk, "seat": 0, "hearts_points": 5, "reason": "r"}, format="json"
    )
    assert member.status_code == 403
    assert not Ruling.objects.exists()


def test_a_league_director_runs_their_league_only():
    tournament, _ = _tournament(4)
    league_director = PlayerFactory()
    tournament.league.directors.add(league_director)
    client = client_for(league_director)
    assert client.post(f"/api/tournaments/{tournament.pk}/start-round/").status_code == 201
    other, _ = _tournament(4)
    refused = client.post(f"/api/tournaments/{other.pk}/start-round/")
    assert refused.status_code == 403 and refused.json()["code"] == "director_only"
    created = client.post("/api/tournaments/", {"league": tournament.league.pk, "name": "Next"}, format="json")
    assert created.status_code == 201
    elsewhere = client.post("/api/tournaments/", {"league": other.league.pk, "name": "Next"}, format="json")
    assert elsewhere.status_code == 403
    assert Registration.objects.filter(tournament=tournament).count() == 4


def test_a_league_director_creates_a_season_over_the_api_and_anyone_lists_them():
    league = LeagueFactory()
    league_director = PlayerFactory()
    league.directors.add(league_director)
    client = client_for(league_director)
    url = f"/api/leagues/{league.pk}/seasons/"
    created = client.post(url, {"name": "Spring", "starts_on": "2027-03-01", "ends_on": "2027-06-30"}, format="json")
    assert created.status_code == 201, created.json()
    backwards = client.post(url, {"name": "Odd", "starts_on": "2027-03-01", "ends_on": "2027-01-01"}, format="json")
    assert backwards.status_code == 400 and backwards.json()["code"] == "invalid_dates"
    again = client.post(url, {"name": "Spring"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "season_exists"
    other = client_for(PlayerFactory()).post(url, {"name": "Autumn"}, format="json")
    assert other.status_code == 403
    from rest_framework.test import APIClient

    assert [s["name"] for s in APIClient().get(url).json()] == ["Spring"]
