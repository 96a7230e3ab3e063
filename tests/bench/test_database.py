"""The benchmarks create their PostgreSQL database on a machine that lacks it."""

import uuid

import psycopg
import pytest
from django.conf import settings

from bench.database import ensure_database

DEFAULT = settings.DATABASES["default"]

on_postgresql = pytest.mark.skipif(
    DEFAULT["ENGINE"] != "django.db.backends.postgresql", reason="the benchmarks measure PostgreSQL"
)


def _server_url(name: str) -> str:
    user, host = DEFAULT.get("USER") or "postgres", DEFAULT.get("HOST") or "127.0.0.1"
    port = DEFAULT.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{name}"


def _exists(name: str) -> bool:
    with psycopg.connect(_server_url("postgres"), autocommit=True) as connection:
        return connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


@on_postgresql
def test_a_missing_database_is_created_once_and_then_left_alone(monkeypatch, capsys):
    name = f"hearts_bench_{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("DATABASE_URL", _server_url(name))
    try:
        ensure_database()
        assert _exists(name)
        assert f"created database {name}" in capsys.readouterr().out
        ensure_database()  # there now: nothing happens, nothing is said
        assert capsys.readouterr().out == ""
        with psycopg.connect(_server_url(name)) as connection:
            assert connection.execute("SELECT 1").fetchone() == (1,)
    finally:
        with psycopg.connect(_server_url("postgres"), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_sqlite_is_left_to_django(monkeypatch, tmp_path):
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'bench.sqlite3'}")
    ensure_database()
    assert not (tmp_path / "bench.sqlite3").exists()
