"""Following a redirect as one more hop the chain can see.

The next request is built as browsers and httpx build it (303 becomes GET
except for HEAD, 301 and 302 turn a POST into a GET, 307 and 308 keep method
and body), with two differences that keep credentials home:

- the ``Cookie`` header is dropped, to be worked out again for the new URL;
- nothing else is dropped here: which credentials a hop may carry is decided
  per hop by the terminal (``pipeline._terminal``), from the call's origin.

A ``Location`` that is not an http(s) URL is an error, never followed. A 307
or 308 after a one-shot (iterator) body cannot send it again: httpx raises
``StreamConsumed``, which the terminal reports as a ``RequestBodyError``.
"""

from __future__ import annotations

import httpx

from ._errors import InvalidRequest
from ._redact import redact_url

__all__ = ["redirect_request"]

_BODY_HEADERS = ("content-length", "content-type", "transfer-encoding")


def _method(request: httpx.Request, status: int) -> str:
    method = request.method
    if status == httpx.codes.SEE_OTHER and method != "HEAD":
        return "GET"
    if status == httpx.codes.FOUND and method != "HEAD":
        return "GET"
    if status == httpx.codes.MOVED_PERMANENTLY and method == "POST":
        return "GET"
    return method


def _location(request: httpx.Request, response: httpx.Response) -> httpx.URL:
    location = response.headers["location"]
    try:
        url = request.url.join(location)
    except httpx.InvalidURL as error:
        raise InvalidRequest(
            f"{request.method} {redact_url(request.url)}: redirect to an invalid "
            f"Location ({error})"
        ) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise InvalidRequest(
            f"{request.method} {redact_url(request.url)}: redirect to "
            f"{redact_url(url)!r}, which is not an http(s) URL"
        )
    if request.url.fragment and not url.fragment:
        url = url.copy_with(fragment=request.url.fragment)
    return url


def redirect_request(request: httpx.Request, response: httpx.Response) -> httpx.Request:
    """The request that follows ``response``'s redirect."""
    method = _method(request, response.status_code)
    url = _location(request, response)
    headers = httpx.Headers(request.headers)
    headers["host"] = url.netloc.decode("ascii")
    headers.pop("cookie", None)
    stream: httpx.SyncByteStream | httpx.AsyncByteStream | None = request.stream
    if method != request.method and method == "GET":
        stream = None
        for name in _BODY_HEADERS:
            headers.pop(name, None)
    return httpx.Request(
        method, url, headers=headers, stream=stream, extensions=request.extensions
    )
