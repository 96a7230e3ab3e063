"""The hand-written statements of a move and of a connection read and write exactly what the ORM would."""

import threading
from datetime import UTC, datetime

import pytest
from django.db import connection as db_connection  # noqa: F401 (a skipif condition reads it)
from django.forms.models import model_to_dict

from tests.factories import CpuPlayerFactory, GameFactory, GameSeatFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import seated_table
from tournaments.games import eventstore, sql, visibility
from tournaments.games.queries import (
    connection_closed,
    connection_opened,
    earlier_events,
    events_between,
    game_and_events_since,
    game_row,
    lock_game_with_seats,
    player_connected,
    viewer_at,
)
from tournaments.games.services import game_execute_command
from tournaments.models import Game, GameEvent, GameSeat, Player, SeatConnection

pytestmark = pytest.mark.django_db


def _fields(obj) -> dict:
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def test_a_loaded_row_equals_the_orms_json_datetimes_and_nulls_included():
    game = GameFactory(
        rules={"players": 4, "moon": "add_to_others"},
        final_totals=[3, 26, 0, 101],
        planned_deals=[[["2C"]]],
        finished_at=datetime(2026, 11, 29, 12, 0, 1, 5, tzinfo=UTC),
        turn_deadline=None,
    )
    columns = sql.Columns(Game, "g")
    row = sql.fetch(f"SELECT {columns.select()} FROM {sql.table(Game)} g WHERE g.id = %s", [game.pk])[0]
    loaded = columns.loader()(row)
    assert _fields(loaded) == _fields(Game.objects.get(pk=game.pk))
    assert loaded.final_totals == [3, 26, 0, 101] and loaded.turn_deadline is None
    assert not loaded._state.adding
    loaded.status = Game.Status.FINISHED
    loaded.save()  # an ordinary instance: the ORM can go on with it
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED


def test_insert_sets_primary_keys_and_stores_what_bulk_create_would():
    game = GameFactory()
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    rows = [
        GameEvent(
            game=game,
            seq=seq,
            type="CardPlayed",
            version=1,
            payload={"seat": seq, "card": "QS"},
            recorded_at=now,
            command_id="c1",
            actor_seat=seq,
            cause=GameEvent.Cause.PLAYER,
            hash=f"{seq:064d}",
        )
        for seq in (1, 2)
    ]
    sql.insert(rows)
    assert all(row.pk is not None and not row._state.adding for row in rows)
    stored = {row.pk: row for row in GameEvent.objects.filter(game=game)}
    assert {pk: _fields(row) for pk, row in stored.items()} == {row.pk: _fields(row) for row in rows}


def test_update_writes_only_the_named_fields():
    game = GameFactory(seq=3, head_hash="a" * 64, turn_key="")
    game.seq, game.head_hash, game.final_totals = 4, "b" * 64, [1, 2, 3, 4]
    game.turn_key = "not saved"
    sql.update(game, ["seq", "head_hash", "final_totals"])
    stored = Game.objects.get(pk=game.pk)
    assert (stored.seq, stored.head_hash, stored.final_totals, stored.turn_key) == (4, "b" * 64, [1, 2, 3, 4], "")


@pytest.mark.skipif("db_connection.vendor != 'postgresql'", reason="data-modifying WITH is PostgreSQL's")
def test_update_and_insert_if_writes_both_when_the_row_matches_and_neither_when_it_does_not():
    game = GameFactory(seq=3, head_hash="a" * 64)
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def rows(first):
        return [
            GameEvent(
                game=game,
                seq=seq,
                type="CardPlayed",
                version=1,
                payload={"seat": 0, "card": "QS"},
                recorded_at=now,
                command_id="",
                actor_seat=0,
                cause=GameEvent.Cause.PLAYER,
                hash=f"{seq:064d}",
            )
            for seq in (first, first + 1)
        ]

    moved = rows(4)
    game.seq, game.head_hash = 5, "b" * 64
    assert sql.update_and_insert_if(game, ["seq", "head_hash"], '"seq" = %s', [3], moved)
    assert all(row.pk is not None and not row._state.adding for row in moved)
    stored = {row.pk: row for row in GameEvent.objects.filter(game=game)}
    assert {pk: _fields(row) for pk, row in stored.items()} == {row.pk: _fields(row) for row in moved}
    assert Game.objects.filter(pk=game.pk, seq=5, head_hash="b" * 64).exists()
    game.seq = 7
    assert not sql.update_and_insert_if(game, ["seq"], '"seq" = %s', [3], rows(6))  # it is at 5 now
    assert GameEvent.objects.filter(game=game).count() == 2 and Game.objects.get(pk=game.pk).seq == 5


