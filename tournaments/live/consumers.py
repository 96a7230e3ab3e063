"""The live table: ``ws/games/<id>/``. Thin: authenticate, then relay commands to the game
services and stream each viewer the events it may see (protocol: docs/websocket.md).

Broadcasts are notify-then-read: a ``game.advanced`` group message carries only the seq; each
connection reads the events after the last seq it sent from the database and redacts them
for its own seat. A lost message only delays; nothing can leak or be skipped.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from enum import Enum
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from rest_framework.exceptions import ValidationError

from hearts_league.api import DomainError
from hearts_league.i18n import localize, scope_language
from hearts_league.json_input import JSONInputError, parse_json
from hearts_league.text_input import NUL_DETAIL
from tournaments.dispatch import notify
from tournaments.games import eventstore, queries, visibility, watchers
from tournaments.games import services as game_services
from tournaments.games.commands import COMMAND_TYPES, parse_command
from tournaments.games.feed import feed
from tournaments.games.tickets import ws_ticket_redeem
from tournaments.games.visibility import ViewerKind
from tournaments.live import heartbeat, presence
from tournaments.live.frames import encode, event_json, state_frames, update_frame
from tournaments.models import Game, Player, SeatInvitation

log = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_HIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_FLOOD = 4429


def _shows_state(game: Game, rows: list) -> bool:
    """A batch of new events comes with the viewer's state once the game has started."""
    return bool(rows) and game.status != Game.Status.WAITING


class _Refused(Enum):
    """Why a connection is refused before anything else (see ``GameConsumer._open``)."""

    UNAUTHENTICATED = "unauthenticated"
    NOT_FOUND = "game_not_found"


class _StateOut(Enum):
    """The process holds a change's events but not the state after them (``_frames_in_memory``)."""

    STATE_OUT = "state_out"


_STATE_OUT = _StateOut.STATE_OUT


class _AfterBeyondGame(Exception):
    """The client says it has seen events the game does not have (``seq`` is the game's)."""

    def __init__(self, seq: int):
        self.seq = seq


