"""Shared fixtures. Back-end-specific tests skip themselves with a reason when run without it."""

import os

import pytest
from rest_framework.test import APIClient

REDIS_URL = os.environ.get("REDIS_URL", "")

requires_redis = pytest.mark.skipif(not REDIS_URL, reason="needs Redis: set REDIS_URL (CI does)")


@pytest.fixture(autouse=True)
def _fresh_process_caches():
    """Test databases reuse game ids: start every test with empty per-process caches."""
    from tournaments.eventstore import engine_cache
    from tournaments.feed import feed

    engine_cache.clear()
    feed.clear()
    yield


@pytest.fixture
def api_client():
    return APIClient()
