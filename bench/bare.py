"""The framework's own cost per card play, for ``bench/load.py --bare``.

A Channels app with no database: one consumer per seat; each table's game is kept in memory
by the Daphne process its four sockets reach (``--route game``); every play sends the table's
group the frames the project sends for it (the acting seat's ``ack``, then one ``update`` frame
with the change's events and a state of about 300 bytes), through the same channel layer as the
project (``RedisPubSubChannelLayer`` on ``REDIS_URL``). The rules are cut to what the load
clients need: no passing, follow suit, thirteen tricks a hand. What the project spends per
play above this app's figure is its own work (the database, the engine, redaction, timers),
not Daphne's, Channels' or Redis's.

With ``BARE_DATABASE_URL`` (``bench/load.py --bare-durable``) every play is also made durable as
the project makes it: one statement that commits by itself (the play's events, as JSON, into
``bench_bare_plays``) on at most four connections of the process's loop, one play of a table at a
time (the project's per-game lock), and the ``ack`` and the update only after it has committed.
That figure is the floor under the requirement that a play be acknowledged only once committed:
the framework plus one durable write, through psycopg's own async API (the project's loop
statements go through libpq itself, a leaner path).

    REDIS_URL=redis://127.0.0.1:6379/3 DJANGO_SETTINGS_MODULE= \\
        python -m daphne -p 8001 bench.bare:application
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from dataclasses import dataclass, field
from urllib.parse import parse_qs

import django
from django.conf import settings

if not settings.configured:
    settings.configure(
        INSTALLED_APPS=["channels"],
        CHANNEL_LAYERS={
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [os.environ["REDIS_URL"]]},
            }
        },
    )
    django.setup()

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import URLRouter
from django.urls import path

SUITS, RANKS = "CDSH", "23456789TJQKA"
DECK = [rank + suit for suit in SUITS for rank in RANKS]


@dataclass
class Table:
    """One table's game: four hands, whose turn it is, the trick on the table."""

    number: int
    hand_limit: int
    seq: int = 0
    hand_number: int = 0
    hands: list[list[str]] = field(default_factory=list)
    trick: list[tuple[int, str]] = field(default_factory=list)
    turn: int = 0
    points: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    over: bool = False
    dealt: dict = field(default_factory=dict)  # the current hand's HandDealt event
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # held by a durable play until it commits

    def deal(self) -> dict:
        self.hand_number += 1
        deck = DECK[:]
        random.Random(f"{self.number}:{self.hand_number}").shuffle(deck)
        self.hands = [sorted(deck[seat::4]) for seat in range(4)]
        self.turn = next(seat for seat, hand in enumerate(self.hands) if "2C" in hand)
        return self.event("HandDealt", hand_number=self.hand_number)

    def event(self, kind: str, **payload) -> dict:
        self.seq += 1
        return {"seq": self.seq, "type": kind, "payload": payload}

    def legal(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        if self.trick:
            lead = self.trick[0][1][1]
            following = [card for card in hand if card[1] == lead]
            if following:
                return following
        return hand

    def view(self) -> dict:
        return {
            "phase": "over" if self.over else "playing",
            "hand_number": self.hand_number,
            "to_act": [] if self.over else [self.turn],
            "legal_plays": [] if self.over else self.legal(self.turn),
            "trick": [{"seat": seat, "card": card} for seat, card in self.trick],
            "scores": self.points,
        }

    def play(self, seat: int, card: str) -> list[dict]:
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        events = [self.event("CardPlayed", seat=seat, card=card)]
        if len(self.trick) < 4:
            self.turn = (seat + 1) % 4
            return events
        lead = self.trick[0][1][1]
        winner = max((c for c in self.trick if c[1][1] == lead), key=lambda c: RANKS.index(c[1][0]))[0]
        self.points[winner] += sum(card[1] == "H" for _, card in self.trick)
        self.trick, self.turn = [], winner
        events.append(self.event("TrickWon", seat=winner))
        if not self.hands[winner]:
            if self.hand_number >= self.hand_limit:
                self.over = True
                events.append(self.event("HandLimitReached", hands=self.hand_limit))
            else:
                self.dealt = self.deal()
                events.append(self.dealt)
        return events


TABLES: dict[int, Table] = {}

DURABLE_URL = os.environ.get("BARE_DATABASE_URL", "")
PLAYS_TABLE = "bench_bare_plays"
"""Where the durable bare app commits each play (``bench/load.py`` creates and empties it)."""


class DurableWrites:
    """The loop's connections for a play's committed write, at most ``size`` at once."""

    def __init__(self, url: str, size: int = 4):
        import psycopg

        self._psycopg, self._url = psycopg, url
        self._idle: list = []
        self._slots = asyncio.Semaphore(size)

    async def commit_play(self, table: int, seq: int, events: list[dict]) -> None:
        async with self._slots:
            connection = self._idle.pop() if self._idle else await self._open()
            try:
                await connection.execute(
                    f"INSERT INTO {PLAYS_TABLE} (game, seq, events) VALUES (%s, %s, %s::jsonb)",
                    [table, seq, json.dumps(events)],
                )
            except BaseException:
                await connection.close()  # a benchmark fails loudly: the play's socket closes
                raise
            self._idle.append(connection)

    async def _open(self):
        # prepare_threshold=0: prepared on its first run, as the project's loop statements are
        return await self._psycopg.AsyncConnection.connect(self._url, autocommit=True, prepare_threshold=0)


_durable: DurableWrites | None = None


def durable_writes() -> DurableWrites | None:
    """This process's durable writes (made on first use, on the server's loop), None without them."""
    global _durable
    if DURABLE_URL and _durable is None:
        _durable = DurableWrites(DURABLE_URL)
    return _durable


class BareSeatConsumer(AsyncWebsocketConsumer):
    """A seat at a table: plays its card if legal, and the table's group gets the update."""

    async def connect(self):
        query = parse_qs(self.scope["query_string"].decode())
        self.number = int(self.scope["url_route"]["kwargs"]["table"])
        self.seat = int(query["seat"][0])
        self.group = f"bare-{self.number}"
        table = TABLES.get(self.number)
        if table is None:
            table = TABLES[self.number] = Table(self.number, int(query.get("hands", ["1"])[0]))
            table.dealt = table.deal()
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        # as the project's catch-up from after=0: the hand's deal with the state
        await self.send(_update_frame(table, [table.dealt]))

    async def dispatch(self, message):
        """Channels' dispatch without its thread hop per message to close stale database
        connections, as the project's consumer does: this app has no database, and a bare app
        that paid for that hop would charge the framework with a cost the project does not pay
        (it took this app from 1.0 to 1.9 ms of Daphne CPU a play)."""
        await getattr(self, get_handler_name(message))(message)

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        frame = json.loads(text_data)
        if frame.get("type") == "ping":
            await self.send('{"type": "pong"}')
            return
        durable = durable_writes()
        if durable is None:
            await self._play(frame, None)
            return
        async with TABLES[self.number].lock:  # one play of a table at a time, as the project's per-game lock
            await self._play(frame, durable)

    async def _play(self, frame: dict, durable: DurableWrites | None) -> None:
        table = TABLES[self.number]
        card = frame.get("card")
        if table.over or table.turn != self.seat or card not in table.legal(self.seat):
            await self.send(json.dumps({"type": "error", "code": "illegal_move"}))
            return
        if frame.get("expected_seq") not in (None, table.seq):
            await self.send(json.dumps({"type": "error", "code": "stale_state", "seq": table.seq}))
            return
        events = table.play(self.seat, card)
        seq, update = table.seq, _update_frame(table, events)
        if durable is not None:
            await durable.commit_play(self.number, seq, events)
        await self.send(json.dumps({"type": "ack", "seq": seq}))
        await self.channel_layer.group_send(self.group, {"type": "table.update", "frame": update})

    async def table_update(self, message):
        await self.send(message["frame"])


def _update_frame(table: Table, events: list[dict]) -> str:
    return json.dumps(
        {
            "type": "update",
            "seq": table.seq,
            "status": "active",
            "turn_deadline": None,
            "events": events,
            "state": table.view(),
        }
    )


application = URLRouter([path("ws/games/<int:table>/", BareSeatConsumer.as_asgi())])
