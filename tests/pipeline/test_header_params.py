"""Header parameters: the Link parser (vectors from RFC 8288 and real APIs) and
Content-Disposition (RFC 6266 / RFC 8187 vectors and hostile file names, all
made safe to join to a folder)."""

from __future__ import annotations

import pytest

from restwire import (
    filename_from,
    links_by_rel,
    parse_content_disposition,
    parse_link_header,
    safe_filename,
)

GITHUB = "https://api.github.com/repositories/1300192/issues"
BASE = "http://example.com/TheBook/chapter3"

# (header, base, {rel: url}, {rel: title})
LINK_VECTORS: list[tuple[str, str | None, dict[str, str], dict[str, str]]] = [
    (  # GitHub, first page
        f'<{GITHUB}?page=2>; rel="next", <{GITHUB}?page=515>; rel="last"',
        None,
        {"next": f"{GITHUB}?page=2", "last": f"{GITHUB}?page=515"},
        {},
    ),
    (  # GitHub, a middle page
        f'<{GITHUB}?page=1>; rel="prev", <{GITHUB}?page=3>; rel="next", '
        f'<{GITHUB}?page=515>; rel="last", <{GITHUB}?page=1>; rel="first"',
        None,
        {
            "prev": f"{GITHUB}?page=1",
            "next": f"{GITHUB}?page=3",
            "last": f"{GITHUB}?page=515",
            "first": f"{GITHUB}?page=1",
        },
        {},
    ),
    (  # GitLab, query with &
        '<https://gitlab.example.com/api/v4/projects?page=2&per_page=20>; rel="next"',
        None,
        {"next": "https://gitlab.example.com/api/v4/projects?page=2&per_page=20"},
        {},
    ),
    (  # RFC 8288 section 3.5, first example
        '<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter"',
        None,
        {"previous": "http://example.com/TheBook/chapter2"},
        {"previous": "previous chapter"},
    ),
    (  # RFC 8288: a relative target, resolved against the response URL
        '</>; rel="http://example.net/foo"',
        BASE,
        {"http://example.net/foo": "http://example.com/"},
        {},
    ),
    (  # RFC 8288: title* in UTF-8 with a language
        "</TheBook/chapter2>; rel=\"previous\"; title*=UTF-8'de'letztes%20Kapitel, "
        "</TheBook/chapter4>; rel=\"next\"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel",
        BASE,
        {
            "previous": "http://example.com/TheBook/chapter2",
            "next": "http://example.com/TheBook/chapter4",
        },
        {"previous": "letztes Kapitel", "next": "nächstes Kapitel"},
    ),
    (  # RFC 8288: several rel values in one link
        '<http://example.org/>; rel="start http://example.net/relation/other"',
        None,
        {
            "start": "http://example.org/",
            "http://example.net/relation/other": "http://example.org/",
        },
        {},
    ),
    (
        '<https://x.example/?a=1,2>; rel="next"',
        None,
        {"next": "https://x.example/?a=1,2"},
        {},
    ),
    ("<https://x.example/a;b>; rel=next", None, {"next": "https://x.example/a;b"}, {}),
    (
        '<https://x.example/n>; rel=next; title="one, two; three"',
        None,
        {"next": "https://x.example/n"},
        {"next": "one, two; three"},
    ),
    ('<https://x.example/n>; REL="NEXT"', None, {"next": "https://x.example/n"}, {}),
    (  # a second rel parameter on one link is ignored
        "<https://x.example/n>; rel=next; rel=prev",
        None,
        {"next": "https://x.example/n"},
        {},
    ),
    (  # the first link with a rel wins
        "<https://x.example/1>; rel=next, <https://x.example/2>; rel=next",
        None,
        {"next": "https://x.example/1"},
        {},
    ),
    (  # malformed text before a good link is skipped
        'garbage; rel="x", <https://x.example/n>; rel=next',
        None,
        {"next": "https://x.example/n"},
        {},
    ),
    (
        '  <a>  ;  rel = "next"  ,<b>;rel=prev',
        "https://x.example/p/",
        {"next": "https://x.example/p/a", "prev": "https://x.example/p/b"},
        {},
    ),
    (
        "<https://x.example/n>; rel=next; title*=iso-8859-1'en'%A3%20rates",
        None,
        {"next": "https://x.example/n"},
        {"next": "£ rates"},
    ),
    (  # title* that does not decode falls back to title
        "<https://x.example/n>; rel=next; title=\"plain\"; title*=klingon''x",
        None,
        {"next": "https://x.example/n"},
        {"next": "plain"},
    ),
    (
        '<https://x.example/n>; rel=next; title="say \\"hi\\""',
        None,
        {"next": "https://x.example/n"},
        {"next": 'say "hi"'},
    ),
    ("<https://x.example/a; rel=next", None, {}, {}),
    ("<https://x.example/n>; ,; rel=next", None, {}, {}),
    ("", None, {}, {}),
    ("<https://x.example/n>", None, {}, {}),
]


