"""Hand-written SQL for the statements of a move, built from the models' own metadata.

Django compiles every query anew, and for the small statements of a move that costs several
times what the database spends running them (locking a game with its seats: ~2 ms of CPU
through the ORM, ~0.15 ms here). Every live play runs these statements, so they are written
once per database vendor here and read back into ordinary model instances (``Model.from_db``,
with the fields' own converters), which the rest of the code cannot tell from the ORM's. A move's
write takes its values as two JSON documents (the row's fields, the new events) instead of one
parameter per value. Everything else uses the ORM; tests check each statement here against its ORM twin.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Generic, TypeVar, cast

import orjson
from django.db import DEFAULT_DB_ALIAS, models
from django.db import connection as default_connection
from django.db.models import Field, Model

from hearts_league.runtime import database_vendor
from tournaments.games import loop_db


def quote(name: str) -> str:
    return default_connection.ops.quote_name(name)


def table(model: type[Model]) -> str:
    """The model's quoted table name."""
    return quote(model._meta.db_table)


class Statement:
    """SQL written on first use, once per database vendor (quoting and locking differ)."""

    def __init__(self, build: Callable[[], str]):
        self._build = build
        self._built: dict[str, str] = {}

    def __str__(self) -> str:
        text = self._built.get(database_vendor())
        if text is None:
            text = self._built[database_vendor()] = self._build()
        return text


M = TypeVar("M", bound=Model)


class Columns(Generic[M]):
    """A model's concrete columns under a table alias: the SELECT list, and rows read back."""

    def __init__(self, model: type[M], alias: str):
        self.model, self.alias = model, alias
        self.fields = list(model._meta.concrete_fields)
        self.attnames = [field.attname for field in self.fields]
        self.width = len(self.fields)
        self._converters: dict[str, list] = {}

    def select(self) -> str:
        alias = quote(self.alias)
        return ", ".join(f"{alias}.{quote(field.column)}" for field in self.fields)

    def loader(self, offset: int = 0) -> Callable[[Sequence], M]:
        """A function from a result row to an instance, reading this model's columns at ``offset``."""
        connection = default_connection
        converters = self._converters.get(connection.vendor)
        if converters is None:
            converters = []
            for index, field in enumerate(self.fields):
                column = field.get_col(self.alias)
                # Field.get_db_converters is Django's (what a queryset calls), not in django-stubs
                found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)  # type: ignore[attr-defined]
                if found:
                    converters.append((index, column, found))
            # Cached only once complete: another thread must never load rows with half the list.
            self._converters[connection.vendor] = converters
        model, attnames, using, end = self.model, self.attnames, connection.alias, offset + self.width

        def load(row: Sequence) -> M:
            values = list(row[offset:end])
            for index, column, functions in converters:
                value = values[index]
                for function in functions:
                    value = function(value, column, connection)
                values[index] = value
            return model.from_db(using, attnames, values)

        return load


def copy_row(obj: M) -> M:
    """A shallow copy of a model instance, as ``copy.copy`` makes it (its own ``_state`` and
    cache of related objects), without the pickling protocol's round trip ``copy.copy`` takes
    through ``Model.__reduce__`` (a fifth of the CPU a live move spent on itself)."""
    clone = obj.__class__.__new__(obj.__class__)
    clone.__dict__.update(obj.__dict__)
    state = clone._state = copy.copy(obj._state)
    state.fields_cache = obj._state.fields_cache.copy()
    return clone


def fetch(statement: Statement | str, params: Sequence) -> list[tuple]:
    with default_connection.cursor() as cursor:
        cursor.execute(str(statement), params)
        return cursor.fetchall()


async def fetch_async(statement: Statement | str, params: Sequence) -> list[tuple]:
    """:func:`fetch` from an event loop, on its own connections (``loop_db``: PostgreSQL only;
    raises ``loop_db.ConnectionFailed`` if the connection failed)."""
    return await loop_db.fetch(str(statement), params)


def execute(statement: Statement | str, params: Sequence) -> int:
    """Run a statement that returns no rows; the number of rows it changed."""
    with default_connection.cursor() as cursor:
        cursor.execute(str(statement), params)
        return cursor.rowcount


def for_update_of(*aliases: str) -> str:
    """``FOR UPDATE OF aliases`` where the database has row locks (SQLite locks the whole file)."""
    features = default_connection.features
    if not features.has_select_for_update:
        return ""
    if not features.has_select_for_update_of:
        return " FOR UPDATE"
    return " FOR UPDATE OF " + ", ".join(quote(alias) for alias in aliases)


INSERT_BATCH = 500


