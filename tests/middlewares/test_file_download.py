"""FileDownload: the seed's {blob, filename}, never kept in the store."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Blob, RestEndpoint
from restwire._wire.content import ContentName
from restwire.middlewares import FileDownload

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


async def test_blob_with_the_name_from_content_disposition(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        content=b"%PDF",
        headers={
            "content-type": "application/pdf",
            "content-disposition": "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf",
        },
    )
    download = RestEndpoint(
        url_prefix=API, path="/files/:id/download", content="blob"
    ).use(FileDownload())
    value = await controller.fetch(download, {"id": 1})
    assert value == {"blob": Blob(b"%PDF", "application/pdf"), "filename": "résumé.pdf"}
    assert controller.store.results == {}


async def test_bytes_and_the_fallback(controller: Any, httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(content=b"raw")
    download = RestEndpoint(
        url_prefix=API, path="/files/:id/download", content="bytes"
    ).use(FileDownload(fallback="file.bin"))
    assert await controller.fetch(download, {"id": 1}) == {
        "bytes": b"raw",
        "filename": "file.bin",
    }


@pytest.mark.parametrize("content", ["json", "text", "stream"])
def test_an_endpoint_it_cannot_serve_is_refused_when_it_is_made(
    content: ContentName,
) -> None:
    base = RestEndpoint(url_prefix=API, content="blob").use(FileDownload())
    with pytest.raises(TypeError, match="FileDownload needs content='blob' or 'bytes'"):
        base.extend(path="/files/:id", content=content)


async def test_a_hostile_name_is_made_safe(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        content=b"x",
        headers={
            "content-disposition": 'attachment; filename="../../.ssh/authorized_keys"'
        },
    )
    download = RestEndpoint(url_prefix=API, path="/f", content="blob").use(
        FileDownload()
    )
    assert (await controller.fetch(download))["filename"] == "authorized_keys"
