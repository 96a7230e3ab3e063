"""The production profile and the embedded default."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _manage(*args, **env):
    full_env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "HEARTS_PROFILE"}}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_reports_no_warnings_in_the_production_profile():
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        HEARTS_PROFILE="production",
        SECRET_KEY="k8#p2V!x9s@Qm4&zR7t$Lw1^Yc6*Nb3(Hf5)Jd0-Ue8+Ga2=Kq",
        ALLOWED_HOSTS="hearts.example.org",
        CSRF_TRUSTED_ORIGINS="https://hearts.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_profile_refuses_to_start_without_a_secret_key():
    env = {"HEARTS_PROFILE": "production", "ALLOWED_HOSTS": "hearts.example.org"}
    result = _manage("check", **env) if "SECRET_KEY" not in os.environ else None
    if result is None:  # pragma: no cover - only when the caller exported a SECRET_KEY
        return
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_embedded_default_needs_no_configuration(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='hearts_league.settings'; django.setup();"
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'],"
        " s.CELERY_BROKER_URL, s.CELERY_EMBEDDED_WORKER)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert out == ["django.db.backends.sqlite3", "channels.layers.InMemoryChannelLayer", "memory://", "True"]


def _postgres_options(threshold: str | None):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_PREPARE_THRESHOLD"}
    env["DATABASE_URL"] = "postgres://user@127.0.0.1:5432/hearts"  # read, never connected to
    if threshold is not None:
        env["DATABASE_PREPARE_THRESHOLD"] = threshold
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='hearts_league.settings'; django.setup();"
        "from django.conf import settings as s; o = s.DATABASES['default']['OPTIONS'];"
        "print(o.get('server_side_binding'), o.get('prepare_threshold'))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_postgres_prepares_statements_unless_told_not_to_and_refuses_a_bad_threshold():
    assert _postgres_options(None).stdout.split() == ["True", "5"]
    assert _postgres_options("none").stdout.split() == ["None", "None"]  # for PgBouncer in transaction mode
    refused = _postgres_options("five")
    assert refused.returncode != 0
    assert "DATABASE_PREPARE_THRESHOLD must be a whole number or 'none'" in refused.stderr


def test_a_server_deadline_within_two_heartbeats_is_refused():
    refused = _manage("check", HEARTS_SERVER_HEARTBEAT="10", HEARTS_SERVER_DEAD_AFTER="15")
    assert refused.returncode != 0
    assert "HEARTS_SERVER_DEAD_AFTER must be more than twice HEARTS_SERVER_HEARTBEAT" in refused.stderr
    assert _manage("check", HEARTS_SERVER_HEARTBEAT="10", HEARTS_SERVER_DEAD_AFTER="25").returncode == 0
