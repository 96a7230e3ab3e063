"""Every login door is throttled by the client's real address, which X-Forwarded-For cannot fake:
the API token, the web sign-in form and the admin login lock an address out after
``AXES_FAILURE_LIMIT`` failures (django-axes), even for the right password; token, registration
and guest requests are rate-limited (DRF's ``auth`` throttle)."""

from __future__ import annotations

import pytest
from django.test import AsyncClient, Client, RequestFactory, override_settings
from rest_framework.throttling import SimpleRateThrottle

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
ATTEMPTS = 60


@pytest.fixture(autouse=True)
def fast_hashes_and_a_fresh_throttle(settings, monkeypatch):
    from django.core.cache import cache

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # 60 logins, quickly
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def only_the_lockout(monkeypatch):
    """The DRF rate out of the way, so that what answers 429 is the failed-login lockout."""
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"auth": "100000/minute", "commands": "100000/minute"})


def _forwarded(i: int) -> dict:
    return {"HTTP_X_FORWARDED_FOR": f"198.51.100.{i % 250}, 203.0.113.{i // 250}"}


def _token(client, username, password, i):
    return client.post(
        "/api/auth/token",
        {"username": username, "password": password},
        content_type="application/json",
        **_forwarded(i),
    )


def test_the_token_door_locks_an_address_out_whatever_x_forwarded_for_says(only_the_lockout, settings):
    member = PlayerFactory()
    client = Client()
    codes = [_token(client, member.user.username, "wrong-password", i).status_code for i in range(ATTEMPTS)]
    limit = settings.AXES_FAILURE_LIMIT
    assert codes[: limit - 1] == [401] * (limit - 1) and set(codes[limit:]) == {429}
    refused = _token(client, member.user.username, PASSWORD, ATTEMPTS)
    assert refused.status_code == 429, "the right password from a locked-out address got in"
    assert refused.json()["code"] == "throttled" and int(refused["Retry-After"]) > 0
    # another address (a real one: REMOTE_ADDR) is not locked out
    other = Client(REMOTE_ADDR="192.0.2.7")
    assert _token(other, member.user.username, PASSWORD, 0).status_code == 200


def test_the_web_sign_in_form_locks_an_address_out_and_says_so(settings):
    member = PlayerFactory()
    client = Client()
    for i in range(ATTEMPTS):
        response = client.post("/web/login", {"username": member.user.username, "password": "wrong"}, **_forwarded(i))
    assert response.status_code == 429
    right = client.post("/web/login", {"username": member.user.username, "password": PASSWORD}, **_forwarded(0))
    assert right.status_code == 429 and "_auth_user_id" not in client.session
    assert b"Too many failed sign-ins" in right.content and b"<form" in right.content


@pytest.mark.django_db(transaction=True)  # the views run on another thread
async def test_the_web_sign_in_form_locks_out_under_asgi_too(settings):
    from asgiref.sync import sync_to_async

    member = await sync_to_async(PlayerFactory)()
    client = AsyncClient()
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        response = await client.post("/web/login", {"username": member.user.username, "password": "wrong"})
    # the sign-in form itself, with the message (axes 8.3.1's own async middleware lost it)
    assert response.status_code == 429 and b"Too many failed sign-ins" in response.content
    assert b'name="password"' in response.content


def test_the_admin_login_locks_an_address_out(settings):
    director = PlayerFactory(user__is_staff=True, user__is_superuser=True)
    client = Client()
    for i in range(ATTEMPTS):
        response = client.post(
            "/admin/login/",
            {"username": director.user.username, "password": "wrong", "next": "/admin/"},
            **_forwarded(i),
        )
    assert response.status_code == 429 and b"Too many failed sign-ins" in response.content
    right = client.post("/admin/login/", {"username": director.user.username, "password": PASSWORD, "next": "/admin/"})
    assert right.status_code == 429 and "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302  # still sent to the login page


def test_one_lockout_covers_every_door():
    member = PlayerFactory()
    client = Client()
    for _ in range(20):
        client.post("/web/login", {"username": member.user.username, "password": "wrong"})
    assert _token(client, member.user.username, PASSWORD, 0).status_code == 429


@pytest.mark.parametrize(
    "url, body",
    [
        ("/api/auth/register", {"username": "x"}),  # refused bodies: the rate counts requests, not successes
        ("/api/auth/guest", {"device_id": "short"}),
        ("/api/auth/token", {"username": ""}),
    ],
)
def test_auth_requests_over_the_rate_get_429_whatever_x_forwarded_for_says(url, body):
    client = Client()
    codes = [
        client.post(url, body, content_type="application/json", **_forwarded(i)).status_code for i in range(ATTEMPTS)
    ]
    assert 429 in codes, f"{url}: {ATTEMPTS} requests with a new X-Forwarded-For each were never throttled"
    first = codes.index(429)
    assert set(codes[first:]) == {429}
    refused = client.post(url, body, content_type="application/json")
    assert refused.json()["code"] == "throttled" and "Retry-After" in refused


def test_x_forwarded_for_counts_only_with_trusted_proxies():
    from hearts_league.logins import client_ip

    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.1.1.1, 2.2.2.2")
    assert client_ip(request) == "10.0.0.1"
    with override_settings(HEARTS_TRUSTED_PROXIES=1):
        assert client_ip(request) == "2.2.2.2"  # what our one proxy saw; 1.1.1.1 is the client's claim
    with override_settings(HEARTS_TRUSTED_PROXIES=2):
        assert client_ip(request) == "1.1.1.1"
    with override_settings(HEARTS_TRUSTED_PROXIES=1):
        assert client_ip(RequestFactory().get("/", REMOTE_ADDR="10.0.0.1")) == "10.0.0.1"
