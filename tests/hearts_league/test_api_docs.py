import pytest


@pytest.mark.django_db
def test_openapi_schema_is_served(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["info"]["title"] == "Hearts League API"
    assert "/api/leagues/" in schema["paths"]


@pytest.mark.django_db
def test_browsable_api_docs_page_is_served(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()


@pytest.mark.django_db
def test_errors_carry_a_machine_readable_code(api_client):
    response = api_client.get("/api/leagues/999999/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_the_api_docs_pages_load_nothing_from_another_host(client, url):
    """Swagger UI and Redoc come from drf-spectacular-sidecar's static files: the docs work offline."""
    import re

    response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    outside = re.findall(r"""(?:src|href|url)\\s*[=:(]\\s*["']?((?:https?:)?//[^"'\\s)]+)""", page)
    assert outside == [], f"{url} loads from another host: {outside}"
    assert re.search(r"/static/drf_spectacular_sidecar/", page)
    for asset in re.findall(r"""["'](/static/drf_spectacular_sidecar/[^"']+)["']""", page):
        assert client.get(asset).status_code == 200, asset
