"""Two of the HTTP library's objects built for less than their public way.

Per call, httpx spends more on parsing the URL (checking each character in
Python) and on reading a body already in memory (through its decoder and
chunker layers) than restwire spends on some whole middleware. For the two
common cases this module builds the same objects directly:

- :func:`parse_url`: an absolute URL whose path and query hold only
  characters httpx keeps as they are (no dot segment, no fragment, no
  userinfo) is its scheme and authority, parsed by httpx once per origin,
  with that path and query put in;
- :func:`take_whole_body`: a response whose body the transport read whole
  (``fast_transport()``'s ``WholeBody``), with no content coding to undo,
  is left as ``response.read()`` leaves it: ``content`` set, the stream
  consumed and closed.

Both set the library's private attributes (``URL._uri_reference``,
``Response._content``), which httpx and httpx2 share. Each way is checked
the first time a library uses it, against the public way on sample input;
if the results differ (a library that changed its internals), the public
way is used from then on. Anything else the public way does itself.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

from .._base.library import URL, Response, host_checked
from .fast_transport import WholeBody

__all__ = ["parse_url", "take_whole_body"]

#: The printable ASCII characters, and those httpx percent-encodes in a
#: path (its ``PATH_SAFE``: the WHATWG path percent-encode set) or a query
#: (``QUERY_SAFE``); every other printable one it keeps as it is.
_PRINTABLE = {chr(code) for code in range(0x21, 0x7F)}
_PATH_KEPT = "".join(sorted(_PRINTABLE - set('"#<>?`{}')))
_QUERY_KEPT = "".join(sorted(_PRINTABLE - set('"#<>')))
#: An absolute URL in three parts: its origin (no userinfo), then a path and
#: a query of characters httpx keeps; a URL this does not match goes the
#: public way.
_PLAIN_URL = re.compile(
    r"([A-Za-z][A-Za-z0-9+.\-]*://[^/?#@\s]+)"
    f"([{re.escape(_PATH_KEPT)}]*)"
    f"(?:\\?([{re.escape(_QUERY_KEPT)}]*))?"
)
#: httpx's bound on a URL's length (``MAX_URL_LENGTH``).
_LONGEST = 65536
#: Origins kept per library before the cache is emptied (a bound, not an LRU).
_ORIGINS_KEPT = 256

#: library -> origin text -> its parsed form (``URL._uri_reference``); a
#: library absent until its first use, ``None`` when the check failed.
_origins: dict[ModuleType, dict[str, Any] | None] = {}
#: Response class -> whether ``take_whole_body`` may set its body.
_bodies: dict[type[Any], bool] = {}

#: The URLs the check compares, each both ways.
_SAMPLES = (
    "https://example.com/",
    "http://example.com:8080/a/b%20c;p=1/~x?q=1&r=%2F&s=a/b?c",
    "https://EXAMPLE.com:443/path?",
    "http://127.0.0.1/",
    "https://[::1]:8443/x'y(z)*!$,",
    "http://example.com?only=query",
)


def parse_url(library: ModuleType, text: str) -> URL:
    """``library.URL(text)``, for less when ``text`` is a plain absolute URL
    (see the module); raises what ``library.URL`` raises, and its
    ``InvalidURL`` for a host that is no valid IDNA name
    (``_base.library.host_checked``: read once per origin kept)."""
    try:
        origins = _origins[library]
    except KeyError:
        origins = _checked_origins(library)
    if origins is not None and len(text) <= _LONGEST:
        match = _PLAIN_URL.fullmatch(text)
        if match is not None:
            origin, path, query = match.groups()
            if (path == "" or path[0] == "/") and "/." not in path:
                parsed = origins.get(origin)
                if parsed is None:
                    parsed = _origin(library, origins, origin)
                if parsed is not None:
                    url: URL = library.URL.__new__(library.URL)
                    url._uri_reference = parsed._replace(path=path, query=query)
                    return url
    public: URL = host_checked(library.URL(text))
    return public


def _origin(library: ModuleType, origins: dict[str, Any], origin: str) -> Any:
    """The parsed form of ``origin`` (kept), or ``None`` when ``library``
    refuses it (then the public way raises its own error)."""
    try:
        parsed = host_checked(library.URL(origin))._uri_reference
    except library.InvalidURL:
        return None  # (the public way raises it: its host, read, too)
    if len(origins) >= _ORIGINS_KEPT:
        origins.clear()
    origins[origin] = parsed
    return parsed


def _checked_origins(library: ModuleType) -> dict[str, Any] | None:
    """The origin cache for ``library``, made (and the shortcut checked)
    at its first use; ``None`` when the shortcut's URLs differ from the
    library's own (the samples are parsed with the cache already in place:
    no second check)."""
    origins: dict[str, Any] | None = {}
    _origins[library] = origins
    try:
        agree = all(
            _agree(library, parse_url(library, text), text) for text in _SAMPLES
        )
    except Exception:  # internals not as expected: the public way only
        agree = False
    if not agree:
        origins = _origins[library] = None
    return origins


def _agree(library: ModuleType, url: URL, text: str) -> bool:
    public = library.URL(text)
    return (
        type(url) is type(public)
        and url == public
        and url._uri_reference == public._uri_reference
        and str(url) == str(public)
        and url.raw_path == public.raw_path
    )


def take_whole_body(response: Response) -> bool:
    """Read ``response``'s body if it is already whole in memory (its stream
    a ``WholeBody``) with no content coding to undo, as ``response.read()``
    would, for less; ``False``, doing nothing, for any other response."""
    stream = response.stream
    if type(stream) is not WholeBody or "content-encoding" in response.headers:
        return False
    kind = type(response)
    allowed = _bodies.get(kind)
    if allowed is None:
        allowed = _bodies[kind] = _check_body(kind)
    if not allowed:
        response.read()
        return True
    _set_whole(response, stream)
    return True


def _set_whole(response: Any, stream: WholeBody) -> None:
    """Leave ``response`` as ``read()`` leaves it, its body taken from
    ``stream`` (the one way the shortcut and its check both set it)."""
    body = stream.take()
    response._content = body
    response._num_bytes_downloaded = len(body)
    response.is_stream_consumed = True
    response.is_closed = True


def _check_body(kind: type[Any]) -> bool:
    """Whether a response of class ``kind`` with its body set directly
    reads as one read the public way."""
    try:
        body = b'{"a": 1}'
        public = kind(200, stream=WholeBody(body))
        public.read()
        direct = kind(200, stream=WholeBody(body))
        _set_whole(direct, direct.stream)
        return bool(
            direct.content == public.content == body
            and direct.json() == public.json()
            and direct.num_bytes_downloaded == public.num_bytes_downloaded
            and direct.is_stream_consumed is public.is_stream_consumed is True
            and direct.is_closed is public.is_closed is True
            and list(direct.iter_bytes()) == list(public.iter_bytes())
        )
    except Exception:  # internals not as expected: the public way only
        return False
