"""The live board of a tournament: ``ws/tournaments/<id>/`` (protocol: docs/websocket.md).

Read-only and public: on connect, and whenever the tournament changes (the ``tournament.<id>``
group, told by ``notify.tournament_changed``) or one of its round's games does (the connection
also joins each table's ``game.<id>`` group: nothing is added to a game's command path), the
connection reads ``tournaments.competitions.board`` and sends it whole. Changes close together are sent as one board
(at most one every ``HEARTS_BOARD_EVERY`` seconds): a card played at ten tables at once is one
frame, not ten; a board no different from the last one sent is not sent. The board holds no
card, so every viewer gets the same frame.
"""

from __future__ import annotations

import asyncio
import logging
import time

import orjson
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from hearts_league.json_input import JSONInputError, parse_json
from tournaments.competitions.board import board_for_tournament
from tournaments.dispatch import notify
from tournaments.live.consumers import CLOSE_FLOOD, CLOSE_NOT_FOUND, TokenBucket
from tournaments.models import Tournament

log = logging.getLogger(__name__)

# One read of a board serves every connection of this process told of the same change: a board
# read that started after a connection heard of a change shows that change (it was committed
# before the notification was sent). tournament id -> (when the read started, the board).
_boards: dict[int, tuple[float, dict]] = {}
_reading: dict[tuple[int, int], asyncio.Lock] = {}  # (event loop, tournament id) -> one read at a time


class TournamentBoardConsumer(AsyncWebsocketConsumer):
    tournament_id: int
    in_group = False
    last_sent: bytes | None = None  # the last board frame sent
    sealed_games: frozenset[int] = frozenset()  # the board's tables hidden until the round is over

    async def connect(self) -> None:
        notify.register_server_loop(asyncio.get_running_loop())
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        await self.accept()
        if not await database_sync_to_async(Tournament.objects.filter(pk=self.tournament_id).exists)():
            await self.send_json(
                {
                    "type": "error",
                    "code": "tournament_not_found",
                    "detail": f"There is no tournament {self.tournament_id}.",
                }
            )
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.limiter = TokenBucket(settings.HEARTS_WS_RATE, settings.HEARTS_WS_BURST)
        self.refused = 0
        self.pending: asyncio.Task | None = None
        self.heard = time.monotonic()
        self.games: set[int] = set()
        await self.channel_layer.group_add(notify.tournament_group_name(self.tournament_id), self.channel_name)
        self.in_group = True
        await self.send_board()

    async def disconnect(self, code):
        if self.in_group:
            await self.channel_layer.group_discard(notify.tournament_group_name(self.tournament_id), self.channel_name)
            for game_id in self.games:
                await self.channel_layer.group_discard(notify.group_name(game_id), self.channel_name)
        if getattr(self, "pending", None) is not None:
            self.pending.cancel()

    async def tournament_changed(self, message):
        self.heard = time.monotonic()
        if self.pending is None or self.pending.done():
            self.pending = asyncio.ensure_future(self._send_soon())

    async def game_advanced(self, message):
        """A table's game moved on, or its seats changed hands (``game_seats``). A sealed table's
        changes show nothing on the board: they do not even start a frame's countdown, whose
        timing (a frame sooner than another table's own change would send) would tell the
        other tables that it moved."""
        if message.get("game") not in self.sealed_games:
            await self.tournament_changed(message)

    game_seats = game_advanced

    async def game_watchers(self, message):
        """A table's own news in the game group the board follows (who watches it, a rematch
        offered): nothing the board shows."""

    game_rematch = game_watchers

    async def _follow_games(self, board: dict) -> None:
        """Be in the group of each game of the board's round, and of no other."""
        games = {table["game"] for table in board["tables"] if table["game"]}
        for game_id in games - self.games:
            await self.channel_layer.group_add(notify.group_name(game_id), self.channel_name)
        for game_id in self.games - games:
            await self.channel_layer.group_discard(notify.group_name(game_id), self.channel_name)
        self.games = games

    async def _send_soon(self):
        while True:
            await asyncio.sleep(settings.HEARTS_BOARD_EVERY)
            started = time.monotonic()
            await self.send_board()
            if self.heard < started:
                return
            # told of a change while reading: the board read may have started before it

    async def send_board(self, *, again: bool = False):
        """Send the board if it differs from the last one sent (``again``: whatever it is). A
        sealed table's moves change nothing it shows, so they send nothing: no frame tells the
        other tables how fast it plays."""
        try:
            board = await self._board()
        except Exception:
            log.exception("tournament %s: the board could not be read", self.tournament_id)
            return
        await self._follow_games(board)
        self.sealed_games = frozenset(table["game"] for table in board["tables"] if table["sealed"])
        frame = orjson.dumps({"type": "board", **board}, option=orjson.OPT_NON_STR_KEYS)
        if frame == self.last_sent and not again:
            return
        self.last_sent = frame
        await self.send(text_data=frame.decode())

    async def _board(self) -> dict:
        """The board as of a read started after the last change this connection heard of."""
        lock = _reading.setdefault((id(asyncio.get_running_loop()), self.tournament_id), asyncio.Lock())
        async with lock:
            cached = _boards.get(self.tournament_id)
            if cached is not None and cached[0] >= self.heard:
                return cached[1]
            started = time.monotonic()
            board = await database_sync_to_async(self._read)()
            _boards[self.tournament_id] = (started, board)
            if len(_boards) > 1000:  # tournaments nobody follows any more
                _boards.pop(next(iter(_boards)))
                _reading.clear()
            return board

    def _read(self) -> dict:
        tournament = Tournament.objects.select_related("league").get(pk=self.tournament_id)
        return board_for_tournament(tournament)

    async def receive(self, text_data=None, bytes_data=None):
        """``ping`` sends the board again (a lost notification); anything else is refused."""
        if not self.limiter.take():
            self.refused += 1
            if self.refused > settings.HEARTS_WS_FLOOD_CLOSE:
                await self.close(code=CLOSE_FLOOD)
                return
            await self.error("rate_limited", "Too many frames: slow down.")
            return
        try:
            frame = parse_json(
                text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace"),
                max_size=settings.HEARTS_WS_MAX_FRAME,
                max_depth=settings.HEARTS_WS_MAX_DEPTH,
            )
        except JSONInputError:
            await self.error("invalid_frame", "Frames are JSON objects.")
            return
        if isinstance(frame, dict) and frame.get("type") == "ping":
            self.heard = time.monotonic()  # a board read from now on: what a lost notification held back
            await self.send_board(again=True)
            await self.send_json({"type": "pong"})
            return
        await self.error("invalid_frame", "The board is read-only: the only frame it takes is ping.")

    async def error(self, code: str, detail: str):
        await self.send_json({"type": "error", "code": code, "detail": detail})

    async def send_json(self, content: dict):
        await self.send(text_data=orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS).decode())
