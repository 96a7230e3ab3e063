"""A move written in one guarded statement from the cached state, row and seats (PostgreSQL):
one round trip when this process moved the game last, and the locked path's answer whenever
the cache is stale, the command is a retry or the move is refused. The same from a server's
event loop (a live connection's command), where the statement runs on the loop's own
connections and only what the cache cannot decide goes to the database thread."""

import asyncio
import contextlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hearts_league.api import DomainError
from tests.tournaments.helpers import next_command, seated_table
from tournaments.dispatch import notify
from tournaments.games import eventstore, loop_db
from tournaments.games import services as game_services
from tournaments.games.feed import feed
from tournaments.games.services import game_execute_command
from tournaments.models import Game, GameEvent

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the guarded statement is PostgreSQL's"),
]


def _view(game: Game, seat: int) -> dict:
    return eventstore.read_engine_game(game, lambda state: state.view(seat))


PATHS = ["database thread", "event loop"]


@pytest.fixture(params=PATHS)
def path(request):
    """Where a command is run: a synchronous caller's thread (REST, a worker) or a server's event
    loop (a live connection: ``game_execute_command_async``)."""
    return request.param


def _execute(path: str, **command):
    if path == "database thread":
        return game_execute_command(**command)

    return asyncio.run(game_services.game_execute_command_async(**command))


def _move(game_id: int, people, seat: int | None = None, path: str = "database thread", **options):
    game = Game.objects.get(pk=game_id)
    if seat is None:
        seat = eventstore.read_engine_game(game, lambda state: state.to_act[0])
    return _execute(path, game_id=game_id, player=people[seat], command=next_command(_view(game, seat)), **options)


def _no_database_thread(monkeypatch):
    """Fail the test if a command reaches the database thread's service."""

    def refused(**command):
        raise AssertionError(f"the command went to the database thread: {command}")

    monkeypatch.setattr(game_services, "game_execute_command", refused)


def _log(game: Game) -> list[tuple]:
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", "type", "actor_seat"))


def _clean(game: Game) -> None:
    game.refresh_from_db()
    assert eventstore.audit_game(game).ok
    eventstore.engine_cache.clear()
    assert (
        eventstore.read_engine_game(game, lambda s: s.state_dict()) == eventstore.rebuild_engine_game(game).state_dict()
    )


def test_a_move_after_this_process_moved_the_game_is_one_statement_without_a_lock():
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)  # the first move reads and locks: it leaves the row and seats cached
    command = next_command(_view(Game.objects.get(pk=game.pk), 1))
    with CaptureQueriesContext(connection) as queries:
        result = game_execute_command(game_id=game.pk, player=people[1], command=command)
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert queries[0]["sql"].startswith("WITH moved AS (UPDATE") and "FOR UPDATE" not in queries[0]["sql"]
    stored = Game.objects.get(pk=game.pk)
    assert (stored.seq, stored.head_hash) == (result.game.seq, result.game.head_hash)
    assert [row.pk for row in result.events] == list(
        GameEvent.objects.filter(game=game, seq__gt=stored.seq - len(result.events))
        .order_by("seq")
        .values_list("pk", flat=True)
    )
    _clean(game)


