"""Django admin for a tournament director: leagues' seasons, tournaments, registrations, rounds
and tables; actions that seat, start and finish rounds and swap a player; standings, printable
table cards and a results sheet. Thin: every change goes through ``services.competitions``."""

from django import forms
from django.contrib import admin, messages
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from hearts_league.admin import GuardedLookupsAdmin
from hearts_league.api import DomainError
from hearts_league.i18n import localize
from tournaments.competitions import selectors, services
from tournaments.games.admin import LeavesOutTheirRoundsSealedGames
from tournaments.models import Player, Registration, Round, Ruling, Season, Table, TableResult, Tournament


def _run(modeladmin, request, queryset, label, service, **kwargs):
    """Call a service for each selected tournament, reporting success or the refusal's code."""
    for tournament in queryset:
        try:
            result = service(tournament_id=tournament.pk, **kwargs)
        except DomainError as error:
            modeladmin.message_user(
                request, f"{tournament}: {localize(str(error.detail))} ({error.error_code})", messages.ERROR
            )
        else:
            modeladmin.message_user(request, f"{tournament}: {label} {result}", messages.SUCCESS)


@admin.register(Season)
class SeasonAdmin(GuardedLookupsAdmin):
    list_display = ["name", "league", "starts_on", "ends_on"]
    list_filter = ["league"]
    search_fields = ["name", "league__name"]


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    fields = ["player", "status", "joined_round", "withdrawn_after_round"]
    readonly_fields = ["status", "joined_round", "withdrawn_after_round"]
    raw_id_fields = ["player"]

    def has_change_permission(self, request, obj=None):
        return False  # registrations change through the register / withdraw actions


class RoundInline(admin.TabularInline):
    model = Round
    extra = 0
    fields = ["number", "status", "is_final", "started_at", "finished_at", "cards"]
    readonly_fields = fields  # type: ignore[assignment]  # flat names; the stubs' fields allow fieldsets' nesting
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="table cards")
    def cards(self, obj):
        return format_html(
            '<a href="{}" target="_blank">print</a>', reverse("admin:tournaments_round_cards", args=[obj.pk])
        )


