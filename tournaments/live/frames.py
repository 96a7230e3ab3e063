"""The JSON text of the frames live connections send (docs/websocket.md).

After every change each connection at a table sends its viewer one ``update`` frame: the new
events, each as its viewer may see it, and the viewer's state after them. Most of the state
(``engine.Game.table_view``: the trick, the tricks of the hand, the scores) is the same for every
viewer; only ``engine.Game.seat_view`` (the seat's hand, legal plays and pass) is its own. The
table's part is serialised once per process and change, and each connection adds its seat's
(``visibility.seat_view``: the seat's pass only to whoever made it).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import orjson

import engine
from tournaments.games.visibility import Sight, same_for_everyone, seat_view, visible_event
from tournaments.models import Game, GameEvent


def encode(frame: dict) -> str:
    """A frame as the text a WebSocket sends."""
    return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()


def event_json(row: GameEvent, sight: Sight) -> bytes:
    """The JSON of ``visible_event(row, sight)``. An event every viewer sees whole is serialised
    once per process (kept on the row, which the feed shares between this process's
    connections): most of a table's events are plays, and each goes to four seats."""
    if not same_for_everyone(row):
        return orjson.dumps(visible_event(row, sight), option=orjson.OPT_NON_STR_KEYS)
    shared = row.__dict__.get("_json_for_everyone")
    if shared is None:
        shared = row.__dict__["_json_for_everyone"] = orjson.dumps(
            visible_event(row, sight), option=orjson.OPT_NON_STR_KEYS
        )
    return shared


def update_frame(game: Game, events: list[bytes], view: bytes | None, seq: int | None = None) -> str:
    """``{"type": "update", "seq", "status", "turn_deadline", "events", "state"}``: ``events``
    (each the JSON of an event as the viewer may see it, from :func:`event_json`) and ``view``
    (the JSON of the viewer's state after them, from :meth:`StateFrames.view`; None before the
    game starts or for a viewer who may see no more), at ``seq`` (default: the game row's)."""
    head = orjson.dumps(
        {
            "type": "update",
            "seq": game.seq if seq is None else seq,
            "status": game.status,
            "turn_deadline": game.turn_deadline.isoformat() if game.turn_deadline else None,
        },
        option=orjson.OPT_NON_STR_KEYS,
    )
    return b"".join((head[:-1], b',"events":[', b",".join(events), b'],"state":', view or b"null", b"}")).decode()


class StateFrames:
    """The JSON of a seat's (or a spectator's) state, with the table's part kept per game for
    the log version (seq, head hash) it was serialised at."""

    def __init__(self, size: int = 4096):
        self._size = size
        self._lock = threading.Lock()
        self._tables: OrderedDict[int, tuple[tuple[int, str], bytes]] = OrderedDict()

    def view(self, game: Game, state: engine.Game, seat: int | None, *, own_pass: bool = True) -> bytes:
        """The JSON of ``state.view(seat)``, for ``state`` the engine state at the game row's seq.
        ``own_pass`` False: the seat's pass (``passed``) was made before the viewer held it, and
        is null (``visibility.pass_shown`` decides)."""
        own = orjson.dumps(seat_view(state, seat, own_pass), option=orjson.OPT_NON_STR_KEYS)
        return b"".join((own[:-1], b",", self._table(game, state)[1:]))

    def _table(self, game: Game, state: engine.Game) -> bytes:
        version = (game.seq, game.head_hash)
        with self._lock:
            held = self._tables.get(game.pk)
        if held is not None and held[0] == version:
            return held[1]
        table = orjson.dumps(state.table_view(), option=orjson.OPT_NON_STR_KEYS)
        with self._lock:
            self._tables[game.pk] = (version, table)
            self._tables.move_to_end(game.pk)
            while len(self._tables) > self._size:
                self._tables.popitem(last=False)
        return table

    def clear(self) -> None:
        with self._lock:
            self._tables.clear()


state_frames = StateFrames()
