"""controller.download over a real socket: streamed, named safely, atomic."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from restwire import (
    DownloadError,
    InvalidRequest,
    RestEndpoint,
    SettingError,
    TransportError,
    UsageError,
)
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio


def file_endpoint(server: RecordingServer) -> RestEndpoint:
    return RestEndpoint(url_prefix=server.origin, path="/file", content="blob")


def body(size: int) -> bytes:
    return bytes(index % 251 for index in range(size))


def cd(name: str) -> str:
    return f'attachment; filename="{name}"'


async def test_the_body_lands_under_its_safe_name(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    path = await controller.download(
        file_endpoint(origin_a),
        {"size": 300_000, "cd": cd("../../report.pdf")},
        to=tmp_path,
    )
    assert path == tmp_path / "report.pdf"
    assert path.read_bytes() == body(300_000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.pdf"]


async def test_an_existing_file_is_kept_and_the_new_one_numbered(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    (tmp_path / "report.pdf").write_bytes(b"mine")
    (tmp_path / "report (1).pdf").write_bytes(b"mine too")
    path = await controller.download(
        file_endpoint(origin_a), {"size": 10, "cd": cd("report.pdf")}, to=tmp_path
    )
    assert path.name == "report (2).pdf"
    assert (tmp_path / "report.pdf").read_bytes() == b"mine"
    assert path.read_bytes() == body(10)


async def test_overwrite_replaces(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    (tmp_path / "report.pdf").write_bytes(b"old")
    path = await controller.download(
        file_endpoint(origin_a),
        {"size": 5, "cd": cd("report.pdf")},
        to=tmp_path,
        overwrite=True,
    )
    assert path == tmp_path / "report.pdf"
    assert path.read_bytes() == body(5)


async def test_no_name_uses_the_fallback(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    path = await controller.download(
        file_endpoint(origin_a), {"size": 3}, to=tmp_path, fallback="data.bin"
    )
    assert path.name == "data.bin"


async def test_progress_reports_bytes_and_total(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    reports: list[tuple[int, int | None]] = []
    await controller.download(
        file_endpoint(origin_a),
        {"size": 200_000, "cd": cd("p.bin")},
        to=tmp_path,
        progress=lambda done, total: reports.append((done, total)),
    )
    assert reports
    assert reports[-1] == (200_000, 200_000)
    assert [done for done, _ in reports] == sorted(done for done, _ in reports)


async def test_an_interrupted_download_leaves_no_file_and_can_run_again(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    broken = RestEndpoint(url_prefix=origin_a.origin, path="/broken", content="blob")
    with pytest.raises(TransportError):
        await controller.download(broken, {"size": 100_000}, to=tmp_path)
    assert list(tmp_path.iterdir()) == []
    path = await controller.download(
        file_endpoint(origin_a), {"size": 10, "cd": cd("broken.bin")}, to=tmp_path
    )
    assert path.name == "broken.bin"


async def test_a_missing_folder_is_a_clear_error(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    with pytest.raises(InvalidRequest, match="is not a folder"):
        await controller.download(
            file_endpoint(origin_a), {"size": 1}, to=tmp_path / "nope"
        )
    assert origin_a.requests == []


async def test_an_error_status_writes_nothing(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    missing = RestEndpoint(
        url_prefix=origin_a.origin, path="/status/404", content="blob"
    )
    with pytest.raises(Exception, match="404"):
        await controller.download(missing, to=tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name", ["..", "/etc/passwd", "a/../../b.txt", "C:\\\\evil.txt", "CON"]
)
async def test_no_name_can_leave_the_folder(
    controller: Any, origin_a: RecordingServer, tmp_path: Path, name: str
) -> None:
    folder = tmp_path / "inside"
    folder.mkdir()
    path = await controller.download(
        file_endpoint(origin_a), {"size": 1, "cd": cd(name)}, to=folder
    )
    assert path.parent == folder
    assert [p.parent for p in tmp_path.rglob("*") if p.is_file()] == [folder]
    assert quote(path.name)  # a plain name


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".restwire"))


async def test_a_symlink_at_the_name_is_never_written_through(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    folder, outside = tmp_path / "downloads", tmp_path / "precious.txt"
    folder.mkdir()
    outside.write_bytes(b"keep me")
    (folder / "report.pdf").symlink_to(outside)
    path = await controller.download(
        file_endpoint(origin_a), {"size": 10, "cd": cd("report.pdf")}, to=folder
    )
    assert path == folder / "report (1).pdf"
    assert path.read_bytes() == body(10)
    assert outside.read_bytes() == b"keep me"
    assert (folder / "report.pdf").is_symlink()
    assert leftovers(folder) == []


async def test_overwriting_a_symlink_replaces_the_link_not_its_target(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    folder, outside = tmp_path / "downloads", tmp_path / "precious.txt"
    folder.mkdir()
    outside.write_bytes(b"keep me")
    (folder / "report.pdf").symlink_to(outside)
    path = await controller.download(
        file_endpoint(origin_a),
        {"size": 10, "cd": cd("report.pdf")},
        to=folder,
        overwrite=True,
    )
    assert path == folder / "report.pdf"
    assert not path.is_symlink()
    assert path.read_bytes() == body(10)
    assert outside.read_bytes() == b"keep me"
    assert leftovers(folder) == []


async def test_a_folder_at_the_name_gets_a_numbered_name_even_with_overwrite(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    (tmp_path / "report.pdf").mkdir()
    path = await controller.download(
        file_endpoint(origin_a),
        {"size": 10, "cd": cd("report.pdf")},
        to=tmp_path,
        overwrite=True,
    )
    assert path == tmp_path / "report (1).pdf"
    assert (tmp_path / "report.pdf").is_dir()
    assert leftovers(tmp_path) == []


class FullDisk:
    """A file on a disk that fills after ``room`` bytes: writes fail with
    ENOSPC, and so does the flush that closing it tries again."""

    def __init__(self, inner: Any, room: int) -> None:
        self.inner, self.room = inner, room

    def write(self, data: bytes) -> int:
        if self.room < len(data):
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return int(self.inner.write(data))

    def close(self) -> None:
        self.inner.close()
        raise OSError(errno.ENOSPC, "No space left on device")


async def test_a_disk_that_fills_midway_leaves_no_file_behind(
    controller: Any,
    origin_a: RecordingServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_fdopen = os.fdopen
    monkeypatch.setattr(
        "restwire._wire.downloads.os.fdopen",
        lambda handle, mode: FullDisk(real_fdopen(handle, mode), room=100_000),
    )
    with pytest.raises(DownloadError, match="No space left") as caught:
        await controller.download(
            file_endpoint(origin_a),
            {"size": 1_000_000, "cd": cd("big.bin")},
            to=tmp_path,
        )
    assert list(tmp_path.iterdir()) == []
    message = str(caught.value)
    assert message.startswith(f"GET {origin_a.origin}/file: cannot write")
    assert caught.value.errno == errno.ENOSPC
    assert isinstance(caught.value, OSError)


async def test_a_folder_removed_midway_is_a_download_error(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    """(A bare ``FileNotFoundError`` came out of claiming the name.)"""
    folder = tmp_path / "gone"
    folder.mkdir()

    def remove_folder(done: int, total: int | None) -> None:
        if done == total:
            for each in folder.iterdir():
                each.unlink()
            folder.rmdir()

    with pytest.raises(DownloadError) as caught:
        await controller.download(
            file_endpoint(origin_a),
            {"size": 1000, "cd": cd("report.bin")},
            to=folder,
            progress=remove_folder,
        )
    assert caught.value.folder == str(folder)
    assert "report.bin" not in str(caught.value)  # (the server's name: not shown)
    assert not folder.exists()


@pytest.mark.parametrize(
    ("option", "bad", "kind", "shown"),
    [
        # (a text is true: "no" replaced the file it was meant to keep)
        ("overwrite", "no", UsageError, "overwrite=...) takes True or False"),
        ("overwrite", 0, UsageError, "overwrite=...) takes True or False"),
        ("to", 5, UsageError, "to=...) takes a folder's path, not int"),
        ("progress", 5, UsageError, "progress=...) takes a function"),
        ("fallback", 5, UsageError, "fallback=...) takes a file name"),
        ("fallback", "", UsageError, "fallback=...) takes a file name"),
        ("max_size", "10", UsageError, "max_size=...) takes a number of bytes"),
        ("max_size", 2.5, UsageError, "max_size=...) takes a number of bytes"),
        ("max_size", -1, SettingError, "max_size=-1)"),
    ],
)
async def test_wrong_download_options_are_refused_before_sending(
    controller: Any,
    origin_a: RecordingServer,
    tmp_path: Path,
    option: str,
    bad: Any,
    kind: type[Exception],
    shown: str,
) -> None:
    kept = tmp_path / "report.bin"
    kept.write_bytes(b"precious")
    options: dict[str, Any] = {"to": tmp_path, option: bad}
    with pytest.raises(kind) as caught:
        await controller.download(
            file_endpoint(origin_a), {"size": 10, "cd": cd("report.bin")}, **options
        )
    assert shown in str(caught.value)
    assert origin_a.requests == []
    assert kept.read_bytes() == b"precious"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.bin"]


async def test_an_async_progress_callback_is_awaited(
    origin_a: RecordingServer, tmp_path: Path
) -> None:
    from restwire import AsyncController

    seen: list[tuple[int, int | None]] = []

    async def progress(done: int, total: int | None) -> None:
        seen.append((done, total))

    async with AsyncController() as controller:
        await controller.download(
            file_endpoint(origin_a), {"size": 200_000}, to=tmp_path, progress=progress
        )
    assert seen
    assert seen[-1] == (200_000, 200_000)


def test_an_async_progress_callback_under_a_sync_controller_says_so(
    origin_a: RecordingServer, tmp_path: Path
) -> None:
    from restwire import Controller

    async def progress(done: int, total: int | None) -> None:
        pass

    with Controller() as controller, pytest.raises(TypeError, match="is async"):
        controller.download(
            file_endpoint(origin_a), {"size": 10}, to=tmp_path, progress=progress
        )
    assert list(tmp_path.iterdir()) == []


async def test_an_empty_file_reports_its_progress_once(
    controller: Any, origin_a: RecordingServer, tmp_path: Path
) -> None:
    seen: list[tuple[int, int | None]] = []
    path = await controller.download(
        file_endpoint(origin_a),
        {"size": 0, "cd": cd("empty.txt")},
        to=tmp_path,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert path.read_bytes() == b""
    assert seen == [(0, 0)]


def bomb_transport(mode: str, decoded: int) -> Any:
    """A transport answering a gzip body of ``decoded`` zero bytes (a few
    hundred bytes on the wire), not yet read, as a real transport gives it."""
    import gzip

    import httpx

    wire = gzip.compress(bytes(decoded))

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            headers={"content-encoding": "gzip", "content-disposition": cd("a.bin")},
            stream=httpx.ByteStream(wire),
        )

    if mode == "sync":
        return httpx.MockTransport(answer)

    async def answer_async(request: httpx.Request) -> httpx.Response:
        return answer(request)

    return httpx.MockTransport(answer_async)


async def test_a_download_stops_at_its_limit_counted_decoded(
    mode: str, tmp_path: Path
) -> None:
    """A 2 MiB body, 2 KB of gzip on the wire, against a 1 MiB limit: refused
    as it inflates, and no file is left (the endpoint's max_body_size is the
    default limit; max_size= sets another)."""
    from restwire import AsyncController, BodyTooLarge, Controller

    endpoint = RestEndpoint(
        url_prefix="https://files.example", path="/a", max_body_size=1 << 20
    )
    if mode == "sync":
        with Controller(transport=bomb_transport(mode, 2 << 20)) as controller:
            with pytest.raises(BodyTooLarge, match="max_size=1048576"):
                controller.download(endpoint, to=tmp_path)
            assert list(tmp_path.iterdir()) == []
            path = controller.download(endpoint, to=tmp_path, max_size=None)
    else:
        async with AsyncController(transport=bomb_transport(mode, 2 << 20)) as actl:
            with pytest.raises(BodyTooLarge, match="max_size=1048576"):
                await actl.download(endpoint, to=tmp_path)
            assert list(tmp_path.iterdir()) == []
            path = await actl.download(endpoint, to=tmp_path, max_size=None)
    assert path.stat().st_size == 2 << 20


def test_a_name_at_the_length_limit_still_gets_a_number(tmp_path: Path) -> None:
    """A 255-byte name that exists: the numbered name cuts the stem to make
    room for " (1)" (it used to come back the same name, 10,000 times)."""
    from restwire._wire.downloads import Download

    name = "é" * 125 + "a.pdf"  # 255 bytes in UTF-8
    assert len(name.encode()) == 255
    (tmp_path / name).write_bytes(b"first")
    target = Download(tmp_path)
    target.file.write(b"second")
    path = target.finish(name, overwrite=False)
    assert path.name.endswith(" (1).pdf")
    assert len(path.name.encode()) <= 255
    assert path.read_bytes() == b"second"
    assert (tmp_path / name).read_bytes() == b"first"


async def test_a_folder_that_cannot_be_written_is_a_download_error_before_sending(
    controller: Any,
    origin_a: RecordingServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(**options: Any) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("restwire._wire.downloads.tempfile.mkstemp", refused)
    with pytest.raises(DownloadError) as caught:
        await controller.download(file_endpoint(origin_a), {"size": 10}, to=tmp_path)
    assert caught.value.errno == errno.EACCES
    assert "Permission denied" in str(caught.value)
    assert origin_a.requests == []
    assert list(tmp_path.iterdir()) == []
