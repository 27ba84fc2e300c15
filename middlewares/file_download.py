"""``FileDownload``: a file as a value, with the name its server gives it.

With ``content="blob"`` the value becomes ``{"blob": <Blob>, "filename":
<name>}``, and with ``"bytes"`` ``{"bytes": <bytes>,
"filename": <name>}``, the name read from
``Content-Disposition`` (``filename*`` first, quotes optional) and made safe
to use as a file name (``restwire.filename_from``), ``fallback`` when none is
found. Binary content is never kept in the store, so the bytes are not
retained. An endpoint of any other
content is refused when it is made (nothing to name). For large files,
stream them to disk with ``controller.download`` instead.
"""

from __future__ import annotations

from restwire import Exchange, RestEndpoint, SettingError, UsageError, filename_from

from ._checks import check_text

__all__ = ["FileDownload"]


class FileDownload:
    """Pairs a binary value with its safe file name."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    def __init__(self, fallback: str = "download") -> None:
        check_text("FileDownload", "fallback", fallback)
        if not fallback:
            raise SettingError("FileDownload(fallback=''): a file name, not ''")
        self.fallback = fallback

    def check_endpoint(self, endpoint: RestEndpoint) -> None:
        content = endpoint.content
        if not content.binary or content.streamed:
            raise UsageError(
                f"{endpoint.label}: FileDownload needs content='blob' or 'bytes', "
                f"not {content.name!r} (stream large files with controller.download)"
            )

    def on_response(self, exchange: Exchange) -> None:
        assert exchange.response is not None
        header = exchange.response.headers.get("content-disposition")
        exchange.value = {
            exchange.endpoint.content.name: exchange.value,
            "filename": filename_from(header, self.fallback),
        }

    def __repr__(self) -> str:
        return f"FileDownload(fallback={self.fallback!r})"
