"""With DEBUG off (the default, ``make run`` included) no error shows a traceback, a setting or a
request's local variables: every error is the JSON shape with a code."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

ROOT = Path(__file__).resolve().parents[2]


def test_debug_is_off_without_configuration_and_the_secret_key_is_made_once_not_shipped(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "HEARTS_PROFILE"}}
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='hearts_league.settings'; django.setup();"
        "from django.conf import settings as s; print(s.DEBUG, s.SECRET_KEY)"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][0] == "False"
    assert runs[0][1] == runs[1][1] and len(runs[0][1]) >= 50  # kept in var/, the same for every process
    assert "dev-only" not in runs[0][1]
    assert (ROOT / "var" / "secret_key").stat().st_mode & 0o077 == 0  # readable by its owner only
    ignored = subprocess.run(["git", "check-ignore", "var/secret_key"], cwd=ROOT, capture_output=True, text=True)
    assert ignored.returncode == 0, "var/ must be ignored by git"


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.hearts_league.error_urls", DEBUG=False)
def test_a_failure_answers_500_in_the_json_shape_without_a_traceback():
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "server_error", "detail": response.json()["detail"]}
    assert b"QS" not in response.content and b"Traceback" not in response.content


@pytest.mark.django_db
def test_unknown_addresses_and_refused_forms_answer_json_with_a_code():
    missing = Client().get("/no/such/page/")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    csrf = Client(enforce_csrf_checks=True).post("/web/login", {"username": "a", "password": "b"})
    assert csrf.status_code == 403 and csrf.json()["code"] == "csrf_failed"
