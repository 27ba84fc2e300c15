"""Where a redis-py client connects, said without its credentials.

For the lines that name a Redis (a breaker opening, an HTTP cache that
stops answering): ``host:port/db`` or ``unix:path?db=N``; never the user
name or password a URL may carry.
"""

from __future__ import annotations

from typing import Any

__all__ = ["redis_address"]


def redis_address(client: Any) -> str:
    """Where ``client`` connects, for a log line: ``host:port/db`` or the
    socket path; never a user name or password."""
    try:
        options = client.connection_pool.connection_kwargs
    except AttributeError:
        return "(an unknown address)"
    database = options.get("db", 0)
    if options.get("path"):
        return f"unix:{options['path']}?db={database}"
    return f"{options.get('host', 'localhost')}:{options.get('port', 6379)}/{database}"
