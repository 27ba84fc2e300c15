"""restwire's shortcuts build the same URLs and read the same bodies as the
library's public way (httpx's and httpx2's), and step aside for anything
they do not cover or a library whose internals they do not recognise."""

from __future__ import annotations

import random
import sys
import types
from typing import Any

import idna
import pytest

from restwire._base.library import LIBRARIES
from restwire._wire import shortcuts as _shortcuts
from restwire._wire.fast_transport import WholeBody
from restwire._wire.shortcuts import parse_url, take_whole_body


@pytest.fixture(params=LIBRARIES, ids=lambda library: library.__name__)
def library(request: pytest.FixtureRequest) -> types.ModuleType:
    module: types.ModuleType = request.param
    return module


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each library checked again, with empty caches."""
    monkeypatch.setattr(_shortcuts, "_origins", {})
    monkeypatch.setattr(_shortcuts, "_bodies", {})


def _same(library: types.ModuleType, text: str) -> None:
    """``parse_url(text)`` is ``library.URL(text)``, or fails as it does;
    or, for a host the library parses but that is no valid IDNA name (an
    ``xn--`` host ``idna`` cannot decode: httpx raises idna's error when it
    is read, httpx2 sends it), fails with the library's ``InvalidURL``
    saying so."""
    try:
        public = library.URL(text)
        raw = public.raw_host.decode("ascii")
        if raw.startswith("xn--"):
            idna.decode(raw)
    except library.InvalidURL as error:
        message = str(error)
    except UnicodeError as error:
        message = f"Invalid IDNA hostname: {error}"
    else:
        message = ""
    if message:
        with pytest.raises(library.InvalidURL) as raised:
            parse_url(library, text)
        assert str(raised.value) == message
        return
    url = parse_url(library, text)
    assert type(url) is type(public)
    assert url._uri_reference == public._uri_reference
    assert str(url) == str(public)
    assert url.raw_path == public.raw_path
    assert url == public
    assert hash(url) == hash(public)


#: Pieces that random URLs are made of: every printable ASCII character,
#: some that are not, escapes valid and broken, dot segments.
_PIECES = [chr(code) for code in range(0x20, 0x7F)] + [
    "é",
    "\u2603",
    "\t",
    "\x00",
    "%20",
    "%2f",
    "%zz",
    "%",
    "/./",
    "/../",
    "/.",
    "/..",
    "?",
    "#",
    "@",
    "a/b",
]
_ORIGINS = [
    "http://example.com",
    "https://EXAMPLE.com:443",
    "http://example.com:8080",
    "http://127.0.0.1",
    "https://[::1]:8443",
    "http://xn--bcher-kva.example",
    "http://bücher.example",
    "http://user:secret@example.com",
    "HTTP://example.com",
    "ftp://example.com",
    "http://exa mple.com",
    "http://example.com:99999",
    "http://",
]


def test_a_random_url_parses_as_the_library_parses_it(
    library: types.ModuleType, fresh: None
) -> None:
    chance = random.Random(31)
    for _ in range(3000):
        rest = "".join(chance.choice(_PIECES) for _ in range(chance.randrange(12)))
        if chance.random() < 0.7:
            rest = "/" + rest
        _same(library, chance.choice(_ORIGINS) + rest)


@pytest.mark.parametrize(
    "text",
    [
        "https://api.example.com/v1/users/42?expand=team&fields=a,b",
        "http://example.com/a%20b/c;d=e/~f!$&'()*+,=:@?x=%2F/?y=[1]{2}|^`",
        "http://example.com",
        "http://example.com?",
        "http://example.com/?",
        "http://example.com/a/./b",
        "http://example.com/a/../b",
        "http://example.com/.well-known/x",
        "http://example.com/a b",
        "http://example.com/a#frag",
        "http://example.com/a?b#",
        "http://example.com/a{b}",
        "http://example.com/ü?ü",
        "http://user:pass@example.com/a",
        "http://example.com/" + "a" * 70000,
    ],
)
def test_the_edges_parse_as_the_library_parses_them(
    library: types.ModuleType, fresh: None, text: str
) -> None:
    _same(library, text)


def _counting_urlparse(
    library: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """The texts the library's own parser is given from now on."""
    module = sys.modules[f"{library.__name__}._urls"]
    parse = module.urlparse
    seen: list[str] = []

    def counting(url: str = "", **kwargs: Any) -> Any:
        seen.append(url)
        return parse(url, **kwargs)

    monkeypatch.setattr(module, "urlparse", counting)
    return seen