def insert(objs: Sequence[Model]) -> None:
    """INSERT new instances of one model in one statement and set their primary keys, as
    ``bulk_create`` does (auto_now fields, the fields' own value preparation)."""
    if not objs:
        return
    connection = default_connection
    model = type(objs[0])
    for start in range(0, len(objs), INSERT_BATCH):  # SQLite allows 32,766 parameters a statement
        batch = objs[start : start + INSERT_BATCH]
        statement, fields, returning = _insert_statement(model, len(batch), connection.vendor)
        params = [field.get_db_prep_save(field.pre_save(obj, True), connection) for obj in batch for field in fields]
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            ids = [row[0] for row in cursor.fetchall()] if returning else [None] * len(batch)
        for obj, pk in zip(batch, ids, strict=True):
            if pk is not None:
                obj.pk = pk
            obj._state.adding, obj._state.db = False, connection.alias


@functools.lru_cache(maxsize=64)
def _insert_statement(model: type[Model], rows: int, vendor: str) -> tuple[str, list[Field], bool]:
    # ``vendor`` is only part of the cache key: quoting and RETURNING differ between back ends.
    meta = model._meta
    fields = [field for field in meta.concrete_fields if field is not meta.auto_field]
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    statement = (
        f"INSERT INTO {table(model)} ({', '.join(quote(f.column) for f in fields)}) VALUES {', '.join([one] * rows)}"
    )
    returning = default_connection.features.can_return_rows_from_bulk_insert and meta.auto_field is not None
    if returning and meta.auto_field is not None:  # returning implies it: narrows for mypy
        statement += f" RETURNING {quote(meta.auto_field.column)}"
    return statement, fields, returning


def update(obj: Model, field_names: Sequence[str]) -> None:
    """UPDATE these fields of a saved instance, as ``obj.save(update_fields=...)`` does."""
    connection = default_connection
    statement, fields = _update_statement(type(obj), tuple(field_names), connection.vendor)
    params = [field.get_db_prep_save(field.pre_save(obj, False), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, obj._meta.pk.get_db_prep_value(obj.pk, connection)])
        if cursor.rowcount != 1:
            # every concrete model has its DoesNotExist; the stubs' abstract Model has none
            raise type(obj).DoesNotExist(f"{obj._meta.object_name} {obj.pk} is gone")  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=64)
def _update_statement(model: type[Model], field_names: tuple[str, ...], vendor: str) -> tuple[str, list[Field]]:
    # ``vendor``: as for _insert_statement.
    meta = model._meta
    fields = [cast(Field, meta.get_field(name)) for name in field_names]  # concrete fields: no relation's reverse
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    return f"UPDATE {table(model)} SET {assignments} WHERE {quote(meta.pk.column)} = %s", fields


def update_and_insert_if(
    obj: Model, field_names: Sequence[str], condition: str, condition_params: Sequence, objs: Sequence[Model]
) -> bool:
    """In one statement (PostgreSQL): UPDATE these fields of ``obj`` if its row still matches
    ``condition`` (SQL on the row's table, unaliased), and INSERT ``objs`` (new instances of one
    model) only if it did, setting their primary keys. False, and nothing written, if the row
    did not match. A move's whole write in one round trip, without holding a lock."""
    statement, params = _update_and_insert(obj, field_names, condition, condition_params, objs)
    with default_connection.cursor() as cursor:
        cursor.execute(statement, params)
        return _inserted(objs, cursor.fetchall())


async def update_and_insert_if_async(
    obj: Model, field_names: Sequence[str], condition: str, condition_params: Sequence, objs: Sequence[Model]
) -> bool:
    """:func:`update_and_insert_if` from an event loop, on its own connections (``loop_db``).
    Raises ``loop_db.ConnectionFailed`` if the connection failed (whether the statement took
    effect is then unknown)."""
    statement, params = _update_and_insert(obj, field_names, condition, condition_params, objs)
    return _inserted(objs, await loop_db.fetch(statement, params))


def _update_and_insert(
    obj: Model, field_names: Sequence[str], condition: str, condition_params: Sequence, objs: Sequence[Model]
) -> tuple[str, list]:
    """The statement of :func:`update_and_insert_if` and its parameters: the updated fields as one
    JSON object, the condition's parameters, the inserted rows as one JSON array (``_JsonColumns``)."""
    inserting = type(objs[0]) if objs else None
    statement, updated, inserted = _update_and_insert_statement(
        type(obj), tuple(field_names), condition, inserting, database_vendor()
    )
    params = [updated.record(obj), obj.pk, *condition_params]
    if inserted is not None:
        params.append(inserted.records(objs))
    return statement, params


