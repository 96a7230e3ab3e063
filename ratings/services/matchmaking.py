"""Ranked matchmaking: a queue per (table size, rules preset); close ratings sit together.

A waiting player accepts opponents whose global rating (mu when they joined) is within
their *window*: ``RATINGS_MATCH_BASE_WINDOW`` plus ``RATINGS_MATCH_WINDOW_PER_SECOND`` for every
second waited, at most ``RATINGS_MATCH_MAX_WINDOW``. A table forms when enough players accept
each other (every pair within both players' windows). Matching runs on every join and
periodically (the ``ratings.match_ranked_queue`` task), so windows widen for those who wait.

A waiting entry older than ``RATINGS_QUEUE_TIMEOUT_SECONDS`` expires (status ``expired``) at the
next matching run instead of being seated: its player may have closed their browser long ago.
The client sees ``expired`` and queues again.

A waiting player who has since sat down (not away) at another game that has not finished, a
casual table say, is never seated at a ranked one: the next matching run cancels the entry
(status ``cancelled``, ``reason`` ``already_playing``, ``playing_game`` that game), the state
joining would have refused. Once that game is over the player joins again; their place in the
queue is not kept, since nobody can tell when (or whether) they will be free.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from hearts_league.api import DomainError
from ratings.conf import setting
from ratings.models import QueueEntry, Rating
from ratings.selectors import pool_model, unfinished_game_of, unfinished_games_of
from tournaments.games.services import SeatSpec, game_create
from tournaments.models import Game, Player

log = logging.getLogger(__name__)

PRESETS: dict[str, dict] = {
    "standard": {},
    "short": {"end_score": 50},
    "omnibus": {"jack_of_diamonds": True},
}
"""Rules presets of ranked tables (engine Rules fields on top of the defaults)."""

TABLE_SIZES = (3, 4, 5)


def match_window(*, waited_seconds: float) -> float:
    """How far from their own rating a player who has waited this long accepts opponents."""
    grown = setting("RATINGS_MATCH_BASE_WINDOW") + setting("RATINGS_MATCH_WINDOW_PER_SECOND") * max(0.0, waited_seconds)
    return min(setting("RATINGS_MATCH_MAX_WINDOW"), grown)


def queue_expiry_cutoff(now: datetime) -> datetime:
    """Waiting entries that joined before this moment have expired."""
    return now - timedelta(seconds=setting("RATINGS_QUEUE_TIMEOUT_SECONDS"))


def _expire_waiting(now: datetime, **filters) -> int:
    """Mark the waiting entries older than the timeout (among ``filters``) expired."""
    return QueueEntry.objects.filter(
        status=QueueEntry.Status.WAITING, joined_at__lt=queue_expiry_cutoff(now), **filters
    ).update(status=QueueEntry.Status.EXPIRED, left_at=now)


def _global_mu(player: Player) -> float:
    row = Rating.objects.filter(player=player, league__isnull=True).values_list("mu", flat=True).first()
    return row if row is not None else pool_model(league_id=None).initial().mu


@transaction.atomic
def ranked_queue_join(
    *, player: Player, table_size: int, preset: str = "standard", now: datetime | None = None
) -> QueueEntry:
    """Wait for a ranked table; matching runs at once, so the entry may come back matched.

    Refused while the player is already waiting (``already_queued``) or sits, not away, at a game
    that has not finished (``already_playing``, with the game's id)."""
    now = now or timezone.now()
    if player.is_guest or player.user_id is None or player.is_cpu:
        raise DomainError("account_required", "Ranked games need a registered account.", status=403)
    if table_size not in TABLE_SIZES:
        raise DomainError("invalid_table_size", "A ranked table seats 3, 4 or 5 players.")
    if preset not in PRESETS:
        raise DomainError("invalid_preset", f"The rules preset is one of {', '.join(PRESETS)}.")
    Player.objects.select_for_update().filter(pk=player.pk).first()  # one join at a time per player
    # An entry that has outlived the timeout but not yet met a matching run must not block re-queueing.
    _expire_waiting(now, player=player)
    if QueueEntry.objects.filter(player=player, status=QueueEntry.Status.WAITING).exists():
        raise DomainError("already_queued", "You are already waiting for a ranked game.", status=409)
    if (playing := unfinished_game_of(player_id=player.pk)) is not None:
        raise DomainError(
            "already_playing", f"You are playing game {playing}: finish it first.", status=409, game=playing
        )
    entry = QueueEntry.objects.create(
        player=player, table_size=table_size, preset=preset, mu=_global_mu(player), joined_at=now
    )
    ranked_queue_match(now=now)
    entry.refresh_from_db()
    return entry


@transaction.atomic
def ranked_queue_leave(*, player: Player, now: datetime | None = None) -> QueueEntry:
    """Stop waiting. Too late once matched: the game has started."""
    entry = QueueEntry.objects.select_for_update().filter(player=player).order_by("-joined_at", "-id").first()
    if entry is None or entry.status in (
        QueueEntry.Status.LEFT,
        QueueEntry.Status.EXPIRED,
        QueueEntry.Status.CANCELLED,
    ):
        raise DomainError("not_queued", "You are not waiting for a ranked game.", status=404)
    if entry.status == QueueEntry.Status.MATCHED:
        raise DomainError(
            "already_matched", f"Your ranked game {entry.game_id} has started.", status=409, game=entry.game_id
        )
    entry.status, entry.left_at = QueueEntry.Status.LEFT, now or timezone.now()
    entry.save(update_fields=["status", "left_at"])
    return entry


def _find_table(waiting: list[QueueEntry], size: int, now: datetime) -> list[QueueEntry] | None:
    """The longest-waiting player who can be seated, with the closest ratings that fit everyone's
    window; ``None`` if nobody can be seated yet. ``waiting`` is oldest first."""
    window = {e.pk: match_window(waited_seconds=(now - e.joined_at).total_seconds()) for e in waiting}

    def accept(a: QueueEntry, b: QueueEntry) -> bool:
        return abs(a.mu - b.mu) <= min(window[a.pk], window[b.pk])

    for anchor in waiting:
        table = [anchor]
        for candidate in sorted(
            (e for e in waiting if e is not anchor), key=lambda e: (abs(e.mu - anchor.mu), e.joined_at, e.pk)
        ):
            if all(accept(candidate, member) for member in table):
                table.append(candidate)
                if len(table) == size:
                    return table
    return None


@transaction.atomic
def ranked_queue_match(*, now: datetime | None = None) -> list[Game]:
    """Expire the entries that have waited too long, cancel those whose players sit at another
    unfinished game, then seat every table that can be formed now; returns the ranked games created."""
    now = now or timezone.now()
    waiting = list(
        QueueEntry.objects.select_for_update().filter(status=QueueEntry.Status.WAITING).order_by("joined_at", "id")
    )
    if expired := _expire_waiting(now):  # only rows locked just above: a stale entry is never new
        log.info(
            "ranked queue: %d entries expired after waiting %ss", expired, setting("RATINGS_QUEUE_TIMEOUT_SECONDS")
        )
        waiting = [e for e in waiting if e.joined_at >= queue_expiry_cutoff(now)]
    if cancelled := _cancel_playing(waiting, now):
        waiting = [e for e in waiting if e.pk not in cancelled]
    games = []
    for size in TABLE_SIZES:
        for preset in PRESETS:
            queue = [e for e in waiting if e.table_size == size and e.preset == preset]
            while len(queue) >= size and (table := _find_table(queue, size, now)) is not None:
                games.append(_start_table(table, size, preset, now))
                queue = [e for e in queue if e not in table]
    return games


def _cancel_playing(waiting: list[QueueEntry], now: datetime) -> set[int]:
    """Cancel the waiting entries (locked) whose players now sit, not away, at a waiting or active
    game; returns their ids."""
    playing = unfinished_games_of(player_ids=[e.player_id for e in waiting])
    cancelled = set()
    for entry in waiting:
        if (game_id := playing.get(entry.player_id)) is not None:
            entry.status, entry.left_at = QueueEntry.Status.CANCELLED, now
            entry.reason, entry.playing_game_id = QueueEntry.Reason.ALREADY_PLAYING, game_id
            entry.save(update_fields=["status", "left_at", "reason", "playing_game"])
            cancelled.add(entry.pk)
            log.info("ranked queue: entry %s cancelled, player %s sits at game %s", entry.pk, entry.player_id, game_id)
    return cancelled


def _start_table(table: list[QueueEntry], size: int, preset: str, now: datetime) -> Game:
    seated = sorted(table, key=lambda e: (e.joined_at, e.pk))
    game = game_create(
        creator=seated[0].player,
        rules={**PRESETS[preset], "players": size},
        ranked=True,
        seats=[SeatSpec("player", player_id=e.player_id) for e in seated],
    )
    QueueEntry.objects.filter(pk__in=[e.pk for e in seated]).update(
        status=QueueEntry.Status.MATCHED, game=game, matched_at=now
    )
    return game