def test_an_origin_is_parsed_by_the_library_once(
    library: types.ModuleType, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    parse_url(library, "http://warm.example/")  # the check runs first
    seen = _counting_urlparse(library, monkeypatch)
    for n in range(5):
        parse_url(library, f"https://api.example.com/items/{n}?page={n}")
    assert seen == ["https://api.example.com"]


def test_userinfo_is_never_kept(
    library: types.ModuleType, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = parse_url(library, "https://alice:secret@api.example.com/x")
    assert url.password == "secret"
    kept = _shortcuts._origins[library]
    assert kept is not None
    assert not any("secret" in origin for origin in kept)


def test_the_origins_kept_are_bounded(
    library: types.ModuleType, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(_shortcuts._ORIGINS_KEPT * 2 + 10):
        parse_url(library, f"http://host{n}.example/")
    kept = _shortcuts._origins[library]
    assert kept is not None
    assert 0 < len(kept) <= _shortcuts._ORIGINS_KEPT


class _OtherURL:
    """A library's URL whose internals are not httpx's."""

    def __init__(self, text: str) -> None:
        self._uri_reference = (text,)
        self.text = text
        self.raw_host = text.partition("//")[2].partition("/")[0].encode()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _OtherURL) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def test_a_library_with_other_internals_gets_its_own_urls(fresh: None) -> None:
    other = types.ModuleType("other")
    other.URL = _OtherURL  # type: ignore[attr-defined]
    other.InvalidURL = ValueError  # type: ignore[attr-defined]
    url: Any = parse_url(other, "http://example.com/a")
    assert type(url) is _OtherURL
    assert url.text == "http://example.com/a"
    assert _shortcuts._origins[other] is None


def _whole(library: types.ModuleType, body: bytes, **headers: str) -> Any:
    """A response as ``fast_transport()`` hands one over, read whole;
    ``headers`` named with underscores for hyphens."""
    named = {name.replace("_", "-"): value for name, value in headers.items()}
    return library.Response(200, headers=named, stream=WholeBody(body))


def test_a_whole_body_reads_as_the_library_reads_it(
    library: types.ModuleType, fresh: None
) -> None:
    body = b'{"id": 1, "name": "\\u00e9"}'
    public = _whole(library, body, content_type="application/json")
    public.read()
    taken = _whole(library, body, content_type="application/json")
    assert take_whole_body(taken)
    assert _shortcuts._bodies[type(taken)] is True  # the shortcut, not read()
    assert taken.content == public.content == body
    assert taken.json() == public.json()
    assert taken.text == public.text
    assert taken.num_bytes_downloaded == public.num_bytes_downloaded == len(body)
    assert taken.is_stream_consumed
    assert taken.is_closed
    assert taken.read() == body
    with pytest.raises(library.StreamConsumed):
        list(taken.iter_raw())


async def _aread(response: Any) -> bytes:
    content: bytes = await response.aread()
    return content


@pytest.mark.anyio
async def test_a_whole_body_taken_reads_again_async(
    library: types.ModuleType, fresh: None
) -> None:
    taken = _whole(library, b"abc")
    assert take_whole_body(taken)
    assert await _aread(taken) == b"abc"
    await taken.aclose()


def test_an_empty_whole_body(library: types.ModuleType, fresh: None) -> None:
    taken = _whole(library, b"")
    assert take_whole_body(taken)
    assert taken.content == b""
    assert taken.num_bytes_downloaded == 0


def test_other_bodies_are_left_to_the_public_way(
    library: types.ModuleType, fresh: None
) -> None:
    coded = _whole(library, b"\x1f\x8b", content_encoding="gzip")
    assert not take_whole_body(coded)
    assert not coded.is_stream_consumed

    streamed = library.Response(200, stream=library.ByteStream(b"a"))
    assert not take_whole_body(streamed)
    assert not streamed.is_stream_consumed


def test_a_response_class_with_other_internals_is_read_the_public_way(
    library: types.ModuleType, fresh: None
) -> None:
    class Other(library.Response):  # type: ignore[name-defined,misc]
        """Keeps its body elsewhere: setting ``_wire.content`` does not show."""

        @property
        def content(self) -> bytes:
            body: bytes = self.__dict__.get("_body", b"<unread>")
            return body

        def read(self) -> bytes:
            self.__dict__["_body"] = b"".join(self.stream)
            self.is_stream_consumed = True
            return self.content

    response = Other(200, stream=WholeBody(b"xyz"))
    assert take_whole_body(response)
    assert response.content == b"xyz"
    assert _shortcuts._bodies[Other] is False
