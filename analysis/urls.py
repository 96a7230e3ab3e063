from django.urls import path

from analysis.api import GameAnalysisView

urlpatterns = [
    path("games/<int:game_id>/analysis", GameAnalysisView.as_view(), name="game-analysis"),
]