@pytest.mark.skipif("db_connection.vendor != 'postgresql'", reason="data-modifying WITH is PostgreSQL's")
@pytest.mark.parametrize("final_totals", [None, [3, 26, 0, 101]])
def test_update_and_insert_if_stores_what_the_orm_would_whatever_the_values(final_totals):
    """The move's values go to PostgreSQL as JSON documents: every field the move writes reads back
    as the ORM's own save and bulk_create store it (nulls, datetimes with and without
    microseconds, text JSON escapes, integers beyond 64 bits and keys that are not strings)."""
    from tournaments.games.services import LOG_FIELDS

    written, saved = GameFactory(seq=3, head_hash="a" * 64), GameFactory(seq=3, head_hash="a" * 64)
    payloads = [
        {"name": 'Ñandú 😀 "quoted" \\ back\nslash\t\u0001', "nested": {"b": [1, {"c": None}], "a": True}},
        {"seats": {1: "x", 0: "y"}, "big": 2**70, "negative": -(2**63)},  # what orjson does not write
        {},
    ]
    for game in (written, saved):
        game.seq, game.head_hash, game.status = 6, "b" * 64, Game.Status.FINISHED
        game.finished_at = datetime(2026, 11, 29, 12, 0, 1, tzinfo=UTC)  # no microseconds
        game.turn_deadline = datetime(2026, 11, 29, 12, 0, 1, 999999, tzinfo=UTC)
        game.final_totals, game.winner_seat, game.turn_key, game.cpu_due_at = final_totals, None, "1:13:4", None

    def rows(game):
        return [
            GameEvent(
                game_id=game.pk,
                seq=4 + index,
                type="Ünusual" * 5,
                version=32767,
                payload=payload,
                recorded_at=datetime(2026, 11, 29, 12, 0, index, 5 * index, tzinfo=UTC),
                command_id="c" * 64 if index else "",
                actor_seat=None if index == 1 else index,
                cause=GameEvent.Cause.TIMER,
                hash=f"{index:064d}",
            )
            for index, payload in enumerate(payloads)
        ]

    assert sql.update_and_insert_if(written, LOG_FIELDS, '"seq" = %s', [3], rows(written))
    saved.save(update_fields=LOG_FIELDS)
    GameEvent.objects.bulk_create(rows(saved))

    def stored(game) -> tuple:
        row = {name: value for name, value in _fields(Game.objects.get(pk=game.pk)).items() if name in LOG_FIELDS}
        events = [
            {name: value for name, value in _fields(event).items() if name not in ("id", "game_id")}
            for event in GameEvent.objects.filter(game=game).order_by("seq")
        ]
        return row, events

    assert stored(written) == stored(saved)
    assert stored(written)[1][1]["payload"] == {"seats": {"1": "x", "0": "y"}, "big": 2**70, "negative": -(2**63)}


def test_update_of_a_deleted_row_raises():
    game = GameFactory()
    Game.objects.filter(pk=game.pk).delete()
    with pytest.raises(Game.DoesNotExist):
        sql.update(game, ["seq"])


def test_locking_a_game_gives_its_seats_in_order_with_players_and_open_seats():
    game = GameFactory()
    human, cpu = PlayerFactory(), CpuPlayerFactory()
    for seat, player in ((2, None), (0, human), (1, cpu)):
        GameSeatFactory(game=game, seat=seat, player=player)
    locked, seats = lock_game_with_seats(game.pk)
    assert _fields(locked) == _fields(Game.objects.get(pk=game.pk))
    orm = list(GameSeat.objects.filter(game=game).select_related("player").order_by("seat"))
    assert [_fields(s) for s in seats] == [_fields(s) for s in orm]
    assert [s.player and model_to_dict(s.player) for s in seats] == [model_to_dict(human), model_to_dict(cpu), None]
    assert all(s.game is locked for s in seats)


def test_a_retried_command_finds_what_it_appended_and_the_feed_reads_the_same_rows():
    game, people, _ = seated_table()
    view = eventstore.read_engine_game(game, lambda s: s.view(0))
    first = game_execute_command(
        game_id=game.pk, player=people[0], command_id="x1", command={"type": "pass", "cards": view["hand"][:3]}
    )
    earlier = earlier_events(first.game, "x1", 0)
    assert [_fields(r) for r in earlier] == [_fields(r) for r in first.events]
    fresh, rows = game_and_events_since(game.pk, first.events[0].seq - 1)
    assert _fields(fresh) == _fields(Game.objects.get(pk=game.pk))
    assert [_fields(r) for r in rows] == [
        _fields(r) for r in GameEvent.objects.filter(game=game, seq__gte=first.events[0].seq).order_by("seq")
    ]
    assert game_and_events_since(game.pk, fresh.seq) == (None, [])


