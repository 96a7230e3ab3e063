"""Rating ranked games, one game at a time (the finished-game hook) or a whole pool from scratch.

Both paths go through :func:`_rate_game`, in the order (finished_at, id), so a rebuild
reproduces the stored values exactly (the models round to 10 decimals; floats round-trip).

What counts (per pool: the global pool, and the game's league if it has one):

* ranked, finished games with final totals; casual games never;
* CPU players are never rated (nor guests, who cannot sit at ranked tables anyway);
* a human whose seat a CPU took over (``away``) is rated on the final result;
* a game in which a CPU sat is rated, for its humans among themselves, only in the pool of a
  league with ``rate_games_with_cpus``; the global pool never rates games with CPUs;
* at least two rated players, else nothing;
* before each update a player's sigma widens for the whole days since they last played.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q

from ratings.models import Rating, RatingHistory
from ratings.rating import RatingModel, Skill, make_model
from ratings.selectors import inactive_days, is_provisional, pool_filter, pool_model
from tournaments.models import Game, GameSeat, League, Player

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RatedSeat:
    seat: int
    player_id: int
    total: int


@dataclass
class _Entry:
    """A player's rating in a pool while it is being computed."""

    skill: Skill
    games: int = 0
    last_played_at: datetime | None = None


def _counts(game: Game) -> bool:
    return bool(
        game.ranked and game.status == Game.Status.FINISHED and game.final_totals and game.finished_at is not None
    )


def rated_seats(game: Game, seats: list[GameSeat], league: League | None) -> list[RatedSeat]:
    """The seats rated in ``league``'s pool (``None``: global) for this game, in seat order."""
    if not _counts(game):
        return []
    if league is not None and game.league_id != league.pk:
        return []
    humans = [s for s in seats if s.player is not None and not s.player.is_cpu and not s.player.is_guest]
    cpu_at_table = len(humans) != len(seats)  # a CPU (or an empty or guest seat)
    if cpu_at_table and (league is None or not league.rate_games_with_cpus):
        return []
    if len(humans) < 2:
        return []
    # humans: seats with a player; a game that counts is finished, with its final totals
    return [
        RatedSeat(seat=s.seat, player_id=s.player_id, total=int(game.final_totals[s.seat]))  # type: ignore[arg-type,index]
        for s in sorted(humans, key=lambda s: s.seat)
    ]


def _pools(game: Game) -> list[League | None]:
    return [None, game.league] if game.league_id else [None]


def _rate_game(model: RatingModel, game: Game, rated: list[RatedSeat], entries: dict[int, _Entry]) -> list[dict]:
    """Update ``entries`` in place for one game; returns the history rows' fields."""
    totals = [r.total for r in rated]
    before = [entries[r.player_id] for r in rated]
    finished_at: datetime = game.finished_at  # type: ignore[assignment]  # a rated game is finished
    decayed = [model.decay(e.skill, inactive_days(e.last_played_at, finished_at)) for e in before]
    after = model.rate(decayed, totals)
    rows = []
    for r, entry, new in zip(rated, before, after, strict=True):
        rows.append(
            {
                "player_id": r.player_id,
                "game_id": game.pk,
                "seat": r.seat,
                "total": r.total,
                "place": 1 + sum(1 for t in totals if t < r.total),
                "rated_players": len(rated),
                "mu_before": entry.skill.mu,
                "sigma_before": entry.skill.sigma,
                "mu_after": new.mu,
                "sigma_after": new.sigma,
                "played_at": game.finished_at,
            }
        )
        entry.skill, entry.games, entry.last_played_at = new, entry.games + 1, game.finished_at
    return rows


def _rating_fields(model: RatingModel, entry: _Entry) -> dict:
    return {
        "model_name": model.name,
        "model_params": model.params,
        "mu": entry.skill.mu,
        "sigma": entry.skill.sigma,
        "conservative": entry.skill.conservative,
        "games": entry.games,
        "provisional": is_provisional(model, entry.skill, entry.games),  # as of this game
        "last_played_at": entry.last_played_at,
    }


# --- one game ------------------------------------------------------------------------------------


@transaction.atomic
def rating_record_game(*, game_id: int) -> int:
    """Rate a finished ranked game in every pool it counts in; returns the history rows written.

    Idempotent: the game row is locked and a pool that already has the game's history rows is
    skipped, so a redelivered task changes nothing. Should a game arrive after a later game of
    one of its players was rated in a pool, that pool is rebuilt so the stored values stay
    exactly those of a rebuild.
    """
    # No select_related here: PostgreSQL cannot lock the nullable side of an outer join.
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None or not _counts(game):
        return 0
    seats = list(game.seats.select_related("player").order_by("seat"))
    return sum(_record_in_pool(game, seats, league) for league in _pools(game))