@pytest.mark.parametrize(("header", "base", "urls", "titles"), LINK_VECTORS)
def test_link_vectors(
    header: str, base: str | None, urls: dict[str, str], titles: dict[str, str]
) -> None:
    by_rel = links_by_rel(parse_link_header(header, base))
    assert {rel: link.url for rel, link in by_rel.items()} == urls
    assert {rel: link.title for rel, link in by_rel.items() if link.title} == titles


def test_there_are_at_least_fifteen_link_vectors() -> None:
    assert len(LINK_VECTORS) >= 15


def test_a_link_reads_as_its_url() -> None:
    (link,) = parse_link_header('<https://x.example/n>; rel="next"; type="text/html"')
    assert str(link) == "https://x.example/n"
    assert link.params == {"rel": "next", "type": "text/html"}
    assert link.rel == ("next",)


def test_what_httpx_leaves_undone_restwire_does() -> None:
    import httpx

    header = '</page/2>; REL="Next Alternate"'
    response = httpx.Response(
        200,
        headers={"link": header},
        request=httpx.Request("GET", "https://x.example/list"),
    )
    # httpx: an upper-case REL is not a rel, and the target stays relative
    assert response.links == {"/page/2": {"url": "/page/2", "REL": "Next Alternate"}}
    by_rel = links_by_rel(parse_link_header(header, "https://x.example/list"))
    assert by_rel["next"].url == by_rel["alternate"].url == "https://x.example/page/2"


