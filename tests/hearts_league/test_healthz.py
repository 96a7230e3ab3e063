import pytest

from tests.conftest import requires_redis


@pytest.mark.django_db
def test_healthz_reports_the_database_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True


@requires_redis
@pytest.mark.django_db
def test_healthz_checks_channel_layer_and_broker_when_redis_is_configured(client):
    body = client.get("/healthz").json()
    assert body["checks"]["channel_layer"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is True


@pytest.mark.django_db
def test_healthz_answers_503_when_a_check_fails(client, monkeypatch):
    from hearts_league import health

    def broken():
        raise ConnectionError("database is gone")

    monkeypatch.setattr(health, "_check_database", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    failure = response.json()["checks"]["database"]
    assert failure == {"ok": False, "error": "ConnectionError: database is gone"}
