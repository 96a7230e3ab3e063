"""The ratings app's knobs: each is a Django setting of the same name, or this default.

Rating units are the pool model's (``glicko-elo`` and ``elo``: 1500 on Elo's 400-point scale;
a new player is 1500 ± 80 with ``glicko-elo``, 1500 ± 150 in glicko-elo pools stored before that
start, 1500 ± 350 with ``elo``).
"""

from typing import Any

from django.conf import settings

from ratings.rating import DEFAULT_MODEL

DEFAULTS: dict[str, Any] = {  # a setting's type is its own: Any, as Django's settings are
    # The model a new pool starts with; an existing pool keeps the model stored with its ratings
    # (``rebuild_ratings --model`` switches a pool).
    "RATINGS_MODEL": DEFAULT_MODEL,
    "RATINGS_MODEL_PARAMS": {},
    # Provisional: fewer games than this, or sigma above the pool's provisional sigma: glicko-elo's
    # own (``provisional_sigma``, 58: a newcomer's sigma after 9-10 games, so the 10 games decide; a
    # regular, sigma 15-35, turns provisional again after 3-4 months away), else this share of the
    # model's initial sigma: elo (its sigma passes 0.5 after ~3 games and 0.35 after ~8), bt-full,
    # and glicko-elo pools stored before it had its own (half of 150, passed after ~9 games; a
    # regular turns provisional again after 6-7 months away).
    "RATINGS_PROVISIONAL_GAMES": 10,
    "RATINGS_PROVISIONAL_SIGMA_SHARE": 0.5,
    # Leaderboards list players with at least this many games who played in the last N days.
    "RATINGS_LEADERBOARD_MIN_GAMES": 3,
    "RATINGS_LEADERBOARD_ACTIVE_DAYS": 90,
    # Ranked matchmaking: players are seated together when their ratings (mu) are within the
    # window of every one of them; a player's window grows the longer they wait.
    "RATINGS_MATCH_BASE_WINDOW": 100.0,
    "RATINGS_MATCH_WINDOW_PER_SECOND": 5.0,
    "RATINGS_MATCH_MAX_WINDOW": 1000.0,
    # A waiting queue entry older than this many seconds expires (status ``expired``) at the next
    # matching run, so a player who closed their browser is never seated long after; they re-queue.
    "RATINGS_QUEUE_TIMEOUT_SECONDS": 600,
}


def setting(name: str):
    return getattr(settings, name, DEFAULTS[name])
