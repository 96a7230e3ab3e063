"""Django's error views, answering in the API's JSON error shape.

``handler400`` serves every request Django refuses before a view runs, or that a view's reading
of the body refuses: a bad Host header, too many fields, a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
(413 ``body_too_large``). Under ``/api/`` the 404 and 500 pages are JSON too; the web pages keep
Django's HTML ones.
"""

from django.core.exceptions import SuspiciousOperation
from django.views import defaults

from hearts_league.api import error_response, suspicious_request_error


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def bad_request(request, exception=None):
    if isinstance(exception, SuspiciousOperation):
        return error_response(*suspicious_request_error(exception))
    return error_response(400, "bad_request", "The request is malformed.")


def not_found(request, exception=None):
    if _is_api(request):
        return error_response(404, "not_found", "Not found.")
    return defaults.page_not_found(request, exception)


def server_error(request):
    if _is_api(request):
        return error_response(500, "server_error", "Something went wrong on the server.")
    return defaults.server_error(request)
