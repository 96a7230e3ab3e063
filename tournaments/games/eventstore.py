"""The event store: appending to a game's log, hashing it, rebuilding engine state, auditing.

A game's log is its ``GameEvent`` rows, seq 1..N without gaps. Each row's hash chains to the
previous one, so an edited or removed event is found by :func:`audit_game`. The hash is an
HMAC-SHA256 under ``HEARTS_CHAIN_KEY``, a key kept outside the database: someone who can write to
the database but does not have the key cannot rewrite a history and recompute its hashes.

Logs stored before the key (plain sha256) stay as they are (events are never edited): the
migration that brought the key sealed each game's chain as it was, ``Game.chain_seal`` = an HMAC
of (game, ``chain_sealed_seq``, the hash at that seq). Events up to that seq are checked as plain
sha256 plus the seal; events after it (a game still being played then) are keyed. The engine state
is derived from the log only; a per-process cache keeps the latest state so a command does
not replay the whole game, and :func:`rebuild_engine_game` proves the cache is disposable.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

import orjson
from django.conf import settings
from django.db import transaction
from django.utils import timezone

import engine
from tournaments.games import sql
from tournaments.games.events import TABLE_EVENT_TYPES, DealCommitted
from tournaments.models import Game, GameEvent

GENESIS_HASH = "0" * 64


def canonical_json(value) -> str:
    """The one JSON form that hashes and commitments are computed over: the standard library's
    ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``, written by orjson
    where the two agree (tests/tournaments/games/test_canonical_json.py: every value of nulls,
    booleans, integers, text, lists and objects), a fifth of its CPU. Anything else (a float,
    whose text differs: ``1e+16`` against ``1e16``; a date, which only orjson would write) and
    what orjson refuses go to the standard library, which writes or refuses it as it always did."""
    if not _plain(value):
        return _standard_json(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # an integer past 64 bits, a key that is not text, a lone surrogate
        return _standard_json(value)


def _standard_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _plain(value) -> bool:
    """Whether ``value`` holds nothing but text, integers, booleans and None, in dicts, lists
    and tuples (subclasses too: both writers take them as their base type)."""
    values: Iterable
    if isinstance(value, dict):
        values = value.values()
    elif isinstance(value, list | tuple):
        values = value
    else:
        return value is None or isinstance(value, str | int)
    for item in values:
        if type(item) in _PLAIN_SCALARS:
            continue
        if not _plain(item):
            return False
    return True


_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


@functools.lru_cache(maxsize=4)
def _keyed(key: str) -> hmac.HMAC:
    return hmac.new(key.encode(), digestmod=hashlib.sha256)


def _hmac(message: bytes) -> str:
    """HMAC-SHA256 under ``HEARTS_CHAIN_KEY``: a copy of the keyed state, so the key's pads are
    not hashed again for every event (half the cost of ``hmac.digest``; about 1 µs over sha256)."""
    state = _keyed(settings.HEARTS_CHAIN_KEY).copy()
    state.update(message)
    return state.hexdigest()


def event_hash(
    previous: str,
    *,
    seq: int,
    type: str,
    version: int,
    payload: dict,
    recorded_at: datetime,
    command_id: str,
    actor_seat: int | None,
    cause: str,
    keyed: bool = True,
) -> str:
    """HMAC-SHA256 under ``HEARTS_CHAIN_KEY`` (plain sha256 with ``keyed=False``: logs stored
    before the key) of the previous hash and the canonical JSON of everything stored for the event."""
    body = canonical_json(
        {
            "seq": seq,
            "type": type,
            "v": version,
            "payload": payload,
            "at": _timestamp(recorded_at),
            "command_id": command_id,
            "actor_seat": actor_seat,
            "cause": cause,
        }
    )
    message = (previous + body).encode()
    if keyed:
        return _hmac(message)
    return hashlib.sha256(message).hexdigest()


def row_hash(row: GameEvent, previous: str, *, keyed: bool = True) -> str:
    return event_hash(
        previous,
        seq=row.seq,
        type=row.type,
        version=row.version,
        payload=row.payload,
        recorded_at=row.recorded_at,
        command_id=row.command_id,
        actor_seat=row.actor_seat,
        cause=row.cause,
        keyed=keyed,
    )


def chain_seal(game_id: int, seq: int, head: str) -> str:
    """The keyed seal of a log stored before the key: its game, length and last (sha256) hash."""
    return _hmac(f"seal:{game_id}:{seq}:{head}".encode())


def _is_keyed(game: Game, seq: int) -> bool:
    return seq > game.chain_sealed_seq


def deal_commitment(salt: str, hand_dealt: dict) -> str:
    """What DealCommitted publishes for a HandDealt event (its cards, salted)."""
    deal = {
        "hand_number": hand_dealt["hand_number"],
        "hands": hand_dealt["hands"],
        "kitty": hand_dealt.get("kitty", []),
    }
    return hashlib.sha256((salt + canonical_json(deal)).encode()).hexdigest()


def new_deal_salt() -> str:
    return secrets.token_hex(32)


def event_dict(row: GameEvent) -> dict:
    """The event as its producer wrote it: ``{"type", "v", **fields}``."""
    return {"type": row.type, "v": row.version, **row.payload}


def is_engine_event(event_type: str) -> bool:
    return event_type not in TABLE_EVENT_TYPES


# --- appending ------------------------------------------------------------------------------


def append_events(
    game: Game, events: Iterable[dict], *, cause: str, command_id: str = "", actor_seat: int | None = None
) -> list[GameEvent]:
    """Append events to a game whose row the caller has locked, inside its transaction.

    Every HandDealt is followed by its DealCommitted. Updates ``game.seq`` (the caller saves).
    """
    assert transaction.get_connection().in_atomic_block, "append_events needs the caller's transaction"
    rows = new_rows(game, events, cause=cause, command_id=command_id, actor_seat=actor_seat)
    sql.insert(rows)
    return rows


def new_rows(
    game: Game, events: Iterable[dict], *, cause: str, command_id: str = "", actor_seat: int | None = None
) -> list[GameEvent]:
    """The rows that append ``events`` to the game's log, chained and hashed, not saved yet
    (each HandDealt followed by its DealCommitted). Updates ``game.seq`` and ``game.head_hash``."""
    previous = game.head_hash if game.seq else GENESIS_HASH
    now = timezone.now()
    rows: list[GameEvent] = []
    for event in _with_commitments(game, events):
        payload = {k: v for k, v in event.items() if k not in ("type", "v")}
        seq = game.seq + len(rows) + 1
        # game_id, not game: the feed holds rows for a long time, and a cached game would
        # keep every command's copy of the game row alive with them.
        row = GameEvent(
            game_id=game.pk,
            seq=seq,
            type=event["type"],
            version=event["v"],
            payload=payload,
            recorded_at=now,
            command_id=command_id or "",
            actor_seat=actor_seat,
            cause=cause,
        )
        row.hash = previous = row_hash(row, previous, keyed=_is_keyed(game, seq))
        rows.append(row)
    if rows:
        game.seq, game.head_hash = rows[-1].seq, rows[-1].hash
    return rows


def _with_commitments(game: Game, events: Iterable[dict]):
    for event in events:
        yield event
        if event["type"] == "HandDealt":
            yield DealCommitted(
                hand_number=event["hand_number"], commitment=deal_commitment(game.deal_salt, event)
            ).to_dict()


# --- engine state -----------------------------------------------------------------------------


class Cached(NamedTuple):
    """A cache entry: the engine state of a game's log at ``version`` (seq, hash of the last
    event) and, when a command stored it, the game row and its seats (with their players) at
    that version, which let the next move skip reading them (see ``games.services``)."""

    version: tuple[int, str]
    state: engine.Game
    row: Game | None = None
    seats: list | None = None


class _EngineCache:
    """Latest engine state per game in this process, least recently used out.

    An entry is valid only for the exact log it was built from: (seq, hash of the last event).
    """

    def __init__(self, size: int = 2048):
        self._size = size
        self._entries: OrderedDict[int, Cached] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game_id: int) -> Cached | None:
        """Remove and return the game's entry: the taker may mutate its state."""
        with self._lock:
            return self._entries.pop(game_id, None)

    def take_for_move(self, game_id: int) -> Cached | None:
        """Remove and return the game's entry if it holds the row and seats a move needs."""
        with self._lock:
            entry = self._entries.get(game_id)
            if entry is None or entry.row is None or entry.seats is None:
                return None
            return self._entries.pop(game_id)

    def lacks_row(self, game_id: int) -> bool:
        """Whether the game's entry holds a state without the row and seats a move needs (a
        reader cached it: a connection catching up)."""
        with self._lock:
            entry = self._entries.get(game_id)
            return entry is not None and (entry.row is None or entry.seats is None)

    def attach_row(self, game_id: int, row: Game, seats: list) -> bool:
        """Give the game's entry the row and seats a move needs, if the entry holds the state at
        that row's (seq, head hash) without them; whether it did. ``row`` and ``seats`` (whose
        ``game`` is ``row``) are the cache's from then on."""
        version = (row.seq, row.head_hash)
        with self._lock:
            entry = self._entries.get(game_id)
            if entry is None or entry.version != version or (entry.row is not None and entry.seats is not None):
                return False
            self._entries[game_id] = Cached(version, entry.state, row, seats)
            self._entries.move_to_end(game_id)
            return True

    def put(
        self,
        game_id: int,
        version: tuple[int, str],
        state: engine.Game,
        row: Game | None = None,
        seats: list | None = None,
    ) -> None:
        with self._lock:
            current = self._entries.get(game_id)
            if current is None or current.version[0] <= version[0]:
                self._entries[game_id] = Cached(version, state, row, seats)
                self._entries.move_to_end(game_id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def read(self, game: Game, reader):
        """``(True, reader(state))`` under the lock if the game's current state is cached."""
        with self._lock:
            entry = self._entries.get(game.pk)
            if entry is not None and entry.version == (game.seq, game.head_hash):
                return True, reader(entry.state)
        return False, None

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


engine_cache = _EngineCache()


def rebuild_engine_game(game: Game, up_to_seq: int | None = None) -> engine.Game:
    """Replay the stored log up to ``up_to_seq`` (default: the game row's seq) through the engine.

    Bounded by the row's seq so that a reader racing a writer's commit still gets exactly the
    state that row describes, never a newer one under an older seq.
    """
    rows = GameEvent.objects.filter(game=game, seq__lte=game.seq if up_to_seq is None else up_to_seq)
    logged = rows.order_by("seq").values_list("type", "version", "payload")
    dicts = [{"type": t, "v": v, **p} for t, v, p in logged if is_engine_event(t)]
    return engine.Game.replay(dicts, deals=game.planned_deals or None)


def game_position(game: Game, up_to_seq: int) -> engine.Position:
    """The game as it stood after event ``up_to_seq`` of its log (a replay's step): inside a
    command's events too, and with nothing dealt that the log does not hold by then."""
    rows = GameEvent.objects.filter(game=game, seq__lte=up_to_seq).order_by("seq")
    dicts = [
        {"type": t, "v": v, **p} for t, v, p in rows.values_list("type", "version", "payload") if is_engine_event(t)
    ]
    return engine.Game.position(dicts, len(dicts))


def _state_of(game: Game, rows: list[GameEvent] | None = None) -> engine.Game:
    """The engine state at the game row's (seq, head hash), for the caller alone: the cached
    one, moved forward by the events since if it is older, or else rebuilt from the log.

    ``rows``: events of this game the caller already holds (contiguous, ending at the row's seq).
    """
    entry = engine_cache.take(game.pk)
    if entry is not None:
        (seq, head), state = entry.version, entry.state
        if (seq, head) == (game.seq, game.head_hash):
            return state
        if seq < game.seq and _advance(game, seq, head, state, rows):
            return state
    return rebuild_engine_game(game)


def _advance(game: Game, seq: int, head: str, state: engine.Game, rows: list[GameEvent] | None) -> bool:
    """Move ``state`` (the log up to ``seq``, ending in hash ``head``) forward to the game row.

    The new events must chain onto ``head`` and end in the row's head hash: a state cached
    from a transaction that rolled back, or from another log, is never moved forward.
    """
    new = [row for row in rows or () if row.seq > seq]
    if not new or new[0].seq != seq + 1 or new[-1].seq != game.seq:
        new = list(GameEvent.objects.filter(game=game, seq__gt=seq, seq__lte=game.seq).order_by("seq"))
    if len(new) != game.seq - seq:
        return False
    previous = head
    for row in new:
        previous = row_hash(row, previous, keyed=_is_keyed(game, row.seq))
        if row.hash != previous:
            return False
    if previous != game.head_hash:
        return False
    try:
        state.extend([event_dict(row) for row in new if is_engine_event(row.type)])
    except engine.ReplayError:
        return False
    return True


def take_engine_game(game: Game) -> engine.Game:
    """The engine state of the game's log for a command to mutate (the row must be locked).

    Give it back with :func:`keep_engine_game` after the change (or after a refused command).
    """
    return _state_of(game)


def keep_engine_game(game: Game, state: engine.Game, seats: list | None = None, *, copy: bool = True) -> None:
    """Cache ``state`` as the state of the game's log after a change; with ``seats`` (the
    game's seats with their players, current), the row too, for the next move: a copy, or with
    ``copy=False`` the caller's own (the cache's before the move, which nothing else holds).
    The seats are the cache's from then on: the caller does not use them again (a move reads
    them, and no seat changes hands in a move, so they are not copied on every card played).

    Safe before the commit: if the transaction rolls back, the stored log keeps its old
    (seq, head hash), which no longer matches this entry, so it is never served.
    """
    row = None
    if seats and not copy:
        row = game  # the cache's own: its seats point at it already
    elif seats:
        # a copy: the caller's row goes on to the feed and the client, and must not be kept
        # alive (nor changed) by the cache
        row = sql.copy_row(game)
        for seat in seats:
            seat.game = row
    engine_cache.put(game.pk, (game.seq, game.head_hash), state, row, seats or None)


def read_engine_game(game: Game, reader, rows: list[GameEvent] | None = None):
    """``reader(state)`` on the engine state at the game row, without mutating it.

    ``rows``: events the caller already read (see :func:`_state_of`), to spare a query.
    """
    hit, value = engine_cache.read(game, reader)
    if hit:
        return value
    state = _state_of(game, rows)
    # read before giving it back: once cached, a command may take it and move it on
    value = reader(state)
    keep_engine_game(game, state)
    return value


# --- audit ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditReport:
    game_id: int
    ok: bool
    events_checked: int
    first_bad_seq: int | None = None
    reason: str = ""

    def to_dict(self) -> dict:
        return {
            "game": self.game_id,
            "ok": self.ok,
            "events_checked": self.events_checked,
            "first_bad_seq": self.first_bad_seq,
            "reason": self.reason,
        }


_EVENT_INDEX = re.compile(r"events? (?:from )?(\d+)")


def audit_game(game: Game) -> AuditReport:
    """Check the hash chain, the deal commitments, and that replaying the log through the
    engine reproduces every stored engine event and the game's stored state."""
    rows = list(GameEvent.objects.filter(game=game).order_by("seq"))

    def bad(seq, reason):
        return AuditReport(game.pk, False, len(rows), seq, reason)

    previous = GENESIS_HASH
    for expected_seq, row in enumerate(rows, start=1):
        if row.seq != expected_seq:
            return bad(expected_seq, f"event {expected_seq} is missing")
        previous = row_hash(row, previous, keyed=_is_keyed(game, row.seq))
        if row.hash != previous:
            return bad(row.seq, "hash chain broken: the event was edited")
        if row.seq == game.chain_sealed_seq and not hmac.compare_digest(
            game.chain_seal, chain_seal(game.pk, row.seq, previous)
        ):
            return bad(row.seq, "the seal of the log stored before the chain key does not match")
    if game.chain_sealed_seq > len(rows):
        return bad(len(rows) + 1, f"the log was sealed with {game.chain_sealed_seq} events but has {len(rows)}")
    if len(rows) != game.seq:
        return bad(len(rows) + 1, f"the game says seq {game.seq} but the log has {len(rows)} events")
    if rows and game.head_hash != rows[-1].hash:
        return bad(rows[-1].seq, "the log's last hash is not the one the game recorded")
    if not rows:
        return AuditReport(game.pk, True, 0)

    salt = next((r.payload["salt"] for r in rows if r.type == "DealSaltRevealed"), game.deal_salt)
    last_deal = None
    for row in rows:
        if row.type == "HandDealt":
            last_deal = event_dict(row)
        elif row.type == "DealCommitted" and (
            last_deal is None or deal_commitment(salt, last_deal) != row.payload["commitment"]
        ):
            return bad(row.seq, "the deal does not match its commitment")

    engine_rows = [row for row in rows if is_engine_event(row.type)]
    try:
        replayed = engine.Game.replay([event_dict(row) for row in engine_rows])
    except engine.ReplayError as error:
        match = _EVENT_INDEX.search(str(error))
        index = int(match.group(1)) if match else 0
        seq = engine_rows[min(index, len(engine_rows) - 1)].seq
        return bad(seq, f"replay refused the log: {error}")
    replayed_dicts = [event.to_dict() for event in replayed.events]
    for row, replayed_event in zip(engine_rows, replayed_dicts, strict=False):
        if event_dict(row) != replayed_event:
            return bad(row.seq, "the stored event differs from the engine's")
    if len(replayed_dicts) != len(engine_rows):
        return bad(rows[-1].seq, "the replay produced a different number of events")

    stopped = next((r for r in rows if r.type == "HandLimitReached"), None)
    over = replayed.phase == engine.Phase.GAME_OVER or stopped is not None
    if over != game.is_over:
        return bad(rows[-1].seq, "the stored game status disagrees with the replay")
    if stopped is not None and (
        stopped.payload["totals"] != list(replayed.totals) or replayed.hand_number != stopped.payload["hands"] + 1
    ):
        return bad(stopped.seq, "the hand limit was not where the replay says")
    if over and game.final_totals != list(replayed.totals):
        return bad(rows[-1].seq, "the stored result disagrees with the replay")
    if replayed.phase == engine.Phase.GAME_OVER and game.winner_seat != replayed.winner:
        return bad(rows[-1].seq, "the stored winner disagrees with the replay")
    cached_equal = engine_cache.read(game, lambda state: state == replayed)
    if cached_equal[0] and not cached_equal[1]:
        return bad(rows[-1].seq, "the cached state differs from the replay")
    return AuditReport(game.pk, True, len(rows))
