"""The director's console forms. The tournament form is generated from ``engine.Rules``: one
field per rule, its default shown and one line of help taken from the Rules docstring; the
services check the whole (``tournament_create``), and a refusal is shown on its field."""

from __future__ import annotations

import inspect
import re
from dataclasses import MISSING, fields

from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

import engine
from engine import bots
from engine import rules as engine_rules
from hearts_league.i18n import localize
from tournaments.models import Club, League, Player, Season, Tournament
from tournaments.models.competitions import TABLE_SIZE_CHOICES

RULE_PREFIX = "rule_"
SKIPPED_RULES = {"players"}  # each table has its own size: the preferred table size chooses


def _rule_help() -> dict[str, str]:
    """Each rule's line of help: the first sentence of its entry in the Rules docstring."""
    names = {f.name for f in fields(engine.Rules)}
    found: dict[str, str] = {}
    current = None
    for line in inspect.getdoc(engine.Rules).splitlines():  # type: ignore[union-attr]  # Rules has its docstring
        entry = re.match(r"(\w+): (.*)", line)
        if entry and entry.group(1) in names:
            current = entry.group(1)
            found[current] = entry.group(2)
        elif current and line.startswith(" "):
            found[current] += " " + line.strip()
        else:
            current = None
    return {
        name: re.split(r"(?<=\.)\s", text.replace("``", ""), maxsplit=1)[0].rstrip(".") for name, text in found.items()
    }


RULE_HELP = _rule_help()

# The rules' names as labels (a rule not listed shows its name).
RULE_LABELS = {
    "leftover": _("Leftover"),
    "removed_cards": _("Removed cards"),
    "passing": _("Passing"),
    "first_lead": _("First lead"),
    "no_points_first_trick": _("No points first trick"),
    "hearts_any_time": _("Hearts any time"),
    "queen_breaks_hearts": _("Queen breaks hearts"),
    "jack_of_diamonds": _("Jack of diamonds"),
    "black_maria": _("Black maria"),
    "moon": _("Moon"),
    "end_score": _("End score"),
    "exact_end_score_halves": _("Exact end score halves"),
}


def _shown(value) -> str | Promise:
    if isinstance(value, bool):
        return _("on") if value else _("off")
    return str(value).replace("_", " ")


def rule_form_fields() -> dict[str, forms.Field]:
    """One form field per engine rule (but the player count), default as initial value."""
    made: dict[str, forms.Field] = {}
    for f in fields(engine.Rules):
        if f.name in SKIPPED_RULES:
            continue
        default = f.default if f.default is not MISSING else None
        label = RULE_LABELS.get(f.name, f.name.replace("_", " ").capitalize())
        help_line: str | Promise = RULE_HELP.get(f.name, "")
        choices = engine_rules.OPTION_VALUES.get(f.name)
        field: forms.Field
        if isinstance(default, bool):
            field = forms.BooleanField(required=False, initial=default, label=label)
        elif isinstance(choices, tuple) and all(isinstance(c, str) for c in choices):
            field = forms.ChoiceField(choices=[(c, c.replace("_", " ")) for c in choices], initial=default, label=label)
        elif isinstance(default, int):
            field = forms.IntegerField(initial=default, min_value=1, max_value=10_000, label=label)
        else:  # removed_cards
            field = forms.CharField(
                required=False, label=label, max_length=40, widget=forms.TextInput(attrs={"placeholder": "2D 2C"})
            )
            help_line = _("cards taken out with leftover 'remove', by name, e.g. 2D 2C; empty: the usual ones")
            default = None
        shown = f" ({_('default')}: {_shown(default)})" if default is not None else ""
        field.help_text = f"{help_line}{shown}"
        made[RULE_PREFIX + f.name] = field
    return made


def _choices(model_choices) -> list:
    return list(model_choices)


