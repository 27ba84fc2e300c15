"""The two storages an ``HttpCache`` is built on, hishel's SQLite and
Redis storages: how each is opened, and what each raises when it, not one
entry, fails.

A storage is opened when a call first needs it (in a worker thread), not
when the cache is made: each function here returns what opens one.

- SQLite: one file, nothing anywhere else; the file (and the ``-wal`` and
  ``-shm`` files SQLite keeps beside it) readable by its owner alone
  (0600), each folder restwire makes too (0700).
- Redis: every command bounded by the ``timeout`` given (a Redis that
  fails is a cache miss, never a hung call).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .fill_locks import private_folder

if TYPE_CHECKING:
    import hishel
    import redis

__all__ = ["redis_connector", "redis_storage", "sqlite_storage", "storage_errors"]


def sqlite_storage(
    location: Path, options: Mapping[str, Any]
) -> Callable[[], hishel.BaseStorage]:
    """What opens hishel's ``SqliteStorage`` on the file ``location``
    (``options`` going to it)."""
    import hishel

    def storage() -> hishel.BaseStorage:
        return hishel.SqliteStorage(connection=_private_sqlite(location), **options)

    return storage


def _private_sqlite(path: Path) -> Any:
    """A connection to the SQLite file at ``path``, the file readable and
    writable by its owner alone (SQLite gives its ``-wal`` and ``-shm``
    files the same mode), its missing folders made 0700."""
    private_folder(path.parent)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    return sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)


def redis_connector(url: str, timeout: float) -> Callable[[], redis.Redis]:
    """What makes a redis-py client of the Redis at ``url``, each command
    (and connecting) bounded by ``timeout`` seconds."""
    import redis as redis_module

    def client() -> redis.Redis:
        return redis_module.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )

    return client


def redis_storage(
    client: Callable[[], redis.Redis], key_prefix: str, options: Mapping[str, Any]
) -> Callable[[], hishel.BaseStorage]:
    """What opens hishel's ``RedisStorage`` on a new ``client()``, its keys
    under ``key_prefix`` (``options`` going to it)."""
    import hishel

    return lambda: hishel.RedisStorage(
        client=client(), key_prefix=key_prefix, **options
    )


def storage_errors() -> tuple[type[BaseException], ...]:
    """What a storage raises when it, not one entry, fails: the OS's, SQLite's
    and redis-py's errors (a lost connection, a timeout, a locked or
    unreadable file)."""
    errors: list[type[BaseException]] = [OSError, sqlite3.Error]
    try:
        from redis import RedisError
    except ImportError:  # pragma: no cover - the [redis] extra is missing
        pass
    else:
        errors.append(RedisError)
    return tuple(errors)
