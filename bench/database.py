"""The benchmarks' PostgreSQL database, created when it is not there yet.

A benchmark pointed at ``postgres://.../hearts_bench`` on a new machine would otherwise wait for
the connection pool's timeout and end in a traceback; this creates the database first (the
server's ``postgres`` maintenance database, the same user), as ``.ci/run`` does for its own.
"""

from __future__ import annotations

import os


def ensure_database() -> None:
    """Create the database ``DATABASE_URL`` names if it is PostgreSQL and does not exist."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = conninfo_to_dict(url)
    name = params.get("dbname")
    if not name:
        return
    maintenance = make_conninfo(**{**params, "dbname": "postgres"})
    with psycopg.connect(maintenance, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists is None:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")