def test_a_live_move_is_one_statement_from_the_event_loop_without_the_database_thread(monkeypatch):
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)  # the first move reads and locks: it leaves the row and seats cached
    command = next_command(_view(Game.objects.get(pk=game.pk), 1))
    _no_database_thread(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        result = _execute("event loop", game_id=game.pk, player=people[1], command=command)
    assert queries.captured_queries == []  # nothing through Django's connections
    stored = Game.objects.get(pk=game.pk)
    assert (stored.seq, stored.head_hash) == (result.game.seq, result.game.head_hash)
    assert [row.pk for row in result.events] == list(
        GameEvent.objects.filter(game=game, seq__gt=stored.seq - len(result.events))
        .order_by("seq")
        .values_list("pk", flat=True)
    )
    _clean(game)


def test_passes_sent_together_over_live_connections_are_all_written_from_the_event_loop(monkeypatch):
    """Every hand starts with four passes at once: each waits for the one before it instead of
    going to the database thread (where it would replay the log) while that one is written."""
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)  # the first move reads and locks: it leaves the row and seats cached
    views = {seat: _view(Game.objects.get(pk=game.pk), seat) for seat in (1, 2, 3)}
    _no_database_thread(monkeypatch)

    async def together():
        return await asyncio.gather(
            *(
                game_services.game_execute_command_async(
                    game_id=game.pk, player=people[seat], command=next_command(view), command_id=f"pass-{seat}"
                )
                for seat, view in views.items()
            )
        )

    results = asyncio.run(together())
    assert sorted(result.game.seq for result in results)[-1] == Game.objects.get(pk=game.pk).seq
    assert [seat for _, kind, seat in _log(game) if kind == "CardsPassed"] == [0, 1, 2, 3]
    _clean(game)


def test_a_whole_game_moved_on_the_cache_audits_clean_and_equals_a_rebuild(path):
    game, people, _ = seated_table(hand_limit=2)
    while Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE:
        _move(game.pk, people, path=path)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.final_totals is not None
    assert GameEvent.objects.filter(game=game, type="HandLimitReached").count() == 1
    _clean(game)


def test_a_stale_cache_writes_nothing_and_the_locked_path_makes_the_move(path):
    """Another process moved the game since this one cached it: the guard matches no row, and
    the move is made on the current log instead (passes are simultaneous, so seat 2's is legal
    in both the stale and the current state)."""
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    stale = eventstore.engine_cache.take(game.pk)
    _move(game.pk, people, seat=1)  # "another process": this one's cache does not see it
    eventstore.engine_cache.clear()
    eventstore.engine_cache.put(game.pk, *stale)
    _move(game.pk, people, seat=2, path=path)
    passes = [seat for _, kind, seat in _log(game) if kind == "CardsPassed"]
    assert passes == [0, 1, 2]
    _clean(game)


def test_a_retried_command_id_appends_nothing_whether_the_cache_is_current_or_stale(path):
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    first = _move(game.pk, people, seat=2, command_id="pass-once", path=path)
    again = _move(game.pk, people, seat=2, command_id="pass-once", path=path)  # current cache: the engine refuses, then
    assert again.duplicate and [r.seq for r in again.events] == [r.seq for r in first.events]
    stale = eventstore.engine_cache.take(game.pk)
    _move(game.pk, people, seat=1, command_id="pass-of-one")
    eventstore.engine_cache.clear()
    eventstore.engine_cache.put(game.pk, *stale)  # a cache from before seat 1's pass, after seat 2's
    retried = _move(game.pk, people, seat=1, command_id="pass-of-one", path=path)
    assert retried.duplicate
    assert [seat for _, kind, seat in _log(game) if kind == "CardsPassed"] == [0, 2, 1]
    _clean(game)


def test_an_illegal_move_on_the_cache_is_refused_with_the_engines_code_and_writes_nothing(path, monkeypatch):
    game, people, _ = seated_table()
    for seat in range(4):
        _move(game.pk, people, seat=seat)  # the passes: now the holder of the two of clubs leads
    game.refresh_from_db()
    leader = eventstore.read_engine_game(game, lambda state: state.to_act[0])
    hand = _view(game, leader)["hand"]
    illegal = next(card for card in hand if card != "2C")
    before = _log(game)
    with pytest.raises(DomainError) as refused:
        _execute(path, game_id=game.pk, player=people[leader], command={"type": "play", "card": illegal})
    assert refused.value.error_code == "must_lead_two_of_clubs" or refused.value.status_code == 400
    assert _log(game) == before
    if path == "event loop":
        _no_database_thread(monkeypatch)  # the refusal gave the cached entry back
        _move(game.pk, people, seat=leader, path=path)
    else:
        with CaptureQueriesContext(connection) as queries:
            _move(game.pk, people, seat=leader)  # the refusal gave the cached entry back
        assert any(q["sql"].startswith("WITH moved AS") for q in queries)
    _clean(game)


