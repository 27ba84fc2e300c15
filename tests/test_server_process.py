"""``tests.server_process``: a server the tests start that fails to start
leaves no process and no folder behind, and says why."""

from __future__ import annotations

import sys

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
