"""The ratings API: leaderboards, a player's ratings with history and games, the ranked queue."""

from datetime import timedelta

import pytest
from django.utils import timezone

from ratings.models import QueueEntry
from ratings.services import rating_record_game
from ratings.tasks import match_ranked_queue
from tests.factories import GameFactory, GameSeatFactory, LeagueFactory, PlayerFactory, RatingFactory
from tests.ratings.helpers import finished_game
from tests.tournaments.helpers import client_for
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def names(rows):
    return [row["name"] for row in rows]


def test_the_leaderboard_ranks_by_the_conservative_estimate_and_lists_provisional_players_apart(api_client):
    now = timezone.now()
    hour, day = timedelta(hours=1), timedelta(days=1)
    # All but Gone played in the last day, so no inactivity widens their sigma here.
    for name, mu, sigma, games, provisional, ago in [
        ("Steady", 1600.0, 60.0, 40, False, hour),  # 1420
        ("Lucky", 1700.0, 110.0, 12, False, 2 * hour),  # 1370
        ("Solid", 1550.0, 50.0, 90, False, 3 * hour),  # 1400
        ("Twin", 1520.0, 40.0, 90, False, 3 * hour),  # 1400: shares a rank with Solid
        ("Newcomer", 1800.0, 200.0, 4, True, hour),  # provisional: listed apart
        ("Gone", 1900.0, 50.0, 80, False, 200 * day),  # inactive: not listed
        ("Tourist", 1500.0, 300.0, 1, True, hour),  # too few games: not listed
    ]:
        RatingFactory(
            player=PlayerFactory(display_name=name),
            mu=mu,
            sigma=sigma,
            games=games,
            provisional=provisional,
            last_played_at=now - ago,
        )
    RatingFactory(player=PlayerFactory(display_name="Elsewhere"), league=LeagueFactory(), mu=2500.0)

    body = api_client.get("/api/leaderboard").json()

    assert (body["league"], body["model"], body["min_games"], body["active_days"], body["provisional_games"]) == (
        None,
        "elo",
        3,
        90,
        10,
    )
    assert names(body["ranked"]) == ["Steady", "Solid", "Twin", "Lucky"]
    assert [row["rank"] for row in body["ranked"]] == [1, 2, 2, 4]
    assert (body["ranked"][0]["conservative"], body["ranked"][0]["inactive_days"]) == (1420.0, 0)
    assert names(body["provisional"]) == ["Newcomer"]
    assert body["provisional"][0]["rank"] is None
    assert names(api_client.get("/api/leaderboard?limit=1").json()["ranked"]) == ["Steady"]
    assert api_client.get("/api/leaderboard?limit=x").json()["code"] == "invalid_parameter"


def test_a_league_leaderboard_shows_only_its_pool(api_client):
    league = LeagueFactory()
    RatingFactory(player=PlayerFactory(display_name="Member"), league=league, mu=1500.0)
    RatingFactory(player=PlayerFactory(display_name="Global"), mu=1900.0)

    body = api_client.get(f"/api/leagues/{league.pk}/leaderboard").json()

    assert body["league"] == league.pk
    assert names(body["ranked"]) == ["Member"]
    missing = api_client.get("/api/leagues/999999/leaderboard")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


def test_a_players_ratings_come_with_their_history_newest_first_and_paginated(api_client):
    league = LeagueFactory(name="Tuesday")
    people = PlayerFactory.create_batch(3)
    start = timezone.now() - timedelta(days=3)
    games = [
        finished_game(
            people, [10 * (i + 1), 20, 30], league=league if i == 1 else None, finished_at=start + timedelta(hours=i)
        )
        for i in range(3)
    ]
    for game in games:
        rating_record_game(game_id=game.pk)

    body = api_client.get(f"/api/players/{people[0].pk}/ratings?page_size=2").json()

    assert body["player"] == people[0].pk
    assert [(r["league"], r["league_name"], r["games"]) for r in body["ratings"]] == [
        (None, None, 3),
        (league.pk, "Tuesday", 1),
    ]
    assert body["ratings"][0]["provisional"] is True and body["ratings"][0]["model"] == "glicko-elo"
    assert body["count"] == 4 and len(body["results"]) == 2 and body["next"]
    assert [(r["game"], r["league"]) for r in body["results"]] == [(games[2].pk, None), (games[1].pk, None)]
    first = body["results"][1]
    assert (first["place"], first["total"], first["rated_players"]) == (1, 20, 3)  # tied for first
    global_only = api_client.get(f"/api/players/{people[0].pk}/ratings?pool=global").json()
    assert global_only["count"] == 3
    in_league = api_client.get(f"/api/players/{people[0].pk}/ratings?league={league.pk}").json()
    assert [r["game"] for r in in_league["results"]] == [games[1].pk]
    assert api_client.get("/api/players/999999/ratings").status_code == 404


