"""Club competitions: a league's seasons and tournaments, their registrations, rounds and tables.

A tournament's round is a set of tables; each table is one ``Game`` (its log is the record of
play). ``TableResult`` keeps what the standings need: each seat's Hearts points, table points
and, with duplicate deals, matchpoints.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.models.core import Game, League, Player

TABLE_SIZE_CHOICES = [(3, "3"), (4, "4"), (5, "5")]


class Season(models.Model):
    """A league's season (e.g. "Spring 2025"): groups its tournaments."""

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="seasons")
    name = models.CharField(max_length=120)
    starts_on = models.DateField(null=True, blank=True)
    ends_on = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["league", "-starts_on", "name"]
        constraints = [models.UniqueConstraint(fields=["league", "name"], name="season_name_per_league")]

    def __str__(self):
        return f"{self.league} / {self.name}"


class Tournament(models.Model):
    """A club tournament: its format and rules, fixed when the first round starts."""

    class Status(models.TextChoices):
        REGISTRATION = "registration", _("Open for registration")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    class Format(models.TextChoices):
        SWISS = "swiss", _("Swiss (similar standings meet)")
        RANDOM = "random", _("Random re-seating every round")
        ROTATION = "rotation", _("Balanced rotation (meet as many as possible)")

    class RoundMode(models.TextChoices):
        FULL_GAME = "full_game", _("A whole game to the end score")
        FIXED_HANDS = "fixed_hands", _("A fixed number of hands")

    class Seeding(models.TextChoices):
        LEAGUE = "league", "By rating: the league's pool, else the global one"
        GLOBAL = "global", "By rating: the global pool"
        LOT = "lot", "By lot"

    class Prefer(models.TextChoices):
        SMALLER = "smaller", _("Tables of 3 when 4s do not fit")
        LARGER = "larger", _("Tables of 5 when 4s do not fit")

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="tournaments")
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments")
    name = models.CharField(max_length=120)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.REGISTRATION)
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.SWISS)
    round_mode = models.CharField(max_length=16, choices=RoundMode.choices, default=RoundMode.FULL_GAME)
    hands_per_round = models.PositiveSmallIntegerField(default=4, help_text="with fixed-hands rounds")
    rounds_planned = models.PositiveSmallIntegerField(default=5, help_text="rounds before any final")
    seeding = models.CharField(
        max_length=8,
        choices=Seeding.choices,
        default=Seeding.LEAGUE,
        help_text="how a Swiss tournament's first round is drawn",
    )
    rules_overrides = models.JSONField(
        default=dict, blank=True, help_text="engine.Rules fields on top of the league's default rules"
    )
    rules = models.JSONField(
        null=True, blank=True, editable=False, help_text="the rules in force, fixed when the first round starts"
    )
    preferred_table_size = models.PositiveSmallIntegerField(default=4, choices=TABLE_SIZE_CHOICES)
    prefer = models.CharField(max_length=8, choices=Prefer.choices, default=Prefer.SMALLER)
    allow_cpu_fill = models.BooleanField(default=False, help_text="CPUs fill tables to the preferred size")
    cpu_bot = models.CharField(
        max_length=16, default="rule", choices=[("random", "random"), ("rule", "rule"), ("montecarlo", "montecarlo")]
    )
    duplicate_deals = models.BooleanField(
        default=False, help_text="every table of a size plays the same deals in a round"
    )
    points_by_place = models.JSONField(default=dict, blank=True, help_text='e.g. {"4": [4, 2, 1, 0]}; empty: defaults')
    final_table_size = models.PositiveSmallIntegerField(default=0, help_text="0: none; 3-5: a final of the top N")
    auto_advance = models.BooleanField(
        default=False, help_text="seat and start the next round when the last table finishes"
    )
    turn_seconds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="None, 30 or 60")
    seed = models.BigIntegerField(null=True, blank=True, help_text="fixes the draws (tests, simulations)")
    created_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournaments_directed"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return self.name

    @property
    def total_rounds(self) -> int:
        return self.rounds_planned + (1 if self.final_table_size else 0)


class Registration(models.Model):
    """A player in a tournament. Late entries play from ``joined_round``; a withdrawal takes
    effect from the next round seated (results already played stay)."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="registrations")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="registrations")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    joined_round = models.PositiveSmallIntegerField(default=1)
    withdrawn_after_round = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="one_registration_each")]

    def __str__(self):
        return f"{self.player} in {self.tournament}"


class Round(models.Model):
    """One round: seated (tables drawn, games not yet created), playing, finished."""

    class Status(models.TextChoices):
        SEATED = "seated", _("Seated")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    is_final = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SEATED)
    seed = models.BigIntegerField(help_text="the lots of this round's seating and deals")
    deals = models.JSONField(
        default=dict,
        blank=True,
        help_text='secret until the round is over: duplicate deals by table size, {"4": [[hand, hand, ...], ...]}',
    )
    deals_salt = models.CharField(
        max_length=64,
        blank=True,
        editable=False,
        help_text="secret until the round is over: salts the deals' commitment",
    )
    deals_commitment = models.CharField(
        max_length=64,
        blank=True,
        help_text="sha256(salt + canonical JSON of the deals), published when the "
        "round starts: with the deals and salt revealed at its end, anyone checks they were fixed in advance",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="one_round_per_number")]

    def __str__(self):
        return f"{self.tournament} round {self.number}"


class Table(models.Model):
    """A table of a round: who sits where (player ids in seat order) and its game."""

    Status = Round.Status  # a table goes through the same stages as its round

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    players = models.JSONField(help_text="player ids in seat order; CPU fill seats hold the CPU's id")
    cpu_fill = models.JSONField(default=list, blank=True, help_text="seats filled by a CPU (not registered)")
    game = models.OneToOneField(Game, null=True, blank=True, on_delete=models.PROTECT, related_name="competition_table")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SEATED)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="one_table_per_number")]

    def __str__(self):
        return f"{self.round} table {self.number}"

    @property
    def size(self) -> int:
        return len(self.players)


class TableResult(models.Model):
    """One seat's result at a table."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="results")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="table_results")
    cpu_fill = models.BooleanField(default=False)
    hearts_points = models.IntegerField()
    table_points = models.FloatField()
    matchpoints = models.FloatField(null=True, blank=True, help_text="with duplicate deals")
    hands_played = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["table", "seat"]
        constraints = [models.UniqueConstraint(fields=["table", "seat"], name="one_result_per_seat")]

    def __str__(self):
        # no points: a name shows wherever the admin lists rows (delete confirmations too),
        # and a sealed table's result is hidden from the players of its round
        return f"{self.table} seat {self.seat}"


class Ruling(models.Model):
    """A director's ruling on a finished table: one seat's Hearts points adjusted, with the
    reason. Rows are never edited: a later ruling on the same seat supersedes the earlier one
    (the table's result keeps the latest, and each ruling keeps the score it replaced)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rulings")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="rulings")
    hearts_points_before = models.IntegerField()
    hearts_points = models.IntegerField(help_text="the adjusted score that counts")
    reason = models.CharField(max_length=500)
    ruled_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "seat", "id"]

    def __str__(self):
        return f"a ruling on {self.table} seat {self.seat}"  # no points, as TableResult's
