"""The JSON text of the frames live connections send (docs/websocket.md).

After every change each connection at a table sends its viewer one ``update`` frame: the new
events, each as its viewer may see it, and the viewer's state after them. Most of the state
(``engine.Game.table_view``: the trick, the tricks of the hand, the scores) is the same for every
viewer; only ``engine.Game.seat_view`` (the seat's hand, legal plays and pass) is its own. The
table's part is serialised once per process and change, and each connection adds its seat's
(``visibility.seat_view``: the seat's pass only to whoever made it).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from datetime import datetime

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
    head = _update_head(game.seq if seq is None else seq, game.status, game.turn_deadline)
    return b"".join((head, b',"events":[', b",".join(events), b'],"state":', view or b"null", b"}")).decode()


@functools.lru_cache(maxsize=1024)
def _update_head(seq: int, status: str, turn_deadline: datetime | None) -> bytes:
    """An update frame's first fields, unclosed: the same for every connection a change goes to."""
    head = orjson.dumps(
        {
            "type": "update",
            "seq": seq,
            "status": status,
            "turn_deadline": turn_deadline.isoformat() if turn_deadline else None,
        },
        option=orjson.OPT_NON_STR_KEYS,
    )
    return head[:-1]


SHARED_TABLE_FIELDS = ("rules", "tricks", "hand_scores")
"""The fields of ``engine.Game.table_view`` it returns as the same object while they are unchanged
(the rules, the hand's tricks, the hands scored): their JSON is kept from one change to the next."""


class _TableJSON:
    """A game's table part as last serialised: its log version and text, and the JSON of each
    of ``SHARED_TABLE_FIELDS`` beside the object it was written from."""

    __slots__ = ("pieces", "text", "version")

    def __init__(self) -> None:
        self.version: tuple[int, str] | None = None
        self.text = b""
        self.pieces: dict[str, tuple[object, bytes]] = {}


class StateFrames:
    """The JSON of a seat's (or a spectator's) state, with the table's part kept per game for
    the log version (seq, head hash) it was serialised at."""

    def __init__(self, size: int = 4096):
        self._size = size
        self._lock = threading.Lock()
        self._tables: OrderedDict[int, _TableJSON] = OrderedDict()

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
            if held is None:
                held = self._tables[game.pk] = _TableJSON()
                while len(self._tables) > self._size:
                    self._tables.popitem(last=False)
            else:
                self._tables.move_to_end(game.pk)
            if held.version == version:
                return held.text
            pieces = dict(held.pieces)
        view = state.table_view()
        parts = []
        for name in SHARED_TABLE_FIELDS:
            value = view.pop(name)
            kept = pieces.get(name)
            if kept is None or kept[0] is not value:
                kept = pieces[name] = (value, orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))
            parts.append(b'"%s":%s' % (name.encode(), kept[1]))
        rest = orjson.dumps(view, option=orjson.OPT_NON_STR_KEYS)
        text = b"".join((b"{", b",".join(parts), b",", rest[1:]))
        if state.phase == engine.Phase.GAME_OVER:
            pieces = {}  # nothing changes any more: keep the text, not the objects behind it
        with self._lock:
            held.version, held.text, held.pieces = version, text, pieces
        return text

    def clear(self) -> None:
        with self._lock:
            self._tables.clear()


state_frames = StateFrames()