DISPOSITION_VECTORS: list[tuple[str | None, str]] = [
    # RFC 6266 and its test cases
    ('attachment; filename="foo.html"', "foo.html"),
    ("attachment; filename=foo.html", "foo.html"),
    ('inline; filename="foo.html"', "foo.html"),
    ("attachment", "download"),
    (None, "download"),
    ('attachment; foo="bar"; filename="foo.html"', "foo.html"),
    ('attachment; FILENAME="foo.html"', "foo.html"),
    ('ATTACHMENT; filename="foo.html"', "foo.html"),
    ('attachment; filename="Here\'s a semicolon;.html"', "Here's a semicolon;.html"),
    ('attachment; filename="\\"quoting\\" tested.html"', "_quoting_ tested.html"),
    ('attachment; filename="foo-%41.html"', "foo-%41.html"),
    ("attachment; filename=foo.html; filename=bar.html", "foo.html"),
    # RFC 8187 extended values: filename* wins
    ("attachment; filename*=UTF-8''foo-%c3%a4.html", "foo-ä.html"),
    ("attachment; filename*=iso-8859-1'en'%A3%20rates", "£ rates"),
    (
        "attachment; filename=\"EURO rates\"; filename*=utf-8''%e2%82%ac%20rates",
        "€ rates",
    ),
    (
        "attachment; filename*=utf-8''%e2%82%ac%20rates; filename=\"EURO rates\"",
        "€ rates",
    ),
    ("attachment; Filename*=UTF-8''n%C3%A4me.txt", "näme.txt"),
    # a filename* that does not decode falls back to filename
    (
        "attachment; filename*=UTF-8''%FF%FE.txt; filename=\"fallback.txt\"",
        "fallback.txt",
    ),
    ("attachment; filename*=klingon''x.txt; filename=\"known.txt\"", "known.txt"),
    ('attachment; filename*=no-quotes.txt; filename="known.txt"', "known.txt"),
    # hostile names
    ('attachment; filename="/etc/passwd"', "passwd"),
    ('attachment; filename="..\\\\..\\\\windows\\\\system32\\\\cmd.exe"', "cmd.exe"),
    ("attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd", "passwd"),
    ('attachment; filename=".."', "download"),
    ('attachment; filename="."', "download"),
    ('attachment; filename=".bashrc"', "bashrc"),
    ('attachment; filename="CON"', "_CON"),
    ('attachment; filename="lpt1.txt"', "_lpt1.txt"),
    ("attachment; filename*=UTF-8''foo%00bar.txt", "foobar.txt"),
    ("attachment; filename*=UTF-8''evil%E2%80%AEtxt.exe", "eviltxt.exe"),
    ("attachment; filename*=UTF-8''line%0Abreak.txt", "linebreak.txt"),
    ('attachment; filename="trailing. . "', "trailing"),
    ('attachment; filename="a:b*c?.txt"', "a_b_c_.txt"),
    ('attachment; filename="<script>.html"', "_script_.html"),
    ("attachment; filename=", "download"),
    ('attachment; filename="unterminated.txt', "unterminated.txt"),
    ('attachment; filename="   "', "download"),
    # found by the fuzz run: a comma where a parameter should start looped for ever
    ("attachment; ,x", "download"),
    ('attachment; ,filename="a.txt"', "download"),
    ('attachment; filename="a.txt", b', "a.txt"),
    ('inline; junk, ;filename="b.txt"', "b.txt"),
    # found by the fuzz run: white space other than ASCII, dots and spaces
    # alternating, and a long stem cut back to a space, each trimmed away
    ('attachment; filename="0\u3000."', "0"),
    ('attachment; filename=". . .report. . ."', "report"),
    ('attachment; filename="\u3000.hidden"', "hidden"),
    ("attachment; filename=" + "a" * 250 + " " * 20 + "x.pdf", "a" * 250 + ".pdf"),
]


@pytest.mark.parametrize(("header", "name"), DISPOSITION_VECTORS)
def test_disposition_vectors(header: str | None, name: str) -> None:
    assert filename_from(header) == name


def test_there_are_at_least_twenty_five_disposition_vectors() -> None:
    assert len(DISPOSITION_VECTORS) >= 25


def test_the_fallback_is_yours_to_choose() -> None:
    assert filename_from("inline", fallback="report.pdf") == "report.pdf"


@pytest.mark.parametrize(
    ("name", "extension"),
    [("a" * 300 + ".pdf", ".pdf"), ("é" * 200 + ".tar", ".tar"), ("b" * 400, "")],
)
def test_long_names_fit_255_bytes_and_keep_their_extension(
    name: str, extension: str
) -> None:
    safe = safe_filename(name)
    assert len(safe.encode("utf-8")) <= 255
    assert safe.endswith(extension)
    safe.encode("utf-8").decode("utf-8")  # no character cut in half


def test_the_type_and_params_are_read() -> None:
    assert parse_content_disposition('Attachment; Filename="x.txt"; size=3') == (
        "attachment",
        {"filename": "x.txt", "size": "3"},
    )


def test_a_malformed_title_star_falls_back_to_title() -> None:
    (link,) = parse_link_header(
        "</next>; rel=next; title*=UTF-8''bad%2; title=\"plain title\""
    )
    assert link.title == "plain title"
    (quoted,) = parse_link_header("</next>; rel=next; title*=\"UTF-8''ok\"")
    assert quoted.title is None  # an extended value is never quoted
