"""Ratings per pool (the global pool, or one league), their history, and the ranked queue.

A *pool* is ``league=None`` (global) or a league. Every rating row stores the rating model's
name and parameters, so a rebuild uses the model the pool was rated with.
"""

from django.db import models
from django.db.models import Q

from tournaments.models import Game, League, Player


class Rating(models.Model):
    """A player's rating in one pool after their last rated game.

    ``mu``, ``sigma``, ``conservative`` and ``provisional`` are as of that game; they change only
    when the player plays (or a rebuild recomputes them). What players see is computed on read by
    ``ratings.selectors.current_rating``: sigma widened for the days since, and provisional status
    from that widened sigma (``ratings.selectors.is_provisional``). The stored ``provisional`` stays
    as the status the last update ended with (reproduced by a rebuild, filtered on in the admin);
    no read uses it to decide who is provisional.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    league = models.ForeignKey(
        League,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="ratings",
        help_text="empty: the global pool",
    )
    model_name = models.CharField(max_length=32)
    model_params = models.JSONField(default=dict)
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField(help_text="mu - 3 sigma: the leaderboard order")
    games = models.PositiveIntegerField(default=0)
    provisional = models.BooleanField(
        "provisional at last game",
        default=True,
        help_text="too few games or too uncertain, as of the last rated game; leaderboards and the API "
        "recompute it from sigma as of now",
    )
    last_played_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["league_id", "-conservative", "player_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(league__isnull=True), name="one_global_rating_per_player"
            ),
            models.UniqueConstraint(
                fields=["player", "league"], condition=Q(league__isnull=False), name="one_league_rating_per_player"
            ),
        ]
        indexes = [models.Index(fields=["league", "conservative"])]

    def __str__(self):
        pool = self.league or "global"
        return f"{self.player} in {pool}: {self.mu:.1f} ± {self.sigma:.1f}"


class RatingHistory(models.Model):
    """One rated game of one player in one pool: the rating before (as stored) and after."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="history")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_history")
    league = models.ForeignKey(League, null=True, blank=True, on_delete=models.CASCADE, related_name="rating_history")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_history")
    seat = models.PositiveSmallIntegerField()
    total = models.IntegerField(help_text="the player's final total")
    place = models.PositiveSmallIntegerField(help_text="1 = best among the rated players; ties share")
    rated_players = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    played_at = models.DateTimeField(help_text="the game's finished_at")

    class Meta:
        ordering = ["-played_at", "-game_id"]
        verbose_name_plural = "rating history"
        constraints = [
            models.UniqueConstraint(
                fields=["game", "player"],
                condition=Q(league__isnull=True),
                name="one_global_history_row_per_game_player",
            ),
            models.UniqueConstraint(
                fields=["game", "player", "league"],
                condition=Q(league__isnull=False),
                name="one_league_history_row_per_game_player",
            ),
        ]
        indexes = [models.Index(fields=["player", "league", "played_at"])]

    def __str__(self):
        return f"{self.player} game {self.game_id}: {self.mu_before:.1f} -> {self.mu_after:.1f}"


class QueueEntry(models.Model):
    """A player waiting for (or matched to) a ranked game.

    ``cancelled``: a matching run found the waiting player seated (not away) at another game that
    has not finished, which joining would have refused (``already_playing``); the entry ends there
    with that ``reason`` and the game in ``playing_game``, and the player joins again when free.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting"
        MATCHED = "matched", "Matched"
        LEFT = "left", "Left the queue"
        EXPIRED = "expired", "Expired (waited too long)"
        CANCELLED = "cancelled", "Cancelled (sat down at another table)"

    class Reason(models.TextChoices):
        ALREADY_PLAYING = "already_playing", "Seated at another unfinished game"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="queue_entries")
    table_size = models.PositiveSmallIntegerField()
    preset = models.CharField(max_length=16)
    mu = models.FloatField(help_text="the player's global rating when they joined")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    joined_at = models.DateTimeField()
    matched_at = models.DateTimeField(null=True, blank=True)
    left_at = models.DateTimeField(
        null=True, blank=True, help_text="when the player left or the entry expired or was cancelled"
    )
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.CharField(
        max_length=32, choices=Reason.choices, blank=True, default="", help_text="why the entry was cancelled"
    )
    playing_game = models.ForeignKey(
        Game,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="cancelled: the unfinished game the player sat down at",
    )

    class Meta:
        ordering = ["-joined_at", "-id"]
        verbose_name_plural = "queue entries"
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(status="waiting"), name="one_waiting_queue_entry_per_player"
            ),
        ]
        indexes = [models.Index(fields=["status", "table_size", "preset"])]

    def __str__(self):
        return f"{self.player} ({self.table_size}p {self.preset}, {self.status})"
