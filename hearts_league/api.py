"""Project-wide REST conventions: every error body carries a machine-readable ``code``."""

import re

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404, JsonResponse
from django.utils.translation import gettext_noop
from rest_framework import exceptions
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.views import exception_handler as drf_exception_handler

from hearts_league.i18n import localize, request_language
from hearts_league.text_input import NUL_DETAIL, NulCharacter


class DomainError(APIException):
    """An error raised by a service with its own stable code (``stale_state``, ``table_full``...)."""

    status_code = 400

    def __init__(self, code: str, message: str, status: int = 400, **extra):
        super().__init__(detail=message, code=code)
        self.status_code = status
        self.error_code = code
        self.extra = extra


_INTEGER = re.compile(r"-?[0-9]{1,20}")
MAX_ID = 2**63 - 1  # the largest bigint: ids and numbers beyond it are refused before the database


def int_query_param(
    request, name: str, default: int | None = None, minimum: int = 0, maximum: int = MAX_ID
) -> int | None:
    """The integer query parameter ``name`` (``default`` when absent or empty), or 400
    ``invalid_parameter`` if it is not a whole number from ``minimum`` to ``maximum``: a number
    beyond a bigint would reach the database and fail there (a 500) rather than find nothing."""
    raw = request.query_params.get(name) if hasattr(request, "query_params") else request.GET.get(name)
    if raw in (None, ""):
        return default
    if not _INTEGER.fullmatch(raw):  # not int(): it takes " 1_0 " and spends time on huge strings
        raise DomainError("invalid_parameter", f"'{name}' must be an integer.")
    value = int(raw)
    if not minimum <= value <= maximum:
        raise DomainError("invalid_parameter", f"'{name}' must be from {minimum} to {maximum}.")
    return value


def suspicious_request_error(exc: SuspiciousOperation) -> tuple[int, str, str]:
    """(status, code, detail) for a request Django refused as malformed or too big."""
    if isinstance(exc, RequestDataTooBig):
        return 413, "body_too_large", gettext_noop("The request body is too large.")
    if isinstance(exc, NulCharacter):
        return 400, "nul_character", NUL_DETAIL
    name = type(exc).__name__
    codes = {"DisallowedHost": "bad_host", "TooManyFieldsSent": "too_many_fields", "TooManyFilesSent": "too_many_files"}
    return 400, codes.get(name, "bad_request"), "The request is malformed."


def error_response(status: int, code: str, detail: str) -> JsonResponse:
    """The API's error body, outside DRF (Django's error handlers, middleware); ``detail`` in
    the active language (``LocaleMiddleware`` and the profile's choice have set it)."""
    return JsonResponse({"code": code, "detail": localize(detail)}, status=status)


def _language(context) -> str | None:
    request = context.get("request") if context else None
    if request is None:
        return None
    try:
        return request_language(request)
    except Exception:  # a failing authenticator raises again here; the cookie's language will do
        return getattr(request, "LANGUAGE_CODE", None)


def exception_handler(exc, context):
    """Shape every DRF error as ``{"code": ..., "detail": ..., ["errors": {...}]}``, the
    ``detail`` in the request's language (the code stays the same in every language)."""
    if isinstance(exc, SuspiciousOperation):
        return error_response(*suspicious_request_error(exc))
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    language = _language(context)
    if isinstance(exc, DomainError):
        response.data = {"code": exc.error_code, "detail": localize(str(exc.detail), language), **exc.extra}
    elif isinstance(exc, ValidationError):
        response.data = {
            "code": "invalid",
            "detail": localize("The request is not valid.", language),
            "errors": response.data,
        }
    elif isinstance(exc, APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        response.data = {"code": code, "detail": localize(str(exc.detail), language)}
    return response
