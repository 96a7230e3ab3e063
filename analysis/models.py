"""An analysis of a finished game, its reviewed decisions and its per-seat summaries.

Derived data, rebuilt exactly from the game's log, ``seed_key`` and ``budget``
(``engine.analysis`` draws every decision's seed from public data only). Never part of
the game's event log, which stays the record of what happened.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tournaments.models import Game


class GameAnalysis(models.Model):
    """One game's analysis: its parameters and its progress."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Being computed"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    version = models.PositiveSmallIntegerField(help_text="engine.analysis.ANALYSIS_VERSION it was computed with")
    seed_key = models.CharField(max_length=64, help_text="the game key each decision's seed is hashed from")
    budget = models.JSONField(help_text="engine.analysis.Budget.to_dict(): samples per decision")
    decisions_total = models.PositiveIntegerField(
        default=0, help_text="decisions of the game (passes, plays, moon choices)"
    )
    decisions_done = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=200, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="when its chunks were last sent to the workers")
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "game analyses"

    def __str__(self):
        return f"Analysis of game {self.game_id} ({self.status})"

    @property
    def progress(self) -> float:
        """Share of the decisions reviewed, 0 to 1."""
        if self.status == self.Status.DONE:
            return 1.0
        return self.decisions_done / self.decisions_total if self.decisions_total else 0.0


class AnalysedDecision(models.Model):
    """One decision reviewed from its seat's view just before it (``engine.analysis.review``)."""

    class Kind(models.TextChoices):
        PASS = "pass", "Pass"
        PLAY = "play", "Play"
        MOON_CHOICE = "moon_choice", "Moon choice"

    class Grade(models.TextChoices):
        GOOD = "good", "Good"
        INACCURACY = "inaccuracy", "Inaccuracy"
        MISTAKE = "mistake", "Mistake"
        BLUNDER = "blunder", "Blunder"

    analysis = models.ForeignKey(GameAnalysis, on_delete=models.CASCADE, related_name="decisions")
    position = models.PositiveIntegerField(help_text="index of the decision's event among the game's engine events")
    seq = models.PositiveIntegerField(help_text="seq of the decision's event in the game's log (the replay step)")
    seat = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    hand_number = models.PositiveSmallIntegerField()
    trick_number = models.PositiveSmallIntegerField()
    total_before = models.IntegerField(help_text="the seat's game total before this hand")
    taken = models.JSONField(help_text="a card, three cards (a pass) or a moon choice")
    taken_expected = models.FloatField(
        null=True, help_text="expected points this hand of the option taken (null for a forced play)"
    )
    best = models.JSONField()
    best_expected = models.FloatField(null=True)
    loss = models.FloatField(help_text="taken_expected - best_expected, at least 0")
    loss_se = models.FloatField()
    grade = models.CharField(max_length=16, choices=Grade.choices)
    forced = models.BooleanField()
    options = models.JSONField(help_text="every option compared, best first (for a pass: the sets of three)")
    samples = models.PositiveIntegerField()
    seed = models.BigIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["analysis", "position"], name="analysis_decision_once")]

    def __str__(self):
        return f"{self.kind} by seat {self.seat} at {self.seq}: {self.grade}"


class SeatSummary(models.Model):
    """Per seat of an analysed game: mean loss and counts per grade (``engine.analysis.summarise``)."""

    analysis = models.ForeignKey(GameAnalysis, on_delete=models.CASCADE, related_name="summaries")
    seat = models.PositiveSmallIntegerField()
    decisions = models.PositiveIntegerField()
    choices = models.PositiveIntegerField(help_text="decisions that were not forced")
    total_loss = models.FloatField()
    mean_loss = models.FloatField(help_text="per decision")
    mean_loss_per_choice = models.FloatField()
    good = models.PositiveIntegerField()
    inaccuracy = models.PositiveIntegerField()
    mistake = models.PositiveIntegerField()
    blunder = models.PositiveIntegerField()

    class Meta:
        ordering = ["seat"]
        constraints = [models.UniqueConstraint(fields=["analysis", "seat"], name="analysis_summary_once")]

    def __str__(self):
        return f"Seat {self.seat}: mean loss {self.mean_loss}"
