"""Project-wide REST conventions: every error body carries a machine-readable ``code``."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.views import exception_handler as drf_exception_handler


class DomainError(APIException):
    """An error raised by a service with its own stable code (``stale_state``, ``table_full``...)."""

    status_code = 400

    def __init__(self, code: str, message: str, status: int = 400, **extra):
        super().__init__(detail=message, code=code)
        self.status_code = status
        self.error_code = code
        self.extra = extra


def exception_handler(exc, context):
    """Shape every DRF error as ``{"code": ..., "detail": ..., ["errors": {...}]}``."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, DomainError):
        response.data = {"code": exc.error_code, "detail": str(exc.detail), **exc.extra}
    elif isinstance(exc, ValidationError):
        response.data = {"code": "invalid", "detail": "The request is not valid.", "errors": response.data}
    elif isinstance(exc, APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        response.data = {"code": code, "detail": str(exc.detail)}
    return response


# --- errors outside DRF's views (Django's handler404/500/..., CSRF failures) -------------------
# With DEBUG off (the default) every error is this JSON shape: it never shows a traceback, a
# setting or a request's local variables.


def error_response(status: int, code: str, detail: str) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail}, status=status)


def bad_request(request, exception=None):
    return error_response(400, "bad_request", "The request is not valid.")


def permission_denied(request, exception=None):
    return error_response(403, "permission_denied", "You may not do this.")


def not_found(request, exception=None):
    return error_response(404, "not_found", "There is nothing at this address.")


def server_error(request):
    return error_response(500, "server_error", "Something went wrong on the server; nothing was shown of it.")


def csrf_failure(request, reason=""):
    return error_response(403, "csrf_failed", "The form's CSRF token is missing or wrong: reload the page.")
