"""Clubs, leagues and players. Games and their event logs live in ``tournaments.games``."""

from django.conf import settings
from django.db import models


class Club(models.Model):
    """A Hearts club: it runs leagues and club nights."""

    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=120, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class League(models.Model):
    """A club's league: default rules for its tournaments and its own rating pool."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="leagues")
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=120)
    default_rules = models.JSONField(default=dict, blank=True, help_text="engine.Rules fields")
    rate_games_with_cpus = models.BooleanField(
        default=False, help_text="Rate the humans of ranked games in which CPUs also sat."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club__name", "name"]
        constraints = [models.UniqueConstraint(fields=["club", "slug"], name="league_slug_per_club")]

    def __str__(self):
        return f"{self.club} / {self.name}"


class Player(models.Model):
    """Anyone who takes a seat: a registered user, a guest on a device, or a CPU."""

    class BotKind(models.TextChoices):
        HUMAN = "", "Human"
        RANDOM = "random", "CPU (random)"
        RULE = "rule", "CPU (rule-based)"
        MONTECARLO = "montecarlo", "CPU (Monte Carlo)"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="player"
    )
    display_name = models.CharField(max_length=60)
    club = models.ForeignKey(Club, null=True, blank=True, on_delete=models.SET_NULL, related_name="players")
    bot_kind = models.CharField(max_length=16, choices=BotKind.choices, blank=True, default="")
    is_guest = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["display_name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(bot_kind="") | models.Q(user__isnull=True), name="cpu_has_no_user"
            )
        ]

    def __str__(self):
        return self.display_name

    @property
    def is_cpu(self) -> bool:
        return bool(self.bot_kind)
