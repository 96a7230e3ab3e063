"""Clubs, leagues, players, and games with their seats and append-only event logs."""

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.names import display_name_key


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
    # annotated: django-stubs infers no type for a ManyToManyField to a model named by a string
    directors: "models.ManyToManyField[Player, Any]" = models.ManyToManyField(
        "Player",
        blank=True,
        related_name="leagues_directed",
        help_text="Players who run this league's tournaments (staff run every league's).",
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
        HUMAN = "", _("Human")
        RANDOM = "random", _("CPU (random)")
        RULE = "rule", _("CPU (rule-based)")
        MONTECARLO = "montecarlo", _("CPU (Monte Carlo)")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="player"
    )
    display_name = models.CharField(max_length=60)
    name_key = models.CharField(
        max_length=180,
        editable=False,
        default="",
        help_text="display name case-folded (tournaments.names): unique per club",
    )
    club = models.ForeignKey(Club, null=True, blank=True, on_delete=models.SET_NULL, related_name="players")
    bot_kind = models.CharField(max_length=16, choices=BotKind.choices, blank=True, default="")
    is_guest = models.BooleanField(default=False)
    language = models.CharField(
        max_length=8,
        blank=True,
        default="",
        help_text="a code of settings.LANGUAGES; blank: the cookie or the browser decides",
    )
    guest_device_hash = models.CharField(
        max_length=64, blank=True, db_index=True, help_text="sha256 of the device id a guest plays from"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["display_name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(bot_kind="") | models.Q(user__isnull=True), name="cpu_has_no_user"
            ),
            # No two people (CPUs aside) of a club share a display name, whatever its case; nor do
            # two people of no club (guests, most accounts): NULLs are distinct in a unique index.
            models.UniqueConstraint(
                fields=["club", "name_key"],
                condition=models.Q(bot_kind="", club__isnull=False),
                name="display_name_unique_per_club",
            ),
            models.UniqueConstraint(
                fields=["name_key"],
                condition=models.Q(bot_kind="", club__isnull=True),
                name="display_name_unique_without_club",
            ),
        ]

    def __str__(self):
        return self.display_name

    def save(self, *args, **kwargs):
        self.name_key = display_name_key(self.display_name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "display_name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_key"}
        super().save(*args, **kwargs)

    @property
    def is_cpu(self) -> bool:
        return bool(self.bot_kind)


class RoleEnded(models.Model):
    """A fact: a user stopped being staff, or a league's director, at ``ended_at``. Until then
    they could watch sealed tables (staff) or read their results (directors): whoever decides
    who may be seated at a duplicate round's table asks this, not only the role held now.
    Keyed on the user, who is the one that saw: a Player attached to them later knows it too.
    Recorded when the role is taken away (``tournaments.clubs.roles``); never edited."""

    class Role(models.TextChoices):
        STAFF = "staff", _("Staff")
        DIRECTOR = "director", _("League director")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="roles_ended")
    role = models.CharField(max_length=16, choices=Role.choices)
    league = models.ForeignKey(
        League, null=True, blank=True, on_delete=models.CASCADE, help_text="the league directed (directors only)"
    )
    ended_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["user", "role", "ended_at"], name="role_ended_by_user")]

    def __str__(self):
        return f"{self.user}: {self.role} until {self.ended_at:%Y-%m-%d %H:%M}"


