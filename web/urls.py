"""The browser pages. Each renders a thin shell; its script talks to the public REST API and
the WebSocket protocol (docs/websocket.md) only. ``web/session`` and ``web/login`` log the
browser's session in so that both authenticate by cookie."""

from django.urls import path
from django.views.i18n import JavaScriptCatalog

from web import director, views

app_name = "web"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tables/<int:game_id>/", views.table, name="table"),
    path("tables/<int:game_id>/rules/", views.table_rules, name="table-rules"),
    path("rules/", views.rules, name="rules"),
    path("reglas/", views.reglas, name="reglas"),
    path("games/<int:game_id>/replay/", views.replay, name="replay"),
    path("tournaments/", views.tournaments, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament, name="tournament"),
    path("tournaments/<int:tournament_id>/screen/", views.screen, name="screen"),
    path("director/", director.index, name="director"),
    path("director/tournaments/new/", director.tournament_new, name="director-new"),
    path("director/tournaments/<int:tournament_id>/", director.tournament, name="director-tournament"),
    path(
        "director/tournaments/<int:tournament_id>/rounds/<int:number>/cards/",
        director.table_cards,
        name="director-cards",
    ),
    path("director/tournaments/<int:tournament_id>/sheet/", director.results_sheet, name="director-sheet"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("players/<int:player_id>/", views.player, name="player"),
    path("web/session", views.session_from_token, name="session"),
    path("web/login", views.login_view, name="login"),
    path("web/logout", views.logout_view, name="logout"),
    path("web/language", views.language, name="language"),
    path("web/jsi18n", JavaScriptCatalog.as_view(), name="javascript-catalog"),  # the modules' gettext
]
