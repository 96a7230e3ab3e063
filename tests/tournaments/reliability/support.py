"""Helpers for the reliability tests: what a viewer must not see, and real processes
(a Celery worker, Daphne, a private redis-server) against the test database."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REDIS_URL
from tests.processes import (  # noqa: F401  (re-exported for the reliability tests)
    ROOT,
    USING_POSTGRES,
    database_url,
    free_port,
    process_env,
    start_worker,
    stop,
    wait_for,
)
from tournaments.games import eventstore
from tournaments.models import Game, GameEvent

needs_real_backends = pytest.mark.skipif(
    not (REDIS_URL and USING_POSTGRES),
    reason="needs PostgreSQL and Redis shared with worker/daphne processes: set REDIS_URL and "
    "DATABASE_URL=postgres://... (.ci/run does)",
)

CARD = re.compile(r'"((?:10|[2-9TJQKA])[CDHS])"')


# --- hidden information -----------------------------------------------------------------------


def forbidden_cards(game_id: int) -> dict:
    """For each viewer (seat numbers, None for a spectator): the cards it must not be shown now,
    every other seat's unplayed cards and unrevealed passes minus what it knows (its own hand,
    what it passed). Computed from the server-side engine state, rebuilt from the log."""
    game = Game.objects.get(pk=game_id)
    return eventstore.read_engine_game(game, lambda state: _forbidden(state, game.players_count))


def _forbidden(state, players: int) -> dict:
    seats = range(players)
    if state.phase == "game_over":
        return {viewer: set() for viewer in [*seats, None]}
    views = {seat: state.view(seat) for seat in seats}
    # passes are pending (in nobody's hand) until everyone has passed; then they are hands again
    pending = state.phase == "passing"
    held = {seat: {str(c) for c in state.hand(seat)} | set((pending and views[seat]["passed"]) or []) for seat in seats}
    result = {None: set().union(*held.values())}
    for viewer in seats:
        others = set().union(*(held[s] for s in seats if s != viewer))
        result[viewer] = others - set(views[viewer]["hand"]) - set(views[viewer]["passed"] or [])
    return result


def secrets_of(game_id: int) -> dict:
    """What no payload may contain while the game is live: the deal salt, the seed, and the
    hands of deals planned but not dealt yet."""
    game = Game.objects.get(pk=game_id)
    started = GameEvent.objects.filter(game=game, type="GameStarted").values_list("payload", flat=True).first()
    dealt = GameEvent.objects.filter(game=game, type="HandDealt").count()
    # the hands only: a one- or two-card kitty matches short lists by chance (legal_plays ["2C"])
    future = [
        sorted(part) for deal in (game.planned_deals or [])[dealt:] for part in deal[: game.rules["players"]] if part
    ]
    return {
        "salt": game.deal_salt,
        "seed": (started or {}).get("seed"),
        "future_hands": future,
        "live": game.status != Game.Status.FINISHED,
    }


def current_hand_part(items: list[dict], event_of) -> list[dict]:
    """The items from the latest HandDealt on (earlier hands' public plays reuse card names)."""
    start = 0
    for index, item in enumerate(items):
        event = event_of(item)
        if event is not None and event.get("type") == "HandDealt":
            start = index
    return items[start:]


def assert_nothing_leaks(payload, viewer, forbidden: set[str], secrets: dict, where: str) -> None:
    text = json.dumps(payload)
    leaked = {card for card in CARD.findall(text) if card in forbidden}
    assert not leaked, f"{where}: viewer {viewer} was shown {sorted(leaked)}"
    if not secrets["live"]:
        return
    for key in ("planned_deals", "deal_salt", '"salt"', '"seed"'):
        assert key not in text, f"{where}: viewer {viewer} was shown {key}"
    assert secrets["salt"] not in text, f"{where}: the deal salt leaked to viewer {viewer}"
    if secrets["seed"] is not None:
        assert str(secrets["seed"]) not in text, f"{where}: the shuffle seed leaked"
    for hand in secrets["future_hands"]:
        assert json.dumps(hand) not in text, f"{where}: a future deal leaked to viewer {viewer}"


# --- processes --------------------------------------------------------------------------------


def redis_server_binary() -> str | None:
    return shutil.which("redis-server")


def start_redis(port: int, log_path: Path | None = None) -> subprocess.Popen:
    process = subprocess.Popen(
        [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=log_path.open("a") if log_path else subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    wait_for(lambda: _answers(port), timeout=10, what=f"redis-server on port {port}")
    return process


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False