@functools.lru_cache(maxsize=64)
def _update_and_insert_statement(
    model: type[Model],
    field_names: tuple[str, ...],
    condition: str,
    inserting: type[Model] | None,
    vendor: str,
) -> tuple[str, _JsonColumns, _JsonColumns | None]:
    """The text of :func:`update_and_insert_if`'s statement, with how it takes its values: written
    once per shape (the number of rows inserted is not part of it), not quoted again on every move."""
    # ``vendor``: as for _insert_statement.
    meta = model._meta
    updated = _JsonColumns([cast(Field, meta.get_field(name)) for name in field_names])
    columns = ", ".join(quote(field.column) for field in updated.fields)
    statement = (
        f"WITH moved AS (UPDATE {table(model)} SET ({columns}) = (SELECT {updated.select('r')}"
        f" FROM jsonb_to_record(%s::jsonb) AS r({updated.definitions()}))"
        f" WHERE {quote(meta.pk.column)} = %s AND ({condition}) RETURNING 1)"
    )
    if inserting is None:
        return statement + " SELECT count(*) FROM moved", updated, None
    new = inserting._meta
    inserted = _JsonColumns([field for field in new.concrete_fields if field is not new.auto_field])
    pk_column = quote(new.pk.column)
    statement += (
        f", inserted AS (INSERT INTO {table(inserting)} ({', '.join(quote(f.column) for f in inserted.fields)})"
        f" SELECT {inserted.select('v')} FROM moved, jsonb_to_recordset(%s::jsonb) AS v({inserted.definitions()})"
        f" RETURNING {pk_column}) SELECT (SELECT count(*) FROM moved), {pk_column} FROM inserted"
    )
    return statement, updated, inserted


class _JsonColumns:
    """Columns whose values a statement takes as one JSON document (a record, or an array of
    them) and reads back with ``jsonb_to_record(set)``: one parameter instead of one per value,
    with no trip through each field's own preparation (most of a move's CPU in its statement).

    Only fields whose Python values JSON writes exactly as their column stores them: integers,
    booleans, text, JSON (with the default encoder) and aware datetimes (ISO 8601 with offset and
    microseconds). Anything else is refused when the statement is built."""

    _WRITABLE = (
        models.IntegerField,
        models.BooleanField,
        models.CharField,
        models.TextField,
        models.JSONField,
        models.DateTimeField,
        models.ForeignKey,
    )

    def __init__(self, fields: Sequence[Field]):
        for field in fields:
            if not isinstance(field, self._WRITABLE) or getattr(field, "encoder", None) is not None:
                raise TypeError(f"{field} is not written through JSON")
            if isinstance(field, models.ForeignKey) and not isinstance(field.target_field, models.IntegerField):
                raise TypeError(f"{field} points at a key not written through JSON")
        self.fields = list(fields)
        # pre_save is more than reading the attribute only for auto_now(_add) fields
        self._values = [
            (
                field.column,
                field.attname,
                field if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False) else None,
            )
            for field in self.fields
        ]

    def select(self, alias: str) -> str:
        return ", ".join(f"{alias}.{quote(field.column)}" for field in self.fields)

    def definitions(self) -> str:
        # Field.cast_db_type is Django's (what Cast() uses), not in django-stubs
        return ", ".join(f"{quote(field.column)} {field.cast_db_type(default_connection)}" for field in self.fields)  # type: ignore[attr-defined]

    def record(self, obj: Model) -> str:
        """The JSON object of a saved instance's values, column -> value (for an UPDATE)."""
        return _json(self._values_of(obj, adding=False))

    def records(self, objs: Sequence[Model]) -> str:
        """The JSON array of new instances' values (for an INSERT)."""
        return _json([self._values_of(obj, adding=True) for obj in objs])

    def _values_of(self, obj: Model, *, adding: bool) -> dict:
        return {
            column: getattr(obj, attname) if field is None else field.pre_save(obj, adding)
            for column, attname, field in self._values
        }


def _json(value) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # what orjson does not write (an integer beyond 64 bits, a key that is not a string)
        return json.dumps(value, default=_iso_datetime, ensure_ascii=False)


def _iso_datetime(value):
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _inserted(objs: Sequence[Model], found: list) -> bool:
    """Whether the row matched, given what :func:`_update_and_insert`'s statement returned;
    sets the inserted rows' primary keys."""
    if not objs:
        return bool(found and found[0][0])
    if not found:
        return False
    for new, (_, pk) in zip(objs, sorted(found, key=lambda row: row[1]), strict=True):
        new.pk = pk
        new._state.adding, new._state.db = False, DEFAULT_DB_ALIAS
    return True