def test_insert_splits_a_long_log_into_statements_the_database_accepts(monkeypatch):
    monkeypatch.setattr(sql, "INSERT_BATCH", 2)
    game = GameFactory()
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    rows = [
        GameEvent(game=game, seq=seq, type="CardPlayed", version=1, payload={}, recorded_at=now, hash=f"{seq:064d}")
        for seq in range(1, 6)
    ]
    sql.insert(rows)
    assert sorted(r.pk for r in rows) == sorted(GameEvent.objects.filter(game=game).values_list("pk", flat=True))


def test_a_thread_never_loads_rows_with_a_half_built_converter_list(monkeypatch):
    """The first two loads in a fresh process may race: the second must not see a partial cache."""
    game = GameFactory(rules={"players": 4}, final_totals=[1, 2, 3, 4])
    columns = sql.Columns(Game, "g")
    row = sql.fetch(f"SELECT {columns.select()} FROM {sql.table(Game)} g WHERE g.id = %s", [game.pk])[0]
    final_totals = Game._meta.get_field("final_totals")
    building, go_on = threading.Event(), threading.Event()
    original = type(final_totals).get_db_converters

    def slow_for_the_first_thread(field, connection):
        if field is final_totals and threading.current_thread().name == "first":
            building.set()
            go_on.wait(5)
        return original(field, connection)

    monkeypatch.setattr(type(final_totals), "get_db_converters", slow_for_the_first_thread)
    first = threading.Thread(target=columns.loader, name="first")
    first.start()
    assert building.wait(5)
    loaded = columns.loader()(row)  # while the first thread is still building
    go_on.set()
    first.join()
    assert loaded.rules == {"players": 4} and loaded.final_totals == [1, 2, 3, 4]


def test_a_viewer_is_read_as_the_orm_reads_them_seated_or_not_with_or_without_a_player():
    game, people, _ = seated_table()
    stranger, staff_without_player = PlayerFactory(), UserFactory(is_staff=True)
    for user, seat in ((people[2].user, 2), (stranger.user, None), (staff_without_player, None)):
        found_game, user_read, player, held = viewer_at(game.pk, user.pk)
        assert _fields(found_game) == _fields(Game.objects.get(pk=game.pk))
        assert _fields(user_read) == _fields(type(user).objects.get(pk=user.pk))
        orm_player = Player.objects.filter(user=user).first()
        assert (player and _fields(player)) == (orm_player and _fields(orm_player))
        assert getattr(user_read, "player", None) is player  # cached: asking costs no query
        assert held == seat == visibility.seat_of_user(game, user)
    found_game, user_read, player, held = viewer_at(game.pk, None)
    assert (user_read, player, held) == (None, None, None) and found_game.pk == game.pk
    assert viewer_at(game.pk, 10**9)[1:] == (None, None, None)  # no such user
    assert viewer_at(10**9, people[0].user.pk) is None  # no such game


def test_a_game_row_and_its_events_between_two_seqs_are_the_orms():
    game, _, _ = seated_table()
    assert _fields(game_row(game.pk)) == _fields(Game.objects.get(pk=game.pk)) and game_row(10**9) is None
    orm = list(GameEvent.objects.filter(game=game, seq__gt=1, seq__lte=game.seq - 1).order_by("seq"))
    assert [_fields(r) for r in events_between(game.pk, 1, game.seq - 1)] == [_fields(r) for r in orm]


def test_connection_rows_are_written_read_and_dropped_as_the_orm_would():
    game, people, _ = seated_table()
    seat = GameSeat.objects.get(game=game, seat=1)
    connection_opened(seat, people[1].pk, "c" * 32, "host:1:ab")
    connection_opened(seat, people[1].pk, "c" * 32, "host:1:ab")  # written twice (a heartbeat first): one row
    [row] = SeatConnection.objects.filter(seat=seat)
    assert (row.player_id, row.connection_id, row.server, row.opened_at is not None) == (
        people[1].pk,
        "c" * 32,
        "host:1:ab",
        True,
    )
    assert player_connected(seat, people[1].pk) and not player_connected(seat, people[2].pk)
    assert not player_connected(seat, None)
    connection_closed(seat, "d" * 32)  # not this seat's: nothing
    assert SeatConnection.objects.filter(seat=seat).count() == 1
    connection_closed(seat, "c" * 32)
    assert not SeatConnection.objects.filter(seat=seat).exists() and not player_connected(seat, people[1].pk)


def test_a_viewer_without_a_player_is_read_without_another_query(django_assert_num_queries):
    game, _, _ = seated_table()
    user = UserFactory()
    _, user_read, player, _ = viewer_at(game.pk, user.pk)
    with django_assert_num_queries(0):
        assert player is None and visibility.sight(game, user_read, seats=[]).kind == visibility.ViewerKind.MEMBER
