"""Content-Disposition vectors published by jshttp/content-disposition.

Source: https://github.com/jshttp/content-disposition, ``src/parse.spec.ts``
at commit 1a542fe19e982569c5fb0162b3a1997ad02da1fe (release 3.0.0), whose
"from TC 2231" cases are Julian Reschke's browser conformance tests
(http://greenbytes.de/tech/tc2231/) and whose extended-parameter cases follow
RFC 8187.

Each vector is the header and the ``filename`` that library decodes from it
(``filename*`` preferred), or ``None`` when it finds none. restwire returns
the name it would save a file under, so the expected result is
``safe_filename(that filename)``, or the fallback when there is none.
"""

from __future__ import annotations

SOURCE = "jshttp/content-disposition@1a542fe19e982569c5fb0162b3a1997ad02da1fe"

VECTORS: list[tuple[str, str | None]] = [
    # with only a type, and with parameters
    ('"attachment"', None),
    ("attachment;", None),
    ("attachment", None),
    ("inline", None),
    ("form-data", None),
    ("attachment \t ", None),
    ("ATTACHMENT", None),
    ('attachment; filename="rates.pdf";', "rates.pdf"),
    ('attachment; filename@="rates.pdf"', None),
    ("attachment; filename=", ""),
    ("attachment; filename=trolly,trains", "trolly,trains"),
    ("attachment; filename=total/; foo=bar", "total/"),
    ("attachment; filename=foo; filename=bar", "foo"),
    ('filename="plans.pdf"', None),
    ('; filename="plans.pdf"', "plans.pdf"),
    ('attachment; FILENAME="plans.pdf"', "plans.pdf"),
    ('attachment; filename="plans.pdf"', "plans.pdf"),
    ('attachment; filename="the \\"plans\\".pdf"', 'the "plans".pdf'),
    ('attachment; filename="plans.pdf"; foo=bar', "plans.pdf"),
    ('attachment;filename="plans.pdf" \t;    \t\t foo=bar', "plans.pdf"),
    ("attachment; filename=plans.pdf", "plans.pdf"),
    ('attachment; filename="£ rates.pdf"', "£ rates.pdf"),
    # extended parameters (RFC 8187)
    ("attachment; filename*=UTF-8''%E2%82%AC%20rates.pdf", "€ rates.pdf"),
    ("attachment; filename*=utf8''%E2%82%AC%20rates.pdf", "€ rates.pdf"),
    ("attachment; filename*=UTF-8''%E4%20rates.pdf", None),
    ("attachment; filename*=ISO-8859-1''%A3%20rates.pdf", "£ rates.pdf"),
    ("attachment; filename*=ISO-8859-1''%82%20rates.pdf", "\x82 rates.pdf"),
    ("attachment; filename*=ISO-8859-1''ABC.pdf", "ABC.pdf"),
    ("attachment; filename*=ISO-8859-1''%A3%2rates.pdf", None),
    (
        "attachment; filename=\"invoice.pdf\"; filename*=ISO-8859-1''report%2",
        "invoice.pdf",
    ),
    ("attachment; filename*=utf-8''%E2%82%AC%20rates.pdf", "€ rates.pdf"),
    ("attachment; filename*=ISO-8859-2''%A4%20rates.pdf", None),
    ("attachment; filename*=UTF-8'en'%E2%82%AC%20rates.pdf", "€ rates.pdf"),
    (
        "attachment; filename=\"EURO rates.pdf\"; filename*=UTF-8''%E2%82%AC%20rates.pdf",
        "€ rates.pdf",
    ),
    (
        "attachment; filename*=UTF-8''%E2%82%AC%20rates.pdf; filename=\"EURO rates.pdf\"",
        "€ rates.pdf",
    ),
    (
        "attachment; filename*=UTF-8''first.html; filename*=UTF-8''second.html",
        "first.html",
    ),
    (
        "attachment; filename*=UTF-8''%E4%20rates.pdf; filename*=UTF-8''second.html",
        None,
    ),
    (
        "attachment; filename=\"EURO rates.pdf\"; filename*=ISO-8859-2''%A4%20rates.pdf",
        "EURO rates.pdf",
    ),
    # TC 2231: Disposition-Type Inline
    ('inline; filename="foo.html"', "foo.html"),
    ('inline; filename="Not an attachment!"', "Not an attachment!"),
    ('inline; filename="foo.pdf"', "foo.pdf"),
    # TC 2231: Disposition-Type Attachment
    ('attachment; filename="foo.html"', "foo.html"),
    ('attachment; filename="0000000000111111111122222"', "0000000000111111111122222"),
    (
        'attachment; filename="00000000001111111111222222222233333"',
        "00000000001111111111222222222233333",
    ),
    ('attachment; filename="f\\oo.html"', "foo.html"),
    ('attachment; filename="\\"quoting\\" tested.html"', '"quoting" tested.html'),
    ('attachment; filename="Here\'s a semicolon;.html"', "Here's a semicolon;.html"),
    ('attachment; foo="bar"; filename="foo.html"', "foo.html"),
    ('attachment; foo="\\"\\\\";filename="foo.html"', "foo.html"),
    ('attachment; FILENAME="foo.html"', "foo.html"),
    ("attachment; filename=foo.html", "foo.html"),
    ("attachment; filename=foo,bar.html", "foo,bar.html"),
    ("attachment; filename=foo.html ;", "foo.html"),
    ("attachment; ;filename=foo", "foo"),
    ("attachment; filename=foo bar.html", "foo bar.html"),
    ("attachment; filename='foo.bar'", "'foo.bar'"),
    ('attachment; filename="foo-ä.html"', "foo-ä.html"),
    ('attachment; filename="foo-Ã¤.html"', "foo-Ã¤.html"),
    ('attachment; filename="foo-%41.html"', "foo-%41.html"),
    ('attachment; filename="50%.html"', "50%.html"),
    ('attachment; filename="foo-%\\41.html"', "foo-%41.html"),
    ('attachment; name="foo-%41.html"', None),
    ('attachment; filename="ä-%41.html"', "ä-%41.html"),
    ('attachment; filename="foo-%c3%a4-%e2%82%ac.html"', "foo-%c3%a4-%e2%82%ac.html"),
    ('attachment; filename ="foo.html"', "foo.html"),
    ('attachment; filename="foo.html"; filename="bar.html"', "foo.html"),
    ("attachment; filename=foo[1](2).html", "foo[1](2).html"),
    ("attachment; filename=foo-ä.html", "foo-ä.html"),
    ("attachment; filename=foo-Ã¤.html", "foo-Ã¤.html"),
    ("filename=foo.html", None),
    ("x=y; filename=foo.html", "foo.html"),
    ('"foo; filename=bar;baz"; filename=qux', "bar"),
    ("filename=foo.html, filename=bar.html", None),
    ("; filename=foo.html", "foo.html"),
    (": inline; attachment; filename=foo.html", "foo.html"),
    ("inline; attachment; filename=foo.html", "foo.html"),
    ("attachment; inline; filename=foo.html", "foo.html"),
    ('attachment; filename="foo.html".txt', "foo.html"),
    ('attachment; filename="bar', None),
    ('attachment; filename=foo"bar;baz"qux', 'foo"bar'),
    (
        "attachment; filename=foo.html, attachment; filename=bar.html",
        "foo.html, attachment",
    ),
    ("attachment; foo=foo filename=bar", None),
    ("attachment; filename=bar foo=foo", "bar foo=foo"),
    ("attachment filename=bar", None),
    ("filename=foo.html; attachment", None),
    ("attachment; xfilename=foo.html", None),
    ('attachment; filename="/foo.html"', "/foo.html"),
    ('attachment; filename="\\\\foo.html"', "\\foo.html"),
    # TC 2231: Additional Parameters, Disposition-Type Extension
    ('attachment; creation-date="Wed, 12 Feb 1997 16:29:51 -0500"', None),
    ('attachment; modification-date="Wed, 12 Feb 1997 16:29:51 -0500"', None),
    ("foobar", None),
    ('attachment; example="filename=example.txt"', None),
    # TC 2231: RFC 8187 Encoding, Character Sets
    ("attachment; filename*=iso-8859-1''foo-%E4.html", "foo-ä.html"),
    ("attachment; filename*=UTF-8''foo-%c3%a4-%e2%82%ac.html", "foo-ä-€.html"),
    ("attachment; filename*=''foo-%c3%a4-%e2%82%ac.html", None),
    ("attachment; filename*=UTF-8''foo-a%cc%88.html", "foo-a\u0308.html"),
    (
        "attachment; filename*=iso-8859-1''foo-%c3%a4-%e2%82%ac.html",
        "foo-Ã¤-â\x82¬.html",
    ),
    ("attachment; filename *=UTF-8''foo-%c3%a4.html", None),
    ("attachment; filename*= UTF-8''foo-%c3%a4.html", "foo-ä.html"),
    ("attachment; filename* =UTF-8''foo-%c3%a4.html", "foo-ä.html"),
    ("attachment; filename*=\"UTF-8''foo-%c3%a4.html\"", None),
    ('attachment; filename*="foo%20bar.html"', None),
    ("attachment; filename*=UTF-8'foo-%c3%a4.html", None),
    ("attachment; filename*=UTF-8''foo%", None),
    ("attachment; filename*=UTF-8''f%oo.html", None),
    ("attachment; filename*=UTF-8''A-%2541.html", "A-%41.html"),
    ("attachment; filename*=UTF-8''%5cfoo.html", "\\foo.html"),
    # TC 2231: RFC 2231 continuations (not decoded: no filename)
    ('attachment; filename*0="foo."; filename*1="html"', None),
    ('attachment; filename*0="foo"; filename*1="\\b\\a\\r.html"', None),
    ("attachment; filename*0*=UTF-8''foo-%c3%a4; filename*1=\".html\"", None),
    ('attachment; filename*0="foo"; filename*01="bar"', None),
    ('attachment; filename*0="foo"; filename*2="bar"', None),
    ('attachment; filename*1="foo."; filename*2="html"', None),
    ('attachment; filename*1="bar"; filename*0="foo"', None),
    # TC 2231: RFC 2231 fallback behaviour
    (
        "attachment; filename=\"foo-ae.html\"; filename*=UTF-8''foo-%c3%a4.html",
        "foo-ä.html",
    ),
    (
        "attachment; filename*=UTF-8''foo-%c3%a4.html; filename=\"foo-ae.html\"",
        "foo-ä.html",
    ),
    (
        "attachment; filename*0*=ISO-8859-15''euro-sign%3d%a4; "
        "filename*=ISO-8859-1''currency-sign%3d%a4",
        "currency-sign=¤",
    ),
    ('attachment; foobar=x; filename="foo.html"', "foo.html"),
    # TC 2231: RFC 2047 encoding (not decoded in HTTP)
    (
        "attachment; filename==?ISO-8859-1?Q?foo-=E4.html?=",
        "=?ISO-8859-1?Q?foo-=E4.html?=",
    ),
    (
        'attachment; filename="=?ISO-8859-1?Q?foo-=E4.html?="',
        "=?ISO-8859-1?Q?foo-=E4.html?=",
    ),
]
