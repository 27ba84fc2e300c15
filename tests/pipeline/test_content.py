"""Bodies both ways: reading responses per content kind (and what a broken body
gives instead), and encoding request bodies."""

from __future__ import annotations

import datetime
import enum
import inspect
import io
import json
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    Blob,
    BlobContent,
    BodyTooLarge,
    BytesContent,
    Content,
    ContentError,
    Form,
    JsonContent,
    RequestBodyError,
    RestEndpoint,
    StreamContent,
    TextContent,
)
from restwire._wire.content import ContentName, body_arguments

KIND = JsonContent()

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
URL = f"{API}/files/1/download"


def endpoint(**options: Any) -> RestEndpoint:
    return RestEndpoint(
        url_prefix="https://api.example.com", path="/files/:id/download", **options
    )


async def test_json_is_parsed(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(json={"id": "1", "title": "x"})
    assert await controller.fetch(endpoint(), {"id": 1}) == {"id": "1", "title": "x"}


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/problem+json",
        None,
    ],
)
async def test_json_content_types(
    controller: Any, httpx_mock: HTTPXMock, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    httpx_mock.add_response(content=b'{"a": 1}', headers=headers)
    assert await controller.fetch(endpoint(), {"id": 1}) == {"a": 1}


async def test_json_with_a_bom_is_parsed(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        content=b'\xef\xbb\xbf{"a": 1}', headers={"content-type": "application/json"}
    )
    assert await controller.fetch(endpoint(), {"id": 1}) == {"a": 1}


@pytest.mark.parametrize(
    ("status", "body"), [(204, b""), (205, b""), (200, b""), (200, b"  \n")]
)
async def test_no_content_is_none(
    controller: Any, httpx_mock: HTTPXMock, status: int, body: bytes
) -> None:
    httpx_mock.add_response(status_code=status, content=body)
    assert await controller.fetch(endpoint(), {"id": 1}) is None


async def test_an_html_page_to_a_json_endpoint_is_a_clear_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        content=b"<html><body>Sign in</body></html>",
        headers={"content-type": "text/html; charset=utf-8"},
    )
    with pytest.raises(ContentError) as caught:
        await controller.fetch(endpoint(), {"id": 1})
    message = str(caught.value)
    assert URL in message
    assert "text/html; charset=utf-8" in message
    assert "<html><body>Sign in" in message


@pytest.mark.parametrize("body", [b'{"a": ', b"{'a': 1}", b"nan-ish", b"[1, 2,]"])
async def test_invalid_json_is_a_clear_error(
    controller: Any, httpx_mock: HTTPXMock, body: bytes
) -> None:
    httpx_mock.add_response(content=body, headers={"content-type": "application/json"})
    with pytest.raises(ContentError, match="the body is not valid JSON") as caught:
        await controller.fetch(endpoint(), {"id": 1})
    assert caught.value.url == URL
    assert caught.value.content_type == "application/json"


