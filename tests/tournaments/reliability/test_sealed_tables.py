"""A sealed table (a duplicate round's deals still being played at another table) tells its
outsiders nothing of its progress or its result: found by a review of 2026-12-03, each test
seen failing on the code before its fix."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from rest_framework.test import APIClient

from hearts_league.api import DomainError
from tests.factories import PlayerFactory, UserFactory
from tests.tournaments.helpers import client_for, next_command, play_through_services, seated_table
from tests.tournaments.live.test_game_consumer import connect
from tests.tournaments.reliability.test_fair_play import _duplicate_round, _play_table
from tournaments.competitions import services as competitions
from tournaments.games import eventstore
from tournaments.games.services import game_execute_command, game_reassign_seat
from tournaments.models import Game, GameEvent, RoleEnded, Table

PROGRESS = ("seq", "turn_deadline", "final_totals", "winner_seat", "started_at", "finished_at")


def _move(game, people):
    game.refresh_from_db()
    seat = eventstore.read_engine_game(game, lambda state: state.to_act[0])
    view = eventstore.read_engine_game(game, lambda state: state.view(seat))
    game_execute_command(game_id=game.pk, player=people[seat], command=next_command(view))


@pytest.mark.django_db
def test_game_detail_and_list_show_outsiders_no_progress_of_a_sealed_table(scheduler):
    """``seq`` counted the table's events, and ``turn_deadline`` was null exactly when a CPU or an
    away seat was to act: together who was to act, which the board hides."""
    _, _, tables, seated, _ = _duplicate_round()
    first = tables[0]
    for _ in range(6):
        _move(first.game, seated[0])
    outsiders = {
        "anonymous": APIClient(),
        "member": client_for(PlayerFactory()),
        "rival": client_for(seated[1][0]),
    }
    for label, client in outsiders.items():
        detail = client.get(f"/api/games/{first.game.pk}/").json()
        assert detail["watchable"] is False, label
        assert {key: detail[key] for key in PROGRESS} == dict.fromkeys(PROGRESS), (label, detail)
        listed = client.get("/api/games/", {"player": seated[0][0].pk}).json()["results"]
        entry = next(g for g in listed if g["id"] == first.game.pk)
        assert {key: entry[key] for key in PROGRESS} == dict.fromkeys(PROGRESS), (label, entry)
    own = client_for(seated[0][0]).get(f"/api/games/{first.game.pk}/").json()
    assert own["seq"] == Game.objects.get(pk=first.game.pk).seq and own["watchable"] is True
    _play_table(first, seated[0])
    _play_table(tables[1], seated[1])  # the round is over: the table is anyone's to watch
    shown = APIClient().get(f"/api/games/{first.game.pk}/").json()
    assert shown["seq"] and shown["final_totals"] is not None


@pytest.mark.django_db
def test_rulings_on_a_sealed_table_are_shown_to_no_one_playing_in_the_round_until_it_is_over(scheduler):
    """A ruling states the score it replaced and the one it gives: a sealed table's result."""
    tournament, _, tables, seated, director = _duplicate_round()
    first, second = tables
    _play_table(first, seated[0])
    ruled = client_for(director).post(
        f"/api/tournaments/{tournament.pk}/rulings/",
        {"table": first.pk, "seat": 0, "hearts_points": 3, "reason": "Revoke"},
        format="json",
    )
    assert ruled.status_code == 201, ruled.content
    for label, client in (("anonymous", APIClient()), ("rival", client_for(seated[1][0]))):
        listed = client.get(f"/api/tournaments/{tournament.pk}/rulings/")
        assert listed.status_code == 200 and listed.json() == [], label
    assert len(client_for(director).get(f"/api/tournaments/{tournament.pk}/rulings/").json()) == 1

    # a league's own director (not staff) runs the night: the REST tables show the results the
    # printed sheet shows them; seated in the round, neither, and no ruling on the sealed table
    league_director = seated[1][1]
    tournament.league.directors.add(league_director)
    browser = Client()
    browser.force_login(league_director.user)
    results = client_for(league_director).get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()
    assert [t["results"] for t in results] == [[], []]
    assert client_for(league_director).get(f"/api/tournaments/{tournament.pk}/rulings/").json() == []
    console = browser.get(f"/director/tournaments/{tournament.pk}/").content.decode()
    assert "Revoke" not in console
    refused = client_for(league_director).post(
        f"/api/tournaments/{tournament.pk}/rulings/",
        {"table": first.pk, "seat": 1, "hearts_points": 0, "reason": "Probe"},
        format="json",
    )
    assert refused.status_code == 403 and refused.json()["code"] == "hidden_until_round_over", refused.content
    free_director = PlayerFactory()
    tournament.league.directors.add(free_director)
    results = client_for(free_director).get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()
    assert len(results[0]["results"]) == 4
    browser.force_login(free_director.user)
    assert "Revoke" in browser.get(f"/director/tournaments/{tournament.pk}/").content.decode()

    _play_table(second, seated[1])  # the round is over: the ruling is anyone's to read
    assert [r["reason"] for r in APIClient().get(f"/api/tournaments/{tournament.pk}/rulings/").json()] == ["Revoke"]


