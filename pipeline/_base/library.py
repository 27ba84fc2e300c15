"""Which HTTP library restwire sends with: httpx, httpx2, or both.

httpx2 is the maintained fork of httpx 0.28.1: the same API under another
import name, and classes of its own (an ``httpx2.Request`` is no
``httpx.Request``). restwire runs on either, and on both in one process: a
controller uses the library of the client or transport it is given (given
neither, :data:`DEFAULT`: httpx when installed, else httpx2), decided once
when it is made, so what a caller gets back (responses, headers, URLs, the
``__cause__`` of an error) belongs to the library it chose.

This module and ``_wire.adapter`` are the only ones that import either library;
the rest of restwire takes from here

- the library of an object (:func:`library_of`) and the default one;
- exception classes of every installed library, as tuples to catch and to
  test with ``isinstance`` (:data:`REQUEST_ERRORS`, ...);
- a base for restwire's own streams that both kinds of client of every
  installed library accept (:class:`ByteStreams`);
- the names to annotate with (``Response``, ``Request``, ``Headers``,
  ``URL``, ...): to a type checker, the union of both libraries' classes
  (whichever is not installed is ``Any`` to it); at run time, the union of
  the installed ones; ``ResponseParser``, a function of either library's
  response.
"""

from __future__ import annotations

import functools
import importlib
import operator
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import idna

__all__ = [
    "DECODING_ERRORS",
    "DEFAULT",
    "INVALID_URL",
    "LIBRARIES",
    "REQUEST_ERRORS",
    "STREAM_CONSUMED",
    "TIMEOUT_KINDS",
    "URL",
    "AsyncBaseTransport",
    "AsyncClient",
    "Auth",
    "BaseTransport",
    "ByteStreams",
    "Client",
    "Cookies",
    "DefaultEncoding",
    "Headers",
    "QueryParams",
    "Request",
    "Response",
    "ResponseParser",
    "Timeout",
    "host_checked",
    "library_of",
]

#: A client's ``default_encoding``: the text encoding of a body whose
#: content type names none, or a function of the body that tells it.
DefaultEncoding = str | Callable[[bytes], str]

#: The import names restwire knows, in the order a default is chosen.
_NAMES = ("httpx", "httpx2")


def _installed() -> tuple[ModuleType, ...]:
    found: list[ModuleType] = []
    for name in _NAMES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        # httpx2.alias_httpx() makes ``import httpx`` give httpx2: one library.
        if module not in found:
            found.append(module)
    if not found:
        raise ImportError(
            "restwire needs httpx or httpx2, and neither is installed: "
            "pip install restwire (with httpx), or pip install 'restwire[httpx2]'"
        )
    return tuple(found)


#: The installed libraries (modules), httpx first.
LIBRARIES: tuple[ModuleType, ...] = _installed()
#: The library of a controller given neither a client nor a transport.
DEFAULT: ModuleType = LIBRARIES[0]
_BY_NAME = {module.__name__: module for module in LIBRARIES}
#: Each type :func:`library_of` has seen, and its library (or ``None``).
_SEEN: dict[type, ModuleType | None] = {}


def library_of(thing: object, default: ModuleType | None = None) -> ModuleType:
    """The library whose class ``thing`` is, or derives from (a transport
    subclassed from ``httpx2.BaseTransport`` is httpx2's); ``default``
    (:data:`DEFAULT` unless given) for an object of neither. One dictionary
    look-up for a type seen before."""
    kind = type(thing)
    try:
        found = _SEEN[kind]
    except KeyError:
        found = None
        for base in kind.__mro__:
            found = _BY_NAME.get(base.__module__.partition(".")[0])
            if found is not None:
                break
        _SEEN[kind] = found
    if found is not None:
        return found
    return DEFAULT if default is None else default


def _every(name: str) -> tuple[type[Any], ...]:
    return tuple(getattr(module, name) for module in LIBRARIES)