def _record_in_pool(game: Game, seats: list[GameSeat], league: League | None) -> int:
    rated = rated_seats(game, seats, league)
    league_id = league.pk if league else None
    pool = pool_filter(league_id)
    if not rated or RatingHistory.objects.filter(game=game, **pool).exists():
        return 0
    player_ids = sorted(r.player_id for r in rated)
    # Serialize concurrent updates of the same players (always locked in id order).
    list(Player.objects.select_for_update().filter(pk__in=player_ids).order_by("pk").values_list("pk"))
    later = RatingHistory.objects.filter(player_id__in=player_ids, **pool).filter(
        Q(played_at__gt=game.finished_at) | Q(played_at=game.finished_at, game_id__gt=game.pk)
    )
    if later.exists():
        log.warning("game %s arrived after later games of its players: rebuilding pool %s", game.pk, league_id)
        rating_rebuild_pool(league_id=league_id)
        return RatingHistory.objects.filter(game=game, **pool).count()

    model = pool_model(league_id=league_id)
    locked = Rating.objects.select_for_update().filter(player_id__in=player_ids, **pool)
    stored = {row.player_id: row for row in locked.order_by("player_id")}
    entries = {pid: _Entry(model.initial()) for pid in player_ids}
    for pid, stored_row in stored.items():
        entries[pid] = _Entry(Skill(stored_row.mu, stored_row.sigma), stored_row.games, stored_row.last_played_at)
    history = _rate_game(model, game, rated, entries)
    ratings = {}
    for pid in player_ids:
        fields = _rating_fields(model, entries[pid])
        row = stored.get(pid)
        if row is None:
            row = Rating.objects.create(player_id=pid, league_id=league_id, **fields)
        else:
            for name, value in fields.items():
                setattr(row, name, value)
            row.save()
        ratings[pid] = row
    RatingHistory.objects.bulk_create(
        [RatingHistory(rating=ratings[row["player_id"]], league_id=league_id, **row) for row in history]
    )
    return len(history)


# --- a whole pool --------------------------------------------------------------------------------


@dataclass
class RebuildReport:
    league_id: int | None
    model_name: str
    games: int
    players: int


def _finished_ranked_games(league_id: int | None):
    games = (
        Game.objects.filter(
            ranked=True, status=Game.Status.FINISHED, finished_at__isnull=False, final_totals__isnull=False
        )
        .select_related("league")
        .prefetch_related("seats__player")
        .order_by("finished_at", "id")
    )
    return games.filter(league_id=league_id) if league_id is not None else games


@transaction.atomic
def rating_rebuild_pool(
    *, league_id: int | None, model_name: str | None = None, model_params: dict | None = None
) -> RebuildReport:
    """Recompute one pool from its finished ranked games in order (finished_at, id).

    Uses the model stored with the pool's ratings unless ``model_name`` (and ``model_params``)
    switch it. Deterministic: the same games give the same numbers, bit for bit.
    """
    model = make_model(model_name, **(model_params or {})) if model_name else pool_model(league_id=league_id)
    league = League.objects.get(pk=league_id) if league_id is not None else None
    pool = pool_filter(league_id)
    RatingHistory.objects.filter(**pool).delete()
    Rating.objects.filter(**pool).delete()

    entries: dict[int, _Entry] = {}
    history: list[dict] = []
    games = 0
    for game in _finished_ranked_games(league_id).iterator(chunk_size=500):
        rated = rated_seats(game, sorted(game.seats.all(), key=lambda s: s.seat), league)
        if not rated:
            continue
        for r in rated:
            entries.setdefault(r.player_id, _Entry(model.initial()))
        history.extend(_rate_game(model, game, rated, entries))
        games += 1

    Rating.objects.bulk_create(
        [
            Rating(player_id=pid, league_id=league_id, **_rating_fields(model, entry))
            for pid, entry in sorted(entries.items())
        ],
        batch_size=500,
    )
    rating_ids = dict(Rating.objects.filter(**pool).values_list("player_id", "id"))
    RatingHistory.objects.bulk_create(
        [RatingHistory(rating_id=rating_ids[row["player_id"]], league_id=league_id, **row) for row in history],
        batch_size=1000,
    )
    return RebuildReport(league_id=league_id, model_name=model.name, games=games, players=len(entries))


@transaction.atomic
def ratings_rebuild(
    *, league_id: int | None = None, model_name: str | None = None, model_params: dict | None = None
) -> list[RebuildReport]:
    """Rebuild one league's pool (``league_id``), or every pool: the global one and each league's."""
    if league_id is not None:
        return [rating_rebuild_pool(league_id=league_id, model_name=model_name, model_params=model_params)]
    played = Game.objects.filter(ranked=True, league__isnull=False).values_list("league_id", flat=True)
    rated = Rating.objects.filter(league__isnull=False).values_list("league_id", flat=True)
    league_ids = sorted(set(played) | set(rated))
    return [
        rating_rebuild_pool(league_id=pool, model_name=model_name, model_params=model_params)
        for pool in [None, *league_ids]
    ]
