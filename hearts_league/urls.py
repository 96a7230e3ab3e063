"""Top-level URLs: admin, REST API, OpenAPI schema and docs, health check, the web pages."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from hearts_league.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("api/", include("tournaments.urls")),
    path("api/", include("ratings.urls")),
    path("api/", include("analysis.urls")),
    path("", include("web.urls")),
]

handler400 = "hearts_league.errors.bad_request"
handler403 = "hearts_league.errors.permission_denied"
handler404 = "hearts_league.errors.not_found"
handler500 = "hearts_league.errors.server_error"