#: What sending a request can fail with, in any installed library.
REQUEST_ERRORS: tuple[type[Exception], ...] = _every("RequestError")
#: A URL that cannot be parsed.
INVALID_URL: tuple[type[Exception], ...] = _every("InvalidURL")
#: A one-shot body asked for a second time.
STREAM_CONSUMED: tuple[type[Exception], ...] = _every("StreamConsumed")
#: A body asked for before it was read.
RESPONSE_NOT_READ: tuple[type[Exception], ...] = _every("ResponseNotRead")
#: A body whose content coding cannot be undone.
DECODING_ERRORS: tuple[type[Exception], ...] = _every("DecodingError")
#: Each timeout error, and which of a ``Timeout``'s four it is.
TIMEOUT_KINDS: dict[type[Exception], str] = {
    getattr(module, f"{kind.capitalize()}Timeout"): kind
    for module in LIBRARIES
    for kind in ("connect", "read", "write", "pool")
}


if TYPE_CHECKING:
    from typing import TypeAlias

    import httpx
    import httpx2

    Client: TypeAlias = httpx.Client | httpx2.Client
    AsyncClient: TypeAlias = httpx.AsyncClient | httpx2.AsyncClient
    BaseTransport: TypeAlias = httpx.BaseTransport | httpx2.BaseTransport
    AsyncBaseTransport: TypeAlias = httpx.AsyncBaseTransport | httpx2.AsyncBaseTransport
    Request: TypeAlias = httpx.Request | httpx2.Request
    Response: TypeAlias = httpx.Response | httpx2.Response
    Headers: TypeAlias = httpx.Headers | httpx2.Headers
    URL: TypeAlias = httpx.URL | httpx2.URL
    Cookies: TypeAlias = httpx.Cookies | httpx2.Cookies
    QueryParams: TypeAlias = httpx.QueryParams | httpx2.QueryParams
    Timeout: TypeAlias = httpx.Timeout | httpx2.Timeout
    Auth: TypeAlias = httpx.Auth | httpx2.Auth
    #: A user's function of a response (an endpoint's ``parse_response``):
    #: it names its own library's class, and is given that library's.
    ResponseParser: TypeAlias = (
        Callable[[httpx.Response], Any] | Callable[[httpx2.Response], Any]
    )

    # (a library not installed is Any: the ignores are for that case)
    class ByteStreams(
        httpx.SyncByteStream,  # type: ignore[misc]
        httpx.AsyncByteStream,  # type: ignore[misc]
        httpx2.SyncByteStream,  # type: ignore[misc]
        httpx2.AsyncByteStream,  # type: ignore[misc]
    ):
        """A stream both kinds of client of both libraries accept."""

else:

    def _union(name: str) -> Any:
        # ``A | B``: a union isinstance() checks in C, as fast as a tuple.
        return functools.reduce(operator.or_, _every(name))

    Client = _union("Client")
    AsyncClient = _union("AsyncClient")
    BaseTransport = _union("BaseTransport")
    AsyncBaseTransport = _union("AsyncBaseTransport")
    Request = _union("Request")
    Response = _union("Response")
    Headers = _union("Headers")
    URL = _union("URL")
    Cookies = _union("Cookies")
    QueryParams = _union("QueryParams")
    Timeout = _union("Timeout")
    Auth = _union("Auth")
    ResponseParser = Callable[[Any], Any]

    #: restwire's own streams derive from this: every installed library's
    #: client checks a request's or response's stream with ``isinstance``
    #: against its own ``SyncByteStream`` / ``AsyncByteStream``.
    ByteStreams = type(
        "ByteStreams",
        tuple(
            getattr(module, kind)
            for module in LIBRARIES
            for kind in ("SyncByteStream", "AsyncByteStream")
        ),
        {
            "__slots__": (),
            "__module__": __name__,
            "__doc__": "A stream both kinds of client of every installed "
            "library accept.",
        },
    )


def host_checked(url: URL) -> URL:
    """``url``, its internationalized host (``xn--...``) checked to decode.
    httpx decodes such a host only when it is read, and one that does not
    decode raises the ``idna`` package's error (a ``UnicodeError``) there,
    deep in a call; httpx2 does not decode it at all, and sends it. Checked
    here the way httpx reads it, where a URL comes in (an endpoint's, a
    redirect's, a next page's), it is the library's ``InvalidURL`` under
    either library, which each of those places turns into restwire's
    error."""
    raw = url.raw_host
    if raw.startswith(b"xn--"):
        try:
            idna.decode(raw.decode("ascii"))
        except UnicodeError as error:  # (idna.IDNAError is one)
            invalid = library_of(url).InvalidURL
            raise invalid(f"Invalid IDNA hostname: {error}") from None
    return url
