from __future__ import annotations

import datetime
import enum
import json
import uuid
from decimal import Decimal

import pytest

from restwire import Form, RequestBodyError
from restwire._body import body_arguments


class Color(enum.Enum):
    RED = "red"


def test_a_dict_is_json_with_its_content_type() -> None:
    arguments, content_type = body_arguments({"a": [1, "é"]}, "POST", None, "e")
    assert content_type == "application/json"
    assert json.loads(arguments["content"]) == {"a": [1, "é"]}


def test_json_takes_dates_decimals_uuids_and_enums() -> None:
    value = {
        "when": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
        "day": datetime.date(2024, 1, 2),
        "price": Decimal("1.10"),
        "id": uuid.UUID(int=1),
        "color": Color.RED,
    }
    arguments, _ = body_arguments(value, "PUT", None, "e")
    assert json.loads(arguments["content"]) == {
        "when": "2024-01-02T03:04:05+00:00",
        "day": "2024-01-02",
        "price": "1.10",
        "id": "00000000-0000-0000-0000-000000000001",
        "color": "red",
    }


@pytest.mark.parametrize("bad", [{"x": float("nan")}, {"x": object()}])
def test_values_json_cannot_carry_are_refused(bad: object) -> None:
    with pytest.raises(RequestBodyError, match="cannot be sent as JSON"):
        body_arguments(bad, "POST", None, "POST /x")


def test_a_form_urlencoded_dict_is_form_data() -> None:
    arguments, content_type = body_arguments(
        {"a": "1"}, "POST", "application/x-www-form-urlencoded", "e"
    )
    assert arguments == {"data": {"a": "1"}}
    assert content_type is None


def test_a_dict_with_another_content_type_is_an_error() -> None:
    with pytest.raises(RequestBodyError, match="text/csv"):
        body_arguments({"a": 1}, "POST", "text/csv", "e")


@pytest.mark.parametrize("body", [b"raw", "text", bytearray(b"ba")])
def test_bytes_and_text_are_sent_as_they_are(body: object) -> None:
    arguments, content_type = body_arguments(body, "POST", None, "e")
    assert content_type is None
    assert arguments["content"] == (body if isinstance(body, str) else bytes(body))  # type: ignore[arg-type]


def test_an_iterator_is_streamed() -> None:
    chunks = iter([b"a", b"b"])
    arguments, _ = body_arguments(chunks, "POST", None, "e")
    assert arguments["content"] is chunks


def test_a_form_is_data_and_files() -> None:
    form = Form({"title": "x"}, files={"file": ("a.txt", b"hi")})
    arguments, content_type = body_arguments(form, "POST", None, "e")
    assert arguments == {"data": {"title": "x"}, "files": {"file": ("a.txt", b"hi")}}
    assert content_type is None


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_get_and_head_take_no_body(method: str) -> None:
    with pytest.raises(RequestBodyError, match=f"{method} takes no body"):
        body_arguments({"a": 1}, method, None, "e")


def test_an_unknown_body_type_is_an_error() -> None:
    with pytest.raises(RequestBodyError, match="int body has no wire form"):
        body_arguments(5, "POST", None, "e")
