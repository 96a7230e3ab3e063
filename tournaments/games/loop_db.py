"""PostgreSQL connections for a server process's event loop.

A live move whose game this process changed last is one guarded statement
(``tournaments.games.services``). A Daphne process runs it from its event loop on these
connections instead of on Django's database thread: the hop to that thread and back, the
checkout of a connection from Django's pool around every call and the two threads taking the
interpreter lock from each other cost more CPU than the statement itself (``bench/load.py``:
the database thread took 1.2 ms of CPU a card played, the loop 2.3 ms; README, "Measured").

The connections are opened as Django opens its own (``DATABASES``: database, credentials,
adapters, prepared statements, time zone, role), in autocommit mode, at most
``DATABASE_LOOP_POOL_MAX`` per event loop, opened when first needed and kept. A connection that
fails is closed, and the next statement opens a new one. They close when their loop shuts down
(``loop.shutdown_asyncgens()``, which ``asyncio.run`` and every test loop call). psycopg_pool's
async pool is not used: its workers are tasks on the loop, cancelled before a loop's async
generators are finalised, so it cannot be closed when its loop ends, and every short-lived loop
(each async test's) would leave its connections open.

A statement goes through libpq itself (``psycopg.pq``), prepared on a connection the first time
it runs there, its values and rows converted by psycopg's adapters as Django's connections
convert them: psycopg's cursor around it cost more than the rest of a move's write.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import AsyncIterator, Sequence

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from psycopg import abc, pq
from psycopg import sql as pg_sql
from psycopg.adapt import PyFormat, Transformer

from hearts_league.runtime import database_vendor

APPLICATION_NAME = "hearts-loop"
"""The ``application_name`` of these connections (``pg_stat_activity`` tells them apart)."""


class ConnectionFailed(Exception):
    """A loop connection could not be opened, or failed while a statement ran on it (the server
    restarted, say): whether the statement took effect is unknown."""


def available() -> bool:
    """Whether moves may be written from the event loop: PostgreSQL, moves on the cache."""
    return settings.HEARTS_MOVES_ON_CACHE and database_vendor() == "postgresql"


async def fetch(statement: str, params: Sequence) -> list[tuple]:
    """Run ``statement`` (it commits by itself) on one of the running loop's connections and
    return its rows. Raises :class:`ConnectionFailed` if the connection could not be opened or
    failed meanwhile; the connection of a statement that raised is closed, never used again.
    (No context manager: a generator around every statement of a move cost more than the rest.)"""
    held = _held.get(asyncio.get_running_loop()) or await _LoopConnections.start()
    connection = await held.acquire()
    try:
        rows = await _run(connection, statement, params)
    except BaseException as failed:
        await held.release(connection, failed=True)
        if isinstance(failed, psycopg.OperationalError | psycopg.InterfaceError):
            raise ConnectionFailed(str(failed)) from failed
        raise
    await held.release(connection, failed=False)
    return rows


async def _run(connection: psycopg.AsyncConnection, statement: str, params: Sequence) -> list[tuple]:
    """``statement`` sent through libpq itself, prepared once per connection (unless
    ``prepare_threshold`` is None), its parameters and rows converted by psycopg's own adapters:
    psycopg's cursor, query conversion, prepared-statement bookkeeping and waiting generators
    took more CPU than the rest of a live move's write (``bench/load.py``). The values go as
    text of no declared type, the server inferring each from where it stands: every ``%s`` needs a
    context that types it (a column it is compared with or assigned to, a cast such as
    ``%s::jsonb``), and a bare ``%s IS NULL`` or ``SELECT %s`` is refused or comes back as text."""
    pgconn = connection.pgconn
    query = _numbered(statement)  # before anything is sent: a statement it refuses costs nothing
    state = _state_of.get(connection)
    if state is None:
        state = _state_of[connection] = _ConnectionState(Transformer(connection))
    transformer, prepared = state.transformer, state.prepared
    values = transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
    name = prepared.get(statement)
    if name is None and len(prepared) < _PREPARED_MAX and connection.prepare_threshold is not None:
        name = b"hearts_loop_%d" % len(prepared)
        pgconn.send_prepare(name, query)
        await _result(connection)
        prepared[statement] = name
    if name is None:
        pgconn.send_query_params(query, values)
    else:
        pgconn.send_query_prepared(name, values)
    result = await _result(connection)
    transformer.set_pgresult(result)
    return transformer.load_rows(0, result.ntuples, tuple)


_PREPARED_MAX = 64
"""Statements prepared on one connection at most (the live path has a handful of shapes)."""


class _ConnectionState:
    """What a connection keeps between statements: the names of the statements prepared on it,
    and the transformer that converts their values and rows (its adapters, looked up once per
    type, as a psycopg cursor keeps its own across the statements it runs)."""

    __slots__ = ("prepared", "transformer")

    def __init__(self, transformer: abc.Transformer):
        self.prepared: dict[str, bytes] = {}
        self.transformer = transformer


_state_of: weakref.WeakKeyDictionary[psycopg.AsyncConnection, _ConnectionState] = weakref.WeakKeyDictionary()


@functools.lru_cache(maxsize=256)
def _numbered(statement: str) -> bytes:
    """The statement with libpq's ``$1, $2 ...`` for psycopg's ``%s`` (``%%`` is a ``%``)."""
    parts = statement.split("%%")
    number = 0
    for index, part in enumerate(parts):
        pieces = part.split("%s")
        for piece in pieces:
            if "%" in piece:
                raise ValueError(f"only %s placeholders are supported: {statement!r}")
        numbered = pieces[0]
        for piece in pieces[1:]:
            number += 1
            numbered += f"${number}{piece}"
        parts[index] = numbered
    return "%".join(parts).encode()


async def _result(connection: psycopg.AsyncConnection) -> pq.abc.PGresult:
    """The result of the statement just sent on ``connection``, once libpq has all of it;
    raises the error psycopg would raise for a statement that failed."""
    pgconn, loop = connection.pgconn, asyncio.get_running_loop()
    while pgconn.flush():  # the socket took part of the statement: wait until it takes more,
        if await _ready(loop, pgconn.socket, or_write=True):  # reading what the server sends meanwhile
            pgconn.consume_input()
    results: list[pq.abc.PGresult] = []
    while True:
        pgconn.consume_input()
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                failed = next((r for r in results if r.status == pq.ExecStatus.FATAL_ERROR), None)
                if failed is not None:
                    raise psycopg.errors.error_from_result(failed, encoding=connection.info.encoding)
                if not results:
                    raise psycopg.OperationalError(f"no result from the server: {pgconn.get_error_message()}")
                return results[-1]
            results.append(result)
        await _ready(loop, pgconn.socket)


async def _ready(loop: asyncio.AbstractEventLoop, socket: int, *, or_write: bool = False) -> bool:
    """Wait until ``socket`` can be read (True) or, with ``or_write``, written (False). The watch
    ends in its own callback: the socket stays ready until the caller runs, and the selector
    would report it again meanwhile."""
    ready: asyncio.Future[bool] = loop.create_future()

    def unwatch() -> None:
        loop.remove_reader(socket)
        if or_write:
            loop.remove_writer(socket)

    def woken(readable: bool) -> None:
        unwatch()
        if not ready.done():
            ready.set_result(readable)

    loop.add_reader(socket, woken, True)
    if or_write:
        loop.add_writer(socket, woken, False)
    try:
        return await ready
    finally:
        if not ready.done():  # cancelled while waiting
            unwatch()


class _LoopConnections:
    """The connections of one event loop."""

    def __init__(self) -> None:
        self._idle: list[psycopg.AsyncConnection] = []
        self._slots = asyncio.Semaphore(settings.DATABASE_LOOP_POOL_MAX)
        self._closed = False
        self._closer: AsyncIterator[None] | None = None

    @classmethod
    async def start(cls) -> _LoopConnections:
        """The running loop's, closing their idle connections when the loop shuts down: started
        here, an async generator of the loop is finished (its ``finally`` run) by
        ``loop.shutdown_asyncgens()``."""
        held = _held[asyncio.get_running_loop()] = cls()
        held._closer = held._closing()
        await anext(held._closer)
        return held

    async def acquire(self) -> psycopg.AsyncConnection:
        await self._slots.acquire()
        try:
            return self._idle.pop() if self._idle else await _connect()
        except BaseException:
            self._slots.release()
            raise

    async def release(self, connection: psycopg.AsyncConnection, failed: bool) -> None:
        try:
            if (
                failed
                or self._closed
                or connection.closed
                or connection.info.transaction_status != pq.TransactionStatus.IDLE
            ):
                await _close(connection)
            else:
                self._idle.append(connection)
        finally:
            self._slots.release()

    async def _closing(self) -> AsyncIterator[None]:
        try:
            yield
        finally:
            self._closed = True
            while self._idle:
                await _close(self._idle.pop())


async def _close(connection: psycopg.AsyncConnection) -> None:
    """Close a loop connection and forget what it kept (its transformer holds the connection
    itself, so the weak mapping alone would keep both for the life of the process)."""
    _state_of.pop(connection, None)
    await connection.close()


_held: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopConnections] = weakref.WeakKeyDictionary()


async def _connect() -> psycopg.AsyncConnection:
    wrapper = connections[DEFAULT_DB_ALIAS]
    options = wrapper.settings_dict["OPTIONS"]
    params = wrapper.get_connection_params()  # Django's: database, credentials, adapters, prepare_threshold
    params["cursor_factory"] = psycopg.AsyncCursor if options.get("server_side_binding") else psycopg.AsyncClientCursor
    try:
        opened = await psycopg.AsyncConnection.connect(**params, autocommit=True, application_name=APPLICATION_NAME)
    except psycopg.OperationalError as failed:
        raise ConnectionFailed(str(failed)) from failed
    try:
        # what Django sets on its own connections (DatabaseWrapper._configure_connection)
        if wrapper.timezone_name and opened.info.parameter_status("TimeZone") != wrapper.timezone_name:
            await opened.execute("SELECT set_config('TimeZone', %s, false)", [wrapper.timezone_name])
        if role := options.get("assume_role"):
            await opened.execute(pg_sql.SQL("SET ROLE {}").format(pg_sql.Identifier(role)))
    except BaseException as failed:
        await opened.close()
        if isinstance(failed, psycopg.OperationalError):
            raise ConnectionFailed(str(failed)) from failed
        raise
    return opened
