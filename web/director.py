"""The director's console (``/director/``), for staff and each league's directors: create
leagues, seasons and tournaments, register players, run the rounds, swap, rule on a score,
print and export. Thin: each form's data goes to ``tournaments.competitions.services``; a
refusal is shown on its field, and nothing is half-created (each service is one transaction).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.forms import Form
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from hearts_league.api import DomainError
from hearts_league.i18n import localize
from tournaments.competitions import selectors, services
from tournaments.models import Player, Registration, Round, Table, Tournament
from web import forms
from web.views import _page

SEARCH_LIMIT = 20


def _leagues(request):
    leagues = selectors.leagues_directed(request.user)
    if not request.user.is_staff and not leagues.exists():
        raise PermissionDenied
    return leagues


def _tournament(request, tournament_id: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("league__club", "season"), pk=tournament_id)
    if not selectors.directs(request.user, tournament.league_id):
        raise PermissionDenied
    return tournament


def _me(request) -> Player | None:
    return getattr(request.user, "player", None)


@login_required(login_url="/web/login")
@require_http_methods(["GET", "POST"])
def index(request):
    """The leagues this director runs, their tournaments, and forms for a league or season."""
    leagues = _leagues(request)
    league_form = forms.LeagueForm(prefix="league") if request.user.is_staff else None
    season_form = forms.SeasonForm(prefix="season", leagues=leagues)
    if request.method == "POST":
        kind = request.POST.get("action")
        try:
            if kind == "league" and request.user.is_staff:
                league_form = forms.LeagueForm(request.POST, prefix="league")
                if league_form.is_valid():
                    league = services.league_create(**league_form.cleaned_data)
                    messages.success(request, _("League %(name)s created.") % {"name": league.name})
                    return redirect("web:director")
            elif kind == "season":
                season_form = forms.SeasonForm(request.POST, prefix="season", leagues=leagues)
                if season_form.is_valid():
                    season = services.season_create(**season_form.cleaned_data)
                    messages.success(request, _("Season %(name)s created.") % {"name": season.name})
                    return redirect("web:director")
        except DomainError as error:
            forms.show_refusal(league_form if kind == "league" else season_form, error)
    tournaments = selectors.tournaments_list().filter(league__in=leagues)[:50]
    response = _page(
        request,
        "director/index.html",
        "director",
        leagues=leagues,
        tournaments=tournaments,
        league_form=league_form,
        season_form=season_form,
    )
    if request.method == "POST":
        response.status_code = 400  # a form with errors (a success redirects)
    return response


@login_required(login_url="/web/login")
@require_http_methods(["GET", "POST"])
def tournament_new(request):
    """The tournament form: every rule of the engine, the format, rounds and tables."""
    leagues = _leagues(request)
    form = forms.TournamentForm(request.POST or None, leagues=leagues)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.tournament_create(created_by=_me(request), **form.service_arguments())
        except DomainError as error:
            forms.show_refusal(form, error)
        else:
            created = _("Tournament %(name)s created: register its players.") % {"name": tournament.name}
            messages.success(request, created)
            return redirect("web:director-tournament", tournament.pk)
    response = _page(request, "director/tournament_new.html", "director", form=form)
    if request.method == "POST":
        response.status_code = 400
    return response


def _round_choices(round_: Round | None):
    if round_ is None:
        return [], [], []
    tables = list(round_.tables.order_by("number"))
    names = selectors.player_names(pid for t in tables for pid in t.players)
    table_choices = [(t.pk, _("Table %(n)s") % {"n": t.number}) for t in tables]
    seated = [
        (pid, f"{names.get(pid, '?')} ({_('table')} {t.number})")
        for t in tables
        for seat, pid in enumerate(t.players)
        if seat not in t.cpu_fill
    ]
    finished = [(t.pk, _("Table %(n)s") % {"n": t.number}) for t in tables if t.status == Table.Status.FINISHED]
    return table_choices, seated, finished


@login_required(login_url="/web/login")
@require_http_methods(["GET", "POST"])
def tournament(request, tournament_id: int):
    """One tournament's console: registrations, round controls, swap, rulings, the live board."""
    tournament = _tournament(request, tournament_id)
    round_ = tournament.rounds.order_by("-number").first()
    table_choices, seated, finished = _round_choices(round_)
    registrations = list(tournament.registrations.select_related("player").order_by("player__display_name"))
    registered = [(r.player_id, r.player.display_name) for r in registrations if r.status == Registration.Status.ACTIVE]
    walk_in = forms.WalkInForm(prefix="walkin")
    swap = forms.SwapForm(prefix="swap")
    ruling = forms.RulingForm(prefix="ruling")
    # these are ChoiceFields; a form's fields are typed as plain Fields
    for form in (swap,):
        form.fields["table"].choices = table_choices  # type: ignore[attr-defined]
        form.fields["player_out"].choices = seated  # type: ignore[attr-defined]
        form.fields["player_in"].choices = sorted(set(seated) | set(registered), key=lambda c: c[1])  # type: ignore[attr-defined]
    ruling.fields["table"].choices = finished  # type: ignore[attr-defined]
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        done = None
        try:
            done = _act(request, tournament, action, walk_in=walk_in, swap=swap, ruling=ruling)
        except DomainError as error:
            target = {"walk_in": walk_in, "swap": swap, "rule": ruling}.get(action)
            if target is not None and target.is_bound:
                forms.show_refusal(target, error)
            else:
                messages.error(request, localize(str(error.detail)))
                return redirect("web:director-tournament", tournament.pk)
        if done:
            messages.success(request, done)
            return redirect("web:director-tournament", tournament.pk)
        status = 400
    query = request.GET.get("q", "").strip()[:60]
    found: list[Player] | QuerySet[Player] = []
    if query:
        taken = {r.player_id for r in registrations if r.status == Registration.Status.ACTIVE}
        found = (
            Player.objects.filter(bot_kind="")
            .filter(Q(display_name__icontains=query) | Q(user__username__icontains=query))
            .exclude(pk__in=taken)
            .order_by("display_name")[:SEARCH_LIMIT]
        )
    response = _page(
        request,
        "director/tournament.html",
        "director",
        tournament=tournament,
        round=round_,
        registrations=registrations,
        walk_in=walk_in,
        swap=swap,
        ruling=ruling,
        query=query,
        found=found,
        rulings=selectors.rulings_for_tournament(tournament, request.user),
    )
    response.status_code = status
    return response


