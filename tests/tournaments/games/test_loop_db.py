"""The event loop's own PostgreSQL connections (live moves are written on them): kept and
reused, never more than the setting allows, a failed one never used again, one the server
dropped reported as failed, all closed when their loop ends."""

import asyncio
import time

import psycopg
import pytest
from django.db import connection

from tournaments.games import loop_db

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the loop's connections are PostgreSQL's"),
]


def _open_loop_connections() -> list[int]:
    """The loop connections the server still lists, once those just closed have gone (a backend
    leaves pg_stat_activity a moment after its client closed the connection)."""
    for _ in range(50):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = %s AND datname = current_database()",
                [loop_db.APPLICATION_NAME],
            )
            pids = [pid for (pid,) in cursor.fetchall()]
        if not pids:
            return []
        time.sleep(0.1)
    return pids


async def _backend_pid(sleep: float = 0.0) -> int:
    [(pid, _)] = await loop_db.fetch("SELECT pg_backend_pid(), pg_sleep(%s)", [sleep])
    return pid


def test_a_loop_keeps_its_connection_for_the_next_statement_and_closes_it_when_it_ends():
    async def two_in_a_row():
        return [await _backend_pid(), await _backend_pid()]

    first, second = asyncio.run(two_in_a_row())
    assert first == second
    assert _open_loop_connections() == []


def test_no_more_connections_than_the_setting_allows_run_at_once(settings):
    """Each statement asked for while the one before is still running (longer than a batch may
    keep the next waiting) goes on a connection of its own, up to the setting's number."""
    settings.DATABASE_LOOP_POOL_MAX = 2

    async def five_one_after_another():
        started = []
        for _ in range(5):
            started.append(asyncio.ensure_future(_backend_pid(sleep=0.3)))
            await asyncio.sleep(0.03)
        return await asyncio.gather(*started)

    assert len(set(asyncio.run(five_one_after_another()))) == 2
    assert _open_loop_connections() == []


def test_a_connection_whose_statement_failed_is_not_handed_out_again():
    async def fail_then_succeed():
        failed = await _backend_pid()
        with pytest.raises(psycopg.errors.UndefinedTable):
            await loop_db.fetch("SELECT * FROM no_such_table", [])
        return failed, await _backend_pid()

    failed, next_pid = asyncio.run(fail_then_succeed())
    assert failed != next_pid
    assert _open_loop_connections() == []


def test_a_connection_the_server_dropped_is_reported_failed_and_the_next_statement_opens_another():
    async def dropped():
        first = await _backend_pid()
        await asyncio.to_thread(_terminate, first)  # a server restart, an idle-session timeout
        with pytest.raises(loop_db.ConnectionFailed):
            await loop_db.fetch("SELECT 1", [])
        return first, await _backend_pid()

    first, second = asyncio.run(dropped())
    assert first != second
    assert _open_loop_connections() == []


def _terminate(pid: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])


def test_parameters_and_rows_come_and_go_as_through_a_django_cursor():
    """Integers, text, JSON, None and timestamps go in; each column comes back as Django's own
    connections read it (JSON as its text: Django's adapters, which JSONField decodes)."""
    statement = (
        "SELECT %s::bigint + 1, upper(%s), (%s::jsonb)->'cards', %s::int IS NULL, "
        "'%%' || %s, timestamptz '2026-12-02 20:00:00+00'"
    )
    params = [41, "queen", '{"cards": ["QS", "2C"]}', None, "done"]

    async def twice():  # the second time on the statement prepared by the first
        return [await loop_db.fetch(statement, params) for _ in range(2)]

    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        expected = cursor.fetchall()
    first, second = asyncio.run(twice())
    assert first == second == expected
    assert first[0][:5] == (42, "QUEEN", '["QS", "2C"]', True, "%done")


@pytest.mark.parametrize("threshold", [5, None])
def test_a_statement_is_prepared_once_per_connection_unless_prepared_statements_are_off(monkeypatch, threshold):
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "prepare_threshold", threshold)
    statement = "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s"

    async def three_times():
        return [await loop_db.fetch(statement, ["SELECT count(*) FROM pg_prepared_statements%"]) for _ in range(3)]

    counts = [rows[0][0] for rows in asyncio.run(three_times())]
    assert counts == ([1, 1, 1] if threshold is not None else [0, 0, 0])


