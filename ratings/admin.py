"""Read-only admin pages: ratings are derived data (``rebuild_ratings`` recomputes them)."""

from django.contrib import admin
from django.utils import timezone

from hearts_league.admin import GuardedLookupsAdmin
from ratings.models import QueueEntry, Rating, RatingHistory
from ratings.rating import stored_model
from ratings.selectors import current_rating


class ReadOnlyAdmin(GuardedLookupsAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = [
        "player",
        "league",
        "mu",
        "sigma",
        "conservative",
        "games",
        "provisional_now",
        "provisional",
        "last_played_at",
        "model_name",
    ]
    list_filter = ["provisional", "league", "model_name"]
    search_fields = ["player__display_name", "player__user__username"]
    list_select_related = ["player", "league"]

    @admin.display(boolean=True, description="provisional now")
    def provisional_now(self, obj):
        """As leaderboards show it: from sigma widened for inactivity up to now."""
        return current_rating(
            stored_model(obj.model_name, obj.model_params),
            mu=obj.mu,
            sigma=obj.sigma,
            games=obj.games,
            last_played_at=obj.last_played_at,
            now=timezone.now(),
        ).provisional


@admin.register(RatingHistory)
class RatingHistoryAdmin(ReadOnlyAdmin):
    list_display = ["played_at", "game", "player", "league", "place", "total", "mu_before", "mu_after", "sigma_after"]
    list_filter = ["league"]
    search_fields = ["player__display_name", "game__id"]
    list_select_related = ["player", "league", "game"]


@admin.register(QueueEntry)
class QueueEntryAdmin(ReadOnlyAdmin):
    list_display = ["player", "table_size", "preset", "mu", "status", "joined_at", "matched_at", "game"]
    list_filter = ["status", "table_size", "preset"]
    search_fields = ["player__display_name"]
    list_select_related = ["player", "game"]