class Game(models.Model):
    """A table's game. Its history is the append-only list of ``GameEvent`` rows."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        ACTIVE = "active", _("Being played")
        FINISHED = "finished", _("Finished")

    rules = models.JSONField(help_text="engine.Rules.to_dict(), fixed when the table is created")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    ranked = models.BooleanField(default=False)
    turn_seconds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="None (unlimited), 30 or 60")
    hand_limit = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="stop after this many hands (timed club rounds)"
    )
    league = models.ForeignKey(League, null=True, blank=True, on_delete=models.PROTECT, related_name="games")
    created_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="games_created"
    )
    seq = models.PositiveIntegerField(default=0, help_text="seq of the last event appended")
    head_hash = models.CharField(max_length=64, blank=True, help_text="hash of the last event appended")
    chain_sealed_seq = models.PositiveIntegerField(
        default=0, editable=False, help_text="events up to here were hashed before the chain key (plain sha256)"
    )
    chain_seal = models.CharField(
        max_length=64,
        blank=True,
        editable=False,
        help_text="HMAC of those events' last hash (tournaments.games.eventstore)",
    )
    deal_salt = models.CharField(
        max_length=64, blank=True, editable=False, help_text="secret until the game ends; proves the deals were fixed"
    )
    planned_deals = models.JSONField(
        default=list,
        blank=True,
        editable=False,
        help_text="secret: explicit deals by hand (duplicate tournament deals)",
    )
    sealed = models.BooleanField(
        default=False,
        help_text="its deals are shared with other tables still playing (a duplicate round): "
        "only its own players watch it, and its hands stay hidden, until the round is over",
    )
    turn_key = models.CharField(max_length=32, blank=True, help_text="identifies the turn being awaited")
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    cpu_due_at = models.DateTimeField(null=True, blank=True, db_index=True, help_text="a CPU has been due to act since")
    final_totals = models.JSONField(null=True, blank=True)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    rematch_of = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematch",
        help_text="the finished game whose players were offered this table to play again (one per game)",
    )
    followups_done_at = models.DateTimeField(
        null=True, blank=True, help_text="when the finished-game hooks (ratings, tournament rounds) completed"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self):
        return f"Game {self.pk} ({self.get_status_display()})"

    @property
    def players_count(self) -> int:
        return int(self.rules.get("players", 4))

    @property
    def is_over(self) -> bool:
        return self.status == self.Status.FINISHED


class GameSeat(models.Model):
    """Who sits where. A seat is open (no player), a player's, or a CPU's.

    ``away`` means a CPU plays for the seated player until they come back from the
    device whose token hash is stored here.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="seats")
    device_token_hash = models.CharField(max_length=64, blank=True)
    away = models.BooleanField(default=False)
    away_since = models.DateTimeField(null=True, blank=True)
    disconnected_since = models.DateTimeField(null=True, blank=True)
    joined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_row_per_seat"),
        ]

    def __str__(self):
        return f"{self.game_id}/{self.seat}: {self.player or 'open'}"

    @property
    def played_by_cpu(self) -> bool:
        if self.player_id is None:  # asked of every seat on every move: an empty seat needs no lookup
            return False
        player = self.player
        return self.away or (player is not None and player.is_cpu)


class SeatInvitation(models.Model):
    """A seat held for an invited player at a table not started yet: nobody else may take it
    until the invitee accepts (and sits down), declines, or it expires."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for an answer")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")
        EXPIRED = "expired", _("Expired")
        CANCELLED = "cancelled", _("Cancelled (the table started or closed without them)")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="invitations")
    invited_by = models.ForeignKey(Player, null=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "seat"], condition=models.Q(status="pending"), name="one_pending_invitation_per_seat"
            ),
        ]
        indexes = [models.Index(fields=["player", "status"]), models.Index(fields=["status", "expires_at"])]

    def __str__(self):
        return f"{self.player} invited to {self.game_id}/{self.seat} ({self.status})"


class SeatConnection(models.Model):
    """One open WebSocket of a seated player, and the server process that holds it.

    Rows, not a counter: when a process dies without closing its sockets, its rows are the
    ones the sweeper drops once the process stops sending heartbeats (``ServerHeartbeat``).
    """

    seat = models.ForeignKey(GameSeat, on_delete=models.CASCADE, related_name="open_connections")
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="who sat there when it opened: a seat can change hands before the start",
    )
    connection_id = models.CharField(max_length=32, unique=True)
    server = models.CharField(max_length=100, db_index=True)
    opened_at = models.DateTimeField(db_default=Now(), help_text="the database's clock, as heartbeats")

    def __str__(self):
        return f"{self.seat} on {self.server}"


class ServerHeartbeat(models.Model):
    """The last time a server process holding seated connections said it was alive."""

    server = models.CharField(max_length=100, primary_key=True)
    seen_at = models.DateTimeField(help_text="the database's clock: servers' clocks may disagree")

    def __str__(self):
        return f"{self.server} at {self.seen_at:%H:%M:%S}"


class GameEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("game events are append-only: they are never updated")

    def delete(self):
        raise PermissionError("game events are append-only: they are never deleted")


class GameEvent(models.Model):
    """One fact in a game's history. Never updated, never deleted.

    ``hash = HMAC-SHA256(HEARTS_CHAIN_KEY, previous hash + canonical JSON of this event)``, so
    editing any stored event breaks the chain from there on, and only the key's holder could
    recompute it (see ``tournaments.games.eventstore``).
    """

    class Cause(models.TextChoices):
        PLAYER = "player", _("Player")
        TIMER = "timer", _("Turn timer")
        CPU = "cpu", _("CPU")
        SYSTEM = "system", _("System")

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    version = models.PositiveSmallIntegerField()
    payload = models.JSONField()
    recorded_at = models.DateTimeField()
    command_id = models.CharField(max_length=64, blank=True)
    actor_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    cause = models.CharField(max_length=8, choices=Cause.choices, default=Cause.PLAYER)
    hash = models.CharField(max_length=64)

    objects = GameEventQuerySet.as_manager()

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="gap_free_seq_per_game")]
        indexes = [models.Index(fields=["game", "command_id"])]

    def __str__(self):
        return f"{self.game_id}#{self.seq} {self.type}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionError("game events are append-only: they are never updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("game events are append-only: they are never deleted")
