"""Bodies on the wire, both ways: content kinds for responses, encoding for
requests.

**Response bodies.** An endpoint's ``content`` is a :class:`Content` kind, an
object that knows the ``Accept`` header to send, how to read a body into a
value, and whether that value is binary (never normalized, never kept in the
store). The built-in kinds are also accepted by name:

| content    | value                                                        |
|------------|--------------------------------------------------------------|
| ``json``   | the parsed JSON (the default)                                |
| ``text``   | the body decoded as text                                     |
| ``blob``   | a :class:`Blob`: the bytes and their content type            |
| ``bytes``  | the bytes                                                    |
| ``stream`` | the open ``httpx.Response``, body unread; the caller closes it |

A 204 or 205 is ``None`` whatever the kind. An empty body is ``None`` for
``json`` and an empty value for the others (an empty file is still a file).
``json`` refuses a body whose content type is not JSON (an HTML error page,
say) and a body that does not parse, with a :class:`ContentError` quoting
the content type and the start of the body; a missing content type is given
the benefit of the doubt. Add a kind (NDJSON, msgpack, XML) by subclassing
:class:`Content` and giving an instance as ``content=``.

**Request bodies** (:func:`body_arguments`):

| body                                   | sent as                                            |
|----------------------------------------|----------------------------------------------------|
| ``None``                               | no body                                            |
| ``dict``, ``list``, ``tuple``          | JSON, ``content-type: application/json``, unless a |
|                                        | middleware set ``application/x-www-form-urlencoded``|
|                                        | (a dict is then form-encoded)                      |
| ``bytes``, ``str``, an (async) iterator| as httpx sends it, never turned into JSON          |
| :class:`Form`                          | multipart (with ``files``) or urlencoded form      |

JSON encoding also takes ``datetime``/``date``/``time`` (ISO 8601),
``Decimal`` and ``UUID`` (as strings) and enums (their value); NaN and
infinity are refused, since JSON has no form for them. GET and HEAD take no
body: giving one is a :class:`RequestBodyError`, not a silent drop.
"""

from __future__ import annotations

import abc
import dataclasses
import datetime
import enum
import json
import uuid
from collections.abc import AsyncIterable, Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any, ClassVar, Literal

import httpx

from ._errors import BodyTooLarge, ContentError, RequestBodyError
from ._http import BODYLESS_METHODS

__all__ = [
    "CONTENT_KINDS",
    "Blob",
    "BlobContent",
    "BytesContent",
    "Content",
    "ContentName",
    "Form",
    "JsonContent",
    "LimitedStream",
    "StreamContent",
    "TextContent",
    "body_arguments",
    "content_kind",
    "is_json_body",
    "json_default",
]


# -- response bodies: content kinds ----------------------------------------------


class Content(abc.ABC):
    """A kind of response body: what to ask for, how to read it, what it is.

    Subclass it, set the class attributes and write :meth:`parse`, then give
    an instance as an endpoint's ``content=``.
    """

    #: The kind's name, for reprs and messages.
    name: ClassVar[str] = "custom"
    #: The ``Accept`` header an endpoint of this kind sends (``None``: none).
    accept: ClassVar[str | None] = None
    #: The ``Content-Type`` a call with no body, or a JSON body, declares
    #: (the seed sends ``content-type: application/json`` on every call).
    request_type: ClassVar[str | None] = None
    #: The value is binary: never normalized, never kept in the store.
    binary: ClassVar[bool] = False
    #: The body is not read: the value is the open response, which the
    #: caller closes; ``max_body_size`` does not apply to a 2xx.
    streamed: ClassVar[bool] = False

    def read(self, response: httpx.Response) -> Any:
        """The value of a 2xx ``response`` (body read unless ``streamed``):
        ``None`` for 204 and 205, else :meth:`parse`'s."""
        if not self.streamed and response.status_code in (204, 205):
            return None
        return self.parse(response)

    @abc.abstractmethod
    def parse(self, response: httpx.Response) -> Any:
        """The value of ``response``'s body; a :class:`ContentError` if the
        body is not of this kind."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _is_json_type(content_type: str) -> bool:
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime in ("application/json", "text/json") or mime.endswith("+json")


class JsonContent(Content):
    """JSON: the parsed value (``dict``, ``list``, ...)."""

    name = "json"
    accept = "application/json"
    request_type = "application/json"

    def parse(self, response: httpx.Response) -> Any:
        content_type = response.headers.get("content-type")
        if content_type is not None and not _is_json_type(content_type):
            raise ContentError(response, "JSON", "the content type is not JSON")
        body = response.content
        if not body.strip():
            return None
        try:
            return json.loads(body)
        except ValueError as error:
            raise ContentError(response, "JSON", f"invalid JSON ({error})") from None
        except RecursionError:
            raise ContentError(response, "JSON", "nested too deeply to parse") from None


class TextContent(Content):
    """Text: the body decoded per its charset."""

    name = "text"

    def parse(self, response: httpx.Response) -> Any:
        return response.text


@dataclasses.dataclass(frozen=True, slots=True)
class Blob:
    """The seed's ``Blob``: a body's bytes and its content type."""

    data: bytes = dataclasses.field(repr=False)
    content_type: str | None = None

    @property
    def size(self) -> int:
        """The number of bytes."""
        return len(self.data)

    def __repr__(self) -> str:
        return f"Blob(size={self.size}, content_type={self.content_type!r})"


class BlobContent(Content):
    """The seed's ``'blob'``: a :class:`Blob`."""

    name = "blob"
    binary = True

    def parse(self, response: httpx.Response) -> Any:
        return Blob(response.content, response.headers.get("content-type"))