class TournamentForm(forms.Form):
    """A tournament: format, rounds, tables, scoring and every rule of the game."""

    league = forms.ModelChoiceField(League.objects.none(), label=_("League"), help_text=_("the league it counts for"))
    season = forms.ModelChoiceField(
        Season.objects.none(),
        label=_("Season"),
        required=False,
        help_text=_("optional: the league's season it belongs to"),
    )
    name = forms.CharField(label=_("Name"), max_length=120, help_text=_("e.g. Thursday club night"))
    format = forms.ChoiceField(
        label=_("Format"),
        choices=Tournament.Format.choices,
        initial=Tournament.Format.SWISS,
        help_text=_("how players are seated from round to round"),
    )
    seeding = forms.ChoiceField(
        choices=Tournament.Seeding.choices,
        initial=Tournament.Seeding.LEAGUE,
        help_text=_("a Swiss tournament's first round: by rating or by lot"),
        label=_("Seeding"),
    )
    rounds_planned = forms.IntegerField(
        min_value=1, max_value=50, initial=5, help_text=_("rounds before any final"), label=_("Rounds planned")
    )
    round_mode = forms.ChoiceField(
        choices=Tournament.RoundMode.choices,
        initial=Tournament.RoundMode.FULL_GAME,
        help_text=_("what a round is at each table"),
        label=_("Round mode"),
    )
    hands_per_round = forms.IntegerField(
        label=_("Hands per round"),
        min_value=1,
        max_value=50,
        initial=4,
        help_text=_("with a fixed number of hands (default: 4)"),
    )
    final_table_size = forms.TypedChoiceField(
        label=_("Final table size"),
        coerce=int,
        initial=0,
        choices=[(0, _("no final")), (3, "3"), (4, "4"), (5, "5")],
        help_text=_("a last round for the top of the standings"),
    )
    preferred_table_size = forms.TypedChoiceField(
        coerce=int,
        choices=TABLE_SIZE_CHOICES,
        initial=4,
        help_text=_("players per table (default: 4)"),
        label=_("Preferred table size"),
    )
    prefer = forms.ChoiceField(
        label=_("Prefer"),
        choices=Tournament.Prefer.choices,
        initial=Tournament.Prefer.SMALLER,
        help_text=_("when the players do not make whole tables"),
    )
    allow_cpu_fill = forms.BooleanField(
        required=False, help_text=_("CPUs fill tables to the preferred size (never ranked)"), label=_("Allow cpu fill")
    )
    cpu_bot = forms.ChoiceField(
        choices=[(kind, kind) for kind in bots.KINDS],
        initial="rule",
        help_text=_("the CPUs' strength (default: rule)"),
        label=_("Cpu bot"),
    )
    duplicate_deals = forms.BooleanField(
        required=False,
        help_text=_("every table of a size plays the same deals in a round (matchpoints)"),
        label=_("Duplicate deals"),
    )
    auto_advance = forms.BooleanField(
        required=False,
        help_text=_("seat and start the next round as soon as the last table finishes"),
        label=_("Auto advance"),
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Turn seconds"),
        coerce=int,
        empty_value=None,
        required=False,
        choices=[("", _("unlimited")), (30, "30"), (60, "60")],
        help_text=_("seconds per turn before a CPU plays it (default: unlimited)"),
    )
    points_3 = forms.CharField(
        required=False,
        max_length=40,
        label=_("Points at a table of 3"),
        widget=forms.TextInput(attrs={"placeholder": "4 2 0"}),
        help_text=_("table points for 1st, 2nd, 3rd (default: 4 2 0)"),
    )
    points_4 = forms.CharField(
        required=False,
        max_length=40,
        label=_("Points at a table of 4"),
        widget=forms.TextInput(attrs={"placeholder": "4 2 1 0"}),
        help_text=_("table points for 1st to 4th (default: 4 2 1 0)"),
    )
    points_5 = forms.CharField(
        required=False,
        max_length=40,
        label=_("Points at a table of 5"),
        widget=forms.TextInput(attrs={"placeholder": "4 3 2 1 0"}),
        help_text=_("table points for 1st to 5th (default: 4 3 2 1 0)"),
    )
    seed = forms.IntegerField(
        label=_("Seed"),
        required=False,
        min_value=0,
        max_value=2**62,
        help_text=_("optional: fixes every draw (to replay an evening)"),
    )

    FORMAT_FIELDS = [
        "league",
        "season",
        "name",
        "format",
        "seeding",
        "rounds_planned",
        "round_mode",
        "hands_per_round",
        "final_table_size",
        "auto_advance",
    ]
    TABLE_FIELDS = [
        "preferred_table_size",
        "prefer",
        "allow_cpu_fill",
        "cpu_bot",
        "duplicate_deals",
        "turn_seconds",
        "points_3",
        "points_4",
        "points_5",
        "seed",
    ]

    def __init__(self, *args, leagues=None, **kwargs):
        super().__init__(*args, **kwargs)
        leagues = leagues if leagues is not None else League.objects.none()
        self.fields["league"].queryset = leagues
        self.fields["season"].queryset = Season.objects.filter(league__in=leagues)
        self.fields.update(rule_form_fields())

    def rule_fields(self):
        return [self[name] for name in self.fields if name.startswith(RULE_PREFIX)]

    def format_fields(self):
        return [self[name] for name in self.FORMAT_FIELDS]

    def table_fields(self):
        return [self[name] for name in self.TABLE_FIELDS]

    def _clean_points(self, size: int):
        raw = (self.cleaned_data.get(f"points_{size}") or "").replace(",", " ").split()
        if not raw:
            return None
        try:
            return [float(x) if "." in x else int(x) for x in raw]
        except ValueError:
            raise forms.ValidationError(_("Numbers separated by spaces, best place first.")) from None

    def clean_points_3(self):
        return self._clean_points(3)

    def clean_points_4(self):
        return self._clean_points(4)

    def clean_points_5(self):
        return self._clean_points(5)

    def clean(self):
        data = super().clean()
        season, league = data.get("season"), data.get("league")
        if season is not None and league is not None and season.league_id != league.pk:
            self.add_error("season", _("This season belongs to another league."))
        return data

    def service_arguments(self) -> dict:
        """``tournament_create``'s arguments from the cleaned form."""
        data = self.cleaned_data
        rules = {}
        for name, value in data.items():
            if not name.startswith(RULE_PREFIX):
                continue
            rule = name[len(RULE_PREFIX) :]
            if rule == "removed_cards":
                if value.strip():
                    rules[rule] = value.replace(",", " ").upper().split()
                continue
            rules[rule] = value
        points = {str(size): data[f"points_{size}"] for size in (3, 4, 5) if data.get(f"points_{size}")}
        return {
            "league": data["league"],
            "season": data.get("season"),
            "name": data["name"],
            "format": data["format"],
            "seeding": data["seeding"],
            "round_mode": data["round_mode"],
            "hands_per_round": data["hands_per_round"],
            "rounds_planned": data["rounds_planned"],
            "rules_overrides": rules,
            "preferred_table_size": data["preferred_table_size"],
            "prefer": data["prefer"],
            "allow_cpu_fill": data["allow_cpu_fill"],
            "cpu_bot": data["cpu_bot"],
            "duplicate_deals": data["duplicate_deals"],
            "points_by_place": points,
            "final_table_size": data["final_table_size"],
            "auto_advance": data["auto_advance"],
            "turn_seconds": data.get("turn_seconds"),
            "seed": data.get("seed"),
        }


