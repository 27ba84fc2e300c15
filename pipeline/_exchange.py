"""The exchange: one call in flight, as every middleware sees it.

| field                | at request time                         | at response time                  |
|----------------------|-----------------------------------------|-----------------------------------|
| ``endpoint``         | the :class:`RestEndpoint` called        | same                              |
| ``params``           | the call's params (read-only mapping)   | same                              |
| ``body``             | the Python body, before encoding        | same                              |
| ``method``           | the HTTP method                         | same                              |
| ``url``              | the absolute URL (``httpx.URL``)        | same (the first hop's URL)        |
| ``headers``          | ``httpx.Headers`` to send; change them  | same                              |
| ``credentials``      | ``"omit"``, ``"same-origin"``, ``"include"`` | same                         |
| ``sensitive``        | header names kept to the first origin   | same                              |
| ``response``         | ``None``                                | the final ``httpx.Response``      |
| ``hops``             | ``[]``                                  | the URL of every hop, in order    |
| ``value``            | ``None``                                | the parsed value; replace it      |
| ``parse``            | ``False`` for ``fetch_response``        | same                              |
| ``state``            | a dict for middleware of this call      | same                              |

A header named in ``sensitive`` (and ``Authorization``, ``Proxy-Authorization``
and ``Cookie`` always) is sent only on hops at the origin the call started at,
until a redirect first leaves that origin; its value is never shown in a repr.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import httpx

from ._redact import ALWAYS_SENSITIVE, header_names, redact_url

if TYPE_CHECKING:
    from ._endpoint import RestEndpoint

__all__ = ["Credentials", "Exchange"]

Credentials = Literal["omit", "same-origin", "include"]
CREDENTIALS: frozenset[str] = frozenset(("omit", "same-origin", "include"))


class Exchange:
    """One call of an endpoint, carried through its middleware chain."""

    __slots__ = (
        "_credentials",
        "body",
        "client",
        "endpoint",
        "headers",
        "hops",
        "method",
        "params",
        "parse",
        "response",
        "sensitive",
        "state",
        "url",
        "value",
    )

    def __init__(
        self,
        endpoint: RestEndpoint,
        params: Mapping[str, Any],
        body: Any,
        url: httpx.URL,
        headers: httpx.Headers,
        client: httpx.Client | httpx.AsyncClient,
        *,
        parse: bool = True,
    ) -> None:
        self.endpoint = endpoint
        self.params: Mapping[str, Any] = MappingProxyType(dict(params))
        self.body = body
        self.method = endpoint.method
        self.url = url
        self.headers = headers
        self.client = client
        self.parse = parse
        self._credentials: Credentials = "same-origin"
        self.sensitive: set[str] = set(ALWAYS_SENSITIVE)
        self.sensitive.update(endpoint.sensitive_headers)
        self.response: httpx.Response | None = None
        self.hops: list[httpx.URL] = []
        self.value: Any = None
        self.state: dict[str, Any] = {}

    @property
    def credentials(self) -> Credentials:
        """Which hops carry cookies and store the cookies they are sent:
        ``"omit"`` none, ``"same-origin"`` (the default) those before the chain
        first leaves the call's origin, ``"include"`` all (the jar's own
        domain rules still apply)."""
        return self._credentials

    @credentials.setter
    def credentials(self, mode: Credentials) -> None:
        if mode not in CREDENTIALS:
            raise ValueError(
                f"credentials must be one of {sorted(CREDENTIALS)}, not {mode!r}"
            )
        self._credentials = mode

    def mark_sensitive(self, *names: str) -> None:
        """Keep these headers to the call's origin and out of every repr."""
        self.sensitive.update(name.lower() for name in names)

    @property
    def origin(self) -> tuple[str, str, int | None]:
        """The call's origin: scheme, host and port."""
        return origin_of(self.url)

    def __repr__(self) -> str:
        status = f" -> {self.response.status_code}" if self.response is not None else ""
        return (
            f"<Exchange {self.method} {redact_url(self.url)}{status} "
            f"headers={header_names(self.headers, self.sensitive)}>"
        )


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_of(url: httpx.URL) -> tuple[str, str, int | None]:
    """A URL's origin (scheme, host, port), default ports made explicit."""
    return (url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme))
