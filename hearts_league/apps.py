"""The admin, as the project configures it (in INSTALLED_APPS in place of ``django.contrib.admin``)."""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig


class GuardedAdminConfig(AdminConfig):
    """Django's admin, with every ModelAdmin behind ``hearts_league.admin.GuardedLookupsAdmin``
    once every app's admin module has registered (``AdminConfig.ready`` discovers them)."""

    def ready(self):
        super().ready()
        from hearts_league.admin import guard_every_admin

        guard_every_admin(admin.site)
