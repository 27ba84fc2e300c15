"""``tests.server_process``: a server the tests start that fails to start
(it exits, never answers, or another process answers in its place) leaves
no process and no folder behind, and says why."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from tests.server_process import ServerProcess


class Exits(ServerProcess):
    name = "a server that exits"

    def launch(self) -> None:
        code = "import sys; sys.stderr.write('no port for me'); sys.exit(3)"
        self.start([sys.executable, "-c", code], "http://127.0.0.1:9/")


class Silent(ServerProcess):
    name = "a server that never answers"

    def launch(self) -> None:
        self.start(
            [sys.executable, "-c", "import time; time.sleep(60)"],
            "http://127.0.0.1:9/",
            seconds=0.5,
        )


def test_a_server_that_exits_is_an_error_with_its_output() -> None:
    server = Exits()
    with pytest.raises(
        RuntimeError, match="a server that exits did not start: no port"
    ):
        server.__enter__()
    assert not server.folder.exists()
    assert server._process is None


def test_a_server_that_never_answers_is_stopped() -> None:
    server = Silent()
    with pytest.raises(RuntimeError, match=r"did not answer in 0\.5 s"), server:
        pass
    assert not server.folder.exists()
    assert server._process is None


class Squatter(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"not the server you started")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def squatter() -> Iterator[str]:
    """Another process's server, answering on a port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Squatter)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


@pytest.mark.parametrize(
    "its_own",
    [
        lambda response: response.text == "the server you started",
        lambda response: response.json() == {"mine": True},  # (not JSON at all)
    ],
    ids=["answers-otherwise", "answers-no-json"],
)
def test_another_server_answering_in_its_place_is_an_error(
    squatter: str, its_own: Callable[[httpx.Response], object]
) -> None:
    class Late(ServerProcess):
        name = "a server whose port was taken"

        def launch(self) -> None:
            self.start([sys.executable, "-c", "import time; time.sleep(60)"], squatter)

        def answers_as_itself(self, response: httpx.Response) -> bool:
            return bool(its_own(response))

    server = Late()
    with (
        pytest.raises(RuntimeError, match="another server than a server whose port"),
        server,
    ):
        pass
    assert not server.folder.exists()
    assert server._process is None


def test_a_command_that_cannot_run_leaves_no_folder() -> None:
    class Missing(ServerProcess):
        name = "a server not installed"

        def launch(self) -> None:
            self.start(["/nonexistent/restwire-test-server"], "http://127.0.0.1:9/")

    server = Missing()
    with pytest.raises(FileNotFoundError), server:
        pass
    assert not server.folder.exists()
