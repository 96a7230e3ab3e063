"""Project-wide admin conventions: a changelist filters by its own list filters and nothing else.

Django's ``ModelAdmin.lookup_allowed`` admits any lookup on a model's own fields from the query
string (JSON key paths, ``__startswith``, ``__lte``, ``__regex`` included), and the rows it shows,
or their count, answer yes/no questions about fields the admin pages never show: a hidden hand
(``?payload__hands__1__icontains=QS``), a live deal salt, a round's seed by binary search. Every
ModelAdmin of the project inherits :class:`GuardedLookupsAdmin`, which admits only the lookups of
its own ``list_filter`` and ``date_hierarchy``, the few its pages link to (``link_lookups``) and
the raw-id popups' ``limit_choices_to``. Django refuses any other with
``DisallowedModelAdminLookup``: a 400 (``hearts_league.errors.bad_request``), before any query.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.contrib.admin import widgets
from django.contrib.admin.filters import FieldListFilter
from django.contrib.admin.utils import NestedObjects, get_fields_from_path
from django.db import router
from django.db.models import Field, Model

_CACHE = "_hearts_admin_filter_lookups"  # on the request: the filters' parameters, per ModelAdmin

DeletionGuard = Callable[[Any, Callable[[], list[Model]]], str | None]
#: The apps' rules on what a delete confirmation may list: each is given the request and a way to
#: collect every row the deletion would take (with the rows that protect it), and returns why the
#: deletion is refused, or None. A confirmation lists each of those rows by name.
deletion_guards: list[DeletionGuard] = []


class GuardedLookupsAdmin(admin.ModelAdmin):
    """A ModelAdmin whose changelist takes only its own filters' lookups from the query string."""

    #: lookups the project's own links use that are no list filter (``game__id__exact``...);
    #: each an exact match on an id or a shown field, never a hidden one nor a pattern
    link_lookups: tuple[str, ...] = ()

    def lookup_allowed(self, lookup: str, value: Any, request: Any = None) -> bool:
        if lookup in self.link_lookups or lookup in self.filter_lookups(request):
            return True
        # The raw-id widget's popup filters by the foreign key's limit_choices_to: that pair only.
        for fk_lookup in self.model._meta.related_fkey_lookups:
            if callable(fk_lookup):
                fk_lookup = fk_lookup()
            if (lookup, value) in widgets.url_params_from_lookup_dict(fk_lookup).items():
                return True
        return False

    def get_deleted_objects(self, objs, request):
        """Django's list of what deleting ``objs`` takes, unless a deletion guard refuses it: then
        nothing is listed, and the refusal stands where the permissions lacking would."""
        refusal = _deletion_refused(objs, request)
        if refusal is not None:
            return [], {}, {refusal}, []
        return super().get_deleted_objects(objs, request)

    def filter_lookups(self, request: Any = None) -> frozenset[str]:
        """The query-string parameters of this admin's list filters and date hierarchy."""
        cache = getattr(request, _CACHE, None) if request is not None else None
        if cache is not None and self in cache:
            return cache[self]
        names: set[str] = set()
        list_filter = self.get_list_filter(request) if request is not None else self.list_filter
        for item in list_filter:
            # built as ChangeList.get_filters builds them, from no parameters: what each expects
            spec: Any
            if callable(item):
                spec = item(request, {}, self.model, self)
            else:
                field: Any
                filter_class: Any
                field, filter_class = item if isinstance(item, (list, tuple)) else (item, FieldListFilter.create)
                path: str | None = None
                if not isinstance(field, Field):
                    path = str(field)
                    field = get_fields_from_path(self.model, path)[-1]
                spec = filter_class(field, request, {}, self.model, self, field_path=path)
            names.update(name for name in spec.expected_parameters() if name)
        if self.date_hierarchy:
            names.update(f"{self.date_hierarchy}__{part}" for part in ("year", "month", "day"))
        lookups = frozenset(names)
        if request is not None:
            if cache is None:
                cache = {}
                setattr(request, _CACHE, cache)
            cache[self] = lookups
        return lookups


def _deletion_refused(objs, request) -> str | None:
    collected: list[Model] | None = None

    def related() -> list[Model]:
        nonlocal collected
        if collected is None:
            objs_list = list(objs)
            collector = NestedObjects(using=router.db_for_write(objs_list[0]._meta.model) if objs_list else "default")
            collector.collect(objs_list)
            collected = [obj for rows in collector.data.values() for obj in rows] + list(collector.protected)
        return collected

    for guard in deletion_guards:
        refusal = guard(request, related)
        if refusal is not None:
            return refusal
    return None


def guard_every_admin(site: admin.AdminSite) -> None:
    """Put :class:`GuardedLookupsAdmin` in front of every ModelAdmin of ``site`` not already
    behind it: Django's own (users, groups) and the libraries' (django-axes, DRF's tokens), whose
    changelists would otherwise answer lookups on fields they never show (a password hash's prefix,
    a token's). Called once every app has registered its admins (``hearts_league.urls``)."""
    for model, model_admin in list(site._registry.items()):
        if isinstance(model_admin, GuardedLookupsAdmin):
            continue
        guarded = type(f"Guarded{type(model_admin).__name__}", (GuardedLookupsAdmin, type(model_admin)), {})
        site.unregister(model)
        site.register(model, guarded)