@pytest.mark.django_db
def test_no_swap_seats_in_a_started_duplicate_round_whoever_may_have_watched_its_other_tables(scheduler):
    """Found by review: staff, who may watch a sealed table, watched table 1 play the round's
    deal and were then swapped into table 2 (a director's correction), holding a hand whose play
    they had seen. Refused (409 ``may_know_the_deal``), over REST as in the service, for staff who
    play nowhere in the round, and for a league director once a table's result (theirs to read)
    is in; a director who has read nothing may still fill a seat, and staff may once the round is over."""
    tournament, _, tables, seated, director = _duplicate_round()
    first, second = tables
    competitions.tournament_register(tournament_id=tournament.pk, player=director)
    for _ in range(8):
        _move(first.game, seated[0])
    watched = client_for(director).get(f"/api/games/{first.game.pk}/events/")
    assert watched.status_code == 200  # staff playing nowhere in the round watch table 1's play
    swap = f"/api/tournaments/{tournament.pk}/swap/"
    refused = client_for(director).post(
        swap,
        {"table": second.pk, "player_out": seated[1][0].pk, "player_in": director.pk, "correction": True},
        format="json",
    )
    assert refused.status_code == 409 and refused.json()["code"] == "may_know_the_deal", refused.content
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=0).player_id == seated[1][0].pk
    assert client_for(director).get(f"/api/games/{first.game.pk}/events/").status_code == 200  # still staff

    league_director = PlayerFactory()
    tournament.league.directors.add(league_director)
    competitions.tournament_register(tournament_id=tournament.pk, player=league_director)
    competitions.table_swap_player(  # nothing of the round is theirs to read yet: they may fill a seat
        table_id=second.pk, player_out=seated[1][1], player_in=league_director, correction=True
    )
    latecomer = PlayerFactory()
    tournament.league.directors.add(latecomer)
    competitions.tournament_register(tournament_id=tournament.pk, player=latecomer)
    _play_table(first, seated[0])
    results = client_for(latecomer).get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()
    assert len(results[0]["results"]) == 4  # table 1's result, read by a director playing nowhere
    with pytest.raises(DomainError) as read_the_result:
        competitions.table_swap_player(
            table_id=second.pk, player_out=seated[1][2], player_in=latecomer, correction=True
        )
    assert read_the_result.value.error_code == "may_know_the_deal"