ERROR_FIELDS = {
    "invalid_format": "format",
    "invalid_round_mode": "round_mode",
    "invalid_hands": "hands_per_round",
    "invalid_rounds": "rounds_planned",
    "invalid_table_size": "preferred_table_size",
    "invalid_prefer": "prefer",
    "invalid_final": "final_table_size",
    "invalid_bot": "cpu_bot",
    "invalid_turn_time": "turn_seconds",
    "invalid_season": "season",
    "invalid_seeding": "seeding",
    "league_exists": "slug",
    "season_exists": "name",
    "invalid_dates": "ends_on",
    "display_name_taken": "display_name",
    "invalid_display_name": "display_name",
    "invalid_seat": "seat",
    "reason_required": "reason",
    "reason_too_long": "reason",
    "not_at_table": "player_out",
    "same_player": "player_in",
    "not_registered": "player_in",
}


def show_refusal(form: forms.Form, error) -> None:
    """Put a service's refusal (a ``DomainError``) on the field it is about, else on the form."""
    code, message = error.error_code, str(error.detail)
    field = ERROR_FIELDS.get(code)
    if code == "invalid_rules":
        field = next(
            (
                name
                for name in form.fields
                if name.startswith(RULE_PREFIX) and re.search(rf"\b{name[len(RULE_PREFIX) :]}\b", message)
            ),
            None,
        )
    elif code == "invalid_points":
        size = re.search(r"table of (\d)", message)
        field = f"points_{size.group(1)}" if size else "points_4"
    if field not in form.fields:
        field = None
    form.add_error(field, localize(message))