@admin.register(Tournament)
class TournamentAdmin(GuardedLookupsAdmin):
    # No ``seed`` here, shown, edited or set: each round's seed follows from it (seed * 1000 + the
    # round's number), and every deal from that. Without one each round draws a random seed.
    list_display = ["name", "league", "season", "status", "format", "round_mode", "players", "pages"]
    list_filter = ["status", "format", "league"]
    search_fields = ["name"]
    readonly_fields = ["status", "rules", "created_by", "started_at", "finished_at"]
    inlines = [RegistrationInline, RoundInline]
    actions = ["seat_round", "start_round", "finish_round"]
    fieldsets = [
        (None, {"fields": ["league", "season", "name", "status", "created_by", "started_at", "finished_at"]}),
        (
            "Format",
            {
                "fields": [
                    "format",
                    "round_mode",
                    "hands_per_round",
                    "rounds_planned",
                    "seeding",
                    "final_table_size",
                    "auto_advance",
                ]
            },
        ),
        (
            "Tables",
            {"fields": ["preferred_table_size", "prefer", "allow_cpu_fill", "cpu_bot", "turn_seconds"]},
        ),
        ("Rules and scoring", {"fields": ["rules_overrides", "rules", "duplicate_deals", "points_by_place"]}),
    ]

    def get_readonly_fields(self, request, obj=None):
        fixed = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.rounds.exists():
            # Whether its rounds share deals decides what the other tables may see of each
            # (sealed tables, hidden results): it stays as its first round was played.
            fixed.append("duplicate_deals")
        return fixed

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        # A new tournament goes through the service, which checks its settings and rules.
        fields = {
            name: form.cleaned_data[name]
            for name in (
                "season",
                "name",
                "format",
                "round_mode",
                "hands_per_round",
                "rounds_planned",
                "seeding",
                "rules_overrides",
                "preferred_table_size",
                "prefer",
                "allow_cpu_fill",
                "cpu_bot",
                "duplicate_deals",
                "points_by_place",
                "final_table_size",
                "auto_advance",
                "turn_seconds",
            )
        }
        created = services.tournament_create(
            league=form.cleaned_data["league"], created_by=getattr(request.user, "player", None), **fields
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    def save_formset(self, request, form, formset, change):
        if formset.model is not Registration:
            return super().save_formset(request, form, formset, change)
        for registration in formset.save(commit=False):
            try:
                services.tournament_register(tournament_id=form.instance.pk, player=registration.player)
            except DomainError as error:
                self.message_user(request, f"{registration.player}: {localize(str(error.detail))}", messages.ERROR)
        for registration in formset.deleted_objects:
            try:
                services.tournament_withdraw(tournament_id=form.instance.pk, player=registration.player)
            except DomainError as error:
                self.message_user(request, f"{registration.player}: {localize(str(error.detail))}", messages.ERROR)

    @admin.display(description="players")
    def players(self, obj):
        return obj.registrations.filter(status=Registration.Status.ACTIVE).count()

    @admin.display(description="pages")
    def pages(self, obj):
        return format_html(
            '<a href="{}">standings</a> · <a href="{}" target="_blank">results sheet</a>'
            ' · <a href="{}">CSV</a> · <a href="{}">NDJSON</a> · <a href="{}">walk-in</a> · <a href="{}">console</a>',
            reverse("admin:tournaments_tournament_standings", args=[obj.pk]),
            reverse("admin:tournaments_tournament_results", args=[obj.pk]),
            f"/api/tournaments/{obj.pk}/results/?format=csv",
            f"/api/tournaments/{obj.pk}/results/?format=jsonl",
            reverse("admin:tournaments_tournament_walk_in", args=[obj.pk]),
            f"/director/tournaments/{obj.pk}/",
        )

    @admin.action(description="Seat the next round (draw the tables)")
    def seat_round(self, request, queryset):
        _run(self, request, queryset, "seated", services.tournament_seat_round)

    @admin.action(description="Start the round (create the tables' games)")
    def start_round(self, request, queryset):
        _run(self, request, queryset, "started", services.tournament_start_round)

    @admin.action(description="Finish the round being played")
    def finish_round(self, request, queryset):
        _run(self, request, queryset, "finished", services.tournament_finish_round)

    def get_urls(self):
        return [
            path(
                "<int:pk>/standings/",
                self.admin_site.admin_view(self.standings_view),
                name="tournaments_tournament_standings",
            ),
            path(
                "<int:pk>/walk-in/",
                self.admin_site.admin_view(self.walk_in_view),
                name="tournaments_tournament_walk_in",
            ),
            path(
                "<int:pk>/results-sheet/",
                self.admin_site.admin_view(self.results_view),
                name="tournaments_tournament_results",
            ),
            *super().get_urls(),
        ]

    def standings_view(self, request, pk):
        tournament = get_object_or_404(Tournament, pk=pk)
        context = {
            **self.admin_site.each_context(request),
            "tournament": tournament,
            "title": "Standings",
            "lines": selectors.standings_for_tournament(tournament),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "tournaments/standings.html", context)

    def walk_in_view(self, request, pk):
        tournament = get_object_or_404(Tournament, pk=pk)
        form = WalkInForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                services.tournament_register_walk_in(tournament_id=tournament.pk, **form.cleaned_data)
            except DomainError as error:
                form.add_error("display_name", f"{localize(str(error.detail))} ({error.error_code})")
            else:
                self.message_user(request, "Registered.", messages.SUCCESS)
                return redirect("admin:tournaments_tournament_change", tournament.pk)
        context = {
            **self.admin_site.each_context(request),
            "table": None,
            "form": form,
            "opts": self.model._meta,
            "title": f"A walk-in player for {tournament}",
        }
        return TemplateResponse(request, "tournaments/walk_in.html", context)

    def results_view(self, request, pk):
        tournament = get_object_or_404(Tournament, pk=pk)
        return TemplateResponse(
            request, "tournaments/results_sheet.html", selectors.results_sheet(tournament, request.user)
        )


class TableInline(admin.TabularInline):
    model = Table
    extra = 0
    fields = ["number", "players", "cpu_fill", "game", "status"]
    readonly_fields = fields  # type: ignore[assignment]  # flat names; the stubs' fields allow fieldsets' nesting
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Round)
class RoundAdmin(GuardedLookupsAdmin):
    list_display = ["__str__", "status", "is_final", "started_at", "finished_at"]
    list_filter = ["status", "tournament"]
    # The seed and the duplicate deals stay out of every page (staff included): the deals are
    # shown, with their salt, once every table has played them; the seed never is.
    fields = readonly_fields = [  # type: ignore[assignment]  # flat names, as above
        "tournament",
        "number",
        "is_final",
        "status",
        "deals_commitment",
        "revealed_deals",
        "revealed_salt",
        "started_at",
        "finished_at",
    ]
    inlines = [TableInline]

    @admin.display(description="deals")
    def revealed_deals(self, round_):
        return round_.deals if round_.status == Round.Status.FINISHED else "hidden until the round is over"

    @admin.display(description="deals salt")
    def revealed_salt(self, round_):
        return round_.deals_salt if round_.status == Round.Status.FINISHED else "hidden until the round is over"

    def has_add_permission(self, request):
        return False

    def get_urls(self):
        return [
            path("<int:pk>/cards/", self.admin_site.admin_view(self.cards_view), name="tournaments_round_cards"),
            *super().get_urls(),
        ]

    def cards_view(self, request, pk):
        round_ = get_object_or_404(Round.objects.select_related("tournament"), pk=pk)
        context = {"round": round_, "cards": selectors.table_cards(round_)}
        return TemplateResponse(request, "tournaments/table_cards.html", context)


