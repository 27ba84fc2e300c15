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
``json``, whatever its content type, and an empty value for the others (an
empty file is still a file).
``json`` refuses a body whose content type is not JSON (an HTML error page,
say) and a body that does not parse, with a :class:`ContentError` quoting
the content type and the start of the body; a missing content type is given
the benefit of the doubt. Add a kind (NDJSON, msgpack, XML) by subclassing
:class:`Content` and giving an instance as ``content=``.

**Reading.** restwire undoes ``Content-Encoding`` itself (:class:`Decoder`),
in pieces of at most ``PIECE`` bytes, so ``max_body_size`` counts decoded
bytes and is enforced as they inflate: a small gzip, deflate, br or zstd body
that would inflate to gigabytes is refused once past the limit, holding
little more than the limit (:class:`BodyReader`). A redirect's own body is
never kept (:class:`Discard`).

**Request bodies** (:func:`body_arguments`):

| body                                   | sent as                                            |
|----------------------------------------|----------------------------------------------------|
| ``None``                               | no body                                            |
| ``dict``, ``list``, ``tuple``          | JSON, ``content-type: application/json``, unless a |
|                                        | middleware set ``application/x-www-form-urlencoded``|
|                                        | (a dict is then form-encoded)                      |
| ``bytes``, ``str``, an (async) iterator| as httpx sends it, never turned into JSON          |
| :class:`Form`                          | multipart (with ``files``) or urlencoded form, its |
|                                        | fields written in the endpoint's ``param_style``   |

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
import functools
import json
import uuid
import zlib
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
)
from decimal import Decimal
from typing import Any, ClassVar, Literal, Protocol

import msgspec

from .._base.errors import (
    BodyTooLarge,
    ContentError,
    RequestBodyError,
    SettingError,
    UsageError,
)
from .._base.http import BODYLESS_METHODS, Form, is_json_type
from .._base.library import DECODING_ERRORS, Response, library_of
from .adapter import form_bytes
from .params import form_fields

__all__ = [
    "CONTENT_KINDS",
    "PIECE",
    "Blob",
    "BlobContent",
    "BodyReader",
    "BytesContent",
    "Content",
    "ContentKind",
    "ContentName",
    "Decoded",
    "Decoder",
    "Discard",
    "JsonContent",
    "StreamContent",
    "TextContent",
    "body_arguments",
    "content_kind",
    "encode_body",
    "is_json_body",
    "is_streamed_body",
    "json_default",
    "replayable",
    "styled_body",
]


# -- response bodies: content kinds ----------------------------------------------


class ContentKind(Protocol):
    """What an endpoint's ``content`` is: what to ask for, how to read a
    response body, how to write a request body, what its values are.
    :class:`Content` is one, and the base to subclass for another."""

    @property
    def name(self) -> str:
        """The kind's name, for reprs and messages."""
        ...

    @property
    def accept(self) -> str | None:
        """The ``Accept`` header an endpoint of this kind sends."""
        ...

    @property
    def request_type(self) -> str | None:
        """The ``Content-Type`` a call with no body, or a JSON body, declares."""
        ...

    @property
    def binary(self) -> bool:
        """The value is binary: never normalized, never kept in the store."""
        ...

    @property
    def streamed(self) -> bool:
        """The body is not read: the value is the open response."""
        ...

    def read(self, response: Any) -> Any:
        """The value of a 2xx ``response`` (httpx's or httpx2's: ``Any``, so
        a kind may annotate the one it is written for)."""
        ...

    def encode(
        self, body: Any, content_type: str | None, where: str
    ) -> tuple[bytes, str | None]:
        """A request body as the bytes to send, and the content type they
        declare (``None``: the headers say already)."""
        ...


