"""The tournaments API: who may do what, refusals with codes, standings, tables and exports."""

import csv
import io
import json

import pytest
from rest_framework.pagination import PageNumberPagination

from tests.factories import ClubFactory, CpuPlayerFactory, LeagueFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import client_for
from tournaments.competitions import services
from tournaments.models import Registration, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def director():
    return PlayerFactory(user=UserFactory(is_staff=True))


def _create(client, league, **extra):
    body = {
        "league": league.pk,
        "name": "Thursday",
        "round_mode": "fixed_hands",
        "hands_per_round": 1,
        "rounds_planned": 2,
        "seed": 3,
        **extra,
    }
    return client.post("/api/tournaments/", body, format="json")


def test_only_directors_create_tournaments_and_leagues(director):
    league = LeagueFactory()
    member = client_for(PlayerFactory())
    refused = _create(member, league)
    assert refused.status_code == 403 and refused.json()["code"] == "director_only"
    created = _create(client_for(director), league)
    assert created.status_code == 201, created.json()
    assert created.json()["status"] == "registration" and created.json()["round_mode"] == "fixed_hands"

    club = ClubFactory()
    body = {"club": club.pk, "name": "Monday", "slug": "monday", "default_rules": {"end_score": 50}}
    assert member.post("/api/leagues/", body, format="json").json()["code"] == "director_only"
    league_created = client_for(director).post("/api/leagues/", body, format="json")
    assert league_created.status_code == 201 and league_created.json()["default_rules"] == {"end_score": 50}
    again = client_for(director).post("/api/leagues/", body, format="json")
    assert again.status_code == 409 and again.json()["code"] == "league_exists"


def test_bad_input_is_refused_with_a_machine_readable_code(director):
    league = LeagueFactory()
    client = client_for(director)
    assert _create(client, league, format="knockout").json()["code"] == "invalid"
    bad_rules = _create(client, league, rules_overrides={"end_score": -1})
    assert bad_rules.status_code == 400 and bad_rules.json()["code"] == "invalid_rules"
    assert _create(client, league, points_by_place={"4": [1]}).json()["code"] == "invalid_points"
    missing = client.get("/api/tournaments/999/standings/")
    assert missing.status_code == 404


def test_players_register_and_withdraw_themselves_but_not_others(director):
    tournament = services.tournament_create(league=LeagueFactory(), name="Open")
    alice, bob = PlayerFactory(), PlayerFactory()
    client = client_for(alice)
    url = f"/api/tournaments/{tournament.pk}"
    registered = client.post(f"{url}/register/", {}, format="json")
    assert registered.status_code == 201 and registered.json()["player_id"] == alice.pk
    twice = client.post(f"{url}/register/", {}, format="json")
    assert twice.status_code == 409 and twice.json()["code"] == "already_registered"
    other = client.post(f"{url}/register/", {"player_id": bob.pk}, format="json")
    assert other.status_code == 403 and other.json()["code"] == "director_only"
    by_director = client_for(director).post(f"{url}/register/", {"player_id": bob.pk}, format="json")
    assert by_director.status_code == 201
    withdrawn = client.post(f"{url}/withdraw/", {}, format="json")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    assert Registration.objects.get(player=alice).status == Registration.Status.WITHDRAWN
    anonymous = client_for(alice).__class__().post(f"{url}/register/", {}, format="json")
    assert anonymous.status_code in (401, 403)


