from django.urls import path
from rest_framework.routers import DefaultRouter

from tournaments.api.auth import GuestView, RegisterView, TokenView
from tournaments.api.competitions import LeagueViewSet, TournamentViewSet
from tournaments.api.games import GameViewSet
from tournaments.api.invitations import InvitationViewSet
from tournaments.api.views import PlayerViewSet

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
