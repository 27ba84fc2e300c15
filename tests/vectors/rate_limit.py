"""RateLimit field vectors from the IETF drafts' own examples, and the
fields providers document (``PROVIDER_VECTORS``).

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

#: The providers' documentation the provider vectors come from (pages, not
#: repositories: each names what it shows).
PROVIDER_SOURCES = [
    "https://platform.openai.com/docs/guides/rate-limits (Rate limits in "
    "headers: x-ratelimit-remaining-requests 59, x-ratelimit-reset-requests "
    "1s, x-ratelimit-reset-tokens 6m0s; durations as Go writes them)",
    "https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api "
    "(x-ratelimit-remaining 56, x-ratelimit-reset 1372700873: epoch seconds)",
    "https://docs.anthropic.com/en/api/rate-limits (anthropic-ratelimit-"
    "<requests|tokens|input-tokens|output-tokens>-remaining and -reset, "
    "an RFC 3339 time)",
    "draft-ietf-httpapi-ratelimit-headers-11 (a RateLimit item whose quota "
    "is spent and that has no t: its RateLimit-Policy window w)",
]

#: The clock the provider vectors are read at (epoch seconds): 2013-07-01
#: 17:33:20 UTC, 873 s before GitHub's example reset.
NOW = 1_372_700_000.0

#: (fields, status, wait): each provider's example as documented, and the
#: same with its quota spent (remaining 0), which asks for the wait.
PROVIDER_VECTORS: list[tuple[dict[str, str], int, float | None]] = [
    # OpenAI: quota left: no wait
    (
        {
            "x-ratelimit-limit-requests": "60",
            "x-ratelimit-limit-tokens": "150000",
            "x-ratelimit-remaining-requests": "59",
            "x-ratelimit-remaining-tokens": "149984",
            "x-ratelimit-reset-requests": "1s",
            "x-ratelimit-reset-tokens": "6m0s",
        },
        200,
        None,
    ),
    # OpenAI, spent: the reset of the quota that is spent
    (
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s"},
        200,
        1.0,
    ),
    (
        {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"},
        200,
        360.0,
    ),
    (
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20ms"},
        200,
        0.02,
    ),
    (
        {
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "2.5s",
            "x-ratelimit-remaining-tokens": "0",
            "x-ratelimit-reset-tokens": "1h2m3s",
        },
        200,
        3723.0,
    ),
    (
        {"x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "9s"},
        200,
        None,
    ),
    # malformed durations: nothing readable
    (
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6 m"},
        200,
        None,
    ),
    (
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "s"},
        200,
        None,
    ),
    # GitHub: quota left, then spent (epoch seconds: the wait until then)
    (
        {
            "x-ratelimit-limit": "60",
            "x-ratelimit-remaining": "56",
            "x-ratelimit-used": "4",
            "x-ratelimit-reset": "1372700873",
        },
        200,
        None,
    ),
    (
        {
            "x-ratelimit-limit": "60",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-used": "60",
            "x-ratelimit-reset": "1372700873",
        },
        403,
        873.0,
    ),
    # Anthropic: spent, an RFC 3339 time 30 s away; without an offset: none
    (
        {
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2013-07-01T17:33:50Z",
        },
        200,
        30.0,
    ),
    (
        {
            "anthropic-ratelimit-output-tokens-remaining": "0",
            "anthropic-ratelimit-output-tokens-reset": "2013-07-01T17:34:20+00:00",
        },
        200,
        60.0,
    ),
    (
        {
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2013-07-01T17:33:50",
        },
        200,
        None,
    ),
    # IETF draft-11: spent with no t: the window of the policy it names
    (
        {
            "RateLimit-Policy": '"burst";q=100;w=60,"daily";q=1000;w=86400',
            "RateLimit": '"daily";r=0',
        },
        200,
        86400.0,
    ),
    (
        {"RateLimit-Policy": '"burst";q=100;w=60', "RateLimit": '"burst";r=0;t=12'},
        200,
        12.0,
    ),
    ({"RateLimit-Policy": '"burst";q=100;w=60', "RateLimit": '"other";r=0'}, 200, None),
    # a 429's Retry-After wins over every provider field
    (
        {
            "Retry-After": "7",
            "x-ratelimit-remaining-tokens": "0",
            "x-ratelimit-reset-tokens": "6m0s",
        },
        429,
        7.0,
    ),
]