def test_a_players_games_newest_first(api_client):
    people = PlayerFactory.create_batch(3)
    older = finished_game(people, [1, 2, 3])
    newer = finished_game(people, [3, 2, 1])
    finished_game(PlayerFactory.create_batch(3), [1, 2, 3])  # someone else's

    body = api_client.get(f"/api/players/{people[0].pk}/games").json()

    assert [g["id"] for g in body["results"]] == [newer.pk, older.pk]
    assert body["results"][0]["final_totals"] == [3, 2, 1]
    assert api_client.get("/api/players/999999/games").status_code == 404


def test_the_ranked_queue_join_status_match_and_leave():
    people = [RatingFactory(mu=1500.0 + i).player for i in range(3)]
    clients = [client_for(p) for p in people]

    assert clients[0].get("/api/ranked/queue").json()["status"] == "not_queued"
    joined = clients[0].post("/api/ranked/queue", {"table_size": 3, "preset": "short"}, format="json")
    assert joined.status_code == 201
    assert joined.json()["status"] == "waiting" and joined.json()["window"] == pytest.approx(100.0, abs=1)
    twice = clients[0].post("/api/ranked/queue", {"table_size": 3}, format="json")
    assert (twice.status_code, twice.json()["code"]) == (409, "already_queued")

    clients[1].post("/api/ranked/queue", {"table_size": 3, "preset": "short"}, format="json")
    last = clients[2].post("/api/ranked/queue", {"table_size": 3, "preset": "short"}, format="json").json()
    assert last["status"] == "matched" and last["game"]

    mine = clients[0].get("/api/ranked/queue").json()
    assert (mine["status"], mine["game"]) == ("matched", last["game"])
    game = clients[0].get(f"/api/games/{mine['game']}/").json()
    assert game["ranked"] and game["your_seat"] is not None and game["rules"]["end_score"] == 50
    late = clients[0].delete("/api/ranked/queue")
    assert (late.status_code, late.json()["code"]) == (409, "already_matched")

    loner = client_for(PlayerFactory())
    loner.post("/api/ranked/queue", {"table_size": 5}, format="json")
    assert loner.delete("/api/ranked/queue").json()["status"] == "left"
    assert loner.delete("/api/ranked/queue").json()["code"] == "not_queued"


def test_the_queue_status_shows_an_expired_entry_so_the_client_queues_again():
    player = PlayerFactory()
    client = client_for(player)
    client.post("/api/ranked/queue", {"table_size": 4}, format="json")
    QueueEntry.objects.filter(player=player).update(joined_at=timezone.now() - timedelta(minutes=11))

    match_ranked_queue()

    mine = client.get("/api/ranked/queue").json()
    assert (mine["status"], mine["game"]) == ("expired", None)
    assert mine["waited_seconds"] == pytest.approx(660, abs=5)
    assert client.delete("/api/ranked/queue").json()["code"] == "not_queued"
    assert client.post("/api/ranked/queue", {"table_size": 4}, format="json").json()["status"] == "waiting"


def test_joining_the_ranked_queue_while_playing_answers_409_with_the_game():
    player = PlayerFactory()
    game = GameFactory(status="active", ranked=False)
    GameSeatFactory(game=game, seat=2, player=player)
    client = client_for(player)

    refused = client.post("/api/ranked/queue", {"table_size": 4}, format="json")

    assert refused.status_code == 409
    assert (refused.json()["code"], refused.json()["game"]) == ("already_playing", game.pk)
    assert client.get("/api/ranked/queue").json()["status"] == "not_queued"


def test_the_ranked_queue_refuses_guests_anonymous_users_and_bad_input(api_client):
    guest = client_for(PlayerFactory(is_guest=True))
    refused = guest.post("/api/ranked/queue", {"table_size": 4}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "account_required")
    assert api_client.get("/api/ranked/queue").status_code in (401, 403)
    bad = client_for(PlayerFactory()).post("/api/ranked/queue", {"table_size": 6}, format="json")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid")


