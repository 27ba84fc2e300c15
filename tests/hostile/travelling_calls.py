"""Calls that fail in another process, for ``test_errors_travel.py``.

Each job is a plain function a worker of a ``ProcessPoolExecutor`` or a
``multiprocessing.Pool`` runs: it makes its own controller (``Controller``
or ``AsyncController``), as a worker of a real service would, and calls a
real server on 127.0.0.1 with a token in a header and another in the
query. The failing ones raise restwire's error, which the pool pickles
back to the caller.
"""

from __future__ import annotations

from typing import Any

import anyio
import pydantic

from restwire import AsyncController, Controller, RestEndpoint
from restwire.middlewares import AccessToken

__all__ = ["HEADER_TOKEN", "QUERY_TOKEN", "Failure", "call"]

#: The credentials each call sends: neither may come back with its error.
HEADER_TOKEN = "tok-header-5e1f"
QUERY_TOKEN = "tok-query-9a7c"
COOKIE = "sid-cookie-77d2"

PROBLEM = (
    '{"type": "https://example.com/probs/missing", "title": "Not Found",'
    ' "status": 404, "detail": "no post 999"}'
)


class Failure(pydantic.BaseModel):
    """The error body, as the endpoint's ``error_schema`` reads it."""

    title: str
    status: int
    detail: str


#: What each job asks the server for: (path, params). ``/status`` sends
#: its other params back as response headers (a cookie among them).
CALLS: dict[str, tuple[str, dict[str, str]]] = {
    "not-found": (
        "/status/404",
        {
            "body": PROBLEM,
            "type": "application/problem+json",
            "x-request-id": "req-404",
            "retry-after": "7",
            "set-cookie": f"session={COOKIE}; Path=/",
        },
    ),
    "server-error": ("/status/503", {"retry-after": "3"}),
    "not-json": ("/json", {"body": "<html>down</html>", "type": "text/html"}),
    "ok": ("/json", {"body": '{"fine": true}', "type": "application/json"}),
}


def call(kind: str, origin: str, use_async: bool) -> Any:
    """The value of the call ``kind`` (a key of :data:`CALLS`; or
    ``"refused"``: a port nothing listens on) under the driver
    ``use_async`` picks; its error, raised, if it fails."""
    params: dict[str, str] = {}
    if kind == "refused":
        origin, path = "http://127.0.0.1:9", "/status/200"
    else:
        path, params = CALLS[kind]
    endpoint = RestEndpoint(
        url_prefix=f"http://me:{HEADER_TOKEN}@{origin.split('://', 1)[1]}",
        path=path,
        error_schema=Failure,
        timeout=10,
    ).use(AccessToken(HEADER_TOKEN))
    params = {**params, "access_token": QUERY_TOKEN}
    if not use_async:
        with Controller() as controller:
            return controller.fetch(endpoint, params)

    async def fetch() -> Any:
        async with AsyncController() as controller:
            return await controller.fetch(endpoint, params)

    return anyio.run(fetch)
