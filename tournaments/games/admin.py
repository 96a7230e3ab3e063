from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from hearts_league.admin import GuardedLookupsAdmin, deletion_guards
from tournaments.games import visibility
from tournaments.games.eventstore import audit_game
from tournaments.models import Game, GameEvent, GameSeat, Ruling, SeatConnection, TableResult


class VisiblePayload:
    """Shows an event's payload as the viewing staff member may see it (``tournaments.games.visibility``):
    staff see a live game as a spectator does, and a game they sit at as their seat."""

    @admin.display(description="payload")
    def visible_payload(self, row: GameEvent):
        request = getattr(self, "_request", None)
        sight, changes = sight_in_admin(request, row.game)
        if not sight.may_watch:
            return None  # a sealed table of a round this staff member plays in: nothing of it
        if not sight.everything:  # as the seat they held at this event (a newcomer held none before)
            held, passes = visibility.held_at(changes, row.seq)
            sight = visibility.sight_at(row.game, sight, held, own_pass=visibility.pass_shown(row.game, held, passes))
        return visibility.visible_payload(row, sight)

    def get_queryset(self, request):
        self._request = request
        return super().get_queryset(request).select_related("game")

    def get_object(self, request, object_id, from_field=None):
        self._request = request
        return super().get_object(request, object_id, from_field)


def hidden_in_admin(request) -> list[int]:
    """The sealed games of the rounds this staff member sits (or sat) in, read once a request."""
    hidden = getattr(request, "_hearts_hidden_games", None)
    if hidden is None:
        hidden = request._hearts_hidden_games = visibility.sealed_games_hidden_from(request.user)
    return hidden


def _game_of(row) -> int | None:
    """The game a row belongs to, if it belongs to one."""
    if isinstance(row, Game):
        return row.pk
    if isinstance(row, TableResult | Ruling):
        return row.table.game_id
    if isinstance(row, SeatConnection):
        return row.seat.game_id
    return getattr(row, "game_id", None)  # a seat, an event, a table, an invitation, a rating's history


def _refuse_deleting_their_rounds_sealed_rows(request, related) -> str | None:
    """A delete confirmation lists every row it takes by name (a ruling on table 2 seat 1, the
    results that protect a player): for a staff member who plays in the round, a sealed game's
    rows are no rows, so nothing that would take one is deleted or listed before the round is over."""
    hidden = set(hidden_in_admin(request))
    if hidden and any(_game_of(row) in hidden for row in related()):
        return "rows of a table still sealed in a round you play in (until the round is over)"
    return None


deletion_guards.append(_refuse_deleting_their_rounds_sealed_rows)


class LeavesOutTheirRoundsSealedGames:
    """A ModelAdmin whose rows of such a game (``hidden_in_admin``) do not exist for that staff
    member: not in a changelist (an event's type, actor and time tell a trick's winner; a game's
    seq and status, a table's results and rulings, its progress and result), nor behind a link."""

    #: the lookup of the row's game id
    sealed_game_lookup = "pk"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)  # type: ignore[misc]  # a mixin of ModelAdmins
        hidden = hidden_in_admin(request)
        return queryset.exclude(**{f"{self.sealed_game_lookup}__in": hidden}) if hidden else queryset


def sight_in_admin(request, game: Game) -> tuple[visibility.Sight, list]:
    """The staff member's sight of ``game`` and what they held at it, change by change
    (``visibility.holdings``): read once a request and game (a game's page shows every event
    of its log, and Django asks its permissions several times)."""
    cache = getattr(request, "_hearts_sights", None)
    if cache is None:
        cache = {}
        if request is not None:
            request._hearts_sights = cache
    if game.pk not in cache:
        user = request.user if request is not None else None
        player = getattr(user, "player", None) if user is not None and user.is_authenticated else None
        sight = visibility.sight(game, user)
        changes = [] if sight.everything else visibility.holdings(game.pk, getattr(player, "pk", None))
        cache[game.pk] = (sight, changes)
    return cache[game.pk]