def test_the_ratings_endpoints_are_documented(api_client):
    paths = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    for path in (
        "/api/leaderboard",
        "/api/leagues/{league_id}/leaderboard",
        "/api/players/{player_id}/ratings",
        "/api/players/{player_id}/games",
        "/api/ranked/queue",
    ):
        assert path in paths
    assert {"get", "post", "delete"} <= set(paths["/api/ranked/queue"])


def test_the_schema_describes_every_field_a_players_ratings_response_has(api_client):
    people = PlayerFactory.create_batch(3)
    rating_record_game(game_id=finished_game(people, [10, 20, 30], league=LeagueFactory()).pk)
    body = api_client.get(f"/api/players/{people[0].pk}/ratings").json()
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    def resolve(node):
        return schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]] if "$ref" in node else node

    ok = schema["paths"]["/api/players/{player_id}/ratings"]["get"]["responses"]["200"]
    page = resolve(ok["content"]["application/json"]["schema"])
    assert set(page["properties"]) == set(body) == {"count", "next", "previous", "results", "player", "ratings"}
    rating = resolve(page["properties"]["ratings"]["items"])
    assert (
        set(rating["properties"])
        == set(body["ratings"][0])
        >= {"inactive_days", "provisional", "sigma", "conservative", "league_name", "model"}
    )
    assert rating["properties"]["inactive_days"]["type"] == "integer"
    assert rating["properties"]["league"]["nullable"] is True
    history = resolve(page["properties"]["results"]["items"])
    assert set(history["properties"]) == set(body["results"][0])
    parameters = {p["name"] for p in schema["paths"]["/api/players/{player_id}/ratings"]["get"]["parameters"]}
    assert {"page", "page_size", "league", "pool"} <= parameters


def test_the_queue_status_shows_an_entry_cancelled_because_the_player_sat_down_elsewhere():
    player = PlayerFactory()
    client = client_for(player)
    client.post("/api/ranked/queue", {"table_size": 4}, format="json")
    casual = GameFactory(status="waiting", ranked=False)
    GameSeatFactory(game=casual, seat=0, player=player)

    match_ranked_queue()

    mine = client.get("/api/ranked/queue").json()
    assert (mine["status"], mine["reason"], mine["playing_game"], mine["game"]) == (
        "cancelled",
        "already_playing",
        casual.pk,
        None,
    )
    assert client.delete("/api/ranked/queue").json()["code"] == "not_queued"
    again = client.post("/api/ranked/queue", {"table_size": 4}, format="json")
    assert (again.status_code, again.json()["code"], again.json()["game"]) == (409, "already_playing", casual.pk)

    Game.objects.filter(pk=casual.pk).update(status="finished")
    rejoined = client.post("/api/ranked/queue", {"table_size": 4}, format="json").json()
    assert (rejoined["status"], rejoined["reason"], rejoined["playing_game"]) == ("waiting", None, None)


def test_each_rated_game_in_a_players_history_says_whether_they_were_still_provisional(api_client, settings):
    settings.RATINGS_PROVISIONAL_GAMES = 5
    people = PlayerFactory.create_batch(4)
    league = LeagueFactory()
    start = timezone.now() - timedelta(days=2)
    for i in range(14):
        totals = [10 + (i * 7 + seat * 13) % 50 for seat in range(4)]
        game = finished_game(people, totals, league=league if i % 2 else None, finished_at=start + timedelta(hours=i))
        rating_record_game(game_id=game.pk)

    rows = api_client.get(f"/api/players/{people[0].pk}/ratings?pool=global&page_size=50").json()["results"]

    oldest_first = rows[::-1]
    assert len(oldest_first) == 14
    # glicko-elo: provisional below 5 games, and while sigma stays above its provisional sigma, 58
    expected = [games < 5 or row["sigma_after"] > 58.0 for games, row in enumerate(oldest_first, start=1)]
    assert [row["provisional"] for row in oldest_first] == expected
    assert expected[:5] == [True] * 5 and expected[-1] is False and True in expected[5:]  # sigma decided some
    # counted within each pool: the league's 7 games are its own 1st to 7th
    in_league = api_client.get(f"/api/players/{people[0].pk}/ratings?league={league.pk}").json()["results"]
    assert [row["provisional"] for row in in_league[::-1]] == [
        games < 5 or row["sigma_after"] > 58.0 for games, row in enumerate(in_league[::-1], start=1)
    ]
    assert in_league[-1]["provisional"] is True