def test_with_moves_on_cache_off_every_move_locks_the_game(settings):
    settings.HEARTS_MOVES_ON_CACHE = False
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    with CaptureQueriesContext(connection) as queries:
        _move(game.pk, people, seat=1)
    assert any("FOR UPDATE" in q["sql"] for q in queries)
    assert not any(q["sql"].startswith("WITH moved AS") for q in queries)


def test_with_moves_on_cache_off_a_live_move_goes_to_the_database_thread(settings, monkeypatch):
    settings.HEARTS_MOVES_ON_CACHE = False
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    threaded, locked = [], game_services.game_execute_command

    def recorded(**command):
        threaded.append(command["player"])
        return locked(**command)

    monkeypatch.setattr(game_services, "game_execute_command", recorded)
    _move(game.pk, people, seat=1, path="event loop")
    assert threaded == [people[1]]
    _clean(game)


def test_a_moves_result_is_the_row_as_committed_even_if_the_next_move_takes_the_row_at_once(monkeypatch, path):
    """Found by review: the result (the ack's seq, the feed's row, the notified seq) was copied
    from the row after it went back to the cache, where another thread's next move could already
    be changing it to a seq not committed yet."""
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    kept = eventstore.keep_engine_game

    def next_move_takes_it_at_once(game_row, state, seats=None, **options):
        kept(game_row, state, seats, **options)
        entry = eventstore.engine_cache.take_for_move(game_row.pk)
        if entry is not None:  # what another thread's next move does first
            entry.row.seq += 1
            eventstore.engine_cache.put(game_row.pk, entry.version, entry.state, entry.row, entry.seats)

    monkeypatch.setattr(eventstore, "keep_engine_game", next_move_takes_it_at_once)
    result = _move(game.pk, people, seat=1, path=path)
    stored = Game.objects.get(pk=game.pk)
    assert result.game.seq == stored.seq == result.events[-1].seq
    assert feed.game(game.pk, stored.seq).seq == stored.seq


def test_a_live_move_its_connection_stopped_waiting_for_is_still_announced(monkeypatch):
    """A consumer cancelled between the commit and the feed (its client went away, the server
    stops): the move is committed, so the feed, the notification and the follow-ups still go."""
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    command = next_command(_view(Game.objects.get(pk=game.pk), 1))
    notified, real_fetch = [], loop_db.fetch
    monkeypatch.setattr(notify, "notify", lambda game_id, seq: notified.append(seq))

    async def cancelled_after_the_commit():
        waiting = asyncio.ensure_future(
            game_services.game_execute_command_async(game_id=game.pk, player=people[1], command=command)
        )

        async def committed_then_cancelled(statement, params):
            rows = await real_fetch(statement, params)
            waiting.cancel()  # the consumer waiting for the move goes away
            await asyncio.sleep(0)  # where psycopg would be, reading the result
            return rows

        monkeypatch.setattr(loop_db, "fetch", committed_then_cancelled)
        with pytest.raises(asyncio.CancelledError):
            await waiting
        for _ in range(20):  # the move's own task goes on
            await asyncio.sleep(0.01)

    asyncio.run(cancelled_after_the_commit())
    stored = Game.objects.get(pk=game.pk)
    assert notified == [stored.seq] and feed.game(game.pk, stored.seq).seq == stored.seq
    _clean(game)


@pytest.mark.parametrize("committed", [False, True])
def test_a_live_move_whose_loop_connection_failed_is_decided_on_the_database_thread(monkeypatch, committed):
    """The connection fails before the statement reaches the server (a restart dropped it), or
    after it committed: either way the locked path answers, the move is in the log once, and the
    game is announced at its seq."""
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    command = next_command(_view(Game.objects.get(pk=game.pk), 1))
    notified, real_fetch = [], loop_db.fetch
    monkeypatch.setattr(notify, "notify", lambda game_id, seq: notified.append(seq))

    async def failing(statement, params):
        if committed:
            await real_fetch(statement, params)
        raise loop_db.ConnectionFailed("the server closed the connection")

    monkeypatch.setattr(loop_db, "fetch", failing)
    result = _execute("event loop", game_id=game.pk, player=people[1], command=command, command_id="pass-1")
    assert result.duplicate == committed
    passes = [seat for _, kind, seat in _log(game) if kind == "CardsPassed"]
    assert passes == [0, 1]
    assert Game.objects.get(pk=game.pk).seq in notified
    _clean(game)