class Content(abc.ABC):
    """A kind of response body: what to ask for, how to read it, what it is.

    Subclass it, set the class attributes and write :meth:`parse`, then give
    an instance as an endpoint's ``content=``. An instance may change what
    a call sends, ``accept`` and ``request_type``, for one endpoint:
    ``JsonContent(request_type=None)`` sends no ``content-type`` on a call
    without a body (for servers that refuse one there).
    """

    #: The kind's name, for reprs and messages.
    name: ClassVar[str] = "custom"
    #: The ``Accept`` header an endpoint of this kind sends (``None``: none).
    accept: str | None = None
    #: The ``Content-Type`` a call with no body, or a JSON body, declares
    #: (the seed sends ``content-type: application/json`` on every call; a
    #: JSON body declares it whatever this says).
    request_type: str | None = None
    #: The value is binary: never normalized, never kept in the store.
    binary: ClassVar[bool] = False
    #: The body is not read: the value is the open response, which the
    #: caller closes; ``max_body_size`` does not apply to a 2xx.
    streamed: ClassVar[bool] = False

    _CHANGEABLE: ClassVar[frozenset[str]] = frozenset(("accept", "request_type"))

    def __init__(self, **changes: str | None) -> None:
        wrong = set(changes) - self._CHANGEABLE
        if wrong:
            raise UsageError(
                f"{type(self).__name__} can change only {sorted(self._CHANGEABLE)} "
                f"for one endpoint, not {sorted(wrong)} (binary and streamed "
                "belong to the kind: subclass it)"
            )
        for name, value in changes.items():
            setattr(self, name, value)

    def read(self, response: Any) -> Any:
        """The value of a 2xx ``response`` (body read unless ``streamed``):
        ``None`` for 204 and 205, else :meth:`parse`'s."""
        if not self.streamed and response.status_code in (204, 205):
            return None
        return self.parse(response)

    @abc.abstractmethod
    def parse(self, response: Any) -> Any:
        """The value of ``response``'s body; a :class:`ContentError` if the
        body is not of this kind. ``response`` is of the controller's library,
        httpx's or httpx2's (``Any`` here, so a subclass may annotate the
        one it is written for)."""

    def encode(
        self, body: Any, content_type: str | None, where: str
    ) -> tuple[bytes, str | None]:
        """A request body as the bytes to send, and the content type they
        declare (``None``: leave the headers as they are); ``where`` names
        the call in errors. Every kind sends what :func:`encode_body` says
        (a dict or list as JSON, unless the call declared a form; bytes and
        text as they are; a :class:`Form` as a form); override it to send
        another format, msgpack say."""
        return encode_body(body, content_type, where)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


#: RFC 8259 JSON in UTF-8, parsed by msgspec: what servers send, in less time
#: than ``json.loads`` takes (the figures: docs/performance.md). What it refuses
#: (a byte order mark, UTF-16, NaN, a lone surrogate, a number out of a double's
#: range, malformed text) goes to ``json.loads``, so restwire reads exactly what
#: the standard library reads, with its error messages.
_strict_json = msgspec.json.Decoder().decode


class JsonContent(Content):
    """JSON: the parsed value (``dict``, ``list``, ...)."""

    name = "json"
    accept = "application/json"
    request_type = "application/json"

    def parse(self, response: Response) -> Any:
        body = response.content
        if not body or body.isspace():  # (strip() would copy the whole body)
            return None  # an empty 2xx (Flask's 'return "", 201' says text/html)
        content_type = response.headers.get("content-type")
        if (
            content_type is not None
            and content_type != "application/json"  # (the usual one, at once)
            and not is_json_type(content_type)
        ):
            raise ContentError(
                response,
                f"expected JSON, but the content type is {content_type!r}",
                names_type=True,
            )
        try:
            try:
                return _strict_json(body)
            except (msgspec.DecodeError, UnicodeDecodeError):
                # not strict JSON: json.loads says what it makes of it
                return json.loads(body)
        except ValueError as error:
            raise ContentError(
                response, f"the body is not valid JSON ({error})"
            ) from None
        except RecursionError:
            raise ContentError(
                response, "the JSON is nested too deeply to parse"
            ) from None


class TextContent(Content):
    """Text: the body decoded per its charset."""

    name = "text"

    def parse(self, response: Response) -> Any:
        return response.text


@dataclasses.dataclass(frozen=True, slots=True)
class Blob:
    """A body's bytes and its content type (``content="blob"``)."""

    data: bytes = dataclasses.field(repr=False)
    content_type: str | None = None

    @property
    def size(self) -> int:
        """The number of bytes."""
        return len(self.data)

    def __repr__(self) -> str:
        return f"Blob(size={self.size}, content_type={self.content_type!r})"


class BlobContent(Content):
    """``content="blob"``: the body as a :class:`Blob` (its bytes and
    content type)."""

    name = "blob"
    binary = True

    def parse(self, response: Response) -> Any:
        return Blob(response.content, response.headers.get("content-type"))


