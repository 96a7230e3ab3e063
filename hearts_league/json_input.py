"""Parsing JSON a client sent: one function, with a size and a nesting limit, for REST and WebSocket.

``parse_json(data)`` returns the value or raises :class:`JSONInputError`, whose ``code`` is
``invalid_json``, ``json_too_deep``, ``nul_character`` (a string holding U+0000, which no
database stores) or ``body_too_large`` (and ``status`` the HTTP status to
answer with). orjson does the parsing: it is not recursive in Python (``'[' * 5000`` cannot
raise RecursionError), refuses ``NaN``/``Infinity`` and numbers that overflow to infinity
(``1e309``), and refuses strings with lone surrogates, which a database cannot store. The depth
limit keeps deeply nested values away from the Python code that walks them afterwards
(serializers, ``json.dumps``), which is recursive.
"""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from rest_framework.exceptions import APIException
from rest_framework.parsers import JSONParser

from hearts_league.text_input import NUL_DETAIL, holds_nul


class JSONInputError(ValueError):
    """JSON a client sent was refused; ``code`` says why, ``status`` is the HTTP status to answer."""

    def __init__(self, code: str, detail: str, status: int = 400):
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.status = status


def parse_json(data: str | bytes, *, max_depth: int | None = None, max_size: int | None = None) -> Any:
    """The JSON value in ``data``, refused with :class:`JSONInputError` if it is not JSON, nests
    deeper than ``max_depth`` arrays/objects (default ``HEARTS_JSON_MAX_DEPTH``) or is longer than
    ``max_size`` (bytes for ``bytes``, characters for ``str``; default ``HEARTS_MAX_BODY_BYTES``).

    A scalar has depth 0, ``[]`` and ``{}`` depth 1, ``{"a": [1]}`` depth 2.
    """
    max_depth = settings.HEARTS_JSON_MAX_DEPTH if max_depth is None else max_depth
    max_size = settings.HEARTS_MAX_BODY_BYTES if max_size is None else max_size
    if len(data) > max_size:
        raise JSONInputError(
            "body_too_large",
            f"The JSON is longer than {max_size} {'bytes' if isinstance(data, bytes) else 'characters'}.",
            status=413,
        )
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        if "depth limit" in str(error):  # orjson's own limit (1024) is far above ours
            raise JSONInputError("json_too_deep", f"The JSON nests deeper than {max_depth}.") from None
        raise JSONInputError("invalid_json", f"Not valid JSON: {error}") from None
    if _depth_exceeds(value, max_depth):
        raise JSONInputError("json_too_deep", f"The JSON nests deeper than {max_depth}.")
    # JSON writes a NUL only as the escape \u0000: look for one only when the text has it
    if (b"\\u0000" in data if isinstance(data, bytes) else "\\u0000" in data) and holds_nul(value):
        raise JSONInputError("nul_character", NUL_DETAIL)
    return value


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests deeper than ``limit`` (iterative: no recursion on hostile input)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        depth += 1
        if depth > limit:
            return True
        stack.extend((child, depth) for child in item if isinstance(child, (dict, list)))
    return False


class JSONRefused(APIException):
    """A :class:`JSONInputError` as a DRF error (not ``DomainError``: DRF imports this module
    while ``hearts_league.api`` is being imported)."""

    def __init__(self, code: str, detail: str, status: int):
        super().__init__(detail=detail, code=code)
        self.status_code = status


class LimitedJSONParser(JSONParser):
    """DRF's JSON parser with :func:`parse_json`'s limits: 413 ``body_too_large``, 400
    ``json_too_deep`` / ``invalid_json``, always in the API's error shape."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.HEARTS_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        # ASCII digits: str.isdigit also takes '²', which int refuses (a header is latin-1)
        if declared and declared.isascii() and declared.isdigit() and (len(declared) > 19 or int(declared) > limit):
            raise JSONRefused("body_too_large", f"The body is longer than {limit} bytes.", 413)
        body = stream.read(limit + 1) if stream is not None else b""
        try:
            return parse_json(body, max_size=limit)
        except JSONInputError as error:
            raise JSONRefused(error.code, error.detail, error.status) from None