def test_a_statement_with_another_placeholder_style_is_refused_before_it_is_sent():
    with pytest.raises(ValueError, match="only %s placeholders"):
        asyncio.run(loop_db.fetch("SELECT %(seat)s", {"seat": 1}))


def test_a_statement_larger_than_the_sockets_buffer_is_sent_whole():
    """libpq sends it in parts, the loop waiting for the socket between them."""
    text = "QS" * 4_000_000

    assert asyncio.run(loop_db.fetch("SELECT length(%s::text)", [text])) == [(len(text),)]
    assert _open_loop_connections() == []


def test_a_closed_loop_connection_is_not_kept_alive_by_what_it_kept():
    import gc
    import weakref

    async def fail_once():
        await loop_db.fetch("SELECT 1 WHERE %s::int = 1", [1])
        (connection,) = loop_db._held[asyncio.get_running_loop()]._idle
        with pytest.raises(psycopg.errors.DivisionByZero):
            await loop_db.fetch("SELECT 1 / %s::int", [0])
        return weakref.ref(connection)

    gone = asyncio.run(fail_once())
    gc.collect()
    assert gone() is None


def test_statements_asked_for_together_commit_in_one_transaction_each_with_its_own_rows():
    """Several tables' moves at once reach PostgreSQL in one write: one pipeline, one transaction."""

    async def together_then_alone():
        together = await asyncio.gather(*(loop_db.fetch("SELECT txid_current(), %s::int * 2", [n]) for n in range(5)))
        alone = [await loop_db.fetch("SELECT txid_current(), %s::int * 2", [n]) for n in range(2)]
        return together, alone

    together, alone = asyncio.run(together_then_alone())
    assert [rows[0][1] for rows in together] == [0, 2, 4, 6, 8]
    assert len({rows[0][0] for rows in together}) == 1
    assert len({rows[0][0] for rows in alone}) == 2
    assert _open_loop_connections() == []


@pytest.fixture
def numbers_table():
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE loop_db_numbers (n int NOT NULL)")
    yield "loop_db_numbers"
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE loop_db_numbers")


def test_a_failing_statement_among_others_fails_alone_and_the_others_commit(numbers_table):
    insert = f"INSERT INTO {numbers_table} (n) VALUES (%s::int / %s::int) RETURNING n"

    async def five_at_once():
        return await asyncio.gather(
            *(loop_db.fetch(insert, [n, 0 if n == 3 else 1]) for n in range(1, 6)), return_exceptions=True
        )

    answers = asyncio.run(five_at_once())
    assert isinstance(answers[2], psycopg.errors.DivisionByZero)
    assert [answer for n, answer in enumerate(answers, 1) if n != 3] == [[(1,)], [(2,)], [(4,)], [(5,)]]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT n FROM {numbers_table} ORDER BY n")
        assert cursor.fetchall() == [(1,), (2,), (4,), (5,)]
    assert _open_loop_connections() == []


def test_statements_sent_together_are_prepared_and_their_answers_kept_apart(numbers_table, monkeypatch):
    """The same statement twice in one pipeline is prepared once; the next pipeline reuses it."""
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "prepare_threshold", 5)
    insert = f"INSERT INTO {numbers_table} (n) VALUES (%s::int) RETURNING n, txid_current()"
    prepared = "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s"

    async def twice_together():
        first = await asyncio.gather(*(loop_db.fetch(insert, [n]) for n in (1, 2, 3)))
        second = await asyncio.gather(
            loop_db.fetch(insert, [4]), loop_db.fetch(prepared, [f"INSERT INTO {numbers_table}%"])
        )
        return first, second

    first, second = asyncio.run(twice_together())
    assert [rows[0][0] for rows in first] == [1, 2, 3]
    assert len({rows[0][1] for rows in first}) == 1
    assert second[0][0][0] == 4 and second[1] == [(1,)]


