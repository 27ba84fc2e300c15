"""Servers nobody here wrote, each run by the tests in a process of its
own on 127.0.0.1 (httpbin, Django REST framework, json-server, Datasette,
Prism, redis-server): starting one, waiting until it answers, stopping it.

:class:`ServerProcess` is the base of the ones that answer HTTP: a
temporary folder of the server's own, :meth:`ServerProcess.start` (the
command, waited for until a URL answers) and a ``with`` block that stops
the process and removes the folder however it ends, a start that fails
included. :class:`GunicornServer` serves a WSGI app under gunicorn on a socket the
test made (:func:`listening_socket`, :func:`gunicorn`), so the port is
known before gunicorn starts and no other process can take it in between.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx

__all__ = [
    "GunicornServer",
    "ServerProcess",
    "gunicorn",
    "listening_socket",
    "stop",
    "wait_until_answers",
]


def stop(process: subprocess.Popen[bytes]) -> None:
    """End a server the tests started: politely, then for sure after 30 s."""
    process.terminate()
    try:
        process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()


def wait_until_answers(
    process: subprocess.Popen[bytes],
    url: str,
    seconds: float,
    exited: Callable[[], str],
    late: Callable[[], str],
) -> None:
    """Wait until a server the tests started answers ``url`` over HTTP (any
    status), at most ``seconds``; a ``RuntimeError`` saying ``exited()``
    if the process ends first, ``late()`` if it never answers."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(exited())
        try:
            httpx.get(url, timeout=1.0)
        except httpx.TransportError:
            time.sleep(0.05)
        else:
            return
    raise RuntimeError(late())


def listening_socket() -> socket.socket:
    """A socket listening on 127.0.0.1 on a port the OS handed out, to be
    passed to a child process (``pass_fds``)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    listener.set_inheritable(True)
    return listener


def gunicorn(
    fd: int, app: str, threads: int, pythonpath: str | None = None
) -> list[str]:
    """The command that serves the WSGI ``app`` (``module:name``, found on
    ``pythonpath`` too when given) under gunicorn on the listening socket
    ``fd``, with its threaded worker (a slow request holds up no other)."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        f"--bind=fd://{fd}",
        "--worker-class=gthread",
        "--workers=1",
        f"--threads={threads}",
        "--no-control-socket",
        "--log-level=warning",
        *([f"--pythonpath={pythonpath}"] if pythonpath else []),
        app,
    ]


class ServerProcess(ABC):
    """A server in a process of its own, with a temporary folder of its
    own (``folder``), used as a context manager: entering it calls the
    subclass's :meth:`launch`, which calls :meth:`start`."""

    #: What the server is called in errors.
    name = "server"

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="restwire-server-")
        self.folder = Path(self._folder.name)
        self._process: subprocess.Popen[bytes] | None = None

    def start(
        self,
        command: Sequence[str],
        ready: str,
        seconds: float = 60.0,
        **options: Any,
    ) -> None:
        """Run ``command`` (its output dropped, its errors written to
        ``errors.log`` in the folder: a pipe nobody reads would fill and
        stop the server) and wait until ``ready`` answers, at most
        ``seconds``, as this server (:meth:`answers_as_itself`: not another
        process that took a port picked before the server bound it); on
        any failure the process is stopped, the folder removed and a
        ``RuntimeError`` says why."""
        log = self.folder / "errors.log"
        with log.open("wb") as errors:
            process = self._process = subprocess.Popen(
                list(command), stdout=subprocess.DEVNULL, stderr=errors, **options
            )

        def exited() -> str:
            process.wait()
            said = log.read_bytes()[-2000:].decode(errors="replace")
            return f"{self.name} did not start: {said}"

        def late() -> str:
            return f"{self.name} at {ready} did not answer in {seconds:g} s"

        try:
            wait_until_answers(process, ready, seconds, exited, late)
            try:
                ours = self.answers_as_itself(httpx.get(ready, timeout=10.0))
            except (httpx.HTTPError, ValueError, LookupError, TypeError):
                ours = False  # (not even the answer it gives: another server)
            if not ours:
                raise RuntimeError(f"another server than {self.name} answers {ready}")
        except BaseException:
            self.close()
            raise

    def answers_as_itself(self, response: httpx.Response) -> bool:
        """Whether ``response`` to the ready URL is this server's own (by
        default, any answer: a server on a socket the test made is)."""
        return True

    def close(self) -> None:
        """Stop the process, if it runs, and remove the folder."""
        if self._process is not None:
            stop(self._process)
            self._process = None
        self._folder.cleanup()

    @abstractmethod
    def launch(self) -> None:
        """Start the server: each server's own, which calls :meth:`start`."""

    def __enter__(self) -> Self:
        try:
            self.launch()
        except BaseException:
            self.close()  # (a start that fails before start() waits, too)
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class GunicornServer(ServerProcess):
    """A WSGI app under gunicorn (:func:`gunicorn`), on a socket this
    process made (``origin`` known at once): ``app`` (``module:name``),
    waited for until ``ready`` (a path) answers."""

    app = ""
    #: A folder to find ``app`` in, besides the installed packages.
    pythonpath: str | None = None
    ready = "/"
    threads = 8
    seconds = 60.0

    def __init__(self) -> None:
        super().__init__()
        self._listener = listening_socket()
        self.origin = f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def launch(self, **options: Any) -> None:
        fd = self._listener.fileno()
        try:
            self.start(
                gunicorn(fd, self.app, self.threads, self.pythonpath),
                f"{self.origin}{self.ready}",
                self.seconds,
                pass_fds=[fd],
                **options,
            )
        finally:
            self._listener.close()  # gunicorn holds it now