class BytesContent(Content):
    """``content="bytes"``: the body's bytes, as they are."""

    name = "bytes"
    binary = True

    def parse(self, response: Response) -> Any:
        return response.content


class StreamContent(Content):
    """The open response, its body unread: for bodies too large to hold."""

    name = "stream"
    binary = True
    streamed = True

    def parse(self, response: Response) -> Any:
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


_KIND_MEMBERS = (
    "name",
    "accept",
    "request_type",
    "binary",
    "streamed",
    "read",
    "encode",
)


def content_kind(content: ContentKind | str) -> ContentKind:
    """The kind ``content`` names (or is); a ``ValueError`` for anything else."""
    if not isinstance(content, str | type) and all(
        hasattr(content, member) for member in _KIND_MEMBERS
    ):
        return content
    kind = CONTENT_KINDS.get(content) if isinstance(content, str) else None
    if kind is None:
        raise SettingError(
            f"content must be a Content or one of {sorted(CONTENT_KINDS)}, "
            f"not {content!r}"
        )
    return kind


# -- reading a body: bounded decoding --------------------------------------------

#: The most a decoding step hands on at once, in bytes.
PIECE = 64 * 1024
#: Input fed to zstd per call. zstd has no output bound, but one input byte
#: decodes to at most 32 KiB (an RLE block: 4 bytes, 128 KiB), so a slice
#: bounds what one call can make: a slice is sized by the body's limit
#: (``limit / 32 KiB``: no call makes more than the limit allows), between
#: these two. A large slice decodes a normal body in few calls.
_ZSTD_SLICE = 16
_ZSTD_SLICE_MOST = 4096
#: The most content codings undone on one body (more is refused).
MAX_CODINGS = 8
#: The largest zstd window restwire decodes: RFC 9659 limits the HTTP zstd
#: coding to 8 MiB, which a decoder may refuse to exceed.
ZSTD_WINDOW = 8 << 20


class _Stage(Protocol):
    """One content coding undone, incrementally."""

    def decode(self, data: bytes) -> Iterator[bytes]: ...

    def flush(self) -> Iterator[bytes]: ...


class _Zlib:
    """gzip (``wbits=31``), or deflate with its zlib header, else raw (as
    httpx and browsers read ``deflate``: servers send both)."""

    def __init__(self, wbits: int) -> None:
        self._wbits = wbits
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def decode(self, data: bytes) -> Iterator[bytes]:
        first = not self._started
        self._started = True
        inflate = self._inflate
        try:
            out = inflate.decompress(data, PIECE)
        except zlib.error:
            if not (first and self._wbits == zlib.MAX_WBITS):
                raise
            self._inflate = inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            out = inflate.decompress(data, PIECE)
        while True:
            if out:
                yield out
            data = inflate.unconsumed_tail
            if not data and len(out) < PIECE:
                return
            out = inflate.decompress(data, PIECE)

    def flush(self) -> Iterator[bytes]:
        out = self._inflate.flush()
        if out:
            yield out


class _Brotli:
    """br, through ``brotli`` 1.2 or newer, whose output can be bounded."""

    def __init__(self) -> None:
        import brotli

        self._decompressor = brotli.Decompressor()

    def decode(self, data: bytes) -> Iterator[bytes]:
        decompressor = self._decompressor
        out = decompressor.process(data, output_buffer_limit=PIECE)
        while True:
            if out:
                yield out
            if decompressor.can_accept_more_data():
                return
            out = decompressor.process(b"", output_buffer_limit=PIECE)

    def flush(self) -> Iterator[bytes]:
        return iter(())


class _Zstd:
    """zstd, through ``zstandard``, fed a few bytes at a time (see
    ``_ZSTD_SLICE``); one frame after another, as httpx reads them."""

    def __init__(self, budget: int | None = None) -> None:
        import zstandard

        decompressor = zstandard.ZstdDecompressor(max_window_size=ZSTD_WINDOW)
        self._new = decompressor.decompressobj
        self._decompressor = self._new()
        most = _ZSTD_SLICE_MOST if budget is None else budget // (32 * 1024)
        self._slice = max(_ZSTD_SLICE, min(_ZSTD_SLICE_MOST, most))

    def decode(self, data: bytes) -> Iterator[bytes]:
        view = memoryview(data)
        size = self._slice
        while view:
            piece, view = view[:size], view[size:]
            out = self._decompressor.decompress(piece)
            if out:
                yield out
            if self._decompressor.eof:
                view = memoryview(self._decompressor.unused_data + bytes(view))
                self._decompressor = self._new()

    def flush(self) -> Iterator[bytes]:
        return iter(())


