"""Text a client sends that no database can hold: the NUL character (U+0000).

PostgreSQL refuses it in every text value ("a string literal cannot contain NUL"), so a query
parameter, a form field or a JSON string holding one reached the database and failed there: a
500 (a login form, a token, a director's search, the admin's filters). It is refused at the door
instead, with 400 ``nul_character``: by :class:`RefuseNulCharactersMiddleware` for the path, the
query string and form bodies, and by ``json_input.parse_json`` for JSON (REST bodies and socket
frames alike).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import SuspiciousOperation
from django.utils.translation import gettext_noop

NUL = "\x00"
NUL_DETAIL = gettext_noop("Text may not hold the NUL character (U+0000).")
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


class NulCharacter(SuspiciousOperation):
    """A request's path, parameters or form fields hold a NUL character."""


def holds_nul(value: Any) -> bool:
    """Whether a string anywhere in ``value`` (keys of objects included) holds a NUL (iterative)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if NUL in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


class RefuseNulCharactersMiddleware:
    """400 ``nul_character`` (``hearts_league.errors.bad_request``) for a NUL in the path, the
    query string or a form body, before any view reads them."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            NUL in request.path
            or _in_query(request.GET)
            or (request.content_type in _FORMS and _in_query(request.POST))
        ):
            raise NulCharacter("a NUL character in the request")
        return self.get_response(request)


def _in_query(query) -> bool:
    return any(NUL in key or any(NUL in value for value in values) for key, values in query.lists())
