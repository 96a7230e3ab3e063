import pytest


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """UserFactory hashes a password per player; PBKDF2 would make these tests slow."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
