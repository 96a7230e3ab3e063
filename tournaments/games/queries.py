"""The hand-written statements of the hot paths (a move, a connection catching up), on the SQL
toolkit of ``tournaments.games.sql``. Everything else reads and writes through the ORM."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth import get_user_model

from tournaments.games import sql
from tournaments.models import Game, GameEvent, GameSeat, Player, SeatConnection

_GAME, _SEAT, _PLAYER, _EVENT, _USER = (
    sql.Columns(Game, "g"),
    sql.Columns(GameSeat, "s"),
    sql.Columns(Player, "p"),
    sql.Columns(GameEvent, "e"),
    sql.Columns(get_user_model(), "u"),
)


# Locks the game row and then its seat rows, the one lock order used everywhere (game, then its
# seats, then what hangs off a seat): PostgreSQL locks a joined row's tables in the order of the
# FROM clause. Locking the seats is what makes them current: a statement that waited for the game
# row's lock re-reads only the rows it locked, so seats read unlocked would be those of before
# the transaction it waited for (a leave committed meanwhile would go unseen).
def _game_with_seats_statement(lock: str = "") -> str:
    return (
        f"SELECT {_GAME.select()}, {_SEAT.select()}, {_PLAYER.select()} FROM {sql.table(Game)} g"
        f" JOIN {sql.table(GameSeat)} s ON s.game_id = g.id LEFT JOIN {sql.table(Player)} p ON p.id = s.player_id"
        f" WHERE g.id = %s ORDER BY s.seat{lock}"
    )


_LOCK_WITH_SEATS = sql.Statement(lambda: _game_with_seats_statement(sql.for_update_of("g", "s")))
_GAME_WITH_SEATS = sql.Statement(_game_with_seats_statement)
_EARLIER_EVENTS = sql.Statement(
    lambda: (
        f"SELECT {_EVENT.select()} FROM {sql.table(GameEvent)} e"
        f" WHERE e.game_id = %s AND e.command_id = %s AND e.actor_seat = %s ORDER BY e.seq"
    )
)


def lock_game_with_seats(game_id: int) -> tuple[Game | None, list[GameSeat]]:
    """Lock the game row and its seats, and read them with the seats' players, in one statement
    (a move's hot path). ``(None, [])`` if the game has no seats or does not exist."""
    return _game_with_seats(sql.fetch(_LOCK_WITH_SEATS, [game_id]))


async def game_with_seats_async(game_id: int) -> tuple[Game | None, list[GameSeat]]:
    """The game row and its seats with their players, as :func:`lock_game_with_seats` reads them
    but without a lock, in one statement (one snapshot: the seats are those of that row) from an
    event loop (``loop_db``: raises its ``ConnectionFailed``)."""
    return _game_with_seats(await sql.fetch_async(_GAME_WITH_SEATS, [game_id]))


def _game_with_seats(found: list[tuple]) -> tuple[Game | None, list[GameSeat]]:
    if not found:
        return None, []
    game = _GAME.loader()(found[0])
    load_seat, load_player = _SEAT.loader(_GAME.width), _PLAYER.loader(_GAME.width + _SEAT.width)
    seats = []
    for row in found:
        seat = load_seat(row)
        seat.game = game
        seat.player = load_player(row) if seat.player_id is not None else None
        seats.append(seat)
    return game, seats


def earlier_events(game: Game, command_id: str, seat: int) -> list[GameEvent]:
    """What a command with this id from this seat appended before (a retry), in log order."""
    load = _EVENT.loader()
    rows = [load(row) for row in sql.fetch(_EARLIER_EVENTS, [game.pk, command_id, seat])]
    for row in rows:
        row.game = game
    return rows


_UNMOVED = sql.Statement(
    lambda: f"{sql.quote('seq')} = %s AND {sql.quote('head_hash')} = %s AND {sql.quote('status')} = %s"
)
_UNMOVED_AND_COMMAND_NOT_SEEN = sql.Statement(
    lambda: (
        f"{_UNMOVED} AND NOT EXISTS (SELECT 1 FROM {sql.table(GameEvent)} e WHERE e.{sql.quote('game_id')} = %s"
        f" AND e.{sql.quote('command_id')} = %s AND e.{sql.quote('actor_seat')} = %s)"
    )
)


def write_if_unmoved(
    game: Game, fields: Sequence[str], rows: list[GameEvent], at: tuple[int, str], command_id: str, seat: int
) -> bool:
    """Update the row's ``fields`` and insert ``rows``, in one statement, if the game is still
    at log version ``at`` and active (and, with a command id, this seat never sent it)."""
    condition, params = _unmoved(game, at, command_id, seat)
    return sql.update_and_insert_if(game, fields, condition, params, rows)


async def write_if_unmoved_async(
    game: Game, fields: Sequence[str], rows: list[GameEvent], at: tuple[int, str], command_id: str, seat: int
) -> bool:
    """:func:`write_if_unmoved` from an event loop (``tournaments.games.loop_db``)."""
    condition, params = _unmoved(game, at, command_id, seat)
    return await sql.update_and_insert_if_async(game, fields, condition, params, rows)


def _unmoved(game: Game, at: tuple[int, str], command_id: str, seat: int) -> tuple[str, list]:
    if command_id:
        return str(_UNMOVED_AND_COMMAND_NOT_SEEN), [at[0], at[1], Game.Status.ACTIVE, game.pk, command_id, seat]
    return str(_UNMOVED), [at[0], at[1], Game.Status.ACTIVE]


_GAME_AND_EVENTS_SINCE = sql.Statement(
    lambda: (
        f"SELECT {_EVENT.select()}, {_GAME.select()} FROM {sql.table(GameEvent)} e"
        f" JOIN {sql.table(Game)} g ON g.id = e.game_id WHERE e.game_id = %s AND e.seq > %s ORDER BY e.seq"
    )
)


def game_and_events_since(game_id: int, seq: int) -> tuple[Game | None, list[GameEvent]]:
    """The game row and its events after ``seq`` (none: ``(None, [])``), in one statement: one
    snapshot, so the row's seq is the last of these events. Every change makes each process
    with a watcher run this, hence hand-written (``tournaments.games.sql``)."""
    found = sql.fetch(_GAME_AND_EVENTS_SINCE, [game_id, seq])
    if not found:
        return None, []
    game = _GAME.loader(_EVENT.width)(found[-1])
    load = _EVENT.loader()
    return game, [load(row) for row in found]


_VIEWER = sql.Statement(
    lambda: (
        f"SELECT {_GAME.select()}, {_USER.select()}, {_PLAYER.select()}, s.{sql.quote('seat')}"
        f" FROM {sql.table(Game)} g LEFT JOIN {sql.table(get_user_model())} u ON u.id = %s"
        f" LEFT JOIN {sql.table(Player)} p ON p.user_id = u.id"
        f" LEFT JOIN {sql.table(GameSeat)} s ON s.game_id = g.id AND s.player_id = p.id"
        f" WHERE g.id = %s"
    )
)


def viewer_at(game_id: int, user_id: int | None):
    """Who opens a live connection to a game, in one statement (every connection runs it): the
    game row, the user ``user_id`` (None: none, or no such user) with their player (cached on
    the user; None if they have none) and the seat that player holds at the game now. None if
    the game does not exist."""
    found = sql.fetch(_VIEWER, [user_id, game_id])
    if not found:
        return None
    row = found[0]
    game = _GAME.loader()(row)
    user_at, player_at = _GAME.width, _GAME.width + _USER.width
    user = _USER.loader(user_at)(row) if row[user_at] is not None else None
    player = _PLAYER.loader(player_at)(row) if row[player_at] is not None else None
    if user is not None:  # cached, "none" too: asking for the user's player costs no query
        type(user).player.related.set_cached_value(user, player)  # type: ignore[attr-defined]
    return game, user, player, row[-1]


_GAME_ROW = sql.Statement(lambda: f"SELECT {_GAME.select()} FROM {sql.table(Game)} g WHERE g.id = %s")
_EVENTS_BETWEEN = sql.Statement(
    lambda: (
        f"SELECT {_EVENT.select()} FROM {sql.table(GameEvent)} e"
        f" WHERE e.game_id = %s AND e.seq > %s AND e.seq <= %s ORDER BY e.seq"
    )
)


def game_row(game_id: int) -> Game | None:
    """The game row (None if there is none)."""
    found = sql.fetch(_GAME_ROW, [game_id])
    return _GAME.loader()(found[0]) if found else None


def events_between(game_id: int, after: int, last: int) -> list[GameEvent]:
    """The game's events with seq in (after, last], in log order."""
    load = _EVENT.loader()
    return [load(row) for row in sql.fetch(_EVENTS_BETWEEN, [game_id, after, last])]


_CONNECTION_OPENED = sql.Statement(
    lambda: (
        f"INSERT INTO {sql.table(SeatConnection)} ({sql.quote('seat_id')}, {sql.quote('player_id')},"
        f" {sql.quote('connection_id')}, {sql.quote('server')}) VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING"
    )
)
_CONNECTION_CLOSED = sql.Statement(
    lambda: (
        f"DELETE FROM {sql.table(SeatConnection)} WHERE {sql.quote('seat_id')} = %s"
        f" AND {sql.quote('connection_id')} = %s"
    )
)
# RETURNING: run from the loop, where every statement is a fetch (``sql.fetch_async``)
_CONNECTION_DROPPED = sql.Statement(
    lambda: f"DELETE FROM {sql.table(SeatConnection)} WHERE {sql.quote('connection_id')} = %s RETURNING 1"
)
_PLAYER_CONNECTED = sql.Statement(
    lambda: (
        f"SELECT 1 FROM {sql.table(SeatConnection)} WHERE {sql.quote('seat_id')} = %s"
        f" AND {sql.quote('player_id')} = %s LIMIT 1"
    )
)


def connection_opened(seat: GameSeat, player_id: int, connection_id: str, server: str) -> None:
    """Record an open connection to the seat (nothing if its row is there already: a heartbeat
    may have written it). A connection is opened and closed by every client that comes."""
    sql.execute(_CONNECTION_OPENED, [seat.pk, player_id, connection_id, server])


def connection_closed(seat: GameSeat, connection_id: str) -> None:
    """Drop the row of a closed connection to the seat."""
    sql.execute(_CONNECTION_CLOSED, [seat.pk, connection_id])


async def connection_dropped_async(connection_id: str) -> None:
    """Drop the row of a closed connection (its id is unique), from an event loop
    (``loop_db``: raises its ``ConnectionFailed``)."""
    await sql.fetch_async(_CONNECTION_DROPPED, [connection_id])


def player_connected(seat: GameSeat, player_id: int | None) -> bool:
    """Whether ``player_id`` has a connection open to the seat."""
    return player_id is not None and bool(sql.fetch(_PLAYER_CONNECTED, [seat.pk, player_id]))