class TokenBucket:
    """``rate`` frames per second with bursts of ``burst``."""

    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class GameConsumer(AsyncWebsocketConsumer):
    game_id: int
    player: Player | None = None  # the connecting user's, set by _open
    seat: int | None = None
    recorded: tuple[int, int] | None  # (seat, player id) this connection is recorded for; unset until then
    sent_seq: int = 0
    # (seq, the seats whose latest pass this connection's player made, holding the seat, once the
    # log was at seq): whose pass a state frame may show (visibility.pass_shown), carried from one
    # update to the next; None until a catch-up has walked the log to a seq
    passes_at: tuple[int, frozenset[int]] | None = None
    language: str = "en"  # error frames speak it (hearts_league.i18n.scope_language)

    async def connect(self):
        notify.register_server_loop(asyncio.get_running_loop())
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode("utf-8", "replace"))
        ticket = query.get("ticket", [""])[0]
        self.language = scope_language(self.scope)  # the profile's choice replaces it once known
        opened = await database_sync_to_async(self._open)(ticket)
        # Refusals come after accept, as a close code the client sees (before accept, a browser
        # sees only a failed handshake, 1006, and reconnects for ever).
        if opened is _Refused.UNAUTHENTICATED:
            await self._refuse(CLOSE_UNAUTHENTICATED, "unauthenticated", "The ticket is unknown, used or expired.")
            return
        if opened is _Refused.NOT_FOUND:
            await self._refuse(CLOSE_NOT_FOUND, "game_not_found", f"There is no game {self.game_id}.")
            return
        self.seat, self.unseated_kind, self.sealed, seq = opened
        self.seat_seq = seq  # the seat was read with the game at this seq
        self.language = scope_language(self.scope, self.player.language if self.player is not None else None)
        if self.sealed and self.seat is None and self.unseated_kind != ViewerKind.STAFF:
            await self._refuse(
                CLOSE_HIDDEN,
                "hidden_until_round_over",
                "This table plays deals other tables of "
                "its round are still playing: it can be watched once the round is over.",
            )
            return
        self.device_id = query.get("device_id", [""])[0][:128]
        self.connection_id = uuid.uuid4().hex
        self.limiter = TokenBucket(settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST)
        self.refused = 0
        self.send_lock = asyncio.Lock()
        try:
            after = max(0, int(query.get("after", ["0"])[0] or 0))
        except ValueError:
            after = 0
        await self.channel_layer.group_add(notify.group_name(self.game_id), self.channel_name)
        self.in_group = True
        await self.accept()
        await self._seat_taken(self.seat)
        await self._watch(self.seat is None)
        await self.send_json({"type": "hello", "game": self.game_id, "seat": self.seat, "seq": seq})
        await self.catch_up(after)

    async def _refuse(self, code: int, error: str, detail: str) -> None:
        await self.accept()
        await self.send_json({"type": "error", "code": error, "detail": localize(detail, self.language), "seq": 0})
        await self.close(code=code)

    async def dispatch(self, message):
        """Channels' dispatch without its thread hop per message to close stale database
        connections: every database call here goes through ``database_sync_to_async``, which
        closes them before and after, and most messages (a notification served from memory)
        need no database at all."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code):
        if not getattr(self, "in_group", False):
            return  # refused: nothing was joined or recorded
        await self.channel_layer.group_discard(notify.group_name(self.game_id), self.channel_name)
        await self._seat_given_up()
        await self._watch(False)

    async def _seat_taken(self, seat: int | None) -> None:
        """This connection plays for ``seat`` from now on: record it (presence, heartbeats)."""
        self.seat = seat
        if seat is None or self.player is None:
            return
        self.recorded = (seat, self.player.pk)
        heartbeat.connection_opened(self.connection_id, self.game_id, seat, self.player.pk)
        try:
            await database_sync_to_async(presence.seat_connected)(
                game_id=self.game_id, seat=seat, connection_id=self.connection_id, device_id=self.device_id
            )
        except BaseException:
            heartbeat.connection_closed(self.connection_id)
            raise

    async def _seat_given_up(self) -> None:
        """The connection no longer plays for the seat it recorded (closed, or the seat changed hands)."""
        recorded, self.recorded = getattr(self, "recorded", None), None
        if recorded is None:
            return
        seat, player_id = recorded
        heartbeat.connection_closed(self.connection_id)
        await presence.seat_disconnected_async(
            game_id=self.game_id, seat=seat, player_id=player_id, connection_id=self.connection_id
        )

    # --- incoming frames ---------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        """Any frame, however hostile, gets an answer; nothing here may kill the connection (its
        disconnect cleanup would never run, and the seat would keep a connection for ever)."""
        try:
            await self._receive(text_data, bytes_data)
        except Exception:
            log.exception("game %s: a frame could not be handled", self.game_id)
            await self.error("server_error", "The server could not handle this frame; nothing was changed.")

    async def _receive(self, text_data, bytes_data):
        if not self.limiter.take():
            self.refused += 1
            if self.refused > settings.HEARTS_WS_FLOOD_CLOSE:
                await self.close(code=CLOSE_FLOOD)
                return
            await self.error("rate_limited", "Too many frames: slow down.")
            return
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        try:
            frame = parse_json(raw, max_size=settings.HEARTS_WS_MAX_FRAME, max_depth=settings.HEARTS_WS_MAX_DEPTH)
        except JSONInputError as refused:
            code = "frame_too_large" if refused.code == "body_too_large" else refused.code
            await self.error(
                code,
                {
                    "frame_too_large": f"Frames are at most {settings.HEARTS_WS_MAX_FRAME} characters.",
                    "json_too_deep": f"Frames nest at most {settings.HEARTS_WS_MAX_DEPTH} levels.",
                    "nul_character": NUL_DETAIL,
                }.get(code, "Frames are JSON objects."),
            )
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self.error("invalid_frame", "A frame is a JSON object with a string 'type'.")
            return
        kind = frame["type"]
        if kind == "ping":
            # Group messages are delivered at most once: a ping also sends anything a lost
            # notification held back, so a quiet client is never stuck behind the table.
            await self.catch_up(self.sent_seq)
            if getattr(self, "watching", False):  # still here: keep the spectators entry from lapsing
                await self._still_watching()
            await self.send_json({"type": "pong", "seq": self.sent_seq})
        elif kind == "resume":
            after = frame.get("after")
            if not isinstance(after, int) or isinstance(after, bool) or after < 0:
                await self.error("invalid", "'after' must be a non-negative integer.")
                return
            await self.catch_up(after, restart=True)
        elif kind in COMMAND_TYPES:
            await self.command(frame)
        elif kind in ("accept_invitation", "decline_invitation"):
            await self.answer_invitation(accept=kind == "accept_invitation")
        else:
            await self.error("unknown_frame_type", f"Unknown frame type {kind!r}.")

    async def command(self, frame: dict):
        command_id = frame.get("command_id") if isinstance(frame.get("command_id"), str) else ""
        if self.player is None:
            await self.error("not_seated", "Spectators cannot play.", command_id=command_id)
            return
        if self.seat is None:  # refused here, not behind the table's own moves (game_services' answer)
            await self.error("not_seated", "You do not sit at this table.", command_id=command_id)
            return
        try:
            values, command_id, expected_seq = parse_command(frame)
        except ValidationError as invalid:
            await self.error("invalid", "The command is not valid.", command_id=command_id, errors=invalid.detail)
            return
        try:
            result = await game_services.game_execute_command_async(
                game_id=self.game_id,
                player=self.player,
                command=values,
                command_id=command_id,
                expected_seq=expected_seq,
            )
        except DomainError as error:
            await self.error(error.error_code, str(error.detail), command_id=command_id, **error.extra)
            return
        await self.send_json(
            {"type": "ack", "command_id": command_id, "seq": result.game.seq, "duplicate": result.duplicate}
        )
        await self.catch_up(self.sent_seq, at_least=result.game.seq)

    async def answer_invitation(self, *, accept: bool):
        """The invitee answers an invitation to this table (as ``POST /api/invitations/{id}/...``)."""
        if self.player is None:
            await self.error("invitation_not_found", "You have no invitation to this table.")
            return
        try:
            invitation = await database_sync_to_async(self._answer_invitation)(accept)
        except DomainError as error:
            await self.error(error.error_code, str(error.detail), **error.extra)
            return
        await self.send_json(
            {"type": "invitation", "invitation": invitation.pk, "status": invitation.status, "seq": self.sent_seq}
        )
        async with self.send_lock:
            await self._seat_changed(await database_sync_to_async(self._current_seat)(), "invitation_accepted")
        await self.catch_up(self.sent_seq)

    def _answer_invitation(self, accept: bool):
        if self.player is None:  # answer_invitation refuses spectators first: narrows for mypy
            raise DomainError("invitation_not_found", "You have no invitation to this table.", status=404)
        pending = SeatInvitation.objects.filter(
            game_id=self.game_id, player=self.player, status=SeatInvitation.Status.PENDING
        ).values_list("pk", flat=True)
        invitation_id = pending.first()
        if invitation_id is None:
            raise DomainError("invitation_not_found", "You have no invitation to this table.", status=404)
        return game_services.invitation_answer(
            invitation_id=invitation_id, player=self.player, accept=accept, device_id=self.device_id
        )

    # --- outgoing ----------------------------------------------------------------------------

    async def game_advanced(self, message):
        """Group message: the game is at ``seq``; send what this viewer has not seen yet."""
        if message["seq"] > self.sent_seq:
            await self.catch_up(self.sent_seq, at_least=message["seq"])

    async def game_seats(self, message):
        """Group message: seats changed hands at a table not started yet (no event records it),
        or at another table of a sealed table's round (staff seated there may no longer watch)."""
        async with self.send_lock:
            seat, self.unseated_kind = await database_sync_to_async(self._current_seat_and_kind)()
            if seat is None and seat == self.seat and self.sealed and self.unseated_kind != ViewerKind.STAFF:
                await self.error(
                    "hidden_until_round_over",
                    "You now play in this table's round, at another table "
                    "playing the same deals: it can be watched once the round is over.",
                )
                await self.close(code=CLOSE_HIDDEN)
                return
            await self._seat_changed(seat, "seats_changed")

    async def game_rematch(self, message):
        """Group message: the finished game's players are offered a new table (an id, no game data)."""
        await self.send_json({"type": "rematch", "game": message["rematch"], "seq": self.sent_seq})

    async def game_watchers(self, message):
        """Group message: who watches the table now, names only."""
        await self.send_json(
            {"type": "spectators", "names": message["names"], "anonymous": message["anonymous"], "seq": self.sent_seq}
        )

    async def _watch(self, watching: bool) -> None:
        """Enter or leave the table's spectators list (an unseated connection is on it), and tell
        the table when that changes it."""
        was, self.watching = getattr(self, "watching", False), watching
        if watching == was:
            return
        try:  # best effort: the list is a courtesy, never a reason to drop a connection
            if watching:
                summary = await database_sync_to_async(watchers.watcher_seen)(
                    game_id=self.game_id, connection_id=self.connection_id, name=self._watcher_name()
                )
            else:
                summary = await database_sync_to_async(watchers.watcher_gone)(
                    game_id=self.game_id, connection_id=self.connection_id
                )
            await self.channel_layer.group_send(
                notify.group_name(self.game_id), {"type": "game.watchers", "game": self.game_id, **summary}
            )
        except Exception:
            log.exception("game %s: the spectators list could not be updated", self.game_id)

    async def _still_watching(self) -> None:
        try:
            await database_sync_to_async(watchers.watcher_seen)(
                game_id=self.game_id, connection_id=self.connection_id, name=self._watcher_name()
            )
        except Exception:
            log.exception("game %s: the spectators list could not be refreshed", self.game_id)

    def _watcher_name(self) -> str:
        return self.player.display_name if self.player is not None else ""

    async def catch_up(self, after: int, restart: bool = False, at_least: int | None = None):
        """Send every event after ``after`` and the current state. ``at_least``: the seq the
        game is known to have reached (a notification), so a cached game row that far is fresh
        enough; without it (connecting, resuming) the row is read from the database."""
        async with self.send_lock:
            start = after if restart else max(after, self.sent_seq)
            ready = None
            if at_least is not None:
                ready = self._frames_in_memory(start, at_least)
                if ready is _STATE_OUT and await game_services.wait_for_live_commands(self.game_id):
                    # A move of this table was being written (passes sent together): now it is not.
                    ready = self._frames_in_memory(start, at_least)
            if ready is None or ready is _STATE_OUT:
                try:
                    ready = await database_sync_to_async(self._frames_after)(start, at_least)
                except _AfterBeyondGame as beyond:
                    # Going on from a seq the game has not reached would skip every event up
                    # to it: go on from the game's seq and tell the client.
                    self.sent_seq = self.seat_seq = beyond.seq
                    await self.error(
                        "after_beyond_game",
                        f"The game is at seq {beyond.seq}; there is "
                        f"nothing after {start}. Resume from a seq you have received.",
                    )
                    return
            frame, seq, seat = ready
            if frame is not None:
                await self.send(text_data=frame)
            self.sent_seq = max(seq, start) if restart else max(self.sent_seq, seq)
            await self._seat_changed(seat, "seats_changed")
            self.seat_seq = self.sent_seq

    def _frames_in_memory(self, after: int, at_least: int) -> tuple[str | None, int, int | None] | _StateOut | None:
        """What :meth:`_frames_after` gives, if this process already holds all of it (the usual
        case after a notification: one connection read it, or this process wrote it); else
        ``_STATE_OUT`` if it holds the events but not the state after them (a move of the game is
        being written), or None. Runs on the event loop: no thread hop, no database."""
        if after != self.seat_seq:
            return None  # the seat held at ``after`` is read from the log (_frames_after)
        passes = self._passes_known(after)
        if passes is None:
            return None  # and whose passes were theirs, once per connection at most
        cached = feed.cached(self.game_id, at_least, after)
        if cached is None:
            return None
        game, rows = cached
        if not rows:  # nothing new (a retried command's ack: its events were sent already)
            return None, after, self.seat
        seats, seat = self._seats_through(rows, self.seat)
        along = visibility.passes_along(rows, seats, passes)
        if not _shows_state(game, rows):
            self._keep_passes(rows, along[-1])
            return self._update(game, rows, seats, along, seat, after, None)
        own_pass = visibility.pass_shown(game, seat, along[-1])
        hit, view = eventstore.engine_cache.read(game, lambda s: state_frames.view(game, s, seat, own_pass=own_pass))
        if not hit:
            return _STATE_OUT
        self._keep_passes(rows, along[-1])
        return self._update(game, rows, seats, along, seat, after, view)

    def _frames_after(self, after: int, at_least: int | None) -> tuple[str | None, int, int | None]:
        """The update frame of every event after ``after`` (None if there is none), the seq it
        goes to, and the seat this connection's player holds then."""
        game = feed.game(self.game_id, at_least)
        if game.seq < after:
            raise _AfterBeyondGame(game.seq)
        if game.seq == after:
            return None, after, self.seat
        rows = feed.events(game, after)  # up to game.seq: consistent with the view below
        held, passes = self._holding_at(after)
        seats, seat = self._seats_through(rows, held)
        along = visibility.passes_along(rows, seats, passes)
        self._keep_passes(rows, along[-1])
        view = None
        if _shows_state(game, rows):
            own_pass = visibility.pass_shown(game, seat, along[-1])
            view = eventstore.read_engine_game(
                game, lambda s: state_frames.view(game, s, seat, own_pass=own_pass), rows
            )
        return self._update(game, rows, seats, along, seat, after, view)

    def _seats_through(self, rows: list, seat: int | None) -> tuple[list[int | None], int | None]:
        """The seat this connection's player holds at each of ``rows`` and after the last, given
        ``seat``, the one held just before the first: the log says who sits where
        (PlayersSeated, SeatReassigned), so every frame is redacted for whoever holds the seat at
        that event, never for the seat held at connect."""
        player_id = self.player.pk if self.player is not None else None
        seats = []
        for row in rows:
            seat = visibility.seat_after_event(row.type, row.payload, seat, player_id)
            seats.append(seat)
        return seats, seat

    def _holding_at(self, seq: int) -> tuple[int | None, frozenset[int]]:
        """The seat this connection's player held once the log was at ``seq`` and the seats whose
        latest pass they made by then: the connection's own at ``seat_seq`` if it knows them,
        else the log's (a resume, a connection going on from before the seq its seat was read
        at, or the first update of one that connected up to date)."""
        known = self._passes_known(seq)
        if seq == self.seat_seq and known is not None:
            return self.seat, known
        held, passes = visibility.holding_at(self.game_id, self.player.pk if self.player is not None else None, seq)
        return (self.seat if seq == self.seat_seq else held), passes

    def _passes_known(self, seq: int) -> frozenset[int] | None:
        """The seats whose latest pass this connection's player made, once the log was at
        ``seq``, if the connection has walked the log to there (a viewer with no player, none)."""
        if self.player is None:
            return frozenset()
        return self.passes_at[1] if self.passes_at is not None and self.passes_at[0] == seq else None

    def _keep_passes(self, rows: list, passes: frozenset[int]) -> None:
        """``passes`` as they stand after ``rows``, for the next update to go on from."""
        if rows:
            self.passes_at = (rows[-1].seq, passes)

    def _update(
        self,
        game: Game,
        rows: list,
        seats: list,
        along: list[frozenset[int]],
        seat: int | None,
        after: int,
        view: bytes | None,
    ) -> tuple[str | None, int, int | None]:
        """The update frame of ``rows``, each event redacted for the seat held at it (and whose
        passes were this player's then: ``along``), with ``view`` (the JSON of the state of
        ``seat`` after the last row; None before the game starts), as the text sent; None if
        there are no rows."""
        if not rows:
            return None, after, seat
        sights: dict[tuple[int | None, bool], visibility.Sight] = {}
        events: list[bytes] = []
        shown = len(rows)
        if seat is None and game.sealed and self.unseated_kind != ViewerKind.STAFF:
            # No longer seated at a table whose deals others still play: nothing from the event
            # after which they never sit again, no state (the seat frame and the close follow).
            # Events before their first seat (a director seated them mid-game) are shown.
            while shown and seats[shown - 1] is None:
                shown -= 1
        for row, held, passes in zip(rows[:shown], seats[:shown], along[:shown], strict=True):
            key = (held, visibility.pass_shown(game, held, passes))
            sight = sights.get(key) or sights.setdefault(key, self._sight(game, *key))
            events.append(event_json(row, sight))
        if shown < len(rows):
            seq = rows[shown - 1].seq if shown else after
            return (update_frame(game, events, None, seq=seq) if events else None), seq, None
        return update_frame(game, events, view), rows[-1].seq, seat

    def _sight(self, game: Game, seat: int | None, own_pass: bool) -> visibility.Sight:
        kind = ViewerKind.SEATED if seat is not None else self.unseated_kind
        return visibility.sight_of_seat(game, seat, kind, own_pass=own_pass)

    async def _seat_changed(self, seat: int | None, reason: str) -> None:
        """The seat this connection's player holds is now ``seat``: say so, move the presence
        record, and close if the game may no longer be watched (a sealed table)."""
        if seat == self.seat:
            return
        await self._seat_given_up()
        await self._seat_taken(seat)
        await self._watch(seat is None)
        await self.send_json({"type": "seat", "seat": seat, "seq": self.sent_seq, "reason": reason})
        if seat is None and self.sealed and self.unseated_kind != ViewerKind.STAFF:
            await self.error(
                "hidden_until_round_over",
                "You no longer sit at this table, which plays deals "
                "other tables are still playing: it can be watched once the round is over.",
            )
            await self.close(code=CLOSE_HIDDEN)

    async def error(self, code: str, detail: str, **extra):
        """An error frame; ``detail`` (English in the code) in the connection's language."""
        await self.send_json(
            {"type": "error", "code": code, "detail": localize(detail, self.language), "seq": self.sent_seq, **extra}
        )

    async def send_json(self, content: dict):
        await self.send(text_data=encode(content))

    # --- helpers -------------------------------------------------------------------------------

    def _open(self, ticket: str) -> tuple[int | None, ViewerKind, bool, int] | _Refused:
        """Who connects and what they may see, in one trip to the database thread and one
        statement: the user (the session's, or the ticket's), their player, the seat they hold
        now, their kind when not seated, whether the game is sealed, and its seq (``hello``'s)."""
        user: Any = self.scope.get("user")  # the session's (a lazy object), else the ticket's User
        if user is not None and user.is_authenticated:
            user_id = user.pk
        else:
            user_id = ws_ticket_redeem(ticket=ticket, game_id=self.game_id)
            if user_id is None and ticket:
                return _Refused.UNAUTHENTICATED
        found = queries.viewer_at(self.game_id, user_id)
        if found is None:
            return _Refused.NOT_FOUND
        game, self.user, self.player, seat = found
        if user_id is not None and self.user is None:
            return _Refused.UNAUTHENTICATED  # the ticket's user is gone
        unseated = visibility.sight(game, self.user, seats=[]).kind
        return seat, unseated, game.sealed, game.seq

    def _current_seat(self) -> int | None:
        return visibility.seat_of_user(Game.objects.get(pk=self.game_id), self.user)

    def _current_seat_and_kind(self) -> tuple[int | None, ViewerKind]:
        """The seat this connection's user holds now, and their kind when not seated."""
        game = Game.objects.get(pk=self.game_id)
        return visibility.seat_of_user(game, self.user), visibility.sight(game, self.user, seats=[]).kind
