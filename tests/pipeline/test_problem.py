"""Problem details (RFC 9457) read from an error response: the RFC's own
examples, wrong member types ignored, and anything that is not one."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from restwire import Problem
from restwire._base.http import problem_of

PROBLEM = "application/problem+json"


def response(
    body: Any, content_type: str = PROBLEM, status: int = 403
) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(
        status,
        content=content,
        headers={"content-type": content_type},
        request=httpx.Request("GET", "https://api.example.com/account/12345"),
    )


def test_the_rfc_example_is_read_with_its_extensions() -> None:
    body = {  # RFC 9457, section 3
        "type": "https://example.com/probs/out-of-credit",
        "title": "You do not have enough credit.",
        "detail": "Your current balance is 30, but that costs 50.",
        "instance": "/account/12345/msgs/abc",
        "balance": 30,
        "accounts": ["/account/12345", "/account/67890"],
    }
    assert problem_of(response(body)) == Problem(
        type="https://example.com/probs/out-of-credit",
        title="You do not have enough credit.",
        status=None,
        detail="Your current balance is 30, but that costs 50.",
        instance="/account/12345/msgs/abc",
        extensions={"balance": 30, "accounts": ["/account/12345", "/account/67890"]},
    )


def test_an_empty_object_is_about_blank() -> None:
    assert problem_of(response({})) == Problem()
    assert Problem().type == "about:blank"


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("type", 7),
        ("title", ["a list"]),
        ("status", "404"),
        ("status", True),
        ("status", 404.5),
        ("detail", {"an": "object"}),
        ("instance", None),
    ],
)
def test_a_member_of_the_wrong_type_is_ignored(member: str, value: Any) -> None:
    problem = problem_of(response({"detail": "kept", member: value}))
    assert problem is not None
    assert getattr(problem, member) == getattr(Problem(), member)
    assert member not in problem.extensions  # ignored, not an extension


def test_status_is_read_when_it_is_a_number() -> None:
    problem = problem_of(response({"status": 422, "title": "Invalid"}))
    assert problem is not None
    assert (problem.status, problem.title) == (422, "Invalid")


@pytest.mark.parametrize(
    "content_type",
    [
        "application/problem+json; charset=utf-8",
        "Application/Problem+JSON",
        " application/problem+json ",
    ],
)
def test_the_media_type_is_matched_without_case_or_parameters(
    content_type: str,
) -> None:
    assert problem_of(response({"title": "t"}, content_type)) == Problem(title="t")


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ({"title": "t"}, "application/json"),  # JSON, but not problem details
        ({"title": "t"}, "application/problem+xml"),
        ({"title": "t"}, ""),
        (b"<html>gateway</html>", PROBLEM),  # not JSON
        (b"", PROBLEM),
        ([{"title": "t"}], PROBLEM),  # not an object
        ("title", PROBLEM),
        (b"[" * 100_000 + b"]" * 100_000, PROBLEM),  # nested past the stack
    ],
)
def test_anything_else_is_none(body: Any, content_type: str) -> None:
    assert problem_of(response(body, content_type)) is None
