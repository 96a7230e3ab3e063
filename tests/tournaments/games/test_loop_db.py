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
    settings.DATABASE_LOOP_POOL_MAX = 2

    async def five_at_once():
        return await asyncio.gather(*(_backend_pid(sleep=0.05) for _ in range(5)))

    assert len(set(asyncio.run(five_at_once()))) <= 2
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
