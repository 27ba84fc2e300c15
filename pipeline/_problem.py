"""Problem details (RFC 9457): what an ``application/problem+json`` error
body says, as a plain value.

:func:`problem_of` reads a response's body (already read, and so already
bounded by the endpoint's ``max_body_size``) into a :class:`Problem` when
its content type is ``application/problem+json`` and the body is a JSON
object; anything else is ``None``, never an exception. As RFC 9457
(section 3.1) says, a standard member of the wrong JSON type is ignored, as
if absent: a ``status`` of ``"404"`` leaves ``status`` ``None``. ``type``
is ``"about:blank"`` when absent (section 3.1.1). ``type`` and
``instance`` are kept as the server wrote them (relative references are
not resolved). Every other member is an extension, in ``extensions``.

Sits at the bottom, importing nothing of restwire: ``NetworkError`` reads
every error response with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ._library import Response

__all__ = ["PROBLEM_TYPE", "Problem", "problem_of"]

#: The media type of a problem details body in JSON.
PROBLEM_TYPE = "application/problem+json"

#: The members RFC 9457 defines, and the JSON type each must have.
_MEMBERS: dict[str, type] = {
    "type": str,
    "title": str,
    "status": int,
    "detail": str,
    "instance": str,
}


@dataclass(frozen=True, slots=True)
class Problem:
    """An RFC 9457 problem details object (see the module).

    ``extensions``: every member besides the five standard ones, as the
    server sent it.
    """

    type: str = "about:blank"
    title: str | None = None
    status: int | None = None
    detail: str | None = None
    instance: str | None = None
    extensions: dict[str, Any] = field(default_factory=dict)


def problem_of(response: Response) -> Problem | None:
    """The problem details of ``response`` (body read), or ``None`` when it
    has none: another content type, a body that is not a JSON object."""
    content_type = response.headers.get("content-type", "")
    media = content_type.partition(";")[0].strip().lower()
    if media != PROBLEM_TYPE:
        return None
    try:
        document = json.loads(response.content)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
        return None
    if not isinstance(document, dict):
        return None
    members: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    for name, value in document.items():
        kind = _MEMBERS.get(name)
        if kind is None:
            extensions[name] = value
        elif isinstance(value, kind) and not isinstance(value, bool):
            members[name] = value
    return Problem(**members, extensions=extensions)