async def test_deep_json_is_an_error_not_a_recursion_crash(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(content=b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ContentError, match="nested too deeply"):
        await controller.fetch(endpoint(), {"id": 1})


async def test_text(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(text="héllo")
    assert await controller.fetch(endpoint(content="text"), {"id": 1}) == "héllo"


async def test_blob_and_bytes(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(content=b"\x00\x01", headers={"content-type": "image/png"})
    httpx_mock.add_response(content=b"\x00\x01")
    blob = await controller.fetch(endpoint(content="blob"), {"id": 1})
    assert blob == Blob(b"\x00\x01", "image/png")
    assert blob.size == 2
    assert repr(blob) == "Blob(size=2, content_type='image/png')"
    assert await controller.fetch(endpoint(content="bytes"), {"id": 1}) == b"\x00\x01"


async def test_an_empty_file_is_still_a_file(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(content=b"")
    assert await controller.fetch(endpoint(content="bytes"), {"id": 1}) == b""


async def test_stream_leaves_the_body_unread(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(content=b"x" * 1000)
    response = await controller.fetch(endpoint(content="stream"), {"id": 1})
    try:
        assert not response.is_stream_consumed
        chunks = []
        if (
            hasattr(response, "aiter_bytes")
            and controller.__class__.__name__ == "AsyncController"
        ):
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
        else:
            chunks.extend(response.iter_bytes())
        assert b"".join(chunks) == b"x" * 1000
    finally:
        if controller.__class__.__name__ == "AsyncController":
            await response.aclose()
        else:
            response.close()


async def test_a_body_over_max_body_size_is_refused(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(content=b"x" * 2048)
    with pytest.raises(BodyTooLarge, match="max_body_size=1024") as caught:
        await controller.fetch(endpoint(content="bytes", max_body_size=1024), {"id": 1})
    assert caught.value.url == URL


async def test_a_body_within_max_body_size_is_read(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(content=b"x" * 1024)
    value = await controller.fetch(
        endpoint(content="bytes", max_body_size=1024), {"id": 1}
    )
    assert value == b"x" * 1024


class Color(enum.Enum):
    RED = "red"


class NdJson(Content):
    """A kind the library does not have: newline-delimited JSON."""

    name = "ndjson"
    accept = "application/x-ndjson"

    def parse(self, response: httpx.Response) -> Any:
        lines = response.text.splitlines()
        return [json.loads(line) for line in lines if line.strip()]


async def test_a_user_adds_a_content_kind(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        content=b'{"id": "1"}\n{"id": "2"}\n',
        headers={"content-type": "application/x-ndjson"},
    )
    endpoint = RestEndpoint(url_prefix=API, path="/events", content=NdJson())
    assert await controller.fetch(endpoint) == [{"id": "1"}, {"id": "2"}]
    request = httpx_mock.get_request()
    assert request is not None
    assert request.headers["accept"] == "application/x-ndjson"
    assert "content-type" not in request.headers  # only JSON declares one
    assert repr(endpoint).endswith("content='ndjson')")


class Picture(Content):
    """A binary kind of the user's: never normalized, never kept."""

    name = "picture"
    accept = "image/png"
    binary = True

    def parse(self, response: httpx.Response) -> Any:
        return response.content[:4]


async def test_a_binary_kind_is_never_stored(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(content=b"\x89PNG....")
    endpoint = RestEndpoint(url_prefix=API, path="/logo", content=Picture())
    assert await controller.fetch(endpoint) == b"\x89PNG"
    assert controller.store.results == {}


def test_built_in_kinds_are_accepted_by_name_and_as_objects() -> None:
    kinds: dict[ContentName, Content] = {
        "json": JsonContent(),
        "text": TextContent(),
        "blob": BlobContent(),
        "bytes": BytesContent(),
        "stream": StreamContent(),
    }
    for name, kind in kinds.items():
        assert type(RestEndpoint(content=name).content) is type(kind)
        assert RestEndpoint(content=kind).content is kind
    assert [name for name, kind in kinds.items() if kind.binary] == [
        "blob",
        "bytes",
        "stream",
    ]
    assert [name for name, kind in kinds.items() if kind.streamed] == ["stream"]


def test_a_subclass_may_name_its_kind() -> None:
    class Files(RestEndpoint):
        content = "blob"  # type: ignore[assignment]  # the seed's spelling

    assert isinstance(Files(path="/f").content, BlobContent)
    assert isinstance(Files(path="/f").extend(path="/g").content, BlobContent)


@pytest.mark.parametrize("bad", ["xml", 3, None, NdJson])
def test_an_unknown_kind_is_refused_when_the_endpoint_is_made(bad: object) -> None:
    with pytest.raises(ValueError, match="content must be a Content or one of"):
        RestEndpoint(content=bad)  # type: ignore[call-overload]


def test_a_dict_is_json_with_its_content_type() -> None:
    arguments, content_type = body_arguments({"a": [1, "é"]}, KIND, "POST", None, "e")
    assert content_type == "application/json"
    assert json.loads(arguments["content"]) == {"a": [1, "é"]}


def test_json_takes_dates_decimals_uuids_and_enums() -> None:
    value = {
        "when": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
        "day": datetime.date(2024, 1, 2),
        "price": Decimal("1.10"),
        "id": uuid.UUID(int=1),
        "color": Color.RED,
    }
    arguments, _ = body_arguments(value, KIND, "PUT", None, "e")
    assert json.loads(arguments["content"]) == {
        "when": "2024-01-02T03:04:05+00:00",
        "day": "2024-01-02",
        "price": "1.10",
        "id": "00000000-0000-0000-0000-000000000001",
        "color": "red",
    }


@pytest.mark.parametrize("bad", [{"x": float("nan")}, {"x": object()}])
def test_values_json_cannot_carry_are_refused(bad: object) -> None:
    with pytest.raises(RequestBodyError, match="cannot be sent as JSON"):
        body_arguments(bad, KIND, "POST", None, "POST /x")


def test_a_form_urlencoded_dict_is_form_data() -> None:
    arguments, content_type = body_arguments(
        {"a": "1"}, KIND, "POST", "application/x-www-form-urlencoded", "e"
    )
    assert arguments == {"content": b"a=1"}  # as httpx encodes a form
    assert content_type == "application/x-www-form-urlencoded"


def test_a_dict_with_another_content_type_is_an_error() -> None:
    with pytest.raises(RequestBodyError, match="text/csv"):
        body_arguments({"a": 1}, KIND, "POST", "text/csv", "e")


@pytest.mark.parametrize("body", [b"raw", "text", bytearray(b"ba")])
def test_bytes_and_text_are_sent_as_they_are(body: str | bytes | bytearray) -> None:
    arguments, content_type = body_arguments(body, KIND, "POST", None, "e")
    assert content_type is None
    assert arguments["content"] == (
        body.encode() if isinstance(body, str) else bytes(body)
    )


def test_an_iterator_is_streamed_checked_and_still_one_shot() -> None:
    chunks = iter([b"a", bytearray(b"b")])
    arguments, _ = body_arguments(chunks, KIND, "POST", None, "e")
    streamed = arguments["content"]
    assert inspect.isgenerator(streamed)  # httpx refuses to send it twice
    assert list(streamed) == [b"a", b"b"]


def test_a_re_iterable_body_stays_re_iterable() -> None:
    arguments, _ = body_arguments(Parts(), KIND, "POST", None, "e")
    streamed = arguments["content"]
    assert list(streamed) == list(streamed) == [b"a", b"b"]


class Parts:
    """A body that can be iterated again (for a 307 that wants it again)."""

    def __iter__(self) -> Iterator[bytes]:
        return iter([b"a", b"b"])


def test_a_form_with_files_in_memory_is_encoded_as_httpx_would() -> None:
    """Bytes a redirect (307, 308) can send again, as httpx encodes them."""
    form = Form({"title": "x"}, files={"file": ("a.txt", b"hi")})
    arguments, content_type = body_arguments(form, KIND, "POST", None, "e")
    assert content_type is not None
    assert content_type.startswith("multipart/form-data; boundary=")
    boundary = content_type.partition("boundary=")[2].encode()
    theirs = httpx.Request(
        "POST",
        "http://x.invalid/",
        data={"title": "x"},
        files={"file": ("a.txt", b"hi")},
        headers={"content-type": content_type},
    )
    assert arguments == {"content": theirs.read()}
    assert boundary in arguments["content"]


def test_a_form_with_a_file_object_is_data_and_files() -> None:
    file = io.BytesIO(b"hi")
    form = Form({"title": "x"}, files={"file": ("a.txt", file)})
    arguments, content_type = body_arguments(form, KIND, "POST", None, "e")
    assert arguments == {"data": {"title": "x"}, "files": {"file": ("a.txt", file)}}
    assert content_type is None


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_get_and_head_take_no_body(method: str) -> None:
    with pytest.raises(RequestBodyError, match=f"{method} takes no body"):
        body_arguments({"a": 1}, KIND, method, None, "e")


def test_an_unknown_body_type_is_an_error() -> None:
    with pytest.raises(RequestBodyError, match="int body has no wire form"):
        body_arguments(5, KIND, "POST", None, "e")


def test_more_content_codings_than_restwire_undoes_are_refused() -> None:
    """1,500 nested codings used to recurse 1,500 deep; now a clear decoding
    error, before any of them is undone."""
    from restwire._wire.content import MAX_CODINGS, BodyReader

    request = httpx.Request("GET", "https://api.example.com/x")
    many = httpx.Response(  # a stream: httpx2 would refuse the codings on reading
        200,
        headers={"content-encoding": ", ".join(["gzip"] * 1500)},
        stream=httpx.ByteStream(b""),
        request=request,
    )
    with pytest.raises(httpx.DecodingError, match=f"at most {MAX_CODINGS}"):
        list(BodyReader(many, None).pieces(b"x"))
    few = httpx.Response(
        200, headers={"content-encoding": ", ".join(["gzip"] * 2)}, request=request
    )
    import gzip

    assert (
        b"".join(BodyReader(few, None).pieces(gzip.compress(gzip.compress(b"hi"))))
        == b"hi"
    )


@pytest.mark.anyio
async def test_a_body_with_too_many_codings_is_a_transport_error() -> None:
    from restwire import AsyncController, Controller, TransportError

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            headers={"content-encoding": ", ".join(["deflate"] * 100)},
            stream=httpx.ByteStream(b"not read"),
        )

    async def answer_async(request: httpx.Request) -> httpx.Response:
        return answer(request)

    endpoint = RestEndpoint(url_prefix="https://api.example.com")
    with (
        Controller(transport=httpx.MockTransport(answer)) as sync_controller,
        pytest.raises(TransportError, match="content codings"),
    ):
        sync_controller.fetch(endpoint)
    async with AsyncController(
        transport=httpx.MockTransport(answer_async)
    ) as async_controller:
        with pytest.raises(TransportError, match="content codings"):
            await async_controller.fetch(endpoint)


def test_zstd_is_fed_in_slices_sized_by_the_limit() -> None:
    """One input byte of zstd can make 32 KiB: a slice never lets one call
    make more than the body's limit allows, and a large limit decodes a
    normal body in few calls (zstd used to be fed 16 bytes a call, ~20x
    gzip's time)."""
    from restwire._wire.content import _Zstd

    assert _Zstd(None)._slice == 4096
    assert _Zstd(100 << 20)._slice == 3200
    assert _Zstd(1 << 20)._slice == 32
    assert _Zstd(1000)._slice == 16
