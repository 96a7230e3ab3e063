"""Django's error views, answering in the API's JSON error shape, pages included.

With DEBUG off (the default) every error is this shape: it never shows a traceback, a setting or
a request's local variables (Django's debug page lists them, and for a game they include every
dealt hand). ``handler400`` serves every request Django refuses before a view runs, or that a
view's reading of the body refuses: a bad Host header, too many fields, a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413 ``body_too_large``).
"""

from django.core.exceptions import SuspiciousOperation

from hearts_league.api import error_response, suspicious_request_error


def bad_request(request, exception=None):
    if isinstance(exception, SuspiciousOperation):
        return error_response(*suspicious_request_error(exception))
    return error_response(400, "bad_request", "The request is malformed.")


def permission_denied(request, exception=None):
    return error_response(403, "permission_denied", "You may not do this.")


def not_found(request, exception=None):
    return error_response(404, "not_found", "There is nothing at this address.")


def server_error(request):
    return error_response(500, "server_error", "Something went wrong on the server; nothing of it is shown.")


def csrf_failure(request, reason=""):
    return error_response(403, "csrf_failed", "The form's CSRF token is missing or wrong: reload the page.")