@pytest.mark.django_db
@pytest.mark.parametrize("watcher", ["staff", "director"])
@pytest.mark.parametrize("players", [11, 14], ids=["via the lone table of 3", "via a sealed table of 3"])
def test_no_correction_seats_a_watcher_of_the_round_by_way_of_a_table_of_another_size(scheduler, watcher, players):
    """Found by review: the refusal above exempted anyone who had sat in the round, so two swaps
    got round it: first to a table of another size (the lone table of 3 of 11 players, checked by
    nothing since nothing there is hidden; or, of 14, a sealed table of 3, none of which had
    finished), then to table 2, whose deal the watcher had seen played at table 1. Only those dealt
    in when the round began are exempt; a director is judged at the first seat a correction gave."""
    tournament, _, tables, seated, staff = _duplicate_round(players=players)
    (first, first_people), (second, second_people) = [
        (t, p) for t, p in zip(tables, seated, strict=True) if t.size == 4
    ]
    third, third_people = next((t, p) for t, p in zip(tables, seated, strict=True) if t.size == 3)
    assert first.game.sealed and second.game.sealed and third.game.sealed == (players == 14)
    if watcher == "staff":
        person = staff
        for _ in range(8):
            _move(first.game, first_people)
        assert client_for(person).get(f"/api/games/{first.game.pk}/events/").status_code == 200
    else:
        person = PlayerFactory()
        tournament.league.directors.add(person)
        _play_table(first, first_people)
        results = client_for(person).get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()
        assert len(results[first.number - 1]["results"]) == 4  # table 1's result, read
    competitions.tournament_register(tournament_id=tournament.pk, player=person)
    swap = f"/api/tournaments/{tournament.pk}/swap/"
    elsewhere = client_for(staff).post(
        swap,
        {"table": third.pk, "player_out": third_people[0].pk, "player_in": person.pk, "correction": True},
        format="json",
    )
    if elsewhere.status_code == 409:  # staff, at a sealed table of 3: refused already
        assert watcher == "staff" and players == 14 and elsewhere.json()["code"] == "may_know_the_deal"
        return
    assert elsewhere.status_code == 200, elsewhere.content
    refused = client_for(staff).post(
        swap,
        {"table": second.pk, "player_out": second_people[0].pk, "player_in": person.pk, "correction": True},
        format="json",
    )
    assert refused.status_code == 409 and refused.json()["code"] == "may_know_the_deal", refused.content
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=0).player_id == second_people[0].pk
    assert client_for(person).get(f"/api/games/{second.game.pk}/").json()["state"] is None


@pytest.mark.django_db
def test_losing_staff_or_director_before_a_swap_does_not_unsee_what_the_role_showed(scheduler):
    """Found by review: the rule above read the role held when the director asked. Staff who
    watched table 1 and were then demoted, or a league director who read its result and was
    then removed from the league's directors, were seated at table 2. Whoever held the role at
    any moment of the round is judged as if they still did; a role lost before the round
    started shows nothing of it."""
    tournament, round_, tables, seated, watcher = _duplicate_round()
    first, second = tables
    reader, former = PlayerFactory(), PlayerFactory(user__is_staff=True)
    tournament.league.directors.add(reader)
    for person in (watcher, reader, former):
        competitions.tournament_register(tournament_id=tournament.pk, player=person)
    former.user.is_staff = False
    former.user.save()
    RoleEnded.objects.filter(user=former.user).update(ended_at=round_.started_at - timedelta(minutes=1))
    for _ in range(8):
        _move(first.game, seated[0])
    assert client_for(watcher).get(f"/api/games/{first.game.pk}/events/").status_code == 200
    watcher.user.is_staff = False
    watcher.user.save()
    swap = f"/api/tournaments/{tournament.pk}/swap/"
    refused = client_for(PlayerFactory(user__is_staff=True)).post(
        swap,
        {"table": second.pk, "player_out": seated[1][0].pk, "player_in": watcher.pk, "correction": True},
        format="json",
    )
    assert refused.status_code == 409 and refused.json()["code"] == "may_know_the_deal", refused.content
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=0).player_id == seated[1][0].pk

    _play_table(first, seated[0])
    assert len(client_for(reader).get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()[0]["results"]) == 4
    reader.user.is_active = False  # deactivated, they direct nothing for now, yet read the result
    reader.user.save()
    with pytest.raises(DomainError) as while_inactive:
        competitions.table_swap_player(table_id=second.pk, player_out=seated[1][1], player_in=reader, correction=True)
    assert while_inactive.value.error_code == "may_know_the_deal"
    reader.leagues_directed.remove(tournament.league)
    with pytest.raises(DomainError) as read_the_result:
        competitions.table_swap_player(table_id=second.pk, player_out=seated[1][1], player_in=reader, correction=True)
    assert read_the_result.value.error_code == "may_know_the_deal"

    competitions.table_swap_player(table_id=second.pk, player_out=seated[1][2], player_in=former, correction=True)
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=2).player_id == former.pk


