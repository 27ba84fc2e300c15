"""Content-Disposition file names: RFC 6266 / RFC 8187 vectors and hostile
names, all made safe to join to a folder."""

from __future__ import annotations

import pytest

from restwire import filename_from, parse_content_disposition, safe_filename

VECTORS: list[tuple[str | None, str]] = [
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
]


@pytest.mark.parametrize(("header", "name"), VECTORS)
def test_vectors(header: str | None, name: str) -> None:
    assert filename_from(header) == name


def test_there_are_at_least_twenty_five_vectors() -> None:
    assert len(VECTORS) >= 25


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
