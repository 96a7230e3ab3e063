"""Reads: the pool's rating model, leaderboards, a player's ratings and history, the queue."""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from ratings.conf import setting
from ratings.models import QueueEntry, Rating, RatingHistory
from ratings.rating import RatingModel, Skill, make_model, stored_model
from tournaments.models import Game, GameSeat

RANK_RANGE_Z = 1.39
"""Half-width, in sigmas, of the interval that gives a ranked player their rank range: the intervals
mu ± 1.39 sigma of two equally certain players stop overlapping where the difference between them
becomes significant at 5% (Goldstein & Healy 1995, the intervals for comparing the means of a league
table; 1.39 = 1.96 / sqrt 2)."""


def pool_filter(league_id: int | None, prefix: str = "") -> dict:
    """Query arguments selecting one pool: a league's, or the global one (``None``)."""
    if league_id is None:
        return {f"{prefix}league__isnull": True}
    return {f"{prefix}league_id": league_id}


def pool_model(*, league_id: int | None) -> RatingModel:
    """The model a pool is rated with: the one stored with its ratings, else the configured one."""
    stored = Rating.objects.filter(**pool_filter(league_id)).values("model_name", "model_params").first()
    if stored is not None:
        return stored_model(stored["model_name"], stored["model_params"])
    return make_model(setting("RATINGS_MODEL"), **setting("RATINGS_MODEL_PARAMS"))