@pytest.mark.parametrize("command_id", ["c-1", ""])
def test_a_live_move_that_committed_but_whose_answer_was_lost_is_announced_with_what_follows_it(
    monkeypatch, command_id
):
    """Found by review: the loop's statement committed, then its connection failed before the
    answer came. The locked path then answers a retried id as a duplicate (or refuses a command
    without one), and nothing announced the move or scheduled the next turn's timer."""
    from tournaments.dispatch import scheduler

    class Recorder:
        timers: list = []

        def turn_timer(self, game_id, deadline):
            self.timers.append((game_id, deadline))

        def cpu_move(self, game_id, seq, delay):
            pass

        def game_finished(self, game_id):
            pass

    recorder = Recorder()
    monkeypatch.setattr(scheduler, "backend", recorder)
    notified = []
    monkeypatch.setattr(notify, "notify", lambda game_id, seq: notified.append(seq))
    game, people, _ = seated_table(turn_seconds=30)
    for seat in range(4):
        _move(game.pk, people, seat=seat)  # the passes: the cache now holds the row for the loop
    seat = eventstore.read_engine_game(Game.objects.get(pk=game.pk), lambda state: state.to_act[0])
    command = next_command(_view(Game.objects.get(pk=game.pk), seat))
    real_fetch = loop_db.fetch

    async def committed_then_lost(statement, params):
        await real_fetch(statement, params)
        raise loop_db.ConnectionFailed("server closed the connection unexpectedly")

    monkeypatch.setattr(loop_db, "fetch", committed_then_lost)
    notified.clear()

    async def live():
        # without an id the locked path refuses the replay: the move is in the log anyway
        with contextlib.suppress(DomainError):
            await game_services.game_execute_command_async(
                game_id=game.pk, player=people[seat], command=command, command_id=command_id
            )

    asyncio.run(live())
    row = Game.objects.get(pk=game.pk)
    assert GameEvent.objects.filter(game=game, type="CardPlayed", actor_seat=seat).count() == 1
    assert row.seq in notified
    assert (game.pk, row.turn_deadline) in recorder.timers  # the next turn has its timer
    _clean(game)


def test_a_tables_first_live_move_after_a_connection_read_it_is_written_from_the_event_loop(monkeypatch):
    """When a round starts, every table's connections read its state (a reader caches it without
    the row and seats a move needs): the first move reads those in one unlocked statement from the
    loop instead of taking the database thread, every table's at once."""
    game, people, _ = seated_table()
    eventstore.engine_cache.clear()
    _view(Game.objects.get(pk=game.pk), 0)  # what a connection catching up caches
    assert eventstore.engine_cache.lacks_row(game.pk)
    _no_database_thread(monkeypatch)
    result = _execute("event loop", game_id=game.pk, player=people[0], command=next_command(_view(game, 0)))
    assert _log(game)[-1][1:] == ("CardsPassed", 0)
    assert result.game.seq == Game.objects.get(pk=game.pk).seq
    _clean(game)


def test_a_row_read_for_another_version_than_the_cached_state_is_not_attached_and_the_locked_path_moves():
    """The unlocked read of the row and seats is used only for the state at that very row: a
    state cached at an older seq (the log moved on since) is never given a newer row."""
    game, people, _ = seated_table()
    eventstore.engine_cache.clear()
    _view(Game.objects.get(pk=game.pk), 0)
    older = eventstore.engine_cache.take(game.pk)
    _move(game.pk, people, seat=1)  # the log moves on through the locked path
    eventstore.engine_cache.clear()
    eventstore.engine_cache.put(game.pk, older.version, older.state)
    row, seats = asyncio.run(_game_with_seats(game.pk))
    assert row.seq > older.version[0]
    assert not eventstore.engine_cache.attach_row(game.pk, row, seats)
    result = _move(game.pk, people, seat=2, path="event loop")
    assert [seat for _, kind, seat in _log(game) if kind == "CardsPassed"] == [1, 2]
    assert result.game.seq == Game.objects.get(pk=game.pk).seq
    _clean(game)


