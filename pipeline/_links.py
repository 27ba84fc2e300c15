"""The ``Link`` header (RFC 8288), read properly.

httpx's ``Response.links`` reads ``rel`` case-sensitively, keys a link by
its whole ``rel`` text (``"next alternate"``), leaves relative targets
unresolved and ignores ``title*``.
This parser handles
several links, commas and semicolons inside quoted values and inside
``<...>``, several space-separated ``rel`` values, ``rel`` case-insensitive,
the first ``rel`` parameter of a link (later ones are ignored), ``title*``
(RFC 8187, preferred to ``title``), and resolves each target against the
URL of the response. It never raises: a malformed link is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import httpx

from ._header_params import decode_extended, read_params

__all__ = ["Link", "links_by_rel", "parse_link_header"]


@dataclass(frozen=True)
class Link:
    """One link: absolute ``url``, its ``rel`` values, ``title``, parameters."""

    url: str
    rel: tuple[str, ...] = ()
    title: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.url


def parse_link_header(
    value: str | None, base: httpx.URL | str | None = None
) -> list[Link]:
    """Every well-formed link in ``value``, targets resolved against ``base``."""
    if not value:
        return []
    base_url = httpx.URL(base) if base is not None else None
    links: list[Link] = []
    position, length = 0, len(value)
    while position < length:
        while position < length and value[position] in " \t,":
            position += 1
        if position >= length:
            break
        if value[position] != "<":
            position = _next_link(value, position)
            continue
        end = value.find(">", position + 1)
        if end < 0:
            break
        target = value[position + 1 : end].strip()
        params, position = read_params(value, end + 1, stop_at_comma=True)
        link = _link(target, params, base_url)
        if link is not None:
            links.append(link)
    return links


def _next_link(value: str, position: int) -> int:
    """Skip malformed text up to the next top-level comma."""
    quoted = False
    while position < len(value):
        char = value[position]
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            return position + 1
        position += 1
    return position


def _link(target: str, params: dict[str, str], base: httpx.URL | None) -> Link | None:
    try:
        url = base.join(target) if base is not None else httpx.URL(target)
    except httpx.InvalidURL:
        return None
    rel = tuple(dict.fromkeys(params.get("rel", "").lower().split()))
    title = params.get("title")
    if "title*" in params:
        title = decode_extended(params["title*"]) or title
    return Link(str(url), rel, title, params)


def links_by_rel(links: Iterable[Link]) -> dict[str, Link]:
    """The links by each of their ``rel`` values; for a repeated rel, the first."""
    by_rel: dict[str, Link] = {}
    for link in links:
        for rel in link.rel:
            by_rel.setdefault(rel, link)
    return by_rel