@pytest.mark.django_db
def test_a_staff_account_demoted_before_it_had_a_player_is_judged_once_one_is_attached(scheduler):
    """Found by review: an admin-only staff account (no Player) could watch the round's sealed
    tables, be demoted, be given a Player in the admin and be seated at the round's other table:
    the fact of the role was kept on a Player it did not have."""
    tournament, _, tables, seated, _ = _duplicate_round()
    first, second = tables
    for _ in range(8):
        _move(first.game, seated[0])
    account = UserFactory(is_staff=True)
    watching = APIClient()
    watching.force_authenticate(account)
    assert watching.get(f"/api/games/{first.game.pk}/events/").status_code == 200
    account.is_staff = False
    account.save()
    late_player = PlayerFactory(user=account)
    competitions.tournament_register(tournament_id=tournament.pk, player=late_player)
    with pytest.raises(DomainError) as refused:
        competitions.table_swap_player(
            table_id=second.pk, player_out=seated[1][0], player_in=late_player, correction=True
        )
    assert refused.value.error_code == "may_know_the_deal"
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=0).player_id == seated[1][0].pk


@pytest.mark.django_db
def test_a_director_who_reads_a_result_then_is_given_another_player_is_still_judged_by_it(scheduler):
    """Directing is held by a Player; the user who logged in as it read the results. Their
    Player deleted in the admin, and a new one made for them, does not unsee them (a Player's
    login cannot be moved: test_roles.py)."""
    tournament, _, tables, seated, _ = _duplicate_round()
    first, second = tables
    director = PlayerFactory()
    tournament.league.directors.add(director)
    _play_table(first, seated[0])
    assert len(client_for(director).get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()[0]["results"]) == 4
    account = director.user
    director.delete()
    fresh = PlayerFactory(user=account, display_name="Fresh start")
    competitions.tournament_register(tournament_id=tournament.pk, player=fresh)
    with pytest.raises(DomainError) as refused:
        competitions.table_swap_player(table_id=second.pk, player_out=seated[1][0], player_in=fresh, correction=True)
    assert refused.value.error_code == "may_know_the_deal"


@pytest.mark.django_db
def test_a_director_removed_before_any_result_may_be_seated_once_results_are_in(scheduler):
    """A director removed from the league's directors before any table of the round finished
    read none of its results: the results that came in after are as hidden from them as from
    any player, so a correction may seat them."""
    tournament, _, tables, seated, _ = _duplicate_round()
    first, second = tables
    former = PlayerFactory()
    tournament.league.directors.add(former)
    competitions.tournament_register(tournament_id=tournament.pk, player=former)
    tournament.league.directors.remove(former)
    _play_table(first, seated[0])
    competitions.table_swap_player(table_id=second.pk, player_out=seated[1][0], player_in=former, correction=True)
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=0).player_id == former.pk


@pytest.mark.django_db
def test_a_director_seated_before_any_result_may_still_take_their_seat_back(scheduler):
    """The other side of the rule above: a director a correction seated before any table of the
    round finished has read nothing of it since (its results are hidden from its players), so a
    later correction giving them back their seat at their table is not refused."""
    tournament, _, tables, seated, _ = _duplicate_round()
    first, second = tables
    director, substitute = PlayerFactory(), PlayerFactory()
    tournament.league.directors.add(director)
    for person in (director, substitute):
        competitions.tournament_register(tournament_id=tournament.pk, player=person)
    competitions.table_swap_player(table_id=second.pk, player_out=seated[1][0], player_in=director, correction=True)
    competitions.table_swap_player(table_id=second.pk, player_out=director, player_in=substitute, correction=True)
    _play_table(first, seated[0])
    competitions.table_swap_player(table_id=second.pk, player_out=substitute, player_in=director, correction=True)
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=0).player_id == director.pk


