"""The live table: ``ws/games/<id>/``. Thin: authenticate, then relay commands to the game
services and stream each viewer the events it may see (protocol: docs/websocket.md).

Broadcasts are notify-then-read: a ``game.advanced`` group message carries only the seq; each
connection reads the events after the last seq it sent from the database and redacts them
for its own seat. A lost message only delays; nothing can leak or be skipped.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from urllib.parse import parse_qs

import orjson
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import get_user_model
from rest_framework.exceptions import ValidationError

from hearts_league.api import DomainError
from tournaments import eventstore, live
from tournaments.feed import feed
from tournaments.models import Game, Player
from tournaments.services import games as game_services
from tournaments.services import presence
from tournaments.services.tickets import ws_ticket_redeem
from tournaments.visibility import visible_event

COMMAND_TYPES = {"pass", "play", "moon_choice"}
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_FLOOD = 4429


def _shows_state(game: Game, rows: list) -> bool:
    """A batch of new events is followed by the viewer's state once the game has started."""
    return bool(rows) and game.status != Game.Status.WAITING


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
    seat: int | None = None
    sent_seq: int = 0

    async def connect(self):
        live.register_server_loop(asyncio.get_running_loop())
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.user = await self._authenticate(query.get("ticket", [""])[0])
        if self.user is None:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        found = await database_sync_to_async(self._seat_of_user)()
        if found is False:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.seat = found
        self.device_id = query.get("device_id", [""])[0][:128]
        self.connection_id = uuid.uuid4().hex
        self.limiter = TokenBucket(settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST)
        self.refused = 0
        self.send_lock = asyncio.Lock()
        try:
            after = max(0, int(query.get("after", ["0"])[0] or 0))
        except ValueError:
            after = 0
        await self.channel_layer.group_add(live.group_name(self.game_id), self.channel_name)
        await self.accept()
        if self.seat is not None:
            live.connection_opened(self.connection_id, self.game_id, self.seat, self.player.pk)
            try:
                await database_sync_to_async(presence.seat_connected)(
                    game_id=self.game_id, seat=self.seat, connection_id=self.connection_id,
                    device_id=self.device_id)
            except BaseException:
                live.connection_closed(self.connection_id)
                raise
        await self.send_json({"type": "hello", "game": self.game_id, "seat": self.seat,
                              "seq": await self._current_seq()})
        await self.catch_up(after)

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
        if not hasattr(self, "send_lock"):
            return  # refused before accept
        await self.channel_layer.group_discard(live.group_name(self.game_id), self.channel_name)
        if self.seat is not None:
            live.connection_closed(self.connection_id)
            await database_sync_to_async(presence.seat_disconnected)(
                game_id=self.game_id, seat=self.seat, player_id=self.player.pk, connection_id=self.connection_id)

    # --- incoming frames ---------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if not self.limiter.take():
            self.refused += 1
            if self.refused > settings.HEARTS_WS_FLOOD_CLOSE:
                await self.close(code=CLOSE_FLOOD)
                return
            await self.error("rate_limited", "Too many frames: slow down.")
            return
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        if len(raw) > settings.HEARTS_WS_MAX_FRAME:
            await self.error("frame_too_large", f"Frames are at most {settings.HEARTS_WS_MAX_FRAME} bytes.")
            return
        try:
            frame = json.loads(raw)
        except ValueError:
            await self.error("invalid_json", "Frames are JSON objects.")
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self.error("invalid_frame", "A frame is a JSON object with a string 'type'.")
            return
        kind = frame["type"]
        if kind == "ping":
            # Group messages are delivered at most once: a ping also sends anything a lost
            # notification held back, so a quiet client is never stuck behind the table.
            await self.catch_up(self.sent_seq)
            await self.send_json({"type": "pong", "seq": self.sent_seq})
        elif kind == "resume":
            after = frame.get("after")
            if not isinstance(after, int) or isinstance(after, bool) or after < 0:
                await self.error("invalid", "'after' must be a non-negative integer.")
                return
            await self.catch_up(after, restart=True)
        elif kind in COMMAND_TYPES:
            await self.command(frame)
        else:
            await self.error("unknown_frame_type", f"Unknown frame type {kind!r}.")

    async def command(self, frame: dict):
        from tournaments.api.games import parse_command

        command_id = frame.get("command_id") if isinstance(frame.get("command_id"), str) else ""
        if self.seat is None:
            await self.error("not_seated", "Spectators cannot play.", command_id=command_id)
            return
        try:
            values, command_id, expected_seq = parse_command(frame)
        except ValidationError as invalid:
            await self.error("invalid", "The command is not valid.", command_id=command_id,
                             errors=invalid.detail)
            return
        try:
            result = await database_sync_to_async(game_services.game_execute_command)(
                game_id=self.game_id, player=self.player, command=values,
                command_id=command_id, expected_seq=expected_seq)
        except DomainError as error:
            await self.error(error.error_code, str(error.detail), command_id=command_id, **error.extra)
            return
        await self.send_json({"type": "ack", "command_id": command_id, "seq": result.game.seq,
                              "duplicate": result.duplicate})
        await self.catch_up(self.sent_seq, at_least=result.game.seq)

    # --- outgoing ----------------------------------------------------------------------------

    async def game_advanced(self, message):
        """Group message: the game is at ``seq``; send what this viewer has not seen yet."""
        if message["seq"] > self.sent_seq:
            await self.catch_up(self.sent_seq, at_least=message["seq"])

    async def catch_up(self, after: int, restart: bool = False, at_least: int | None = None):
        """Send every event after ``after`` and the current state. ``at_least``: the seq the
        game is known to have reached (a notification), so a cached game row that far is fresh
        enough; without it (connecting, resuming) the row is read from the database."""
        async with self.send_lock:
            start = after if restart else max(after, self.sent_seq)
            ready = self._frames_in_memory(start, at_least) if at_least is not None else None
            if ready is None:
                try:
                    ready = await database_sync_to_async(self._frames_after)(start, at_least)
                except _AfterBeyondGame as beyond:
                    # Going on from a seq the game has not reached would skip every event up
                    # to it: go on from the game's seq and tell the client.
                    self.sent_seq = beyond.seq
                    await self.error("after_beyond_game", f"The game is at seq {beyond.seq}; there is "
                                     f"nothing after {start}. Resume from a seq you have received.")
                    return
            frames, seq = ready
            for frame in frames:
                await self.send_json(frame)
            self.sent_seq = max(seq, start) if restart else max(self.sent_seq, seq)

    def _frames_in_memory(self, after: int, at_least: int) -> tuple[list[dict], int] | None:
        """What :meth:`_frames_after` gives, if this process already holds all of it (the usual
        case after a notification: one connection read it, or this process wrote it); else
        None. Runs on the event loop: no thread hop, no database."""
        cached = feed.cached(self.game_id, at_least, after)
        if cached is None:
            return None
        game, rows = cached
        if not _shows_state(game, rows):
            return self._frames(game, rows, after, None)
        hit, view = eventstore.engine_cache.read(game, lambda s: s.view(self.seat))
        return self._frames(game, rows, after, view) if hit else None

    def _frames_after(self, after: int, at_least: int | None) -> tuple[list[dict], int]:
        game = feed.game(self.game_id, at_least)
        if game.seq < after:
            raise _AfterBeyondGame(game.seq)
        if game.seq == after:
            return [], after
        rows = feed.events(game, after)  # up to game.seq: consistent with the view below
        view = None
        if _shows_state(game, rows):
            view = eventstore.read_engine_game(game, lambda s: s.view(self.seat), rows)
        return self._frames(game, rows, after, view)

    def _frames(self, game: Game, rows: list, after: int, view: dict | None) -> tuple[list[dict], int]:
        """Event frames for ``rows`` redacted for this viewer, then the state frame (if ``view``)."""
        frames = [{"type": "event", "seq": row.seq, "event": visible_event(row, self.seat, game.is_over)}
                  for row in rows]
        if view is not None:
            frames.append({"type": "state", "seq": game.seq, "status": game.status,
                           "turn_deadline": game.turn_deadline.isoformat() if game.turn_deadline else None,
                           "state": view})
        return frames, rows[-1].seq if rows else after

    async def error(self, code: str, detail: str, **extra):
        await self.send_json({"type": "error", "code": code, "detail": detail, "seq": self.sent_seq, **extra})

    async def send_json(self, content: dict):
        await self.send(text_data=orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS).decode())

    # --- helpers -------------------------------------------------------------------------------

    async def _authenticate(self, ticket: str):
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            return user
        user_id = await database_sync_to_async(ws_ticket_redeem)(ticket=ticket, game_id=self.game_id)
        if user_id is None:
            return None
        return await database_sync_to_async(lambda: get_user_model().objects.filter(pk=user_id).first())()

    def _seat_of_user(self):
        game = Game.objects.filter(pk=self.game_id).first()
        if game is None:
            return False
        self.player = Player.objects.filter(user_id=self.user.pk).first()
        return game.seats.filter(player__user_id=self.user.pk).values_list("seat", flat=True).first()

    async def _current_seq(self) -> int:
        return await database_sync_to_async(
            lambda: Game.objects.filter(pk=self.game_id).values_list("seq", flat=True).first() or 0)()