def test_only_directors_start_rounds_and_everyone_reads_rounds_tables_and_standings(director):
    tournament = services.tournament_create(
        league=LeagueFactory(),
        name="Open",
        round_mode="fixed_hands",
        hands_per_round=1,
        rounds_planned=1,
        seed=2,
    )
    players = [CpuPlayerFactory() for _ in range(3)]
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    url = f"/api/tournaments/{tournament.pk}"
    member = client_for(PlayerFactory())
    refused = member.post(f"{url}/start-round/")
    assert refused.status_code == 403 and refused.json()["code"] == "director_only"
    assert member.post(f"{url}/finish-round/").json()["code"] == "director_only"
    started = client_for(director).post(f"{url}/start-round/")
    assert started.status_code == 201 and started.json()["number"] == 1
    busy = client_for(director).post(f"{url}/start-round/")
    assert busy.status_code == 409 and busy.json()["code"] == "round_in_progress"

    rounds = member.get(f"{url}/rounds/").json()
    assert [(r["number"], r["status"], r["tables_count"]) for r in rounds] == [(1, "playing", 1)]
    tables = member.get(f"{url}/rounds/1/tables/").json()
    assert len(tables) == 1 and sorted(s["player_id"] for s in tables[0]["seats"]) == sorted(p.pk for p in players)
    assert member.get(f"{url}/rounds/9/tables/").json()["code"] == "round_not_found"

    services.table_play_cpus(table_id=tables[0]["id"])
    standings = member.get(f"{url}/standings/").json()
    # The deals are random: places may be shared, but a table of 3 always gives 4 + 2 + 0 points.
    assert len(standings) == 3 and sum(line["table_points"] for line in standings) == 6.0
    assert [line["table_points"] for line in standings] == sorted(
        (line["table_points"] for line in standings), reverse=True
    )
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    tables = member.get(f"{url}/rounds/1/tables/").json()
    assert tables[0]["status"] == "finished" and len(tables[0]["results"]) == 3

    # Results export: CSV and JSON lines, one row per seat.
    exported = member.get(f"{url}/results/")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert len(rows) == 3 and {r["round"] for r in rows} == {"1"}
    assert sum(float(r["table_points"]) for r in rows) == 6.0
    lines = member.get(f"{url}/results/?format=jsonl")
    assert lines["Content-Type"] == "application/x-ndjson"
    parsed = [json.loads(line) for line in lines.content.decode().splitlines()]
    assert [r["player_id"] for r in parsed] == [int(r["player_id"]) for r in rows]
    assert member.get(f"{url}/results/?format=xml").json()["code"] == "invalid_parameter"


def test_the_tournament_list_pages_newest_first_without_repeats(director, monkeypatch):
    monkeypatch.setattr(PageNumberPagination, "page_size", 2)  # read from settings at import
    league = LeagueFactory()
    client = client_for(director)
    made = [_create(client, league, name=f"Night {n}").json()["id"] for n in range(5)]
    listed = []
    for page in (1, 2, 3):
        response = client.get(f"/api/tournaments/?league={league.pk}&page={page}")
        assert response.status_code == 200
        listed += [t["id"] for t in response.json()["results"]]
    assert listed == made[::-1]


def test_the_tournament_endpoints_are_in_the_openapi_schema(api_client):
    schema = api_client.get("/api/schema/", {"format": "json"}).json()
    for path in (
        "/api/tournaments/",
        "/api/tournaments/{id}/register/",
        "/api/tournaments/{id}/withdraw/",
        "/api/tournaments/{id}/start-round/",
        "/api/tournaments/{id}/standings/",
        "/api/tournaments/{id}/rounds/",
        "/api/tournaments/{id}/rounds/{number}/tables/",
        "/api/tournaments/{id}/results/",
        "/api/leagues/",
    ):
        assert path in schema["paths"], path
    assert "post" in schema["paths"]["/api/leagues/"]


def test_players_count_is_the_active_registrations_in_the_list_and_the_detail(director):
    client = client_for(director)
    created = _create(client, LeagueFactory())
    assert created.json()["players_count"] == 0
    pk = created.json()["id"]
    players = [CpuPlayerFactory() for _ in range(3)]
    for player in players:
        registered = client.post(f"/api/tournaments/{pk}/register/", {"player_id": player.pk}, format="json")
        assert registered.status_code == 201
    assert client.get(f"/api/tournaments/{pk}/").json()["players_count"] == 3
    listed = {t["id"]: t for t in client.get("/api/tournaments/").json()["results"]}
    assert listed[pk]["players_count"] == 3
    client.post(f"/api/tournaments/{pk}/withdraw/", {"player_id": players[0].pk}, format="json")
    assert client.get(f"/api/tournaments/{pk}/").json()["players_count"] == 2