class WalkInForm(forms.Form):
    display_name = forms.CharField(max_length=60, help_text="a new player of the club, registered at once")


class SwapForm(forms.Form):
    player_out = forms.ModelChoiceField(Player.objects.all(), help_text="who leaves this seat")
    player_in = forms.ModelChoiceField(
        Player.objects.all(),
        help_text="who takes it (from another table, or a registered player sitting out)",
    )
    correction = forms.BooleanField(required=False, help_text="the round has started: correct who sits where")


class RulingForm(forms.Form):
    seat = forms.TypedChoiceField(coerce=int, help_text="whose score is adjusted")
    hearts_points = forms.IntegerField(min_value=-10_000, max_value=10_000, help_text="the adjusted Hearts points")
    reason = forms.CharField(
        max_length=500, widget=forms.Textarea(attrs={"rows": 2}), help_text="shown in the results next to the score"
    )


class RulingInline(admin.TabularInline):
    model = Ruling
    extra = 0
    fields = ["seat", "player", "hearts_points_before", "hearts_points", "reason", "ruled_by", "created_at"]
    readonly_fields = fields  # type: ignore[assignment]  # flat names; the stubs' fields allow fieldsets' nesting
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class TableResultInline(admin.TabularInline):
    model = TableResult
    extra = 0
    fields = ["seat", "player", "cpu_fill", "hearts_points", "table_points", "matchpoints", "hands_played"]
    readonly_fields = fields  # type: ignore[assignment]  # flat names; the stubs' fields allow fieldsets' nesting
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Table)
class TableAdmin(LeavesOutTheirRoundsSealedGames, GuardedLookupsAdmin):
    sealed_game_lookup = "game_id"  # its results and rulings are the sealed game's result
    list_display = ["__str__", "status", "game", "swap", "rule"]
    list_filter = ["status", "round__tournament"]
    readonly_fields = ["round", "number", "players", "cpu_fill", "game", "status", "finished_at"]
    inlines = [TableResultInline, RulingInline]

    def has_add_permission(self, request):
        return False

    @admin.display(description="swap a player")
    def swap(self, obj):
        return format_html('<a href="{}">swap</a>', reverse("admin:tournaments_table_swap", args=[obj.pk]))

    @admin.display(description="ruling")
    def rule(self, obj):
        return format_html('<a href="{}">adjust a score</a>', reverse("admin:tournaments_table_rule", args=[obj.pk]))

    def get_urls(self):
        return [
            path("<int:pk>/swap/", self.admin_site.admin_view(self.swap_view), name="tournaments_table_swap"),
            path("<int:pk>/rule/", self.admin_site.admin_view(self.rule_view), name="tournaments_table_rule"),
            *super().get_urls(),
        ]

    def swap_view(self, request, pk):
        table = get_object_or_404(self.get_queryset(request).select_related("round__tournament"), pk=pk)
        form = SwapForm(request.POST or None)
        form.fields["player_out"].queryset = Player.objects.filter(pk__in=table.players)
        if request.method == "POST" and form.is_valid():
            try:
                services.table_swap_player(table_id=table.pk, **form.cleaned_data)
            except DomainError as error:
                form.add_error(None, f"{localize(str(error.detail))} ({error.error_code})")
            else:
                self.message_user(request, "Swapped.", messages.SUCCESS)
                return redirect("admin:tournaments_round_change", table.round_id)
        context = {
            **self.admin_site.each_context(request),
            "table": table,
            "form": form,
            "title": f"Swap a player at {table}",
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "tournaments/swap.html", context)

    def rule_view(self, request, pk):
        table = get_object_or_404(self.get_queryset(request).select_related("round__tournament"), pk=pk)
        form = RulingForm(request.POST or None)
        names = selectors.player_names(table.players)
        form.fields["seat"].choices = [
            (seat, f"{seat}: {names.get(pid, '?')}")
            for seat, pid in enumerate(table.players)
            if seat not in table.cpu_fill
        ]
        if request.method == "POST" and form.is_valid():
            try:
                services.table_rule_score(
                    table_id=table.pk, ruled_by=getattr(request.user, "player", None), **form.cleaned_data
                )
            except DomainError as error:
                form.add_error(None, f"{localize(str(error.detail))} ({error.error_code})")
            else:
                self.message_user(request, "Ruling recorded.", messages.SUCCESS)
                return redirect("admin:tournaments_table_change", table.pk)
        context = {
            **self.admin_site.each_context(request),
            "table": table,
            "form": form,
            "title": f"A ruling at {table}",
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "tournaments/ruling.html", context)
