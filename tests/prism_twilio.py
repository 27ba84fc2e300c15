"""What Prism is given of Twilio's description (``test_prism_twilio.py``),
beside the steps of ``tests.prism`` that every provider's goes through.

:func:`twilio_shapes`: Twilio's description gives its dates
as ``format: date-time-rfc-2822`` and its page URIs as ``format: uri``;
Prism's generator knows neither form (it makes up words for the dates)
and Twilio answers a page URI with a path and query, no origin (a URI
reference, which its validator then refuses as a ``uri``). Those
response fields get a pattern of what Twilio sends.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tests.prism import _operations

__all__ = ["RFC_2822", "TWILIO_PAGE_URI", "twilio_shapes"]


#: An RFC 2822 date as Twilio writes them (``Thu, 24 Aug 2023 05:01:45 +0000``).
RFC_2822 = (
    r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (0[1-9]|1[0-9]|2[0-8]) "
    r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) 20[0-9]{2} "
    r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9] \+0000$"
)
#: A page of Twilio's Messages as its list answers name one: path and query.
TWILIO_PAGE_URI = (
    r"^/2010-04-01/Accounts/AC[0-9a-f]{32}/Messages\.json\?PageSize=[1-9]"
    r"&Page=[1-9]&PageToken=PASM[0-9a-f]{32}$"
)


def twilio_shapes(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` with each response schema's RFC 2822 date given
    :data:`RFC_2822` as its pattern, and each page URI of a list answer
    (``*_page_uri``, ``uri``: ``format: uri``) made a URI reference of
    :data:`TWILIO_PAGE_URI` (a copy; the request side is not touched)."""
    derived = copy.deepcopy(dict(spec))

    def shape(node: Any) -> None:
        if isinstance(node, list):
            for each in node:
                shape(each)
            return
        if not isinstance(node, dict):
            return
        if node.get("format") == "date-time-rfc-2822":
            node["pattern"] = RFC_2822
        for name, field in node.get("properties", {}).items():
            if (
                isinstance(field, dict)
                and field.get("format") == "uri"
                and (name.endswith("_page_uri") or name == "uri")
            ):
                field["format"] = "uri-reference"
                field["pattern"] = TWILIO_PAGE_URI
        for value in node.values():
            shape(value)

    for entry in derived.get("components", {}).get("schemas", {}).values():
        shape(entry)
    for path, methods in _operations(derived).items():
        for method in methods:
            shape(derived["paths"][path][method].get("responses", {}))
    return derived
