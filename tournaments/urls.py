from rest_framework.routers import DefaultRouter

from tournaments.api.views import LeagueViewSet, PlayerViewSet

router = DefaultRouter(trailing_slash="/?")
router.register("leagues", LeagueViewSet, basename="league")
router.register("players", PlayerViewSet, basename="player")

urlpatterns = router.urls