def _act(request, tournament: Tournament, action: str, *, walk_in, swap, ruling) -> str | None:
    """Run one console action; the success message, or None when its form has errors."""
    pk = tournament.pk
    form: Form
    if action == "register":
        form = forms.RegisterForm(request.POST)
        if not form.is_valid():
            raise DomainError("player_not_found", _("There is no such player."))
        services.tournament_register(tournament_id=pk, player=form.cleaned_data["player"])
        return _("%(name)s registered.") % {"name": form.cleaned_data["player"]}
    if action == "register_guest":
        form = forms.GuestForm(request.POST)
        if not form.is_valid():
            raise DomainError("player_not_found", _("There is no such guest."))
        services.tournament_register_guest(tournament_id=pk, player=form.cleaned_data["player"])
        return _("%(name)s has an account of the club now, and is registered.") % {"name": form.cleaned_data["player"]}
    if action == "withdraw":
        form = forms.WithdrawForm(request.POST)
        if not form.is_valid():
            raise DomainError("player_not_found", _("There is no such player."))
        services.tournament_withdraw(tournament_id=pk, player=form.cleaned_data["player"])
        return _("%(name)s withdrawn from the next round on.") % {"name": form.cleaned_data["player"]}
    if action == "walk_in":
        walk_in.data, walk_in.is_bound = request.POST, True
        if not walk_in.is_valid():
            return None
        registration = services.tournament_register_walk_in(tournament_id=pk, **walk_in.cleaned_data)
        if walk_in.cleaned_data["password"]:
            return _("%(name)s registered: they sign in as %(username)s with the password given.") % {
                "name": registration.player,
                "username": registration.player.user.username,  # type: ignore[union-attr]  # a walk-in has an account
            }
        return _("%(name)s registered (username %(username)s, no password yet).") % {
            "name": registration.player,
            "username": registration.player.user.username,  # type: ignore[union-attr]  # a walk-in has an account
        }
    if action == "seat":
        round_ = services.tournament_seat_round(tournament_id=pk)
        return _("Round %(n)s seated: the tables are drawn.") % {"n": round_.number}
    if action == "start":
        round_ = services.tournament_start_round(tournament_id=pk)
        return _("Round %(n)s started.") % {"n": round_.number}
    if action == "finish":
        round_ = services.tournament_finish_round(tournament_id=pk)
        return _("Round %(n)s finished.") % {"n": round_.number}
    if action == "swap":
        swap.data, swap.is_bound = request.POST, True
        if not swap.is_valid():
            return None
        players = Player.objects.in_bulk([swap.cleaned_data["player_out"], swap.cleaned_data["player_in"]])
        services.table_swap_player(
            table_id=swap.cleaned_data["table"],
            player_out=players[swap.cleaned_data["player_out"]],
            player_in=players[swap.cleaned_data["player_in"]],
            correction=swap.cleaned_data["correction"],
        )
        return _("Swapped.")
    if action == "rule":
        ruling.data, ruling.is_bound = request.POST, True
        if not ruling.is_valid():
            return None
        services.table_rule_score(
            table_id=ruling.cleaned_data["table"],
            seat=ruling.cleaned_data["seat"],
            hearts_points=ruling.cleaned_data["hearts_points"],
            reason=ruling.cleaned_data["reason"],
            ruled_by=_me(request),
        )
        return _("Ruling recorded.")
    raise DomainError("unknown_action", _("Unknown action."))


@login_required(login_url="/web/login")
def table_cards(request, tournament_id: int, number: int):
    tournament = _tournament(request, tournament_id)
    round_ = tournament.rounds.filter(number=number).first()
    if round_ is None:
        raise Http404
    return TemplateResponse(
        request, "tournaments/table_cards.html", {"round": round_, "cards": selectors.table_cards(round_)}
    )


@login_required(login_url="/web/login")
def results_sheet(request, tournament_id: int):
    tournament = _tournament(request, tournament_id)
    return TemplateResponse(
        request, "tournaments/results_sheet.html", selectors.results_sheet(tournament, request.user)
    )
