"""A real ``redis-server`` on 127.0.0.1 for the tests that share state
between processes (issue 16): no mock Redis stands in for it.

:class:`RedisServer` starts one with no persistence, on a port the OS just
handed out; if another process takes that port first, redis exits at once
and the next free port is tried. ``.ci/run`` installs the Debian package
``redis-server`` when it is missing; a test run without it skips these tests
with a line saying how to get it.

Faults are real too: :meth:`RedisServer.freeze` stops the process with
``SIGSTOP`` (connections are still accepted by the kernel, and nothing
answers: a silent Redis), :meth:`RedisServer.thaw` lets it go on, and
:meth:`RedisServer.stop` ends it (a refused connection).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from types import TracebackType

from tests.server_process import stop

__all__ = ["REDIS_SERVER", "RedisServer"]

#: The server binary, if installed.
REDIS_SERVER = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    """One redis-server process; a context manager that starts and stops it."""

    def __init__(self) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError("redis-server is not installed")
        self.port = 0
        self.url = ""
        self._folder = tempfile.TemporaryDirectory(prefix="restwire-redis-")
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> RedisServer:
        try:
            for _ in range(5):
                self.port = _free_port()
                if self._launch():
                    self.url = f"redis://127.0.0.1:{self.port}/0"
                    return self
            raise RuntimeError("redis-server did not start on any of 5 free ports")
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def _launch(self) -> bool:
        """Start the server on ``self.port``; whether it answers (``False``:
        another process took the port first)."""
        assert REDIS_SERVER is not None
        # (its errors to a file: a pipe nobody reads would fill and stop it)
        errors = open(os.path.join(self._folder.name, "errors.log"), "ab")  # noqa: SIM115
        self._process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self._folder.name,
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        errors.close()
        return self._wait_until_up()

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would: its clients'
        connections drop, and its data (kept in memory only) is gone."""
        if self._process is not None:
            self._process.kill()
            self._process.communicate()
            self._process = None

    def restart(self) -> None:
        """Start a killed server again, empty, on the same port and URL."""
        if not self._launch():
            raise RuntimeError(f"redis-server could not start again on {self.port}")

    def _wait_until_up(self, seconds: float = 10.0) -> bool:
        """Whether this server answers (its ``INFO`` names its process:
        not another Redis that had the port); ``False`` if it exited (its
        port was taken)."""
        process = self._process
        assert process is not None
        mine = f"process_id:{process.pid}\r\n".encode()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if process.poll() is not None:
                process.communicate()
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5) as s:
                    s.sendall(b"INFO server\r\n")
                    said = s.recv(65536)
            except OSError:
                time.sleep(0.02)
                continue
            if mine in said:
                return True
            time.sleep(0.02)  # (another Redis had the port: ours exits)
        raise RuntimeError(f"redis-server on port {self.port} did not answer")

    def flush(self) -> None:
        """Empty every database: each test starts from nothing."""
        with socket.create_connection(("127.0.0.1", self.port), 2.0) as s:
            s.sendall(b"FLUSHALL\r\n")
            assert s.recv(16).startswith(b"+OK")

    def freeze(self) -> None:
        """Stop the server with ``SIGSTOP``: it still accepts connections
        (the kernel does) but never answers, as a hung Redis does."""
        assert self._process is not None
        os.kill(self._process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        """Let a frozen server go on (``SIGCONT``)."""
        assert self._process is not None
        os.kill(self._process.pid, signal.SIGCONT)

    def stop(self) -> None:
        """End the server now: connections to its port are refused."""
        if self._process is not None:
            self.thaw()  # a stopped process ends only once it runs again
            stop(self._process)
            self._process = None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
        self._folder.cleanup()