class LeagueForm(forms.Form):
    club = forms.ModelChoiceField(Club.objects.all(), label=_("Club"), help_text=_("the club that runs it"))
    name = forms.CharField(label=_("Name"), max_length=120, help_text=_("e.g. Thursday league"))
    slug = forms.SlugField(
        max_length=120, label=_("Slug"), help_text=_("short name for addresses: letters, digits, dashes")
    )


class SeasonForm(forms.Form):
    league = forms.ModelChoiceField(League.objects.none(), label=_("League"))
    name = forms.CharField(label=_("Name"), max_length=120, help_text=_("e.g. Spring 2027"))
    starts_on = forms.DateField(label=_("Starts on"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    ends_on = forms.DateField(label=_("Ends on"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, leagues=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["league"].queryset = leagues if leagues is not None else League.objects.none()


class WalkInForm(forms.Form):
    display_name = forms.CharField(
        max_length=60, label=_("Walk-in player"), help_text=_("a new player of the club, registered at once")
    )
    password = forms.CharField(
        required=False,
        min_length=8,
        max_length=128,
        widget=forms.PasswordInput,
        help_text=_("optional: to sign in and play on their phone (8 characters or more)"),
        label=_("Password"),
    )

    def clean_password(self):
        from django.contrib.auth.password_validation import validate_password

        password = self.cleaned_data.get("password") or ""
        if password:
            validate_password(password)
        return password


class RegisterForm(forms.Form):
    player = forms.ModelChoiceField(
        Player.objects.filter(bot_kind="", is_guest=False), widget=forms.HiddenInput, label=_("Player")
    )


class GuestForm(forms.Form):
    player = forms.ModelChoiceField(
        Player.objects.filter(bot_kind="", is_guest=True), widget=forms.HiddenInput, label=_("Player")
    )


class WithdrawForm(forms.Form):
    player = forms.ModelChoiceField(Player.objects.all(), label=_("Player"), widget=forms.HiddenInput)


class SwapForm(forms.Form):
    table = forms.TypedChoiceField(label=_("Table"), coerce=int, help_text=_("the table of the current round"))
    player_out = forms.TypedChoiceField(label=_("Player out"), coerce=int, help_text=_("who leaves the seat"))
    player_in = forms.TypedChoiceField(
        coerce=int,
        help_text=_("who takes it: from another table, or a registered player sitting out"),
        label=_("Player in"),
    )
    correction = forms.BooleanField(
        required=False, help_text=_("the round has started: correct who sits where"), label=_("Correction")
    )


class RulingForm(forms.Form):
    table = forms.TypedChoiceField(label=_("Table"), coerce=int, help_text=_("a finished table of the current round"))
    seat = forms.TypedChoiceField(
        label=_("Seat"),
        coerce=int,
        choices=[(s, str(s + 1)) for s in range(5)],
        help_text=_("the seat whose score is adjusted (1 is the first seat)"),
    )
    hearts_points = forms.IntegerField(
        min_value=-10_000, max_value=10_000, help_text=_("the adjusted Hearts points"), label=_("Hearts points")
    )
    reason = forms.CharField(label=_("Reason"), max_length=500, help_text=_("shown in the results next to the score"))