def inactive_days(since: datetime | None, until: datetime) -> int:
    """Whole days from a player's last game to ``until``: how far the model widens their sigma
    (before their next game, and on every read of their current rating)."""
    return 0 if since is None else max(0, int((until - since).total_seconds() // 86400))


def current_skill(
    model: RatingModel, mu: float, sigma: float, last_played_at: datetime | None, now: datetime
) -> tuple[Skill, int]:
    """A stored rating as of ``now``: the model's own inactivity decay applied for the whole days
    since the last game (what the model will apply before the next one), and those days."""
    days = inactive_days(last_played_at, now)
    return model.decay(Skill(mu, sigma), days), days


def provisional_sigma(model: RatingModel) -> float:
    """The sigma above which a player of the pool is provisional: the model's own
    ``provisional_sigma`` (glicko-elo's, stored with the pool like its other parameters), else
    ``RATINGS_PROVISIONAL_SIGMA_SHARE`` of the model's initial sigma (elo, bt-full, and glicko-elo
    pools stored before it had one, so that they decide as they did)."""
    own = getattr(model, "provisional_sigma", 0.0)
    return own or setting("RATINGS_PROVISIONAL_SIGMA_SHARE") * model.initial().sigma


def is_provisional(model: RatingModel, skill: Skill, games: int) -> bool:
    """The one definition of provisional: fewer than ``RATINGS_PROVISIONAL_GAMES`` rated games, or
    sigma above the pool's :func:`provisional_sigma`.

    Pass the skill as of the moment that matters: everything players see (leaderboards, a
    player's ratings) passes the decayed skill as of now (:func:`current_rating`), so a regular
    who stays away long enough turns provisional again, and stops being so once a game narrows
    sigma back. ``Rating.provisional`` stores this as of the player's last rated game only.
    """
    return games < setting("RATINGS_PROVISIONAL_GAMES") or skill.sigma > provisional_sigma(model)


@dataclass(frozen=True)
class CurrentRating:
    """A stored rating as of a moment: sigma widened for inactivity, and provisional from that."""

    skill: Skill
    inactive_days: int
    provisional: bool


def current_rating(
    model: RatingModel, *, mu: float, sigma: float, games: int, last_played_at: datetime | None, now: datetime
) -> CurrentRating:
    """What every read shows of a stored rating (computed, never written): the decayed skill as
    of ``now`` (:func:`current_skill`), the whole days inactive, and provisional status from the
    decayed sigma (:func:`is_provisional`)."""
    skill, days = current_skill(model, mu, sigma, last_played_at, now)
    return CurrentRating(skill=skill, inactive_days=days, provisional=is_provisional(model, skill, games))


@dataclass
class LeaderboardRow:
    """One listed player, with sigma and the conservative estimate as of the board's ``now``."""

    player_id: int
    name: str
    mu: float
    sigma: float
    conservative: float
    games: int
    last_played_at: datetime
    inactive_days: int
    rank: int | None = None  # None for provisional players
    rank_range: tuple[int, int] | None = None  # best and worst plausible rank; None for provisional players


@dataclass
class Leaderboard:
    league_id: int | None
    model_name: str
    min_games: int
    active_days: int
    provisional_games: int
    ranked: list[LeaderboardRow] = field(default_factory=list)
    provisional: list[LeaderboardRow] = field(default_factory=list)


def leaderboard(*, league_id: int | None = None, now: datetime | None = None, limit: int | None = None) -> Leaderboard:
    """Established players ranked by the conservative estimate as of ``now`` (ties share a rank),
    and the provisional players apart; both only with enough games and recent activity.
    Provisional is decided as of ``now`` too (:func:`is_provisional` on the decayed sigma), not
    read from the stored flag: a player who has been away long enough moves to the provisional
    list and comes back to the ranked one when a game narrows their sigma again.

    The estimate is the stored rating with sigma widened for the whole days since the player's
    last game, by the pool model's own decay, as it will be widened before their next game: a
    player who stopped playing sinks gradually instead of keeping their rank until the activity
    cutoff drops them. The filters run in the database; the decay and the order in Python over
    plain values of the listed rows (thousands: tens of milliseconds). Nothing is written.
    """
    now = now or timezone.now()
    min_games = setting("RATINGS_LEADERBOARD_MIN_GAMES")
    active_days = setting("RATINGS_LEADERBOARD_ACTIVE_DAYS")
    model = pool_model(league_id=league_id)
    listed = (
        Rating.objects.filter(**pool_filter(league_id))
        .filter(games__gte=min_games, last_played_at__gte=now - timedelta(days=active_days))
        .values_list("player_id", "player__display_name", "mu", "sigma", "games", "last_played_at")
    )
    board = Leaderboard(
        league_id=league_id,
        model_name=model.name,
        min_games=min_games,
        active_days=active_days,
        provisional_games=setting("RATINGS_PROVISIONAL_GAMES"),
    )
    for player_id, name, mu, sigma, games, last_played_at in listed:
        current = current_rating(model, mu=mu, sigma=sigma, games=games, last_played_at=last_played_at, now=now)
        row = LeaderboardRow(
            player_id=player_id,
            name=name,
            mu=mu,
            sigma=current.skill.sigma,
            conservative=current.skill.conservative,
            games=games,
            last_played_at=last_played_at,  # type: ignore[arg-type]  # filtered on last_played_at__gte: never None
            inactive_days=current.inactive_days,
        )
        (board.provisional if current.provisional else board.ranked).append(row)
    for rows in (board.ranked, board.provisional):
        rows.sort(key=lambda row: (-row.conservative, -row.games, row.player_id))
    previous = None
    for position, row in enumerate(board.ranked, start=1):
        row.rank = previous.rank if previous and previous.conservative == row.conservative else position
        previous = row
    set_rank_ranges(board.ranked)
    if limit:
        del board.ranked[limit:], board.provisional[limit:]
    return board


def set_rank_ranges(ranked: list[LeaderboardRow]) -> None:
    """Give each ranked row (``rank`` set) the ranks its player could hold given the sigmas:
    ``(1 + those whose interval mu ± RANK_RANGE_Z sigma lies wholly above theirs, the ranked count -
    those whose interval lies wholly below)``, widened to contain the listed rank if need be (the list
    orders by mu - 3 sigma, which can put a very uncertain player below one whose interval is wholly
    under theirs). Sorted bounds, so O(n log n)."""
    lows = sorted(row.mu - RANK_RANGE_Z * row.sigma for row in ranked)
    highs = sorted(row.mu + RANK_RANGE_Z * row.sigma for row in ranked)
    count = len(ranked)
    for row in ranked:
        above = count - bisect.bisect_right(lows, row.mu + RANK_RANGE_Z * row.sigma)
        below = bisect.bisect_left(highs, row.mu - RANK_RANGE_Z * row.sigma)
        rank: int = row.rank  # type: ignore[assignment]  # ranked rows have their rank set
        row.rank_range = (min(1 + above, rank), max(count - below, rank))


def seeding_ratings(*, player_ids, league_id: int | None) -> dict[int, float]:
    """Each player's rating (mu) for seeding a tournament: in the league's pool if they have
    one there, else in the global pool; players rated in neither are left out."""
    ids = list(player_ids)
    found = dict(Rating.objects.filter(player_id__in=ids, league__isnull=True).values_list("player_id", "mu"))
    if league_id is not None:
        found.update(Rating.objects.filter(player_id__in=ids, league_id=league_id).values_list("player_id", "mu"))
    return found


def player_ratings(*, player_id: int, now: datetime | None = None) -> list[Rating]:
    """A player's rating in every pool, global first, then leagues; each with ``current`` (sigma
    widened for inactivity up to ``now`` by the model stored with it), ``inactive_days`` and
    ``current_provisional`` (from that sigma; the stored ``provisional`` is as of the last game).
    The rows are for reading: never save them."""
    now = now or timezone.now()
    rows = list(
        Rating.objects.filter(player_id=player_id)
        .select_related("league")
        .order_by(F("league_id").asc(nulls_first=True))
    )
    for row in rows:
        current = current_rating(
            stored_model(row.model_name, row.model_params),
            mu=row.mu,
            sigma=row.sigma,
            games=row.games,
            last_played_at=row.last_played_at,
            now=now,
        )
        # read-only extras on the instance, as the docstring says (not model fields)
        row.current, row.inactive_days, row.current_provisional = (  # type: ignore[attr-defined]
            current.skill,
            current.inactive_days,
            current.provisional,
        )
    return rows


def player_rating_history(*, player_id: int, league_id: int | None = None, global_only: bool = False):
    """A player's rated games, newest first: every pool, one league, or the global pool. Each row has
    ``games_then``, the player's rated games in that pool up to and including it (for
    :func:`provisional_after`)."""
    rows = (
        RatingHistory.objects.filter(player_id=player_id)
        .select_related("league", "rating")
        .annotate(
            games_then=Window(
                RowNumber(), partition_by=[F("league_id")], order_by=[F("played_at").asc(), F("game_id").asc()]
            )
        )
    )
    if global_only:
        rows = rows.filter(league__isnull=True)
    elif league_id is not None:
        rows = rows.filter(league_id=league_id)
    return rows.order_by("-played_at", "-game_id", F("league_id").asc(nulls_first=True))


def provisional_after(row: RatingHistory) -> bool:
    """Whether the player was provisional right after this rated game (:func:`is_provisional` on the
    sigma it left, with the games played by then), as ``Rating.provisional`` recorded it then under
    today's settings. ``row`` comes from :func:`player_rating_history`; the model is the pool's, stored
    with the player's rating (a rebuild that switches models recomputes the history too)."""
    model = _stored_model_cached(row.rating.model_name, json.dumps(row.rating.model_params, sort_keys=True))
    games_then = row.games_then  # type: ignore[attr-defined]  # annotated by player_rating_history
    return is_provisional(model, Skill(row.mu_after, row.sigma_after), games_then)


@lru_cache(maxsize=64)
def _stored_model_cached(name: str, params_json: str) -> RatingModel:
    return stored_model(name, json.loads(params_json))


def queue_entry_current(*, player_id: int) -> QueueEntry | None:
    """The player's latest queue entry (waiting, matched or left), if any."""
    entries = QueueEntry.objects.filter(player_id=player_id).select_related("game")
    return entries.order_by("-joined_at", "-id").first()


def unfinished_game_of(*, player_id: int) -> int | None:
    """The id of a game not yet finished (waiting or active) in which the player sits themselves,
    not handed over to a CPU (``away``); the newest if several, else ``None``."""
    return unfinished_games_of(player_ids=[player_id]).get(player_id)


def unfinished_games_of(*, player_ids) -> dict[int, int]:
    """For each of these players who sits themselves (not ``away``) at a game not yet finished
    (waiting or active), the id of that game (the newest if several); one query."""
    seats = GameSeat.objects.filter(
        player_id__in=list(player_ids), away=False, game__status__in=[Game.Status.WAITING, Game.Status.ACTIVE]
    )
    # Oldest first, so the newest game of a player is the one left in the dict.
    return dict(seats.order_by("game__created_at", "game_id").values_list("player_id", "game_id"))
