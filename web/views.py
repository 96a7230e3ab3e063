"""Page shells and the two small session views. No game logic here: the pages' scripts use
the REST API and the WebSocket protocol, exactly as any other client would."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import i18n as django_i18n
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.authtoken.models import Token

from engine import Rules
from hearts_league.i18n import supported
from hearts_league.json_input import JSONInputError, parse_json
from hearts_league.logins import lockout_message
from web.rules import describe


def _page(request: HttpRequest, template: str, page: str, **context) -> HttpResponse:
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    from tournaments.competitions.selectors import directs

    context.update(page=page, me=player, director=directs(request.user))
    return render(request, f"web/{template}", context)


@ensure_csrf_cookie
def lobby(request):
    return _page(request, "lobby.html", "lobby")


@ensure_csrf_cookie
def table(request, game_id: int):
    return _page(request, "table.html", "table", game_id=game_id)


@ensure_csrf_cookie
def replay(request, game_id: int):
    return _page(request, "replay.html", "replay", game_id=game_id)


@ensure_csrf_cookie
def tournaments(request):
    return _page(request, "tournaments.html", "tournaments")


@ensure_csrf_cookie
def tournament(request, tournament_id: int):
    return _page(request, "tournament.html", "tournaments", tournament_id=tournament_id)


def screen(request, tournament_id: int):
    """The projector screen: standings and the round's tables in large type, live, no controls."""
    return render(request, "web/screen.html", {"tournament_id": tournament_id})


@ensure_csrf_cookie
def leaderboard(request):
    return _page(request, "leaderboard.html", "leaderboard")


@ensure_csrf_cookie
def player(request, player_id: int):
    return _page(request, "player.html", "player", player_id=player_id)


@ensure_csrf_cookie
def rules(request):
    """The default rules, each option as a sentence, in the request's language."""
    return _page(request, "rules.html", "rules", items=describe(Rules()), game_id=None)


def reglas(request):
    """``/reglas/``: the default rules in Spanish, whatever the browser asks for."""
    with translation.override("es"):
        response = rules(request)
    response.headers["Content-Language"] = "es"
    return response


@ensure_csrf_cookie
def table_rules(request, game_id: int):
    """The rules in force at a table (no cards: the rules are fixed and public when it is made)."""
    from tournaments.models import Game

    row = Game.objects.filter(pk=game_id).values("rules", "hand_limit").first()
    if row is None:
        raise Http404
    return _page(
        request,
        "rules.html",
        "rules",
        game_id=game_id,
        items=describe(Rules.from_dict(row["rules"]), hand_limit=row["hand_limit"]),
    )


def _me(user) -> dict:
    player = getattr(user, "player", None)
    return {
        "authenticated": True,
        "player_id": player.pk if player else None,
        "display_name": player.display_name if player else user.get_username(),
        "is_guest": bool(player and player.is_guest),
    }


@require_POST
def session_from_token(request):
    """Log this browser in as the holder of an API token (e.g. from ``POST /api/auth/guest``).

    Protected by CSRF like any form post, so another site cannot log a visitor in as itself.
    """
    try:
        key = parse_json(request.body or b"{}").get("token", "")
    except (JSONInputError, AttributeError):
        key = ""
    valid = isinstance(key, str) and key
    token = Token.objects.select_related("user").filter(key=key).first() if valid else None
    if token is None or not token.user.is_active:
        return JsonResponse({"code": "invalid_token", "detail": _("Unknown or inactive token.")}, status=400)
    login(request, token.user, backend="django.contrib.auth.backends.ModelBackend")
    return JsonResponse(_me(token.user))


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def login_view(request):
    """A member's sign-in form (username and password) for the session."""
    error, status = "", 200
    next_url = request.POST.get("next") or request.GET.get("next") or "/"
    if not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        next_url = "/"
    if request.method == "POST":
        user = authenticate(
            request, username=request.POST.get("username", ""), password=request.POST.get("password", "")
        )
        if user is not None:
            login(request, user)
            return redirect(next_url)
        if getattr(request, "axes_locked_out", False):  # django-axes: too many failures from here
            error, status = lockout_message(), 429
        else:
            error = _("Wrong username or password.")
    response = _page(request, "login.html", "login", error=error, next=next_url)
    response.status_code = status
    return response


@require_POST
def logout_view(request):
    logout(request)
    return redirect("/")


@require_POST
def language(request):
    """The header's language switch: Django's ``set_language`` (it remembers the choice in the
    ``django_language`` cookie and goes back to ``next``), and a signed-in player's profile
    keeps it too, so it follows them to other browsers and to the table's socket."""
    response = django_i18n.set_language(request)
    chosen = supported(request.POST.get("language"))
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    if chosen and player is not None and player.language != chosen:
        player.language = chosen
        player.save(update_fields=["language"])
    return response
