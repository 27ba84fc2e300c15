"""Link header (RFC 8288) vectors published by others.

Sources:

- RFC 8288, section 3.5 "Link Header Field Examples" (its five examples),
  https://www.rfc-editor.org/rfc/rfc8288#section-3.5;
- jhermsmeier/node-http-link-header, ``test/rfc-examples.js``,
  ``test/index.js``, ``test/quotes.js``, ``test/encoding.js`` and
  ``test/in-the-wild.js`` at commit 9b2c060cd1d0f79c1e9ea9f1a73fb5d28411f88e
  (release 1.1.3), https://github.com/jhermsmeier/node-http-link-header.

Each vector is a header and the links it holds, in order: the target as
written (no base to resolve against), its relation types, and its title
(``title*`` decoded and preferred). That library lists one entry per
relation type; here they are grouped back by link, relation types lower
case (RFC 8288 compares them case-insensitively; restwire stores them so).
"""

from __future__ import annotations

SOURCES = (
    "RFC 8288 section 3.5",
    "jhermsmeier/node-http-link-header@9b2c060cd1d0f79c1e9ea9f1a73fb5d28411f88e",
)

Expected = list[tuple[str, tuple[str, ...], str | None]]

VECTORS: list[tuple[str, Expected]] = [
    # RFC 8288, section 3.5 (headers folded over lines, as the RFC prints them)
    (
        '<http://example.com/TheBook/chapter2>; rel="previous";\n'
        '         title="previous chapter"',
        [("http://example.com/TheBook/chapter2", ("previous",), "previous chapter")],
    ),
    ('</>; rel="http://example.net/foo"', [("/", ("http://example.net/foo",), None)]),
    ('</terms>; rel="copyright"; anchor="#foo"', [("/terms", ("copyright",), None)]),
    (
        "</TheBook/chapter2>;\n"
        "         rel=\"previous\"; title*=UTF-8'de'letztes%20Kapitel,\n"
        "         </TheBook/chapter4>;\n"
        "         rel=\"next\"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel",
        [
            ("/TheBook/chapter2", ("previous",), "letztes Kapitel"),
            ("/TheBook/chapter4", ("next",), "nächstes Kapitel"),
        ],
    ),
    (
        '<http://example.org/>;\n         rel="start http://example.net/relation/other"',
        [("http://example.org/", ("start", "http://example.net/relation/other"), None)],
    ),
    (
        '<https://example.org/>; rel="start",\n         <https://example.org/index>; rel="index"',
        [
            ("https://example.org/", ("start",), None),
            ("https://example.org/index", ("index",), None),
        ],
    ),
    # node-http-link-header: test/index.js
    ("<example.com>", [("example.com", (), None)]),
    ("<example.com>; rel=example", [("example.com", ("example",), None)]),
    ("<example.com>; rel=", [("example.com", (), None)]),
    ("<example.com>; nopush", [("example.com", (), None)]),
    ('<example.com>; rel="example"', [("example.com", ("example",), None)]),
    (
        '<example.com>; rel="example", <example-01.com>; rel="alternate"',
        [("example.com", ("example",), None), ("example-01.com", ("alternate",), None)],
    ),
    (
        '<example.com>; rel="example", <example-01.com>; rel=alternate',
        [("example.com", ("example",), None), ("example-01.com", ("alternate",), None)],
    ),
    (
        '<example.com>; rel="example"; rel="invalid"',
        [("example.com", ("example",), None)],
    ),
    (
        '<example.com>; rel="example"; title="Something of \\"importance\\""',
        [("example.com", ("example",), 'Something of "importance"')],
    ),
    (
        "<example.com>; rel= example; title = Something",
        [("example.com", ("example",), "Something")],
    ),
    (
        '<https://api.github.com/user/repos?page=3&per_page=100>; rel="next", '
        '<https://api.github.com/user/repos?page=50&per_page=100>; rel="last"',
        [
            ("https://api.github.com/user/repos?page=3&per_page=100", ("next",), None),
            ("https://api.github.com/user/repos?page=50&per_page=100", ("last",), None),
        ],
    ),
    (
        '</foo>; rel=alternate; type="application/hal+json"',
        [("/foo", ("alternate",), None)],
    ),
    (
        '</example>; rel=alternate; hreflang=en-US; hreflang=de; type="text/html"; '
        'media=screen; media="should be ignored"',
        [("/example", ("alternate",), None)],
    ),
    (
        '<https://some.url>; rel="http://some.rel/caseSensitive"',
        [("https://some.url", ("http://some.rel/casesensitive",), None)],
    ),
    # node-http-link-header: test/quotes.js
    (
        '<http://example.com/quotes/semicolons>; rel="previous"; title="previous; chapter"',
        [("http://example.com/quotes/semicolons", ("previous",), "previous; chapter")],
    ),
    (
        '<http://example.com/quotes/semicolons>; rel="previous"; title="previous, chapter"',
        [("http://example.com/quotes/semicolons", ("previous",), "previous, chapter")],
    ),
    (
        '<example.com>; rel="example,comma", <example-01.com>; rel="alternate;semicolon"',
        [
            ("example.com", ("example,comma",), None),
            ("example-01.com", ("alternate;semicolon",), None),
        ],
    ),
    (
        '<example.com>; rel="example;semicolon", <example-01.com>; rel="alternate,comma"',
        [
            ("example.com", ("example;semicolon",), None),
            ("example-01.com", ("alternate,comma",), None),
        ],
    ),
    (
        '<example.com>; rel="example; start"',
        [("example.com", ("example;", "start"), None)],
    ),
    # node-http-link-header: test/encoding.js
    (
        "</risk-mitigation>; rel=\"start\"; title*=UTF-8'en'"
        "%E2%91%A0%E2%93%AB%E2%85%93%E3%8F%A8%E2%99%B3%F0%9D%84%9E%CE%BB",
        [("/risk-mitigation", ("start",), "①⓫⅓㏨♳𝄞λ")],
    ),
    (
        "</risk-mitigation>; rel=\"start\"; title*=GB2312'cn'%C6%F3%20%D2%B5%20%B2%C3"
        "%20%D4%B1%20%B7%E7%20%CF%D5%20%B9%E6%20%B1%DC%30%34%3A%33%37%3A%32%31",
        [("/risk-mitigation", ("start",), None)],  # a charset it does not decode
    ),
    (
        "</risk-mitigation>; rel=\"start\"; title*=UTF-8''"
        "%E2%91%A0%E2%93%AB%E2%85%93%E3%8F%A8%E2%99%B3%F0%9D%84%9E%CE%BB",
        [("/risk-mitigation", ("start",), "①⓫⅓㏨♳𝄞λ")],
    ),
    # node-http-link-header: test/in-the-wild.js
    (
        '<https://acme-staging.api.letsencrypt.org/acme/new-authz>;rel="next", '
        "<https://letsencrypt.org/documents/LE-SA-v1.1.1-August-1-2016.pdf>;"
        'rel="terms-of-service"',
        [
            (
                "https://acme-staging.api.letsencrypt.org/acme/new-authz",
                ("next",),
                None,
            ),
            (
                "https://letsencrypt.org/documents/LE-SA-v1.1.1-August-1-2016.pdf",
                ("terms-of-service",),
                None,
            ),
        ],
    ),
]
