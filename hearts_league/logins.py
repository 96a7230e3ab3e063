"""Login doors: the client's real address, and what a locked-out client is answered.

django-axes counts failed ``authenticate()`` calls by client address (the token view, the web
sign-in form and the admin login all go through it) and, past ``AXES_FAILURE_LIMIT``, refuses
every login from that address, right password or not, until ``AXES_COOLOFF_TIME`` has passed
since the last failure. DRF's ``auth`` throttle limits the rate of token, registration and guest
requests by the same address.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from axes.helpers import get_cool_off, get_lockout_response
from axes.middleware import AxesMiddleware
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import ngettext


def client_ip(request: HttpRequest) -> str:
    """The client's address: ``REMOTE_ADDR``, or with ``HEARTS_TRUSTED_PROXIES`` = N > 0 the
    N-th address from the right of ``X-Forwarded-For`` (the one the outermost trusted proxy saw).

    The same rule as DRF's ``NUM_PROXIES`` (set to the same number), so the throttles and the
    lockouts agree. With 0, X-Forwarded-For is ignored: any client can write it.
    """
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.HEARTS_TRUSTED_PROXIES
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if proxies == 0 or not forwarded:
        return remote
    return forwarded[-min(proxies, len(forwarded))]


def lockout_seconds() -> int:
    return int(get_cool_off().total_seconds())


def lockout_message() -> str:
    minutes = max(1, round(lockout_seconds() / 60))
    return ngettext(
        "Too many failed sign-ins from your address: signing in is blocked for %(minutes)s "
        "minute after the last failed attempt.",
        "Too many failed sign-ins from your address: signing in is blocked for %(minutes)s "
        "minutes after the last failed attempt.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """429 for a login refused because its address is locked out (``AXES_LOCKOUT_CALLABLE``):
    the API's JSON error ``throttled``; the web sign-in form's own 429 page; an admin page."""
    if isinstance(original_response, HttpResponse) and original_response.status_code == 429:
        response = original_response  # the view answered it already (the web sign-in form)
    elif request.path.startswith("/api/"):
        response = JsonResponse({"code": "throttled", "detail": lockout_message()}, status=429)
    else:
        response = render(
            request,
            "admin/locked_out.html",
            {"message": lockout_message(), "title": "Signing in is blocked"},
            status=429,
        )
    response["Retry-After"] = str(lockout_seconds())
    return response


class LockoutMiddleware(AxesMiddleware):
    """``axes.middleware.AxesMiddleware`` whose async path (under Daphne) hands the lockout
    callable the response, as its sync path does (axes 8.3.1 passes the credentials there)."""

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        response = await self.get_response(request)
        # axes.conf sets AXES_ENABLED's default on the settings when it is imported
        if settings.AXES_ENABLED and getattr(request, "axes_locked_out", None):  # type: ignore[misc]
            response = await sync_to_async(get_lockout_response, thread_sensitive=True)(
                request, response, getattr(request, "axes_credentials", None)
            )
        return response
