"""RateLimit field vectors from the IETF drafts' own examples.

Sources: ietf-wg-httpapi/ratelimit-headers, the working group's repository,
https://github.com/ietf-wg-httpapi/ratelimit-headers:

- draft-11 (the list-of-items form, ``"policy";r=<left>;t=<window>``),
  ``draft-ietf-httpapi-ratelimit-headers-11/draft-ietf-httpapi-ratelimit-headers.txt``
  at commit 1284b9c05071c198aa9b0be4c7e18a9b81b3393d, sections 3.2, 4.2, 6
  and 7;
- draft-07 (the dictionary form, ``limit=, remaining=, reset=``),
  ``draft-ietf-httpapi-ratelimit-headers-07/draft-ietf-httpapi-ratelimit-headers.txt``
  at commit 25a1a68699cde210dcd7214a10e33d79773a8c03, sections 3.5, 4, 5
  and 6.5.

Each vector is the response's fields, its status, and the wait the draft
says the client should keep to before its next request: the window when no
quota is left ("a client could decide to wait 10 seconds ... because the
available quota is 0"), ``None`` when quota is left (a client "SHOULD NOT
exceed the available quota", so it may go on) or the field is only the
informative ``RateLimit-Policy``. Where both ``RateLimit`` and
``Retry-After`` come, "the Retry-After field MUST take precedence".
"""

from __future__ import annotations

SOURCES = [
    "ietf-wg-httpapi/ratelimit-headers@1284b9c05071c198aa9b0be4c7e18a9b81b3393d (draft-11)",
    "ietf-wg-httpapi/ratelimit-headers@25a1a68699cde210dcd7214a10e33d79773a8c03 (draft-07)",
]

VECTORS: list[tuple[dict[str, str], int, float | None]] = [
    # draft-11, 4.2: quota left, so no wait
    ({"RateLimit": '"default";r=50;t=30'}, 200, None),
    ({"RateLimit": '"default";r=999;pk=:dHJpYWwxMjEzMjM=:'}, 200, None),
    ({"RateLimit": '"default";r=300000000;t=60;pk=:QXBwLTk5OQ==:'}, 200, None),
    # draft-11, 6: "a client could decide to wait 10 seconds"
    ({"RateLimit": '"problemPolicy";r=0;t=10', "Location": "/foo/123"}, 301, 10),
    # draft-11, 7: one unit left is not a wait
    ({"RateLimit": '"default";r=1;t=7'}, 200, None),
    # draft-11, 3.2: RateLimit-Policy is informative
    ({"RateLimit-Policy": '"default";q=100;w=10'}, 200, None),
    ({"RateLimit-Policy": '"permin";q=50;w=60,"perhr";q=1000;w=3600'}, 200, None),
    ({"RateLimit-Policy": '"burst";q=100;w=60,"daily";q=1000;w=86400'}, 200, None),
    # draft-11, 7: Retry-After takes precedence over the effective window
    ({"RateLimit": '"default";r=0;t=30', "Retry-After": "5"}, 429, 5),
    # draft-07, 3.5 and 5
    (
        {
            "RateLimit-Policy": "100;w=10",
            "RateLimit": "limit=100, remaining=50, reset=5",
        },
        200,
        None,
    ),
    ({"RateLimit": "limit=10, remaining=1, reset=7"}, 200, None),
    # draft-07, 4: "wait 10 seconds before following the Location"
    ({"RateLimit": "limit=10, remaining=0, reset=10", "Location": "/foo/123"}, 301, 10),
    # draft-07, 6.5
    ({"RateLimit": "limit=1, remaining=1, reset=36000"}, 200, None),
    (
        {
            "RateLimit": "limit=10000, remaining=10000, reset=10",
            "RateLimit-Policy": "10000;w=1000",
        },
        200,
        None,
    ),
    ({"RateLimit-Policy": "10;w=1, 50;w=60, 1000;w=3600, 5000;w=86400"}, 200, None),
]
