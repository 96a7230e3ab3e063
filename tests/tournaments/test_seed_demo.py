import pytest
from django.core.management import call_command

from tournaments.models import League, Player


@pytest.mark.django_db
def test_seed_demo_loads_a_league_members_and_cpus_and_can_run_twice():
    call_command("seed_demo")
    call_command("seed_demo")
    assert League.objects.count() == 1
    assert Player.objects.filter(bot_kind="").count() == 6
    assert set(Player.objects.exclude(bot_kind="").values_list("bot_kind", flat=True)) == {
        "random",
        "rule",
        "montecarlo",
    }


@pytest.mark.django_db
def test_leagues_and_players_are_listed_by_the_api(api_client):
    call_command("seed_demo")
    leagues = api_client.get("/api/leagues/").json()
    assert [league["name"] for league in leagues["results"]] == ["Thursday League"]
    cpus = api_client.get("/api/players/?cpu=true").json()
    assert cpus["count"] == 3 and all(p["is_cpu"] for p in cpus["results"])
