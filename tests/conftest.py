"""Shared fixtures. Back-end-specific tests skip themselves with a reason when run without it."""

import os

import pytest
from rest_framework.test import APIClient

REDIS_URL = os.environ.get("REDIS_URL", "")

requires_redis = pytest.mark.skipif(not REDIS_URL, reason="needs Redis: set REDIS_URL (CI does)")


@pytest.fixture(scope="session", autouse=True)
def _embedded_worker_stops_before_the_test_database_goes(request):
    """Without Redis the server runs a Celery worker and beat on threads (hearts_league.celery).
    Stop them before pytest-django drops the test database under them: set up after it, so
    torn down before it."""
    from hearts_league import celery as embedded

    if embedded.embedded_worker_running():
        request.getfixturevalue("django_db_setup")
    yield
    embedded.stop_embedded_worker()


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """Tests create many accounts: hash their passwords with a cheap algorithm (Django's advice
    for test settings). Passwords still have to match; the subprocess servers keep PBKDF2."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


def clear_process_caches():
    """Empty the per-process caches of game state (after a rollback, say)."""
    from tournaments.games.eventstore import engine_cache
    from tournaments.games.feed import feed
    from tournaments.live.frames import state_frames

    engine_cache.clear()
    feed.clear()
    state_frames.clear()


@pytest.fixture(autouse=True)
def _fresh_process_caches():
    """Test databases reuse game ids: start every test with empty per-process caches."""
    clear_process_caches()
    yield


@pytest.fixture
def api_client():
    return APIClient()


def _allow_event_truncate(sender, connection, **kwargs):
    """PostgreSQL refuses TRUNCATE of the event table (migration 0012) unless a superuser session
    says otherwise: the flushes of transactional tests TRUNCATE every table."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET hearts.allow_event_truncate = 'on'")


def pytest_configure(config):
    from django.db.backends.signals import connection_created

    connection_created.connect(_allow_event_truncate, dispatch_uid="allow_event_truncate")