def may_watch_in_admin(request, game: Game | None) -> bool:
    """Whether the staff member may open ``game``'s pages in the admin: not a sealed table of a
    round they play in (``visibility.sight``), which they see as any of its players does."""
    return game is None or sight_in_admin(request, game)[0].may_watch


class GameSeatInline(admin.TabularInline):
    model = GameSeat
    extra = 0
    fields = ["seat", "player", "away", "away_since", "disconnected_since", "joined_at"]
    readonly_fields = fields  # type: ignore[assignment]  # flat names; the stubs' fields allow fieldsets' nesting
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class GameEventInline(VisiblePayload, admin.TabularInline):
    """The log, read-only: events are never edited or deleted."""

    model = GameEvent
    extra = 0
    fields = ["seq", "type", "cause", "actor_seat", "recorded_at", "visible_payload", "hash"]
    readonly_fields = fields  # type: ignore[assignment]  # flat names; the stubs' fields allow fieldsets' nesting
    can_delete = False
    ordering = ["seq"]
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(LeavesOutTheirRoundsSealedGames, GuardedLookupsAdmin):
    list_display = ["id", "status", "ranked", "players_count", "seq", "created_at", "finished_at", "replay_link"]
    list_filter = ["status", "ranked", "league"]
    readonly_fields = [
        "rules",
        "status",
        "seq",
        "head_hash",
        "turn_key",
        "turn_deadline",
        "cpu_due_at",
        "final_totals",
        "winner_seat",
        "created_at",
        "started_at",
        "finished_at",
        "created_by",
        "replay_link",
        "audit_link",
    ]
    fields = ["league", "ranked", "turn_seconds", *readonly_fields]
    inlines = [GameSeatInline, GameEventInline]
    actions = ["audit_selected"]

    def has_add_permission(self, request):
        """Games are created by the services (the lobby, the queue, a tournament's round), which
        seat them and write their first events: a bare row here would be a game with no log."""
        return False

    @admin.display(description="replay")
    def replay_link(self, game):
        if not game.seq:
            return "-"
        return format_html('<a href="{}">replay</a>', reverse("game-replay", args=[game.pk]))

    @admin.display(description="audit")
    def audit_link(self, game):
        if game.pk is None:
            return "-"
        return format_html('<a href="{}">audit</a>', reverse("game-audit", args=[game.pk]))

    @admin.action(description="Audit the selected games (hash chain, deal commitments, replay)")
    def audit_selected(self, request, queryset):
        reports = [audit_game(game) for game in queryset]
        bad = [r for r in reports if not r.ok]
        if bad:
            for report in bad:
                self.message_user(
                    request,
                    f"Game {report.game_id}: first bad event {report.first_bad_seq}: {report.reason}",
                    messages.ERROR,
                )
        self.message_user(
            request,
            f"{len(reports) - len(bad)} of {len(reports)} game(s) audited clean.",
            messages.SUCCESS if not bad else messages.WARNING,
        )

    def has_delete_permission(self, request, obj=None):
        return False  # a game's log is kept forever

    def has_view_permission(self, request, obj=None):
        return may_watch_in_admin(request, obj) and super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return may_watch_in_admin(request, obj) and super().has_change_permission(request, obj)


@admin.register(GameEvent)
class GameEventAdmin(VisiblePayload, LeavesOutTheirRoundsSealedGames, GuardedLookupsAdmin):
    sealed_game_lookup = "game_id"
    list_display = ["game", "seq", "type", "cause", "actor_seat", "recorded_at"]
    list_filter = ["type", "cause"]
    link_lookups = ("game__id__exact",)  # a game's log: /admin/tournaments/gameevent/?game__id__exact=<id>
    search_fields = ["game__id"]
    fields = [
        "game",
        "seq",
        "type",
        "version",
        "cause",
        "actor_seat",
        "command_id",
        "recorded_at",
        "visible_payload",
        "hash",
    ]
    readonly_fields = fields  # type: ignore[assignment]  # flat names; the stubs' fields allow fieldsets' nesting

    def has_add_permission(self, request):
        return False

    def has_view_permission(self, request, obj=None):
        return may_watch_in_admin(request, obj.game if obj is not None else None) and super().has_view_permission(
            request, obj
        )

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