@functools.cache
def _brotli_bounded() -> bool:
    try:
        import brotli
    except ImportError:
        return False
    return hasattr(brotli.Decompressor(), "can_accept_more_data")


@functools.cache
def _zstd_available() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


_STAGES: dict[str, Callable[[int | None], _Stage]] = {
    "gzip": lambda budget: _Zlib(zlib.MAX_WBITS | 16),
    "x-gzip": lambda budget: _Zlib(zlib.MAX_WBITS | 16),
    "deflate": lambda budget: _Zlib(zlib.MAX_WBITS),
    "br": lambda budget: _Brotli(),
    "zstd": _Zstd,
}


class Decoder:
    """Undoes a response's ``Content-Encoding`` (gzip, deflate, br, zstd; in
    the reverse of the order they were applied), handing on at most
    ``PIECE`` bytes at a time whatever one raw chunk inflates to: a bomb is
    never held whole, not even one chunk of it. A coding restwire does not
    know passes through as it is, as with httpx; a corrupt body, or a ``br``
    body without ``brotli`` 1.2 or newer installed, is a ``DecodingError`` of the response's library.
    """

    def __init__(self, response: Response, budget: int | None = None) -> None:
        self._request = response.request
        #: The response's library's error, so the call's cause is of it too.
        self._error: Any = library_of(response).DecodingError
        self._budget = budget
        header = response.headers.get("content-encoding", "")
        codings = [c.strip().lower() for c in header.split(",") if c.strip()]
        self._codings = [c for c in reversed(codings) if c in _STAGES]
        self._stages: list[_Stage] | None = None if self._codings else []

    @property
    def identity(self) -> bool:
        """Whether the body is sent as it is (no coding to undo)."""
        return not self._codings

    def decode(self, raw: bytes) -> Iterator[bytes]:
        """The decoded pieces of the next raw chunk."""
        return self._through(0, raw)

    def flush(self) -> Iterator[bytes]:
        """The decoded pieces held back until the body ended."""
        for index, stage in enumerate(self._ready()):
            for out in self._guarded(index, stage.flush()):
                yield from self._through(index + 1, out)

    def _ready(self) -> list[_Stage]:
        if self._stages is None:
            if len(self._codings) > MAX_CODINGS:
                raise self._error(
                    f"the body has {len(self._codings)} content codings; restwire "
                    f"undoes at most {MAX_CODINGS}",
                    request=self._request,
                )
            stages = []
            for coding in self._codings:
                if coding == "br" and not _brotli_bounded():
                    raise self._error(
                        "a br body needs the brotli package, 1.2 or newer, to be "
                        "read with a bound on memory",
                        request=self._request,
                    )
                if coding == "zstd" and not _zstd_available():
                    raise self._error(
                        "a zstd body needs the zstandard package",
                        request=self._request,
                    )
                stages.append(_STAGES[coding](self._budget))
            self._stages = stages
        return self._stages

    def _through(self, index: int, data: bytes) -> Iterator[bytes]:
        stages = self._ready()
        if index == len(stages):
            if data:
                yield data
            return
        for out in self._guarded(index, stages[index].decode(data)):
            yield from self._through(index + 1, out)

    def _guarded(self, index: int, pieces: Iterator[bytes]) -> Iterator[bytes]:
        try:
            yield from pieces
        except DECODING_ERRORS:
            raise
        except Exception as error:
            coding = self._codings[index]
            raise self._error(
                f"the {coding} body is corrupt: {type(error).__name__}: {error}",
                request=self._request,
            ) from error


