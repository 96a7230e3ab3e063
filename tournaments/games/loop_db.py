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

Statements asked for while another is on its way go together, in one pipeline and one
transaction (group commit: :class:`_LoopConnections`). A statement goes through libpq itself
(``psycopg.pq``), prepared on a connection the first time it runs there, its values and rows
converted by psycopg's adapters as Django's connections convert them: psycopg's cursor around
it cost more than the rest of a move's write.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import weakref
from collections.abc import AsyncIterator, Coroutine, Sequence
from typing import Any

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

    Statements the loop's tasks ask for in the same pass of the loop go together, in one
    write to the server (:class:`_LoopConnections`). (No context manager: a generator around
    every statement of a move cost more than the rest.)"""
    _numbered(statement)  # a statement it refuses is refused before it waits for company
    held = _held.get(asyncio.get_running_loop()) or await _LoopConnections.start()
    return await held.fetch(statement, params)


async def _run(connection: psycopg.AsyncConnection, statement: str, params: Sequence) -> list[tuple]:
    """``statement`` sent through libpq itself, prepared once per connection (unless
    ``prepare_threshold`` is None), its parameters and rows converted by psycopg's own adapters:
    psycopg's cursor, query conversion, prepared-statement bookkeeping and waiting generators
    took more CPU than the rest of a live move's write (``bench/load.py``). The values go as
    text of no declared type, the server inferring each from where it stands: every ``%s`` needs a
    context that types it (a column it is compared with or assigned to, a cast such as
    ``%s::jsonb``), and a bare ``%s IS NULL`` or ``SELECT %s`` is refused or comes back as text."""
    pgconn = connection.pgconn
    state = _state(connection)
    query = _numbered(statement)
    values = state.transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
    name = state.prepared.get(statement)
    if name is None and (name := state.new_name(connection)) is not None:
        pgconn.send_prepare(name, query)
        await _result(connection)
        state.prepared[statement] = name
    if name is None:
        pgconn.send_query_params(query, values)
    else:
        pgconn.send_query_prepared(name, values)
    return _rows(state, await _result(connection))


class _RolledBack(Exception):
    """A statement of a batch failed (``error``, the server's): the batch's transaction was
    rolled back, so none of its statements took effect."""

    def __init__(self, error: psycopg.Error):
        super().__init__(str(error))
        self.error = error


_BATCH_LOCK_TIMEOUT = "SELECT set_config('lock_timeout', %s, true)"
"""The first statement of every batch: a statement of it that would wait for a lock fails
instead, and the batch runs again statement by statement (a batch holds the locks of the games
it has moved already, and must not keep them while it waits for another's)."""


async def _run_together(connection: psycopg.AsyncConnection, batch: list[_Waiting]) -> list[list[tuple] | Exception]:
    """The rows of each statement of ``batch`` (or the error reading them), sent in one
    pipeline (libpq's pipeline mode) and one write, and run as one transaction that commits at
    its end: no statement's rows are known before all of them have committed. Raises
    :class:`_RolledBack` if one failed: then none of them took effect."""
    pgconn = connection.pgconn
    state = _state(connection)
    dump = state.transformer.dump_sequence
    statements = [(_BATCH_LOCK_TIMEOUT, dump([_BATCH_LOCK_WAIT], [PyFormat.TEXT]))]
    statements += [(w.statement, dump(w.params, [PyFormat.TEXT] * len(w.params))) for w in batch]
    preparing: dict[str, bytes] = {}
    parses: list[bool] = []  # whether a statement was prepared on the way: its Parse has a result too
    pgconn.enter_pipeline_mode()
    try:
        for statement, values in statements:
            query = _numbered(statement)
            name = state.prepared.get(statement) or preparing.get(statement)
            new = state.new_name(connection, len(preparing)) if name is None else None
            parses.append(new is not None)
            if new is not None:
                pgconn.send_prepare(new, query)
                name = preparing[statement] = new
            if name is None:
                pgconn.send_query_params(query, values)
            else:
                pgconn.send_query_prepared(name, values)
        pgconn.pipeline_sync()
        results = await _results_to_sync(connection)
        pgconn.exit_pipeline_mode()
    except BaseException:
        with contextlib.suppress(psycopg.Error):  # results left unread: the connection is closed
            pgconn.exit_pipeline_mode()
        raise
    failed = next((r for r in results if r.status == pq.ExecStatus.FATAL_ERROR), None)
    if failed is not None:  # reported before the sync point: the transaction was rolled back
        raise _RolledBack(psycopg.errors.error_from_result(failed, encoding=connection.info.encoding))
    if len(results) != len(statements) + sum(parses):
        raise psycopg.OperationalError(f"{len(results)} results for {len(statements)} statements")
    state.prepared.update(preparing)
    outcomes: list[list[tuple] | Exception] = []
    at = 0
    for parsed in parses:
        at += parsed
        try:
            outcomes.append(_rows(state, results[at]))
        except Exception as unreadable:  # committed, but its rows cannot be read (a value out of range)
            outcomes.append(unreadable)
        at += 1
    return outcomes[1:]


_BATCH_LOCK_WAIT = "2ms"
"""How long a statement of a batch may wait for a lock (``_BATCH_LOCK_TIMEOUT``)."""


def _rows(state: _ConnectionState, result: pq.abc.PGresult) -> list[tuple]:
    state.transformer.set_pgresult(result)
    return state.transformer.load_rows(0, result.ntuples, tuple)


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

    def new_name(self, connection: psycopg.AsyncConnection, preparing: int = 0) -> bytes | None:
        """The name to prepare a statement under (``preparing`` more are being prepared), or None
        if no more are (``_PREPARED_MAX``, or prepared statements are off)."""
        count = len(self.prepared) + preparing
        if count >= _PREPARED_MAX or connection.prepare_threshold is None:
            return None
        return b"hearts_loop_%d" % count


def _state(connection: psycopg.AsyncConnection) -> _ConnectionState:
    state = _state_of.get(connection)
    if state is None:
        state = _state_of[connection] = _ConnectionState(Transformer(connection))
    return state


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


async def _results_to_sync(connection: psycopg.AsyncConnection) -> list[pq.abc.PGresult]:
    """Every result of the pipeline just sent on ``connection``, up to its sync point."""
    pgconn, loop = connection.pgconn, asyncio.get_running_loop()
    while pgconn.flush():
        if await _ready(loop, pgconn.socket, or_write=True):
            pgconn.consume_input()
    results: list[pq.abc.PGresult] = []
    ended = False  # a statement's results just ended: another end right after is a broken connection
    while True:
        pgconn.consume_input()
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                if ended or pgconn.status == pq.ConnStatus.BAD:
                    raise psycopg.OperationalError(f"the pipeline broke off: {pgconn.get_error_message()}")
                ended = True
                continue
            ended = False
            if result.status == pq.ExecStatus.PIPELINE_SYNC:
                return results
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


class _Waiting:
    """A statement waiting for its rows."""

    __slots__ = ("params", "rows", "statement")

    def __init__(self, statement: str, params: Sequence, rows: asyncio.Future[list[tuple]]):
        self.statement, self.params, self.rows = statement, params, rows

    def answer(self, rows: list[tuple] | None = None, failed: BaseException | None = None) -> None:
        """Give the waiter its rows, or raise ``failed`` in it (a lost connection as
        :class:`ConnectionFailed`), unless it stopped waiting (cancelled)."""
        if self.rows.done():
            return
        if failed is None:
            self.rows.set_result(rows or [])
        elif isinstance(failed, asyncio.CancelledError):
            self.rows.cancel()
        elif isinstance(failed, psycopg.OperationalError | psycopg.InterfaceError):
            lost = ConnectionFailed(str(failed))
            lost.__cause__ = failed
            self.rows.set_exception(lost)
        else:
            self.rows.set_exception(failed)


_BATCH_MAX = 32
"""Statements sent together at most (the live path's are a few hundred bytes each)."""

_STALL = 0.002
"""Seconds the statements waiting wait for the batch in flight before they go on another
connection (PostgreSQL commits a batch in well under a millisecond on this project's machines)."""


class _LoopConnections:
    """The connections of one event loop, and the statements waiting for one.

    Statements go as group commit: while a batch is on its way to the server, the statements
    asked for meanwhile wait for it, then all go on one connection in one pipeline (one write
    to the server, one transaction: :func:`_run_together`); a statement with none beside it
    goes alone, the usual way. If the batch in flight takes longer than ``_STALL`` (a lock wait)
    the waiting ones go on another connection. At saturation a Daphne process writes the moves
    of several tables at once, and each write to PostgreSQL's socket (waking the server) cost
    as much CPU as the rest of a move's statement (``bench/load.py``, README "Measured")."""

    def __init__(self) -> None:
        self._idle: list[psycopg.AsyncConnection] = []
        self._slots = asyncio.Semaphore(settings.DATABASE_LOOP_POOL_MAX)
        self._closed = False
        self._closer: AsyncIterator[None] | None = None
        self._queue: list[_Waiting] = []
        self._senders: set[asyncio.Task] = set()
        self._in_flight = 0  # senders started and not done
        self._taking: asyncio.Task | None = None  # the sender started that has not taken the queue yet
        self._stall: asyncio.TimerHandle | None = None

    async def fetch(self, statement: str, params: Sequence) -> list[tuple]:
        """:func:`fetch` on these connections."""
        waiting = _Waiting(statement, params, asyncio.get_running_loop().create_future())
        self._queue.append(waiting)
        self._send_when_free()
        return await waiting.rows

    def _send_when_free(self) -> None:
        """Start sending the statements waiting, unless a sender is about to take them: now if
        none is in flight, else when the one in flight is answered or has taken ``_STALL``
        (a statement waiting for a lock must not hold up the other tables' moves)."""
        if self._taking is not None:
            return
        self._queue = [waiting for waiting in self._queue if not waiting.rows.done()]
        if not self._queue:
            return
        if not self._in_flight:
            self._start_sender()
        elif self._stall is None:
            self._stall = asyncio.get_running_loop().call_later(_STALL, self._stalled)

    def _stalled(self) -> None:
        self._stall = None
        if self._queue and self._taking is None:
            self._start_sender()

    def _start_sender(self) -> None:
        self._in_flight += 1
        self._taking = self._spawn(self._send_queued())
        self._taking.add_done_callback(self._sender_done)

    def _spawn(self, sending: Coroutine[Any, Any, None]) -> asyncio.Task:
        task = asyncio.ensure_future(sending)
        self._senders.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._senders.discard)
        return task

    def _sender_done(self, sender: asyncio.Task) -> None:
        """Whatever became of a sender (even cancelled before it began), the next may start."""
        self._in_flight -= 1
        if self._taking is sender:
            self._taking = None
        if not asyncio.get_running_loop().is_closed():
            self._send_when_free()

    async def _send_queued(self) -> None:
        """Take a connection, then the statements waiting (those asked for meanwhile too)."""
        try:
            connection = await self.acquire()
        except BaseException as unavailable:
            self._taking = None
            batch, self._queue = self._queue, []
            for waiting in batch:
                waiting.answer(failed=unavailable)
            if isinstance(unavailable, asyncio.CancelledError):
                raise
            return
        self._taking = None
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        batch = [waiting for waiting in self._queue[:_BATCH_MAX] if not waiting.rows.done()]
        del self._queue[:_BATCH_MAX]
        if self._queue:  # more than a batch
            self._start_sender()
        await self._send(connection, batch)

    async def _send(self, connection: psycopg.AsyncConnection, batch: list[_Waiting]) -> None:
        """Send ``batch`` on ``connection`` (then given back) and answer each of its statements."""
        failed: BaseException | None = None
        rolled_back = False
        try:
            if len(batch) == 1:
                batch[0].answer(await _run(connection, batch[0].statement, batch[0].params))
            elif batch:
                for waiting, outcome in zip(batch, await _run_together(connection, batch), strict=True):
                    if isinstance(outcome, Exception):
                        waiting.answer(failed=outcome)
                    else:
                        waiting.answer(outcome)
        except _RolledBack as rolled:
            failed, rolled_back = rolled.error, True
        except BaseException as error:
            failed = error
        await self.release(connection, failed=failed is not None)
        if rolled_back:
            # Nothing of the batch took effect: each statement runs again alone, and only the
            # failing one fails (or none, if it was a lock wait or a deadlock).
            for waiting in batch:
                self._spawn(self._run_alone(waiting))
            return
        if failed is not None:
            for waiting in batch:
                waiting.answer(failed=failed)
            if isinstance(failed, asyncio.CancelledError):
                raise failed

    async def _run_alone(self, waiting: _Waiting) -> None:
        """Run a statement of a batch that was rolled back, on a connection of its own."""
        if waiting.rows.done():  # its caller stopped waiting
            return
        try:
            connection = await self.acquire()
        except BaseException as unavailable:
            waiting.answer(failed=unavailable)
            if isinstance(unavailable, asyncio.CancelledError):
                raise
            return
        try:
            rows = await _run(connection, waiting.statement, waiting.params)
        except BaseException as failed:
            await self.release(connection, failed=True)
            waiting.answer(failed=failed)
            if isinstance(failed, asyncio.CancelledError):
                raise
            return
        await self.release(connection, failed=False)
        waiting.answer(rows)

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
