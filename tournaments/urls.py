from django.urls import path
from rest_framework.routers import DefaultRouter

from tournaments.clubs.api import PlayerViewSet
from tournaments.clubs.auth import GuestView, RegisterView, TokenView
from tournaments.competitions.api import LeagueViewSet, TournamentViewSet
from tournaments.games.api import GameViewSet
from tournaments.games.api_invitations import InvitationViewSet


class IdRouter(DefaultRouter):
    """Every detail route takes only an id of ASCII digits: Django's ``\\d`` and Python's ``int``
    also take '٣' and '²', which would otherwise reach a view as id 3 or a 500. Anything else is a
    404 before a view runs."""

    def get_lookup_regex(self, viewset, lookup_prefix=""):
        kwarg = getattr(viewset, "lookup_url_kwarg", None) or getattr(viewset, "lookup_field", "pk")
        return f"(?P<{lookup_prefix}{kwarg}>[0-9]+)"


router = IdRouter()
router.register("leagues", LeagueViewSet, basename="league")
router.register("players", PlayerViewSet, basename="player")
router.register("games", GameViewSet, basename="game")
router.register("tournaments", TournamentViewSet, basename="tournament")
router.register("invitations", InvitationViewSet, basename="invitation")

urlpatterns = [
    path("auth/register", RegisterView.as_view(), name="auth-register"),
    path("auth/token", TokenView.as_view(), name="auth-token"),
    path("auth/guest", GuestView.as_view(), name="auth-guest"),
    *router.urls,
]
