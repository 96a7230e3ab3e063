"""The per-process feed live connections read from: one database read per change at most,
and never a state newer or older than the row it is served with."""

import copy
import gc
import weakref

import pytest

from tests.tournaments.helpers import next_command, seated_table
from tournaments.games import eventstore
from tournaments.games.feed import Feed
from tournaments.games.services import game_execute_command
from tournaments.models import Game, GameEvent

pytestmark = pytest.mark.django_db


def _move(game, people):
    game.refresh_from_db()
    seat = eventstore.read_engine_game(game, lambda s: s.to_act[0])
    view = eventstore.read_engine_game(game, lambda s, seat=seat: s.view(seat))
    return game_execute_command(game_id=game.pk, player=people[seat], command=next_command(view))


def test_a_writers_published_change_is_served_without_the_database(django_assert_num_queries):
    game, people, _ = seated_table()
    feed = Feed()
    start = Game.objects.get(pk=game.pk)
    feed.publish(start, list(GameEvent.objects.filter(game=game).order_by("seq")))
    results = [_move(game, people) for _ in range(3)]
    for result in results:
        feed.publish(result.game, result.events)
    last = results[-1].game
    with django_assert_num_queries(0):
        assert feed.game(game.pk, at_least_seq=last.seq).seq == last.seq
        rows = feed.events(last, start.seq)
        cached_game, cached_rows = feed.cached(game.pk, last.seq, start.seq)
    assert [r.seq for r in rows] == list(range(start.seq + 1, last.seq + 1)) == [r.seq for r in cached_rows]
    assert cached_game.seq == last.seq


def test_a_reader_gets_the_row_and_the_new_events_in_one_query(django_assert_num_queries):
    game, people, _ = seated_table()
    feed = Feed()
    before = Game.objects.get(pk=game.pk)
    feed.publish(before, list(GameEvent.objects.filter(game=game).order_by("seq")))
    for _ in range(2):
        _move(game, people)  # another process's commands: this feed was not told
    assert feed.cached(game.pk, before.seq + 1, before.seq) is None
    with django_assert_num_queries(1):
        fresh = feed.game(game.pk, at_least_seq=before.seq + 1)
        rows = feed.events(fresh, before.seq)
    game.refresh_from_db()
    assert fresh.seq == game.seq and fresh.head_hash == game.head_hash
    assert [r.seq for r in rows] == list(range(before.seq + 1, game.seq + 1))


def test_events_are_never_served_past_the_row_they_come_with():
    game, people, _ = seated_table()
    feed = Feed()
    older = Game.objects.get(pk=game.pk)
    result = _move(game, people)
    feed.publish(result.game, result.events)
    assert all(r.seq <= older.seq for r in feed.events(older, 0))
    assert feed.events(older, older.seq) == []


def test_held_events_do_not_keep_old_copies_of_the_game_row_alive():
    """The feed holds up to 400 events a game for thousands of games: were each event to hold
    the game row its command loaded, every move's copy of the row would stay in memory."""
    game, people, _ = seated_table()
    writer, reader = Feed(), Feed()
    writer.publish(Game.objects.get(pk=game.pk), list(GameEvent.objects.filter(game=game).order_by("seq")))
    reader.publish(Game.objects.get(pk=game.pk), list(GameEvent.objects.filter(game=game).order_by("seq")))
    copies = []
    for _ in range(3):
        result = _move(game, people)
        writer.publish(copy.copy(result.game), result.events)  # as a command's on-commit does
        copies.append(weakref.ref(result.game))
        copies.append(weakref.ref(reader.game(game.pk, at_least_seq=result.game.seq)))  # another process
    del result
    gc.collect()
    last = copies[-1]()
    assert [ref() for ref in copies[:-1]] == [None] * 5  # only the reader's newest row is held
    for feed in (writer, reader):
        held_game, held_rows = feed.cached(game.pk, last.seq, 0)
        assert held_rows[-1].seq == last.seq == held_game.seq