class Decoded:
    """A ``_Read`` sink that decodes a body as it arrives, in bounded
    pieces, and hands each piece to ``write``."""

    def __init__(
        self,
        response: Response,
        write: Callable[[bytes], object],
        budget: int | None = None,
    ) -> None:
        self.decoder = Decoder(response, budget)
        self._write = write

    def feed(self, chunk: bytes) -> bool:
        for piece in self.decoder.decode(chunk):
            self._write(piece)
        return True

    def flush(self) -> None:
        """Hand on what the decoder held back until the body ended."""
        for piece in self.decoder.flush():
            self._write(piece)


class BodyReader:
    """What a body is read through when it is kept (a ``_Load``): decoded as
    it arrives, in bounded pieces, and refused with :class:`BodyTooLarge` as
    soon as the decoded bytes pass ``limit`` (``None``: no limit). The limit
    counts what is kept."""

    __slots__ = ("_limit", "_request", "_size", "decoder")

    def __init__(self, response: Response, limit: int | None) -> None:
        self.decoder = Decoder(response, limit)
        self._request = response.request
        self._limit = limit
        self._size = 0

    @property
    def identity(self) -> bool:
        return self.decoder.identity

    def pieces(self, chunk: bytes) -> Iterator[bytes]:
        for piece in self.decoder.decode(chunk):
            self._count(piece)
            yield piece

    def rest(self) -> Iterator[bytes]:
        for piece in self.decoder.flush():
            self._count(piece)
            yield piece

    def _count(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._limit is not None and self._size > self._limit:
            request = self._request
            raise BodyTooLarge(request.method, request.url, self._limit)


class Discard:
    """A ``_Read`` sink for a body nobody needs (a redirect's): reads at most
    ``limit`` raw bytes, so a short one leaves the connection reusable, and
    keeps none of them."""

    def __init__(self, limit: int) -> None:
        self._left = limit

    def feed(self, chunk: bytes) -> bool:
        self._left -= len(chunk)
        return self._left >= 0


# -- request bodies ----------------------------------------------------------------

_FORM_TYPE = "application/x-www-form-urlencoded"


def _is_form_type(content_type: str | None) -> bool:
    return (
        content_type is not None
        and content_type.split(";", 1)[0].strip().lower() == _FORM_TYPE
    )


def styled_body(body: Any, content_type: str | None, style: str, where: str) -> Any:
    """``body`` with its form fields written in the endpoint's ``param_style``
    (``params``): a :class:`Form`'s data, or a dict that a middleware
    declared ``application/x-www-form-urlencoded``; any other body as it is.
    A field with no form in the style is a :class:`ParameterError` naming it."""
    if isinstance(body, Form):
        fields = form_fields(body.data, style, where, multipart=body.files is not None)
        return Form(fields, body.files)
    if isinstance(body, Mapping) and _is_form_type(content_type):
        return form_fields(body, style, where, multipart=False)
    return body


def replayable(body: Any) -> bool:
    """Whether ``body`` can be sent again as it was: not a one-shot iterator
    (a generator, an async generator, an open file), which the first send
    consumed."""
    return not isinstance(body, Iterator | AsyncIterator)


def _chunk(chunk: Any, where: str) -> bytes:
    """One chunk of an iterator body, as the bytes httpx sends."""
    if isinstance(chunk, bytes):
        return chunk
    if isinstance(chunk, bytearray | memoryview):
        return bytes(chunk)
    raise RequestBodyError(
        f"{where}: the body iterator yielded a {type(chunk).__name__}; it must "
        "yield bytes (encode text first)"
    )


class _Chunks:
    """A re-iterable body, checked chunk by chunk each time it is sent."""

    def __init__(self, body: Iterable[Any], where: str) -> None:
        self._body, self._where = body, where

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            yield _chunk(chunk, self._where)


class _AsyncChunks:
    """The same for a re-iterable async body."""

    def __init__(self, body: AsyncIterable[Any], where: str) -> None:
        self._body, self._where = body, where

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._body:
            yield _chunk(chunk, self._where)


def _chunks(body: Iterable[Any], where: str) -> Iterable[bytes]:
    """``body`` checked chunk by chunk as httpx sends it. A one-shot body
    stays a generator, so httpx still refuses to send it twice (a redirect
    that wants it again is a clear error, never an empty body)."""
    if not isinstance(body, Iterator):
        return _Chunks(body, where)
    return (_chunk(chunk, where) for chunk in body)


def _async_chunks(body: AsyncIterable[Any], where: str) -> AsyncIterable[bytes]:
    if not isinstance(body, AsyncIterator):
        return _AsyncChunks(body, where)

    async def chunks() -> AsyncIterator[bytes]:
        async for chunk in body:
            yield _chunk(chunk, where)

    return chunks()


def _files_in_memory(files: Any) -> bool:
    """Whether every file of ``files`` (as httpx's ``files=`` takes them: a
    mapping or pairs; each a file, or a tuple whose second item is one) is
    bytes or text, not a file object read as it is sent."""
    items = files.values() if isinstance(files, Mapping) else (f for _, f in files)
    for file in items:
        content = file[1] if isinstance(file, tuple) else file
        if not isinstance(content, bytes | str):
            return False
    return True


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
    raise UsageError(f"{type(value).__name__} is not JSON serializable")


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


def encode_body(
    body: Any, content_type: str | None, where: str
) -> tuple[bytes, str | None]:
    """``body`` as the bytes to send, and the content type they declare
    (``None``: leave the headers as they are); see the module's table. An
    iterator cannot be encoded ahead: it is streamed (and cannot be signed)."""
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body), None
    if isinstance(body, str):
        return body.encode("utf-8"), None
    if isinstance(body, Form):
        return form_bytes(dict(body.data), body.files)
    if is_json_body(body):
        mime = (content_type or "").split(";", 1)[0].strip().lower()
        if mime == _FORM_TYPE and isinstance(body, Mapping):
            return form_bytes(dict(body), None)
        if mime and mime != "application/json" and not mime.endswith("+json"):
            raise RequestBodyError(
                f"{where}: a {type(body).__name__} body cannot be sent as "
                f"{content_type!r}; encode it to bytes first"
            )
        return encode_json(body, where), "application/json"
    if isinstance(body, Iterable | AsyncIterable):
        raise RequestBodyError(
            f"{where}: an iterator body is streamed, so it cannot be encoded "
            "ahead (a middleware that reads the body's bytes needs bytes); "
            "send bytes"
        )
    raise RequestBodyError(
        f"{where}: a {type(body).__name__} body has no wire form; send a dict, "
        "list, bytes, str, an iterator of bytes or a Form"
    )


