"""Django admin for clubs, leagues and players."""

from django.contrib import admin

from hearts_league.admin import GuardedLookupsAdmin
from tournaments.models import Club, League, Player


@admin.register(Club)
class ClubAdmin(GuardedLookupsAdmin):
    list_display = ["name", "slug", "created_at"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name"]


@admin.register(League)
class LeagueAdmin(GuardedLookupsAdmin):
    list_display = ["name", "club", "rate_games_with_cpus", "created_at"]
    list_filter = ["club"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "club__name"]


@admin.register(Player)
class PlayerAdmin(GuardedLookupsAdmin):
    list_display = ["display_name", "user", "club", "bot_kind", "is_guest", "created_at"]
    list_filter = ["bot_kind", "is_guest", "club"]
    search_fields = ["display_name", "user__username"]
    raw_id_fields = ["user"]

    def get_readonly_fields(self, request, obj=None):
        """A Player's login is chosen when it is made and fixed after (migration 0020)."""
        fixed = ["user"] if obj is not None else []
        return [*super().get_readonly_fields(request, obj), *fixed]
