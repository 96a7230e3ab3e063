"""Shared fixtures. Back-end-specific tests skip themselves with a reason when run without it."""

import os

import pytest
from rest_framework.test import APIClient

REDIS_URL = os.environ.get("REDIS_URL", "")

requires_redis = pytest.mark.skipif(not REDIS_URL, reason="needs Redis: set REDIS_URL (CI does)")


@pytest.fixture
def api_client():
    return APIClient()