@pytest.mark.django_db(transaction=True)
def test_a_staff_socket_watching_a_sealed_table_closes_once_they_are_seated_in_its_round(scheduler):
    """Staff watch a sealed table; seated at the round's other table, they would be a player of
    its deals: the socket opened before is closed, as a new one would be refused. A director's
    swap refuses to seat them (above); the socket does not count on it: the game's own seat
    change is enough to close it."""
    _, _, tables, _, director = _duplicate_round()
    first, second = tables

    async def watch_then_sit():
        communicator, connected, _ = await connect(first.game, director, after=0)
        assert connected
        hello = json.loads(await communicator.receive_from(timeout=5))
        assert hello["type"] == "hello" and hello["seat"] is None
        while await communicator.receive_nothing(timeout=0.2) is False:
            await communicator.receive_from(timeout=5)  # the catch-up and the spectators list
        from channels.db import database_sync_to_async

        def seat_them():  # as a swap would, had it not been refused
            table = Table.objects.get(pk=second.pk)
            table.players[0] = director.pk
            table.save(update_fields=["players"])
            game_reassign_seat(game_id=second.game_id, seat=0, player=director)

        await database_sync_to_async(seat_them)()
        frames = []
        while True:
            output = await communicator.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                return frames, output["code"]
            frames.append(json.loads(output["text"]))

    frames, code = async_to_sync(watch_then_sit)()
    assert code == 4403
    assert frames[-1]["type"] == "error" and frames[-1]["code"] == "hidden_until_round_over"
    assert not [f for f in frames if f["type"] == "update"]


@pytest.mark.django_db
def test_a_staff_member_swapped_out_of_the_round_is_still_one_of_its_players(scheduler):
    """Found by review: swapped out of table 2 (a director's correction), a staff member was
    staff again at table 1, reading how it played the deal they had held, and could be swapped
    back in. Whoever has held a seat in the round is one of its players until it is over."""
    tournament, _, tables, seated, _ = _duplicate_round()
    first, second = tables
    staff = seated[1][0]
    staff.user.is_staff = staff.user.is_superuser = True
    staff.user.save()
    substitute = PlayerFactory()
    competitions.tournament_register(tournament_id=tournament.pk, player=substitute)
    for _ in range(8):
        _move(first.game, seated[0])
    competitions.table_swap_player(table_id=second.pk, player_out=staff, player_in=substitute, correction=True)
    api = client_for(staff)
    for door in ("events/", "replay/", "audit/"):
        refused = api.get(f"/api/games/{first.game.pk}/{door}")
        assert refused.status_code == 403 and refused.json()["code"] == "hidden_until_round_over", door
    detail = api.get(f"/api/games/{first.game.pk}/").json()
    assert detail["watchable"] is False and detail["state"] is None and detail["seq"] is None
    browser = Client()
    browser.force_login(staff.user)
    assert browser.get(f"/admin/tournaments/game/{first.game.pk}/change/").status_code in (302, 404)
    _play_table(first, seated[0])
    _play_table(second, [substitute, *seated[1][1:]])
    assert api.get(f"/api/games/{first.game.pk}/events/").status_code == 200  # the round is over


@pytest.mark.django_db
def test_the_admin_shows_a_staff_player_of_the_round_their_own_table_and_no_sealed_result_anywhere(scheduler):
    """Found by a third review: the delete confirmations listed a sealed table's results and
    rulings by name ("table 1 seat 0: 7", "20 -> 7"); and the staff member's own table was
    left out of the admin with the others. Found by a fourth: even without points, they listed
    that a ruling was made at that table, and on which seat."""
    tournament, round_, tables, seated, _ = _duplicate_round()
    first, second = tables
    staff = seated[1][0]
    staff.user.is_staff = staff.user.is_superuser = True
    staff.user.save()
    _play_table(first, seated[0])
    competitions.table_rule_score(table_id=first.pk, seat=0, hearts_points=77, reason="Revoke")
    browser = Client()
    browser.force_login(staff.user)
    for page in (
        f"/admin/tournaments/round/{round_.pk}/delete/",
        f"/admin/tournaments/tournament/{tournament.pk}/delete/",
        f"/admin/tournaments/player/{seated[0][0].pk}/delete/",
        f"/admin/auth/user/{seated[0][0].user_id}/delete/",
    ):
        # a deletion that would take the sealed table's rows lists none of them (not even that a
        # ruling or a result exists): it is refused until the round is over
        body = browser.get(page).content.decode()
        assert "table 1 seat" not in body and "a table still sealed in a round you play in" in body, page
    names = {str(result) for result in first.results.all()} | {str(ruling) for ruling in first.rulings.all()}
    assert names and all(re.search(r"round 1 table 1 seat \d$", name) for name in names), names  # no points
    assert browser.get(f"/admin/tournaments/game/{second.game.pk}/change/").status_code == 200  # their own
    assert f"/admin/tournaments/table/{second.pk}/change/" in browser.get("/admin/tournaments/table/").content.decode()
    assert browser.get(f"/admin/tournaments/table/{first.pk}/swap/").status_code in (302, 404)


