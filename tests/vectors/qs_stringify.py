"""Query string vectors published by npm ``qs``, the reference for the bracket
styles (Express, Stripe's Node library and most JavaScript clients send
what ``qs.stringify`` writes).

Source: ljharb/qs ``README.md`` (section "Stringifying") and
``test/stringify.js`` at commit 3a890d4ecd3deb72a45d90be36f4f8c5970467c7
(version 6.15.3), https://github.com/ljharb/qs.

Each vector is ``(input, style, expected, shown)``: ``style`` is the
``param_style`` that corresponds to the ``qs`` options of the example
(``qs``'s default ``arrayFormat: 'indices'`` is ``"indexed"``); ``shown``
says how the source prints ``expected``:

- ``"encoded"``: as ``qs.stringify`` returns it, byte for byte;
- ``"decoded"``: the README prints its examples "as though the output is
  not URI encoded for clarity" (or with ``encode: false``), so restwire's
  output is compared percent-decoded;
- ``"values"``: ``encodeValuesOnly: true``, names left readable, so
  restwire's output is compared with its names decoded.

JavaScript's ``null`` and ``undefined`` are both Python's ``None``.
"""

from __future__ import annotations

from typing import Any, Literal

SOURCE = (
    "ljharb/qs@3a890d4ecd3deb72a45d90be36f4f8c5970467c7 (README.md, test/stringify.js)"
)

Shown = Literal["encoded", "decoded", "values"]

#: From README.md, "Stringifying", in the order printed there.
README: list[tuple[dict[str, Any], str, str, Shown]] = [
    ({"a": "b"}, "indexed", "a=b", "encoded"),
    ({"a": {"b": "c"}}, "indexed", "a%5Bb%5D=c", "encoded"),
    ({"a": {"b": "c"}}, "indexed", "a[b]=c", "decoded"),
    (
        {"a": "b", "c": ["d", "e=f"], "f": [["g"], ["h"]]},
        "indexed",
        "a=b&c[0]=d&c[1]=e%3Df&f[0][0]=g&f[1][0]=h",
        "values",
    ),
    ({"a": ["b", "c", "d"]}, "indexed", "a[0]=b&a[1]=c&a[2]=d", "decoded"),
    ({"a": ["b", "c", "d"]}, "repeat", "a=b&a=c&a=d", "decoded"),
    ({"a": ["b", "c"]}, "indexed", "a[0]=b&a[1]=c", "decoded"),
    ({"a": ["b", "c"]}, "brackets", "a[]=b&a[]=c", "decoded"),
    ({"a": ["b", "c"]}, "repeat", "a=b&a=c", "decoded"),
    ({"a": ["b", "c"]}, "comma", "a=b,c", "decoded"),
    ({"a": {"b": {"c": "d", "e": "f"}}}, "indexed", "a[b][c]=d&a[b][e]=f", "decoded"),
    ({"a": ""}, "indexed", "a=", "encoded"),
    ({"a": []}, "indexed", "", "encoded"),
    ({"a": {}}, "indexed", "", "encoded"),
    ({"a": [{}]}, "indexed", "", "encoded"),
    ({"a": {"b": []}}, "indexed", "", "encoded"),
    ({"a": {"b": {}}}, "indexed", "", "encoded"),
    ({"a": None, "b": None}, "indexed", "a=", "encoded"),
    ({"a": "b", "c": "d"}, "indexed", "a=b&c=d", "encoded"),
    # with sort: alphabeticalSort (restwire always sorts)
    ({"a": "c", "z": "y", "b": "f"}, "indexed", "a=c&b=f&z=y", "encoded"),
    ({"a": None, "b": ""}, "indexed", "a=&b=", "encoded"),
    # with skipNulls: true
    ({"a": "b", "c": None}, "indexed", "a=b", "encoded"),
    ({"a": "b c"}, "indexed", "a=b%20c", "encoded"),
]

#: From test/stringify.js, the bracket and comma cases (line numbers at
#: that commit).
TESTS: list[tuple[dict[str, Any], str, str, Shown]] = [
    (
        {"a": ["b", "c", "d"]},
        "brackets",
        "a%5B%5D=b&a%5B%5D=c&a%5B%5D=d",
        "encoded",
    ),  # 375
    ({"a": "c"}, "brackets", "a=c", "values"),  # 505
    ({"a": ["c"]}, "brackets", "a[]=c", "values"),  # 514
    ({"a": ["c"]}, "comma", "a=c", "values"),  # 515
    ({"a": ["c", "d"]}, "brackets", "a[]=c&a[]=d", "values"),  # 524
    ({"a": ["c", "d"]}, "comma", "a=c,d", "values"),  # 525
    ({"a": ["c,d", "e"]}, "comma", "a=c%2Cd,e", "values"),  # 533
    ({"a": {"b": ["c", "d"]}}, "brackets", "a[b][]=c&a[b][]=d", "values"),  # 547
    ({"a": {"b": ["c", "d"]}}, "comma", "a[b]=c,d", "values"),  # 548
    (
        {"a": [",", "", "c,d%"]},
        "brackets",
        "a[]=%2C&a[]=&a[]=c%2Cd%25",
        "values",
    ),  # 560
    (
        {"a": [",", "", "c,d%"]},
        "brackets",
        "a%5B%5D=%2C&a%5B%5D=&a%5B%5D=c%2Cd%25",
        "encoded",
    ),  # 565
    ({"a": [{"b": "c"}]}, "brackets", "a[][b]=c", "values"),  # 639
    ({"a": [{"b": "c"}]}, "indexed", "a[0][b]=c", "values"),  # 644
    ({"a": [{"b": {"c": [1]}}]}, "indexed", "a[0][b][c][0]=1", "values"),  # 650
    ({"a": [{"b": {"c": [1]}}]}, "brackets", "a[][b][c][]=1", "values"),  # 660
    ({"a": ["b", "c"]}, "brackets", "a%5B%5D=b&a%5B%5D=c", "encoded"),  # 779
    ({"a": [], "b": [None], "c": "c"}, "brackets", "b[]=&c=c", "decoded"),  # 806
    (
        {"a": {"b": [{"c": "d", "e": "f"}]}},
        "brackets",
        "a[b][][c]=d&a[b][][e]=f",
        "decoded",
    ),  # 1485
]

VECTORS = README + TESTS
