"""``Controller`` and ``AsyncController``: where calls are made.

Both share one core (:class:`_Core`): turning a call into an exchange and the
exchange's flow. The two classes differ only in the driver they run the flow
with: blocking on ``httpx.Client``, awaited on ``httpx.AsyncClient``.

Given no client, a controller makes one and closes it on ``close()`` or at
the end of its ``with`` block; a client it was given stays open.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import httpx

from ._chain import run_exchange
from ._drivers import run_async, run_sync
from ._endpoint import RestEndpoint
from ._errors import InvalidRequest
from ._exchange import Exchange
from ._paths import join_url

__all__ = ["AsyncController", "Controller"]

ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)


class _Core(Generic[ClientT]):
    """What both controllers do without I/O."""

    def __init__(self, client: ClientT | None, new_client: type[ClientT]) -> None:
        self._owns_client = client is None
        self.client: ClientT = client if client is not None else new_client()

    def exchange(
        self,
        endpoint: RestEndpoint,
        params: Mapping[str, Any] | None,
        body: Any,
        *,
        parse: bool = True,
    ) -> Exchange:
        """The exchange for one call; path errors are raised here, before I/O."""
        if not isinstance(endpoint, RestEndpoint):
            raise TypeError(f"expected a RestEndpoint, got {endpoint!r}")
        params = params if params is not None else {}
        url = self._absolute_url(endpoint, endpoint.url(params))
        headers = (
            httpx.Headers(endpoint.headers) if endpoint.headers else httpx.Headers()
        )
        return Exchange(endpoint, params, body, url, headers, self.client, parse=parse)

    def _absolute_url(self, endpoint: RestEndpoint, text: str) -> httpx.URL:
        base = self.client.base_url
        try:
            url = httpx.URL(text)
            if url.is_relative_url and base.host:
                url = httpx.URL(join_url(str(base), text))
        except httpx.InvalidURL as error:
            raise InvalidRequest(
                f"{endpoint.label}: invalid URL {text!r}: {error}"
            ) from None
        if url.is_relative_url or url.scheme not in ("http", "https"):
            raise InvalidRequest(
                f"{endpoint.label}: {text!r} is not an http(s) URL; give the endpoint "
                "a url_prefix or the client a base_url"
            )
        return url


class Controller:
    """Makes calls with blocking I/O on an ``httpx.Client``."""

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._core: _Core[httpx.Client] = _Core(client, httpx.Client)

    @property
    def client(self) -> httpx.Client:
        """The client every call is sent with."""
        return self._core.client

    def fetch(
        self,
        endpoint: RestEndpoint,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        """Call ``endpoint`` and return its value, always from the network."""
        exchange = self._core.exchange(endpoint, params, body)
        run_sync(run_exchange(exchange), self.client)
        return exchange.value

    def fetch_response(
        self,
        endpoint: RestEndpoint,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> httpx.Response:
        """Call ``endpoint`` through the same chain; return the raw response.

        The body is read unless the endpoint's content is ``"stream"``; a
        non-2xx status raises :class:`NetworkError` as ``fetch`` does.
        """
        exchange = self._core.exchange(endpoint, params, body, parse=False)
        return run_sync(run_exchange(exchange), self.client)

    def close(self) -> None:
        """Close the client if this controller made it."""
        if self._core._owns_client:
            self.client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncController:
    """Makes calls with awaited I/O on an ``httpx.AsyncClient``."""

    def __init__(self, client: httpx.AsyncClient | None = None) -> None:
        self._core: _Core[httpx.AsyncClient] = _Core(client, httpx.AsyncClient)

    @property
    def client(self) -> httpx.AsyncClient:
        """The client every call is sent with."""
        return self._core.client

    async def fetch(
        self,
        endpoint: RestEndpoint,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        """Call ``endpoint`` and return its value, always from the network."""
        exchange = self._core.exchange(endpoint, params, body)
        await run_async(run_exchange(exchange), self.client)
        return exchange.value

    async def fetch_response(
        self,
        endpoint: RestEndpoint,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> httpx.Response:
        """Call ``endpoint`` through the same chain; return the raw response."""
        exchange = self._core.exchange(endpoint, params, body, parse=False)
        return await run_async(run_exchange(exchange), self.client)

    async def close(self) -> None:
        """Close the client if this controller made it."""
        if self._core._owns_client:
            await self.client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
