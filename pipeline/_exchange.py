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
| ``value``            | ``None``                                | the parsed value; replace it (an ``Unparsed`` body where every layer ``takes_unparsed``) |
| ``parse``            | ``False`` for ``fetch_response``        | same                              |
| ``page``             | under ``paginate``, the page number (1, 2, ...); else ``None`` | same           |
| ``state``            | a dict for middleware of this call      | same                              |

A header named in ``sensitive`` (and ``Authorization``, ``Proxy-Authorization``
and ``Cookie`` always) is sent only on hops at the origin the call started at,
until a redirect first leaves that origin (``_hops``); its value is never
shown in a repr. ``set_credential`` sets such a header; ``cookie(name)``
reads the client's cookie jar as the server would for this URL.

The exchange carries no client: a middleware asks for I/O only through the
effects it yields (``_effects``), so it runs the same under both drivers.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import httpx

from ._adapter import cookie_for as _cookie_for
from ._content import replayable
from ._credentials import ALWAYS_SENSITIVE, check_credential, is_credential
from ._errors import header_names, redact_url
from ._hops import CREDENTIALS, Credentials, Origin, origin_of

if TYPE_CHECKING:
    from ._endpoint import RestEndpoint

__all__ = ["Exchange"]


class Exchange:
    """One call of an endpoint, carried through its middleware chain."""

    __slots__ = (
        "_credentials",
        "_jar",
        "body",
        "endpoint",
        "headers",
        "hops",
        "method",
        "page",
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
        cookies: httpx.Cookies,
        *,
        parse: bool = True,
    ) -> None:
        self.endpoint = endpoint
        self.params: Mapping[str, Any] = MappingProxyType(dict(params))
        self.body = body
        self.method = endpoint.method
        self.url = url
        self.headers = headers
        self._jar = cookies
        self.parse = parse
        self.page: int | None = None
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

    def set_credential(self, header: str, value: str) -> None:
        """Send ``header: value`` as a credential: kept to the call's origin
        and out of every repr. A value with a line break or another control
        character (which could inject a header) is refused."""
        check_credential(header, value)
        self.headers[header] = value
        self.sensitive.add(header.lower())

    @property
    def replayable(self) -> bool:
        """Whether ``call_next`` can send this call's body again (for a
        retry or a refresh): not when it is a one-shot iterator that the
        first send consumed."""
        return replayable(self.body)

    def cookie(self, name: str) -> str | None:
        """The value of the client's cookie ``name`` that the server at this
        call's URL reads (the most specific match), or ``None``."""
        return _cookie_for(self._jar, name, self.url)

    @property
    def label(self) -> str:
        """``"GET https://host/path"``, for messages: the URL's userinfo
        redacted."""
        return f"{self.method} {redact_url(self.url)}"

    @property
    def origin(self) -> Origin:
        """The call's origin: scheme, host and port."""
        return origin_of(self.url)

    def __repr__(self) -> str:
        status = f" -> {self.response.status_code}" if self.response is not None else ""
        marked = self.sensitive

        def hidden(name: str) -> bool:
            return is_credential(name, marked)

        return (
            f"<Exchange {self.method} {redact_url(self.url)}{status} "
            f"headers={header_names(self.headers, hidden)}>"
        )
