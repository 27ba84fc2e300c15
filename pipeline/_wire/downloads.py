"""Saving a streamed body to a folder, safely, under a name the server chose.

File names (``Content-Disposition``, RFC 6266 and RFC 8187):
``filename*`` (UTF-8 or ISO-8859-1, percent-encoded) wins over ``filename``;
a ``filename*`` that does not decode falls back to ``filename``; parameter
names are case-insensitive; quotes are optional and escaped quotes handled.
:func:`safe_filename` then makes the name safe to join to a folder before
anyone can use it as a path: only its last path segment (``/`` and ``\\``),
no control, bidi-override or NUL characters, no ``.`` or ``..``, Windows'
reserved characters replaced and reserved names (``CON``, ``LPT1``, ...)
prefixed, dots and white space trimmed from both ends, at most 255
bytes in UTF-8 with the extension kept. Nothing usable left gives the
fallback.

Saving (:class:`Download`):

- The name is made safe first: it cannot leave the folder, and the final
  path is checked to be inside it all the same.
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
import re
import tempfile
import unicodedata
from pathlib import Path
from typing import IO

from .._base.effects import Call, Flow, Progress, _Read
from .._base.errors import BodyTooLarge, DownloadError, InvalidRequest, TransportError
from .._base.library import REQUEST_ERRORS, Response
from .content import Decoded
from .header_params import decode_extended, parse_content_disposition

__all__ = ["Download", "Progress", "filename_from", "safe_filename"]

MAX_BYTES = 255
_WINDOWS_CHARS = re.compile(r'[<>:"|?*]')
_WINDOWS_NAMES = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{n}" for n in range(1, 10)]
    + [f"LPT{n}" for n in range(1, 10)]
    + ["COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³", "CONIN$", "CONOUT$"]
)
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2066\u2067\u2068\u2069\u061c\ufeff"
)


def filename_from(value: str | None, fallback: str = "download") -> str:
    """The safe file name a ``Content-Disposition`` value names, else ``fallback``."""
    _, params = parse_content_disposition(value)
    name = None
    if "filename*" in params:
        name = decode_extended(params["filename*"])
    if name is None:
        name = params.get("filename")
    return safe_filename(name or "", fallback)


def safe_filename(name: str, fallback: str = "download") -> str:
    """``name`` made safe to use as a file name in a folder (see module)."""
    name = re.split(r"[/\\]", name)[-1]
    name = "".join(
        char
        for char in name
        if char not in _INVISIBLE
        and unicodedata.category(char) not in ("Cc", "Cf", "Cs")
    )
    name = _trimmed(_WINDOWS_CHARS.sub("_", name))
    if not name:
        return fallback
    stem = name.split(".", 1)[0]
    if stem.upper() in _WINDOWS_NAMES:
        name = f"_{name}"
    return _trimmed(_fit(name)) or fallback


def _trimmed(name: str) -> str:
    """``name`` without white space (any, Unicode's included) or dots at
    either end, however they alternate: no hidden name, none that Windows
    would silently change."""
    while True:
        trimmed = name.strip().strip(".")
        if trimmed == name:
            return name
        name = trimmed


def _numbered(stem: str, number: int, dot: str, extension: str) -> str:
    """``stem (number).extension``, the stem cut so the whole fits in
    ``MAX_BYTES`` (a name at the limit still gets its number)."""
    suffix = f" ({number}){dot}{extension}"
    room = MAX_BYTES - len(suffix.encode("utf-8"))
    cut = stem.encode("utf-8")[: max(room, 1)].decode("utf-8", "ignore")
    return safe_filename(f"{_trimmed(cut)}{suffix}")


def _fit(name: str) -> str:
    encoded = name.encode("utf-8")
    if len(encoded) <= MAX_BYTES:
        return name
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem or len(extension.encode("utf-8")) > 32:
        stem, extension = name, ""
    tail = f".{extension}" if extension else ""
    room = MAX_BYTES - len(tail.encode("utf-8"))
    cut = stem.encode("utf-8")[:room].decode("utf-8", "ignore")
    return f"{_trimmed(cut)}{tail}"


class Download:
    """One download into ``directory`` for the call ``label``: a temporary
    file, then the final name. What the file system refuses on the way (the
    folder gone, a full disk) is a :class:`DownloadError`, and nothing is
    left behind."""

    def __init__(
        self, directory: str | os.PathLike[str], label: str = "download"
    ) -> None:
        self.directory = Path(directory)
        self.label = label
        if not self.directory.is_dir():
            raise InvalidRequest(
                f"{label}: download folder {str(self.directory)!r} is not a folder"
            )
        try:
            handle, name = tempfile.mkstemp(
                prefix=".restwire-", suffix=".part", dir=self.directory
            )
        except OSError as error:
            raise self._refused(error) from error
        self.temporary = Path(name)
        self.file: IO[bytes] = os.fdopen(handle, "wb")

    def _refused(self, error: OSError) -> DownloadError:
        return DownloadError(self.label, str(self.directory), error)

    def save(
        self,
        response: Response,
        progress: Progress | None,
        limit: int | None = None,
    ) -> Flow[None]:
        """The flow that streams ``response``'s body into the temporary file,
        refused with :class:`BodyTooLarge` as soon as the decoded bytes pass
        ``limit`` (``None``: no limit): a small compressed body cannot fill
        the disk."""
        if response.is_stream_consumed:  # built in memory by the transport
            self._write(response, response.content, limit, 0)
            if progress is not None:
                size = len(response.content)
                yield Call(progress, (size, size))
            return
        written = [0]

        def write(piece: bytes) -> None:
            written[0] = self._write(response, piece, limit, written[0])

        sink = Decoded(response, write, limit)
        try:
            yield _Read(response, sink, progress)
            sink.flush()
        except REQUEST_ERRORS as error:
            request = response.request
            raise TransportError(request.method, request.url, error) from error

    def _write(
        self, response: Response, piece: bytes, limit: int | None, done: int
    ) -> int:
        """Write ``piece`` after ``done`` bytes, unless that passes ``limit``."""
        done += len(piece)
        if limit is not None and done > limit:
            request = response.request
            raise BodyTooLarge(
                request.method,
                request.url,
                limit,
                option="max_size",
                advice="pass download(..., max_size=None) or a larger limit",
            )
        try:
            self.file.write(piece)
        except OSError as error:
            raise self._refused(error) from error
        return done

    def discard(self) -> None:
        """Remove the temporary file: the download did not complete. Closing
        may fail (a full disk fails the final flush again); the file goes all
        the same."""
        try:
            self.file.close()
        except OSError:
            pass
        finally:
            with contextlib.suppress(FileNotFoundError):
                self.temporary.unlink()

    def finish(self, name: str, overwrite: bool) -> Path:
        """Give the complete body its final name in the folder; return the
        path. Whatever fails on the way, no temporary file is left."""
        try:
            self.file.close()
            return self._name(safe_filename(name), overwrite)
        except DownloadError:
            self.discard()
            raise
        except OSError as error:
            self.discard()
            raise self._refused(error) from error
        except BaseException:
            self.discard()
            raise

    def _name(self, name: str, overwrite: bool) -> Path:
        stem, dot, extension = name.rpartition(".")
        if not stem:
            stem, dot, extension = name, "", ""
        for number in range(10_000):
            candidate = name if number == 0 else _numbered(stem, number, dot, extension)
            final = self._inside(candidate)
            if overwrite and not final.is_dir():
                # Replacing renames over the name itself: a symbolic link
                # there is replaced, never written through.
                os.replace(self.temporary, final)
                return final
            if not overwrite and self._claim(final):
                return final
        raise InvalidRequest(f"no free name for {name!r} in {str(self.directory)!r}")

    def _inside(self, name: str) -> Path:
        """``name`` in the folder: one plain path segment (as
        ``safe_filename`` makes it), so inside by construction. Never
        resolved: a link at that name may point anywhere."""
        if name in ("", ".", "..") or "/" in name or "\\" in name:
            raise InvalidRequest(
                f"refusing to write {name!r} outside {str(self.directory)!r}"
            )
        return self.directory / name

    def _claim(self, final: Path) -> bool:
        """Give the body the name ``final`` unless something (a file, a
        folder, a link, even a dangling one) has it already."""
        try:
            os.link(self.temporary, final)
        except FileExistsError:
            return False
        except OSError:
            # No hard links here (some file systems): create the name
            # exclusively (O_EXCL never follows a link), then move the body
            # over it.
            try:
                os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                return False
            os.replace(self.temporary, final)
            return True
        self.temporary.unlink()
        return True