async def _game_with_seats(game_id):
    from tournaments.games import queries

    return await queries.game_with_seats_async(game_id)


def test_the_unlocked_read_of_a_game_and_its_seats_equals_the_locked_one():
    game, _, _ = seated_table()
    from django.db import transaction

    from tournaments.games import queries

    row, seats = asyncio.run(_game_with_seats(game.pk))
    with transaction.atomic():
        locked, locked_seats = queries.lock_game_with_seats(game.pk)
    assert {f.attname: getattr(row, f.attname) for f in Game._meta.concrete_fields} == {
        f.attname: getattr(locked, f.attname) for f in Game._meta.concrete_fields
    }
    assert [(s.pk, s.seat, s.player_id, s.player.pk, s.game is row) for s in seats] == [
        (s.pk, s.seat, s.player_id, s.player.pk, True) for s in locked_seats
    ]


def test_a_reader_told_of_a_move_while_the_next_is_written_waits_for_it_and_finds_the_state_in_memory(
    monkeypatch,
):
    """Four passes arrive together at every hand's start. A connection notified of one while the
    next is being written (its state out of the cache) waits for that write, then builds its frame
    from memory: it never replays the log on the database thread meanwhile."""
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    command = next_command(_view(Game.objects.get(pk=game.pk), 1))
    real_fetch = loop_db.fetch

    async def scenario():
        release = asyncio.Event()

        async def slow_statement(statement, params):
            await release.wait()
            return await real_fetch(statement, params)

        monkeypatch.setattr(loop_db, "fetch", slow_statement)
        move = asyncio.ensure_future(
            game_services.game_execute_command_async(game_id=game.pk, player=people[1], command=command)
        )
        await asyncio.sleep(0.05)  # the move holds the game's lock, its state out of the cache
        assert not await asyncio.wait_for(game_services.wait_for_live_commands(game.pk + 1000), 1)
        settled = asyncio.ensure_future(game_services.wait_for_live_commands(game.pk))
        await asyncio.sleep(0.05)
        assert not settled.done()  # waiting for the write
        release.set()
        assert await asyncio.wait_for(settled, 5)
        result = await move
        # the state at the committed row is back in the cache for the reader
        hit, _ = eventstore.engine_cache.read(feed.game(game.pk, result.game.seq), lambda state: True)
        return hit, result

    hit, result = asyncio.run(scenario())
    assert hit
    assert result.game.seq == Game.objects.get(pk=game.pk).seq
    _clean(game)


def test_a_reader_waits_for_a_stuck_move_only_so_long_then_reads_from_the_database(monkeypatch):
    """A move whose statement hangs (the database stopped answering) holds its readers back for
    at most ``LIVE_COMMAND_WAIT``: they then take the database thread, as before."""
    game, people, _ = seated_table()
    _move(game.pk, people, seat=0)
    command = next_command(_view(Game.objects.get(pk=game.pk), 1))
    monkeypatch.setattr(game_services, "LIVE_COMMAND_WAIT", 0.05)
    real_fetch = loop_db.fetch

    async def scenario():
        release = asyncio.Event()

        async def stuck(statement, params):
            await release.wait()
            return await real_fetch(statement, params)

        monkeypatch.setattr(loop_db, "fetch", stuck)
        move = asyncio.ensure_future(
            game_services.game_execute_command_async(game_id=game.pk, player=people[1], command=command)
        )
        await asyncio.sleep(0.05)
        waited = await asyncio.wait_for(game_services.wait_for_live_commands(game.pk), 1)
        release.set()
        await move
        return waited

    assert asyncio.run(scenario()) is False
    _clean(game)