def is_streamed_body(body: Any) -> bool:
    """Whether ``body`` is sent as a stream (an iterator of bytes), not
    encoded in memory."""
    return not isinstance(body, bytes | bytearray | memoryview | str | Form) and (
        isinstance(body, AsyncIterable)
        or (isinstance(body, Iterable) and not is_json_body(body))
    )


def body_arguments(
    body: Any,
    kind: ContentKind,
    method: str,
    content_type: str | None,
    where: str,
    *,
    asynchronous: bool = False,
    param_style: str = "repeat",
) -> tuple[dict[str, Any], str | None]:
    """httpx keyword arguments for ``body``, and the content type to set if
    any: encoded by the endpoint's content ``kind``, except a stream (sent
    as it comes) and a :class:`Form` (multipart files are streamed by
    httpx); form fields written in ``param_style`` (:func:`styled_body`).
    ``asynchronous``: the call goes out on an ``httpx.AsyncClient``,
    which takes only async iterators (and a sync client only sync ones)."""
    if body is None:
        return {}, None
    if method in BODYLESS_METHODS:
        raise RequestBodyError(f"{where}: {method} takes no body, but one was given")
    body = styled_body(body, content_type, param_style, where)
    if isinstance(body, Form):
        if body.files and _files_in_memory(body.files):
            # encoded now, as httpx would: bytes a redirect (307, 308) or a
            # retry can send again, with the Content-Length httpx gives them
            content, form_type = form_bytes(dict(body.data), body.files)
            return {"content": content}, form_type
        return {"data": dict(body.data), "files": body.files}, None
    if is_streamed_body(body):
        if isinstance(body, AsyncIterable):
            if not asynchronous:
                raise RequestBodyError(
                    f"{where}: an async iterator body needs AsyncController; under "
                    "Controller send a sync iterator or bytes"
                )
            return {"content": _async_chunks(body, where)}, None
        if asynchronous:
            raise RequestBodyError(
                f"{where}: a sync iterator body needs Controller; under "
                "AsyncController send an async iterator or bytes"
            )
        return {"content": _chunks(body, where)}, None
    content, declared = kind.encode(body, content_type, where)
    return {"content": content}, declared
