"""Saving a streamed body to a folder, safely.

- The name is made safe first (``safe_filename``): it cannot leave the
  folder, and the final path is checked to be inside it all the same.
- The body goes to a hidden temporary file in the same folder, in constant
  memory; only a complete body is given its final name. An interrupted
  download leaves no file under the final name (and no temporary file).
- An existing file is never replaced unless ``overwrite``: the name gets a
  number instead (``report (1).pdf``), and claiming a name cannot race
  another writer.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

import httpx

from ._disposition import safe_filename
from ._effects import Drain, Flow
from ._errors import InvalidRequest, TransportError

__all__ = ["Download"]

Progress = Callable[[int, int | None], object]


class Download:
    """One download into ``directory``: a temporary file, then the final name."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise InvalidRequest(
                f"download folder {str(self.directory)!r} is not a folder"
            )
        handle, name = tempfile.mkstemp(
            prefix=".restwire-", suffix=".part", dir=self.directory
        )
        self.temporary = Path(name)
        self.file: IO[bytes] = os.fdopen(handle, "wb")

    def save(self, response: httpx.Response, progress: Progress | None) -> Flow[None]:
        """The flow that streams ``response``'s body into the temporary file."""
        try:
            yield Drain(response, self.file.write, progress)
        except httpx.RequestError as error:
            request = response.request
            raise TransportError(request.method, request.url, error) from error

    def discard(self) -> None:
        """Remove the temporary file: the download did not complete."""
        self.file.close()
        with contextlib.suppress(FileNotFoundError):
            self.temporary.unlink()

    def finish(self, name: str, overwrite: bool) -> Path:
        """Give the complete body its final name in the folder; return the path."""
        self.file.close()
        name = safe_filename(name)
        if overwrite:
            final = self._inside(name)
            os.replace(self.temporary, final)
            return final
        stem, dot, extension = name.rpartition(".")
        if not stem:
            stem, dot, extension = name, "", ""
        for number in range(10_000):
            candidate = (
                name
                if number == 0
                else safe_filename(f"{stem} ({number}){dot}{extension}")
            )
            final = self._inside(candidate)
            if self._claim(final):
                return final
        self.discard()
        raise InvalidRequest(f"no free name for {name!r} in {str(self.directory)!r}")

    def _inside(self, name: str) -> Path:
        final = self.directory / name
        if final.resolve().parent != self.directory.resolve():
            raise InvalidRequest(
                f"refusing to write {name!r} outside {str(self.directory)!r}"
            )
        return final

    def _claim(self, final: Path) -> bool:
        try:
            os.link(self.temporary, final)
        except FileExistsError:
            return False
        except OSError:
            # No hard links here (some file systems): create the name
            # exclusively, then move the body over it.
            try:
                os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                return False
            os.replace(self.temporary, final)
            return True
        self.temporary.unlink()
        return True
