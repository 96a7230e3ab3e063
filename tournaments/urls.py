from django.urls import path
from rest_framework.routers import DefaultRouter

from tournaments.clubs.api import PlayerViewSet
from tournaments.clubs.auth import GuestView, RegisterView, TokenView
from tournaments.competitions.api import LeagueViewSet, TournamentViewSet
from tournaments.games.api import GameViewSet
from tournaments.games.api_invitations import InvitationViewSet

router = DefaultRouter()
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
