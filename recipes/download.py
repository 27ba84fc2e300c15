"""File download: the name from Content-Disposition, streamed to a folder.

``content="blob"`` and the ``filename`` of ``Content-Disposition`` (quotes
optional, ``download`` when none).

``FileDownload`` gives ``{blob, filename}`` for small files;
``controller.download`` streams any size to disk in constant memory. To use
it: change ``base_url`` and the folder.
"""

from __future__ import annotations

import tempfile
from typing import Any

from restwire import Controller, RestEndpoint
from restwire.middlewares import FileDownload

from .tour import Tour

TITLE = "stream a file to a folder, named by Content-Disposition"


def get_file(base_url: str) -> RestEndpoint:
    return RestEndpoint(url_prefix=base_url, path="/files/:id/download", content="blob")


def run(base_url: str, tour: Tour) -> Any:
    with tour.client() as client, tempfile.TemporaryDirectory() as folder:
        controller = Controller(client)
        small = controller.fetch(get_file(base_url).use(FileDownload()), {"id": 7})
        tour.say(f"as a value: {small['blob']!r}, filename {small['filename']!r}")
        path = controller.download(
            get_file(base_url), {"id": 7}, to=folder, progress=tour.progress
        )
        size = path.stat().st_size
        assert path.read_bytes() == small["blob"].data
        return {
            "saved as": path.name,
            "bytes": size,
            "kept in the store": len(controller.store.results),
        }
