"""Where a call goes: its absolute URL, and the request key it is kept by.

The URL is the endpoint's (path template filled, the other params as the
query string), on the client's ``base_url`` when the endpoint has no
prefix. Both are remembered (``httpx.URL`` is immutable): calls to the
same URL, the common case of polling and re-reading, parse it once.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Hashable, Mapping
from typing import Any, TypeVar

import httpx

from ._endpoint import RestEndpoint, join_url
from ._errors import InvalidRequest
from ._job import plain_url

__all__ = ["Targets"]

#: How many entries each cache holds before it is emptied (a bound, not an
#: LRU: refilling is cheap).
_CACHE_SIZE = 4096

#: Param types whose text never changes: their URLs are remembered.
_REMEMBERED = frozenset(
    (str, int, float, bool, type(None), decimal.Decimal, uuid.UUID, datetime.date)
) | {datetime.datetime, datetime.time}

KeyT = TypeVar("KeyT", bound=Hashable)
ValT = TypeVar("ValT")


def _remember(cache: dict[KeyT, ValT], key: KeyT, value: ValT) -> ValT:
    """``cache[key] = value``, the cache emptied first when full; ``value``."""
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


class Targets:
    """The URLs of one client's calls."""

    __slots__ = ("_client", "_parsed", "_targets")

    def __init__(self, client: httpx.Client | httpx.AsyncClient) -> None:
        self._client = client
        #: URL text -> (parsed URL, its text without userinfo)
        self._parsed: dict[str, tuple[httpx.URL, str]] = {}
        #: (endpoint, params) -> the same, skipping the template (bounded)
        self._targets: dict[Hashable, tuple[httpx.URL, str]] = {}

    def __call__(
        self, endpoint: RestEndpoint, params: Mapping[str, Any]
    ) -> tuple[httpx.URL, str]:
        """The absolute URL of a call, and its text without userinfo, for
        the request key."""
        # Remembered only for params of immutable scalar types, whose text
        # cannot change, keyed with their types ({"id": 1} and {"id": True}
        # are equal tuples but different URLs); others are worked out each time.
        call: Hashable = None
        items = []
        for name, value in params.items():
            kind = type(value)
            if kind not in _REMEMBERED:
                break
            items.append((name, kind, value))
        else:
            call = (endpoint, tuple(items))
            kept = self._targets.get(call)
            if kept is not None:
                return kept
        text = endpoint.url(params)
        kept = self._parsed.get(text)
        if kept is None:
            url = self._parse(endpoint, text)
            kept = _remember(self._parsed, text, (url, plain_url(url)))
        if call is not None:
            _remember(self._targets, call, kept)
        return kept

    def _parse(self, endpoint: RestEndpoint, text: str) -> httpx.URL:
        base = self._client.base_url
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
