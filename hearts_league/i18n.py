"""Languages: which one a request or a socket speaks, and the one place refusals are translated.

The language is the player's profile choice (``Player.language``), else the ``django_language``
cookie the header's switch sets (Django's ``set_language``), else ``Accept-Language``, else
English. Pages translate through the templates; API and socket errors keep their English
``detail`` in the code (services raise ``DomainError("code", "English message")``, the engine
``IllegalMove``) and :func:`localize` translates it on the way out, in ``exception_handler``
and in the consumer's error frames. Messages with values (``f"Seat {seat} is taken."``) are
matched against ``hearts_league/error_messages.py``, generated from the source by
``python -m hearts_league.i18n`` (a test checks it is current), and the values themselves are
translated when the catalog knows them (a suit name, the action of a phase message).
"""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from django.utils.translation.trans_real import parse_accept_lang_header

# Values the engine puts into its messages, and its phase messages (built from a dict, not in
# the IllegalMove call, so the extractor below cannot see them).
VALUES = (
    gettext_noop("clubs"),
    gettext_noop("diamonds"),
    gettext_noop("hearts"),
    gettext_noop("spades"),
    gettext_noop("pass cards"),
    gettext_noop("play a card"),
    gettext_noop("choose a moon result"),
)
PHASE_MESSAGES = (
    gettext_noop("You cannot {what} now: players are passing cards."),
    gettext_noop("You cannot {what} now: the hand is being played."),
    gettext_noop("You cannot {what} now: the moon shooter is choosing."),
    gettext_noop("You cannot {what} now: the game is over."),
)

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def supported(code: str | None) -> str | None:
    """``code`` as one of ``settings.LANGUAGES`` (``es-AR`` -> ``es``), or None."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def player_language(user) -> str | None:
    """The language the signed-in ``user``'s profile chose, if any."""
    player = getattr(user, "player", None) if getattr(user, "is_authenticated", False) else None
    return supported(getattr(player, "language", "") or None)


def request_language(request) -> str:
    """The language a (Django or DRF) request is answered in: profile, cookie, Accept-Language."""
    user = getattr(request, "user", None)
    return (
        player_language(user)
        or getattr(request, "LANGUAGE_CODE", None)
        or translation.get_language()
        or settings.LANGUAGE_CODE
    )


def scope_language(scope, profile: str | None = None) -> str:
    """The language of a WebSocket connection: ``profile`` (the player's ``language``), then the
    cookie, then Accept-Language."""
    chosen = supported(profile)
    if chosen:
        return chosen
    cookie = supported((scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME))
    if cookie:
        return cookie
    headers = dict(scope.get("headers") or ())
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    for code, _quality in parse_accept_lang_header(accept):
        found = supported(code) if code != "*" else None
        if found:
            return found
    return supported(settings.LANGUAGE_CODE) or "en"


class ProfileLanguageMiddleware:
    """After ``LocaleMiddleware`` and authentication: a signed-in player's profile language wins
    over the cookie and the browser's Accept-Language."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        chosen = player_language(getattr(request, "user", None))
        if chosen and chosen != getattr(request, "LANGUAGE_CODE", None):
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        return self.get_response(request)


def localize(detail: str, language: str | None = None) -> str:
    """``detail`` (an English API or engine message) in ``language`` (default: the active one)."""
    if not isinstance(detail, str) or not detail:
        return detail
    if language is None:
        return _translate(detail, 2)
    with translation.override(language):
        return _translate(detail, 2)


def _translate(text: str, depth: int) -> str:
    found = gettext(text)
    if found != text or depth == 0:
        return found
    for pattern, msgid, names in _patterns():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        translated = gettext(msgid)
        if translated == msgid:
            return text
        values = {name: _translate(value, depth - 1) for name, value in zip(names, match.groups(), strict=True)}
        # the default binds this loop's values; mypy infers no lambda with a default argument
        return _PLACEHOLDER.sub(lambda m, values=values: values.get(m.group(1), m.group(0)), translated)  # type: ignore[misc]
    return text


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern, str, list[str]]]:
    from hearts_league.error_messages import MESSAGES

    out = []
    for msgid in (*MESSAGES, *PHASE_MESSAGES):
        names = _PLACEHOLDER.findall(msgid)
        if not names:
            continue
        parts = _PLACEHOLDER.split(msgid)[::2]
        pattern = re.compile("(.+?)".join(re.escape(p) for p in parts), re.DOTALL)
        out.append((pattern, msgid, names))
    # The most literal text first, so "Seat {seat} is taken." is not read as a vaguer pattern.
    out.sort(key=lambda item: -sum(len(p) for p in _PLACEHOLDER.split(item[1])[::2]))
    return out


# --- extraction: ``python -m hearts_league.i18n`` rewrites hearts_league/error_messages.py ------

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("engine", "hearts_league", "tournaments", "ratings", "web", "analysis")
# callee name -> index of the message argument
CALLS = {
    "DomainError": 1,
    "IllegalMove": 1,
    "error_response": 2,
    "JSONInputError": 1,
    "JSONRefused": 1,
    "error": 1,
    "_refuse": 2,
    "localize": 0,
}
GENERATED = ROOT / "hearts_league" / "error_messages.py"


_SIMPLE = re.compile(r"[A-Za-z_][\w.]*")


def _message_text(node: ast.AST) -> str | None:
    """A message's text, each value as ``{name}`` (``{v1}`` for an expression)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for i, part in enumerate(node.values):
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            elif isinstance(part, ast.FormattedValue):
                expr = ast.unparse(part.value)
                out.append("{" + (expr if _SIMPLE.fullmatch(expr) else f"v{i}") + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _message_text(node.left), _message_text(node.right)
        return left + right if left is not None and right is not None else None
    return None


def extract() -> list[str]:
    """Every message the code refuses with, in source order, without repeats."""
    seen: dict[str, None] = {}
    for package in SOURCES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts or path == GENERATED:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                index = CALLS.get(name)  # type: ignore[arg-type]  # None (a call of a call) finds nothing
                if name == "ValueError" and path.parent.name == "engine" and path.stem in ("rules", "cards"):
                    index = 0  # the rules' and cards' refusals reach players inside "not valid: {error}"
                on_self = isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "self"
                if name == "error" and not on_self:
                    continue
                if index is None or len(node.args) <= index:
                    continue
                text = _message_text(node.args[index])
                if text and any(c.isalpha() for c in text):
                    seen.setdefault(text, None)
    return list(seen)


def render_generated(messages: list[str]) -> str:
    lines = [
        "# ruff: noqa: E501",
        '"""Generated by ``python -m hearts_league.i18n``: the messages the code refuses with, so',
        "that ``makemessages`` puts them in the catalogs. Do not edit; regenerate.",
        '"""',
        "",
        "from django.utils.translation import gettext_noop",
        "",
        "MESSAGES = (",
    ]
    lines += [f"    gettext_noop({text!r})," for text in messages]
    lines += [")", ""]
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    GENERATED.write_text(render_generated(extract()), encoding="utf-8")
    sys.stdout.write(f"{GENERATED.relative_to(ROOT)}: {len(extract())} messages\n")
