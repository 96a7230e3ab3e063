"""What live connections read after each change to a game, shared within a process.

Every connection watching a game needs the same new events and the same game row after each
notification. This per-process cache serves them all from one database read per change (none
at all in the process that made the change, which publishes what it committed). Only committed
rows ever enter it, and events are served only up to the seq of the game row they came with,
so a connection never sees a state labelled with an older seq.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from tournaments.games import queries
from tournaments.models import Game, GameEvent


class Feed:
    def __init__(self, size: int = 4096, keep_events: int = 400):
        self._size, self._keep = size, keep_events
        self._lock = threading.Lock()
        self._games: OrderedDict[int, tuple[Game, list[GameEvent]]] = OrderedDict()

    def game(self, game_id: int, at_least_seq: int | None = None) -> Game:
        """The game row, from the cache if it is at ``at_least_seq`` or later (None: always read it)."""
        if at_least_seq is not None:
            with self._lock:
                entry = self._games.get(game_id)
            if entry is not None and entry[0].seq >= at_least_seq:
                return entry[0]
        with self._lock:
            entry = self._games.get(game_id)
        if entry is not None and entry[1]:
            # The row and the events since the last one held, in one statement (one snapshot:
            # the row's seq is the last of these events, as the writer's transaction left it).
            game, rows = queries.game_and_events_since(game_id, entry[1][-1].seq)
            if game is not None:
                self._store(game, rows)
                return game
        found = queries.game_row(game_id)
        if found is None:
            raise Game.DoesNotExist(f"There is no game {game_id}.")
        self._store(found, [])
        return found

    def events(self, game: Game, after: int) -> list[GameEvent]:
        """The game's events with seq in (after, game.seq]."""
        if game.seq <= after:
            return []
        with self._lock:
            entry = self._games.get(game.pk)
        rows = _between(entry[1], after, game.seq) if entry is not None else None
        if rows is not None:
            return rows
        fetched = queries.events_between(game.pk, after, game.seq)
        self._store(game, fetched)
        return fetched

    def cached(self, game_id: int, at_least_seq: int, after: int) -> tuple[Game, list[GameEvent]] | None:
        """The game row and its events after ``after``, if this process holds them with the row
        at ``at_least_seq`` or later; None if answering would need the database."""
        with self._lock:
            entry = self._games.get(game_id)
        if entry is None or entry[0].seq < at_least_seq:
            return None
        game, rows = entry
        between = _between(rows, after, game.seq)
        return None if between is None else (game, between)

    def finished(self, game_id: int) -> bool:
        """Whether this process holds the game's row as finished (for good: a finished game is
        never played again)."""
        with self._lock:
            entry = self._games.get(game_id)
        return entry is not None and entry[0].is_over

    def publish(self, game: Game, rows: list[GameEvent]) -> None:
        """The writer's committed change: the new row state and the events it appended."""
        self._store(game, rows)

    def _store(self, game: Game, rows: list[GameEvent]) -> None:
        with self._lock:
            current_game, current_rows = self._games.get(game.pk, (None, []))
            if current_game is not None and current_game.created_at != game.created_at:
                current_game, current_rows = None, []  # another game under a reused id (a reset database)
            if current_game is not None and current_game.seq > game.seq:
                game = current_game  # keep the newest row we have seen
            merged = current_rows
            if rows:
                if current_rows and current_rows[-1].seq + 1 == rows[0].seq:
                    merged = current_rows + rows  # the usual case: the next events
                elif current_rows and current_rows[-1].seq + 1 > rows[0].seq >= current_rows[0].seq:
                    merged = [r for r in current_rows if r.seq < rows[0].seq] + rows
                else:
                    merged = list(rows)
            self._games[game.pk] = (game, merged[-self._keep :])
            self._games.move_to_end(game.pk)
            while len(self._games) > self._size:
                self._games.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._games.clear()


def _between(rows: list[GameEvent], after: int, last: int) -> list[GameEvent] | None:
    """The rows with seq in (after, last], or None if ``rows`` do not cover that range."""
    if last <= after:
        return []
    if rows and rows[0].seq <= after + 1 and rows[-1].seq >= last:
        first = rows[0].seq  # rows are contiguous by seq: slice, do not scan
        return rows[after + 1 - first : last + 1 - first]
    return None


feed = Feed()
