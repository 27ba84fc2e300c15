"""``FileDownload``: the seed's file download rules (section 4).

With ``content="blob"`` (or ``"bytes"``) the value becomes
``{"blob": <Blob or bytes>, "filename": <name>}``, the name read from
``Content-Disposition`` (``filename*`` first, quotes optional) and made safe
to use as a file name (``restwire.filename_from``), ``fallback`` when none is
found. Binary content is never kept in the store, so the bytes are not
retained (the seed's ``dataExpiryLength: 0``). For large files, stream them
to disk with ``controller.download`` instead.
"""

from __future__ import annotations

from restwire import Exchange, filename_from

__all__ = ["FileDownload"]


class FileDownload:
    """Pairs a binary value with its safe file name."""

    #: Never changes the credentials a call sends (see ``restwire.Stack``).
    sends_credentials = False

    def __init__(self, fallback: str = "download") -> None:
        self.fallback = fallback

    def on_response(self, exchange: Exchange) -> None:
        content = exchange.endpoint.content
        if not content.binary or content.streamed:
            return
        assert exchange.response is not None
        header = exchange.response.headers.get("content-disposition")
        exchange.value = {
            "blob": exchange.value,
            "filename": filename_from(header, self.fallback),
        }

    def __repr__(self) -> str:
        return f"FileDownload(fallback={self.fallback!r})"