@pytest.mark.django_db
def test_a_games_admin_page_reads_the_viewers_seats_once_not_once_an_event(scheduler, django_assert_max_num_queries):
    """Found by a third review: every event row of a game's page read the viewer's sight and
    seats again: about five queries an event, thousands for a whole game."""
    _, _, tables, seated, director = _duplicate_round()
    _play_table(tables[0], seated[0])
    director.user.is_superuser = True
    director.user.save()
    browser = Client()
    browser.force_login(director.user)
    events = Game.objects.get(pk=tables[0].game.pk).seq
    assert events > 50
    with django_assert_max_num_queries(40):
        assert browser.get(f"/admin/tournaments/game/{tables[0].game.pk}/change/").status_code == 200


@pytest.mark.django_db
def test_no_swap_seats_a_player_at_a_table_whose_deal_they_have_held_elsewhere(scheduler):
    """Found by a fourth review: a director's correction between the two tables of a started
    duplicate round seated table 2's player at table 1, where seat 1 holds the very hand they
    were dealt at table 2 (and later, how table 2 played it). Over REST, the console and the
    admin alike (one service): refused, and refused too for a player swapped out of table 2
    who sits the round out; a correction within one table stays possible."""
    tournament, _, tables, seated, director = _duplicate_round()
    first, second = tables
    visitor = seated[1][1]  # table 2, seat 1
    known = client_for(visitor).get(f"/api/games/{second.game.pk}/").json()["state"]["hand"]
    assert len(known) == 13
    swap = f"/api/tournaments/{tournament.pk}/swap/"
    refused = client_for(director).post(
        swap,
        {"table": first.pk, "player_out": seated[0][0].pk, "player_in": visitor.pk, "correction": True},
        format="json",
    )
    assert refused.status_code == 409 and refused.json()["code"] == "knows_the_deal", refused.content
    assert client_for(visitor).get(f"/api/games/{first.game.pk}/").json()["your_seat"] is None

    # swapped out of table 2 for a substitute, they sit the round out: still not into table 1
    substitute = PlayerFactory()
    competitions.tournament_register(tournament_id=tournament.pk, player=substitute)
    competitions.table_swap_player(table_id=second.pk, player_out=visitor, player_in=substitute, correction=True)
    with pytest.raises(DomainError) as again:
        competitions.table_swap_player(table_id=first.pk, player_out=seated[0][0], player_in=visitor, correction=True)
    assert again.value.error_code == "knows_the_deal"
    # back into the seat they held at table 2: allowed (seats exchanged within one table mid-hand
    # are not: test_no_correction_gives_a_player_a_second_seat_of_the_hand_they_have_seen)
    competitions.table_swap_player(table_id=second.pk, player_out=substitute, player_in=visitor, correction=True)
    assert Game.objects.get(pk=second.game.pk).seats.get(seat=1).player_id == visitor.pk


