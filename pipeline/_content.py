"""Reading a response body as the endpoint's ``content`` says.

| content    | value                                                        |
|------------|--------------------------------------------------------------|
| ``json``   | the parsed JSON (the default)                                |
| ``text``   | the body decoded as text                                     |
| ``blob``   | a :class:`Blob`: the bytes and their content type            |
| ``bytes``  | the bytes                                                    |
| ``stream`` | the open ``httpx.Response``, body unread; the caller closes it |

A 204 or 205 is ``None`` whatever the content. An empty body is ``None`` for
``json`` and an empty value for the others (an empty file is still a file).
A ``json`` endpoint refuses a body whose content type is not JSON (an HTML
error page, say) and a body that does not parse, with a :class:`ContentError`
quoting the content type and the start of the body. A missing content type is
given the benefit of the doubt: the body is parsed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from ._errors import BodyTooLarge, ContentError

__all__ = ["CONTENTS", "Blob", "Content", "LimitedStream", "parse_content"]

Content = Literal["json", "text", "blob", "bytes", "stream"]
CONTENTS: frozenset[str] = frozenset(("json", "text", "blob", "bytes", "stream"))
#: Contents whose value is binary: never normalized, never kept in the store.
BINARY: frozenset[str] = frozenset(("blob", "bytes", "stream"))


@dataclass(frozen=True, slots=True)
class Blob:
    """The seed's ``Blob``: a body's bytes and its content type."""

    data: bytes = field(repr=False)
    content_type: str | None = None

    @property
    def size(self) -> int:
        """The number of bytes."""
        return len(self.data)

    def __repr__(self) -> str:
        return f"Blob(size={self.size}, content_type={self.content_type!r})"


def _is_json_type(content_type: str) -> bool:
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime in ("application/json", "text/json") or mime.endswith("+json")


def parse_content(response: httpx.Response, content: Content) -> Any:
    """The value of ``response`` (body already read, unless ``stream``)."""
    if content == "stream":
        return response
    if response.status_code in (204, 205):
        return None
    body = response.content
    if content == "json":
        return _parse_json(response, body)
    if content == "text":
        return response.text
    if content == "blob":
        return Blob(body, response.headers.get("content-type"))
    if content == "bytes":
        return body
    raise ValueError(f"unknown content {content!r}; use one of {sorted(CONTENTS)}")


def _parse_json(response: httpx.Response, body: bytes) -> Any:
    content_type = response.headers.get("content-type")
    if content_type is not None and not _is_json_type(content_type):
        raise ContentError(response, "JSON", "the content type is not JSON")
    if not body.strip():
        return None
    try:
        return json.loads(body)
    except ValueError as error:
        raise ContentError(response, "JSON", f"invalid JSON ({error})") from None
    except RecursionError:
        raise ContentError(response, "JSON", "nested too deeply to parse") from None


class LimitedStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response stream that raises :class:`BodyTooLarge` past ``limit`` bytes.

    Wraps ``response.stream`` before the body is read, so an oversized body is
    refused as it arrives, not after it has filled memory.
    """

    def __init__(self, response: httpx.Response, limit: int) -> None:
        self._inner = response.stream
        self._response = response
        self._limit = limit
        self._seen = 0

    def _count(self, chunk: bytes) -> bytes:
        self._seen += len(chunk)
        if self._seen > self._limit:
            request = self._response.request
            raise BodyTooLarge(request.method, request.url, self._limit)
        return chunk

    def __iter__(self) -> Iterator[bytes]:
        assert isinstance(self._inner, httpx.SyncByteStream)
        for chunk in self._inner:
            yield self._count(chunk)

    async def __aiter__(self) -> Any:
        assert isinstance(self._inner, httpx.AsyncByteStream)
        async for chunk in self._inner:
            yield self._count(chunk)

    def close(self) -> None:
        assert isinstance(self._inner, httpx.SyncByteStream)
        self._inner.close()

    async def aclose(self) -> None:
        assert isinstance(self._inner, httpx.AsyncByteStream)
        await self._inner.aclose()