def test_a_connection_lost_under_statements_sent_together_fails_each_of_them():
    async def dropped():
        first = await _backend_pid()
        await asyncio.to_thread(_terminate, first)
        return await asyncio.gather(*(loop_db.fetch("SELECT %s::int", [n]) for n in range(3)), return_exceptions=True)

    answers = asyncio.run(dropped())
    assert all(isinstance(answer, loop_db.ConnectionFailed) for answer in answers)
    assert _open_loop_connections() == []


def test_a_statement_stuck_on_its_way_does_not_hold_up_the_next_one():
    """A move waiting for a lock at one table: the other tables' moves go on another connection."""

    async def stuck_then_quick():
        stuck = asyncio.ensure_future(_backend_pid(sleep=2))
        await asyncio.sleep(0.1)
        quick = await _backend_pid()
        return stuck.done(), quick, await stuck

    stuck_was_done, quick, stuck = asyncio.run(stuck_then_quick())
    assert not stuck_was_done
    assert quick != stuck
    assert _open_loop_connections() == []


def test_a_statement_whose_rows_cannot_be_read_fails_alone_and_nothing_runs_twice(numbers_table):
    """Its batch committed: the others keep their rows, and none of them is run again."""
    insert = f"INSERT INTO {numbers_table} (n) VALUES (%s::int) RETURNING n"

    async def three_at_once():
        return await asyncio.gather(
            loop_db.fetch(insert, [1]),
            loop_db.fetch("SELECT 'infinity'::timestamptz WHERE %s::int = 1", [1]),
            loop_db.fetch(insert, [2]),
            return_exceptions=True,
        )

    first, unreadable, last = asyncio.run(three_at_once())
    assert isinstance(unreadable, psycopg.DataError)
    assert (first, last) == ([(1,)], [(2,)])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT n FROM {numbers_table} ORDER BY n")
        assert cursor.fetchall() == [(1,), (2,)]


def test_a_statement_waiting_for_a_lock_does_not_hold_back_the_statements_sent_with_it(numbers_table):
    """A batch must not keep the locks it took while it waits for another's: the one that would
    wait runs alone, and waits alone."""
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {numbers_table} (n) VALUES (1)")
    holder = psycopg.connect(**connection.get_connection_params())
    try:
        holder.execute(f"SELECT n FROM {numbers_table} WHERE n = 1 FOR UPDATE")  # a transaction left open

        async def blocked_beside_free():
            blocked = asyncio.ensure_future(
                loop_db.fetch(f"UPDATE {numbers_table} SET n = 10 WHERE n = %s::int RETURNING n", [1])
            )
            free = asyncio.ensure_future(
                loop_db.fetch(f"INSERT INTO {numbers_table} (n) VALUES (%s::int) RETURNING n", [2])
            )
            free_rows = await asyncio.wait_for(free, 5)
            still_waiting = not blocked.done()
            await asyncio.to_thread(holder.commit)
            return free_rows, still_waiting, await blocked

        free_rows, still_waiting, blocked_rows = asyncio.run(blocked_beside_free())
    finally:
        holder.close()
    assert free_rows == [(2,)]
    assert still_waiting
    assert blocked_rows == [(10,)]
    assert _open_loop_connections() == []


def test_more_statements_at_once_than_a_batch_holds_are_all_answered():
    async def many():
        return await asyncio.gather(*(loop_db.fetch("SELECT %s::int", [n]) for n in range(3 * loop_db._BATCH_MAX + 1)))

    assert [rows[0][0] for rows in asyncio.run(many())] == list(range(3 * loop_db._BATCH_MAX + 1))
    assert _open_loop_connections() == []


def test_a_caller_that_stops_waiting_leaves_the_others_answered():
    async def one_cancelled():
        asked = [asyncio.ensure_future(loop_db.fetch("SELECT %s::int, pg_sleep(0.05)", [n])) for n in range(4)]
        await asyncio.sleep(0)
        asked[1].cancel()
        answers = await asyncio.gather(*asked, return_exceptions=True)
        return answers, await loop_db.fetch("SELECT 5", [])

    answers, after = asyncio.run(one_cancelled())
    assert isinstance(answers[1], asyncio.CancelledError)
    assert [answers[n][0][0] for n in (0, 2, 3)] == [0, 2, 3]
    assert after == [(5,)]
    assert _open_loop_connections() == []