@pytest.mark.django_db
def test_a_sealed_tables_finish_time_is_shown_to_no_one_playing_in_the_round(scheduler):
    """Found by a fourth review: the game and the round's tables showed the other table's
    players when it finished (and the game when it started): its pace, which the board hides."""
    tournament, _, tables, seated, director = _duplicate_round()
    first, _ = tables
    _play_table(first, seated[0])
    rival = client_for(seated[1][0])
    game = rival.get(f"/api/games/{first.game.pk}/").json()
    listed = rival.get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()
    assert game["watchable"] is False and game["started_at"] is None and game["finished_at"] is None
    assert listed[0]["status"] == "finished" and listed[0]["finished_at"] is None
    directed = client_for(director).get(f"/api/tournaments/{tournament.pk}/rounds/1/tables/").json()
    assert directed[0]["finished_at"] is not None  # the director running the night sees it


@pytest.mark.django_db
def test_no_correction_gives_a_player_a_second_seat_of_the_hand_they_have_seen(scheduler):
    """Found by review: two players of one table exchanged seats mid-hand (a director's
    correction), and each then held the hand the other had been dealt, knowing their own former
    one, now an opponent's. Refused (409 ``knows_another_seat``, nothing changed), as is a player
    swapped out and back into another seat of the hand; their own seat they may take back, and
    another once the next hand is dealt."""
    tournament, _, tables, seated, director = _duplicate_round(hands=2)
    first = tables[0]
    north, east = seated[0][0], seated[0][1]
    hands = {p.pk: client_for(p).get(f"/api/games/{first.game.pk}/").json()["state"]["hand"] for p in (north, east)}
    swap = f"/api/tournaments/{tournament.pk}/swap/"
    refused = client_for(director).post(
        swap, {"table": first.pk, "player_out": north.pk, "player_in": east.pk, "correction": True}, format="json"
    )
    assert refused.status_code == 409 and refused.json()["code"] == "knows_another_seat", refused.content
    assert dict(Game.objects.get(pk=first.game.pk).seats.values_list("seat", "player_id")) == {
        seat: p.pk for seat, p in enumerate(seated[0])
    }
    assert Table.objects.get(pk=first.pk).players == [p.pk for p in seated[0]]
    for person in (north, east):  # each still sees their own hand, and only it
        assert client_for(person).get(f"/api/games/{first.game.pk}/").json()["state"]["hand"] == hands[person.pk]

    substitute = PlayerFactory()
    competitions.tournament_register(tournament_id=tournament.pk, player=substitute)
    competitions.table_swap_player(table_id=first.pk, player_out=north, player_in=substitute, correction=True)
    with pytest.raises(DomainError) as again:  # out of seat 0, then into seat 1 of the same hand
        competitions.table_swap_player(table_id=first.pk, player_out=east, player_in=north, correction=True)
    assert again.value.error_code == "knows_another_seat"
    competitions.table_swap_player(table_id=first.pk, player_out=substitute, player_in=north, correction=True)
    assert Game.objects.get(pk=first.game.pk).seats.get(seat=0).player_id == north.pk

    competitions.table_swap_player(table_id=first.pk, player_out=north, player_in=substitute, correction=True)
    play_through_services(first.game, [substitute, *seated[0][1:]], until=lambda state: state.hand_number == 2)
    competitions.table_swap_player(table_id=first.pk, player_out=east, player_in=north, correction=True)
    assert Game.objects.get(pk=first.game.pk).seats.get(seat=1).player_id == north.pk


@pytest.mark.django_db
def test_a_seat_reassigned_at_a_casual_table_follows_the_same_rule(scheduler):
    """The rule is the game's, not the tournament's: every door that reassigns a seat goes
    through ``game_reassign_seat``."""
    game, people, clients = seated_table()
    hand = clients[0].get(f"/api/games/{game.pk}/").json()["state"]["hand"]
    with pytest.raises(DomainError) as refused:
        game_reassign_seat(game_id=game.pk, seat=1, player=people[0])
    assert refused.value.error_code == "knows_another_seat" and refused.value.status_code == 409
    assert clients[0].get(f"/api/games/{game.pk}/").json()["your_seat"] == 0
    assert clients[0].get(f"/api/games/{game.pk}/").json()["state"]["hand"] == hand
    assert not GameEvent.objects.filter(game=game, type="SeatReassigned").exists()
