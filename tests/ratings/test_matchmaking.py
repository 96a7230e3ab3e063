"""Ranked matchmaking: close ratings sit together, windows widen with waiting, games start ranked."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hearts_league.api import DomainError
from ratings.models import QueueEntry
from ratings.services.matchmaking import (
    match_window,
    ranked_queue_join,
    ranked_queue_leave,
    ranked_queue_match,
)
from ratings.tasks import match_ranked_queue
from tests.factories import GameFactory, GameSeatFactory, PlayerFactory, RatingFactory
from tests.ratings.helpers import T0
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def rated(mu):
    return RatingFactory(mu=mu).player


def seated(game):
    return {s.player_id for s in game.seats.all()}


def test_close_ratings_are_seated_together_as_soon_as_enough_are_waiting():
    low = [rated(mu) for mu in (1500, 1510, 1520, 1530)]
    high = [rated(mu) for mu in (2000, 2010, 2020, 2030)]
    entries = []
    for a, b in zip(low, high, strict=True):  # they arrive interleaved
        entries.append(ranked_queue_join(player=a, table_size=4, now=T0))
        entries.append(ranked_queue_join(player=b, table_size=4, now=T0))

    # Each group is seated when its fourth player arrives, never mixed with the other.
    assert [e.status for e in entries] == ["waiting"] * 6 + ["matched"] * 2
    games = list(Game.objects.order_by("pk"))
    assert [seated(g) for g in games] == [{p.pk for p in low}, {p.pk for p in high}]
    assert all(g.ranked and g.status == "active" and g.players_count == 4 for g in games)
    for entry in entries:
        entry.refresh_from_db()
    assert {e.game_id for e in entries} == {g.pk for g in games}
    assert all(e.status == "matched" and e.matched_at == T0 for e in entries)


def test_the_accepted_range_widens_the_longer_players_wait():
    people = [rated(mu) for mu in (1500, 1650, 1800, 1950)]  # a spread of 450
    for player in people:
        ranked_queue_join(player=player, table_size=4, now=T0)
    assert match_window(waited_seconds=0) == 100.0
    assert match_window(waited_seconds=70) == 450.0

    assert ranked_queue_match(now=T0 + timedelta(seconds=30)) == []
    assert ranked_queue_match(now=T0 + timedelta(seconds=69)) == []
    [game] = ranked_queue_match(now=T0 + timedelta(seconds=70))
    assert seated(game) == {p.pk for p in people}


def test_a_newcomer_must_accept_the_others_too():
    veterans = [rated(mu) for mu in (1500, 1520, 1540)]
    for player in veterans:
        ranked_queue_join(player=player, table_size=4, now=T0)
    far = rated(1900)
    near_later = rated(1560)

    # The veterans have waited long enough to accept 1900, but the newcomer's window is still 100.
    assert ranked_queue_join(player=far, table_size=4, now=T0 + timedelta(seconds=120)).status == "waiting"
    joined = ranked_queue_join(player=near_later, table_size=4, now=T0 + timedelta(seconds=121))
    assert joined.status == "matched"
    assert seated(joined.game) == {p.pk for p in [*veterans, near_later]}
    assert QueueEntry.objects.get(player=far).status == "waiting"


def test_tables_form_per_size_and_preset_with_the_preset_rules():
    people = [rated(1500 + i) for i in range(6)]
    for player in people[:3]:
        ranked_queue_join(player=player, table_size=3, preset="short", now=T0)
    for player in people[3:]:
        ranked_queue_join(player=player, table_size=3, preset="omnibus", now=T0)

    short, omnibus = Game.objects.order_by("pk")

    def rules(game):
        return game.rules["players"], game.rules["end_score"], game.rules["jack_of_diamonds"]

    assert (rules(short), rules(omnibus)) == ((3, 50, False), (3, 100, True))


def test_new_players_wait_at_the_initial_rating():
    entry = ranked_queue_join(player=PlayerFactory(), table_size=5, now=T0)
    assert (entry.status, entry.mu) == ("waiting", 1500.0)


def test_joining_twice_leaving_and_refusals():
    player = rated(1500)
    ranked_queue_join(player=player, table_size=4, now=T0)
    with pytest.raises(DomainError) as twice:
        ranked_queue_join(player=player, table_size=4, now=T0)
    assert twice.value.error_code == "already_queued"

    assert ranked_queue_leave(player=player).status == "left"
    with pytest.raises(DomainError) as again:
        ranked_queue_leave(player=player)
    assert again.value.error_code == "not_queued"
    assert ranked_queue_match(now=T0 + timedelta(hours=1)) == []

    for table_size, preset, code in ((6, "standard", "invalid_table_size"), (4, "blitz", "invalid_preset")):
        with pytest.raises(DomainError) as bad:
            ranked_queue_join(player=player, table_size=table_size, preset=preset)
        assert bad.value.error_code == code
    guest = PlayerFactory(is_guest=True)
    with pytest.raises(DomainError) as refused:
        ranked_queue_join(player=guest, table_size=4)
    assert (refused.value.error_code, refused.value.status_code) == ("account_required", 403)


def test_leaving_is_too_late_once_matched():
    people = [rated(1500) for _ in range(3)]
    for player in people:
        ranked_queue_join(player=player, table_size=3, now=T0)
    with pytest.raises(DomainError) as late:
        ranked_queue_leave(player=people[0])
    assert late.value.error_code == "already_matched"


def test_the_periodic_task_matches_those_whose_windows_have_grown():
    for mu in (1500, 1700, 1900):
        ranked_queue_join(player=rated(mu), table_size=3, now=timezone.now() - timedelta(minutes=5))
    assert not Game.objects.exists()
    assert match_ranked_queue() == 1
    assert Game.objects.filter(ranked=True).count() == 1


def test_a_waiting_entry_expires_after_the_timeout_and_is_never_seated(settings):
    settings.RATINGS_QUEUE_TIMEOUT_SECONDS = 60
    gone = rated(1500)  # closed the browser after joining
    entry = ranked_queue_join(player=gone, table_size=3, now=T0)

    assert ranked_queue_match(now=T0 + timedelta(seconds=60)) == []  # exactly the timeout: still waiting
    entry.refresh_from_db()
    assert entry.status == "waiting"

    # Two close players arrive a second too late for them: a join's matching run expires the entry
    # first, so they keep waiting rather than starting a ranked game with an absent player.
    late = [rated(1500), rated(1510)]
    for player in late:
        assert ranked_queue_join(player=player, table_size=3, now=T0 + timedelta(seconds=61)).status == "waiting"
    entry.refresh_from_db()
    assert (entry.status, entry.left_at, entry.game_id) == ("expired", T0 + timedelta(seconds=61), None)
    assert not Game.objects.exists()

    with pytest.raises(DomainError) as leave:
        ranked_queue_leave(player=gone)
    assert leave.value.error_code == "not_queued"
    # Coming back, the player queues again and is seated with those now waiting.
    again = ranked_queue_join(player=gone, table_size=3, now=T0 + timedelta(seconds=90))
    assert again.status == "matched" and seated(again.game) == {gone.pk, *(p.pk for p in late)}


def test_the_periodic_task_expires_stale_entries_with_the_default_timeout():
    stale, fresh = rated(1500), rated(1510)
    ranked_queue_join(player=stale, table_size=3, now=timezone.now() - timedelta(seconds=601))
    ranked_queue_join(player=fresh, table_size=3, now=timezone.now() - timedelta(seconds=599))

    assert match_ranked_queue() == 0
    assert QueueEntry.objects.get(player=stale).status == "expired"
    assert QueueEntry.objects.get(player=fresh).status == "waiting"


def test_an_entry_past_the_timeout_does_not_block_joining_again_before_the_task_runs(settings):
    settings.RATINGS_QUEUE_TIMEOUT_SECONDS = 60
    player = rated(1500)
    first = ranked_queue_join(player=player, table_size=4, now=T0)
    with pytest.raises(DomainError) as twice:  # within the timeout, joining twice is refused as before
        ranked_queue_join(player=player, table_size=4, now=T0 + timedelta(seconds=60))
    assert twice.value.error_code == "already_queued"

    second = ranked_queue_join(player=player, table_size=5, now=T0 + timedelta(seconds=61))
    first.refresh_from_db()
    assert (first.status, second.status, second.table_size) == ("expired", "waiting", 5)


@pytest.mark.parametrize(
    ("status", "away", "refused"),
    [
        ("active", False, True),
        ("waiting", False, True),  # sitting at a table that has not started yet
        ("active", True, False),  # a CPU plays the seat: the player has left that game
        ("finished", False, False),
    ],
)
def test_a_player_sitting_at_an_unfinished_game_cannot_join(status, away, refused):
    player = rated(1500)
    game = GameFactory(status=status, ranked=False)
    GameSeatFactory(game=game, seat=0, player=player, away=away)

    if not refused:
        assert ranked_queue_join(player=player, table_size=4, now=T0).status == "waiting"
        return
    with pytest.raises(DomainError) as playing:
        ranked_queue_join(player=player, table_size=4, now=T0)
    assert (playing.value.error_code, playing.value.status_code) == ("already_playing", 409)
    assert playing.value.extra == {"game": game.pk}
    assert not QueueEntry.objects.exists()


def test_a_matched_player_cannot_queue_again_until_their_ranked_game_ends():
    people = [rated(1500) for _ in range(3)]
    for player in people:
        ranked_queue_join(player=player, table_size=3, now=T0)
    [game] = Game.objects.all()

    with pytest.raises(DomainError) as playing:
        ranked_queue_join(player=people[0], table_size=3, now=T0 + timedelta(seconds=1))
    assert (playing.value.error_code, playing.value.extra) == ("already_playing", {"game": game.pk})

    Game.objects.filter(pk=game.pk).update(status="finished")
    assert ranked_queue_join(player=people[0], table_size=3, now=T0 + timedelta(minutes=30)).status == "waiting"


@pytest.mark.parametrize("game_status", ["waiting", "active"])
def test_a_waiting_player_who_sat_down_at_another_table_is_cancelled_not_seated(game_status):
    busy, others = rated(1500), [rated(1505), rated(1510), rated(1515)]
    entry = ranked_queue_join(player=busy, table_size=3, now=T0)
    casual = GameFactory(status=game_status, ranked=False)  # sat down at a casual table meanwhile
    GameSeatFactory(game=casual, seat=1, player=busy)

    # Two close players arrive: with the busy player there would be a table of three, but no.
    for player in others[:2]:
        assert ranked_queue_join(player=player, table_size=3, now=T0 + timedelta(seconds=5)).status == "waiting"
    entry.refresh_from_db()
    assert (entry.status, entry.reason, entry.playing_game_id, entry.game_id) == (
        "cancelled",
        "already_playing",
        casual.pk,
        None,
    )
    assert entry.left_at == T0 + timedelta(seconds=5)
    assert not Game.objects.filter(ranked=True).exists()

    # The queue goes on without them.
    game = ranked_queue_join(player=others[2], table_size=3, now=T0 + timedelta(seconds=6)).game
    assert seated(game) == {p.pk for p in others}
    with pytest.raises(DomainError) as leave:
        ranked_queue_leave(player=busy)
    assert leave.value.error_code == "not_queued"

    # Once the casual game is over they join again like anyone.
    Game.objects.filter(pk=casual.pk).update(status="finished")
    assert ranked_queue_join(player=busy, table_size=3, now=T0 + timedelta(minutes=30)).status == "waiting"


@pytest.mark.parametrize(("game_status", "away"), [("active", True), ("finished", False)])
def test_a_game_the_player_has_left_or_finished_does_not_cancel_their_entry(game_status, away):
    player = rated(1500)
    ranked_queue_join(player=player, table_size=3, now=T0)
    other = GameFactory(status=game_status, ranked=False)
    GameSeatFactory(game=other, seat=0, player=player, away=away)  # a CPU plays their seat, or it is over

    joined = [ranked_queue_join(player=rated(mu), table_size=3, now=T0 + timedelta(seconds=1)) for mu in (1505, 1510)]

    assert joined[-1].status == "matched" and player.pk in seated(joined[-1].game)


def test_the_periodic_task_cancels_the_entries_of_players_now_playing_elsewhere():
    busy, free = rated(1500), rated(1510)
    for player in (busy, free):
        ranked_queue_join(player=player, table_size=3, now=timezone.now())
    GameSeatFactory(game=GameFactory(status="active", ranked=False), seat=0, player=busy)

    assert match_ranked_queue() == 0
    assert QueueEntry.objects.get(player=busy).status == "cancelled"
    assert QueueEntry.objects.get(player=free).status == "waiting"