class BytesContent(Content):
    """The seed's ``'arrayBuffer'``: the bytes."""

    name = "bytes"
    binary = True

    def parse(self, response: httpx.Response) -> Any:
        return response.content


class StreamContent(Content):
    """The open response, its body unread: for bodies too large to hold."""

    name = "stream"
    binary = True
    streamed = True

    def parse(self, response: httpx.Response) -> Any:
        return response


ContentName = Literal["json", "text", "blob", "bytes", "stream"]

#: The built-in kinds by name.
CONTENT_KINDS: Mapping[str, Content] = {
    kind.name: kind
    for kind in (
        JsonContent(),
        TextContent(),
        BlobContent(),
        BytesContent(),
        StreamContent(),
    )
}


def content_kind(content: Content | str) -> Content:
    """The kind ``content`` names (or is); a ``ValueError`` for anything else."""
    if isinstance(content, Content):
        return content
    kind = CONTENT_KINDS.get(content) if isinstance(content, str) else None
    if kind is None:
        raise ValueError(
            f"content must be a Content or one of {sorted(CONTENT_KINDS)}, "
            f"not {content!r}"
        )
    return kind


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


# -- request bodies ----------------------------------------------------------------

_FORM_TYPE = "application/x-www-form-urlencoded"


@dataclasses.dataclass(frozen=True, slots=True)
class Form:
    """Form fields, and files for a multipart upload, as httpx's ``data=`` and
    ``files=`` take them."""

    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    files: Any = None


def is_json_body(body: Any) -> bool:
    """Whether ``body`` is sent as JSON (unless a middleware chose a form)."""
    return isinstance(body, Mapping | list | tuple)


def json_default(value: Any) -> Any:
    """Encode the values JSON has no type for, as APIs commonly expect them."""
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode_json(value: Any, where: str) -> bytes:
    """``value`` as compact UTF-8 JSON; a :class:`RequestBodyError` if it has none."""
    try:
        return json.dumps(
            value,
            default=json_default,
            ensure_ascii=False,
            allow_nan=False,
            separators=(",", ":"),
        ).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as error:
        raise RequestBodyError(
            f"{where}: the body cannot be sent as JSON: {error}"
        ) from None


def body_arguments(
    body: Any, method: str, content_type: str | None, where: str
) -> tuple[dict[str, Any], str | None]:
    """httpx keyword arguments for ``body``, and the content type to set if any."""
    if body is None:
        return {}, None
    if method in BODYLESS_METHODS:
        raise RequestBodyError(f"{where}: {method} takes no body, but one was given")
    if isinstance(body, Form):
        return {"data": dict(body.data), "files": body.files}, None
    if isinstance(body, bytes | bytearray | memoryview | str):
        return {"content": bytes(body) if not isinstance(body, str) else body}, None
    if is_json_body(body):
        mime = (content_type or "").split(";", 1)[0].strip().lower()
        if mime == _FORM_TYPE and isinstance(body, Mapping):
            return {"data": dict(body)}, None
        if mime and mime != "application/json" and not mime.endswith("+json"):
            raise RequestBodyError(
                f"{where}: a {type(body).__name__} body cannot be sent as "
                f"{content_type!r}; encode it to bytes first"
            )
        return {"content": encode_json(body, where)}, "application/json"
    if isinstance(body, Iterable | AsyncIterable):
        return {"content": body}, None
    raise RequestBodyError(
        f"{where}: a {type(body).__name__} body has no wire form; send a dict, "
        "list, bytes, str, an iterator of bytes or a Form"
    )
