"""Durations are seconds: a plain number that looks like milliseconds (the
seed's unit) is warned about at the line that wrote it, naming seconds."""

from __future__ import annotations

import datetime
import warnings
from typing import Any

import httpx
import pytest

from restwire import Controller, RestEndpoint, RestwireWarning, resource
from restwire._base.durations import looks_like_milliseconds

HERE = __file__


def test_poll_frequency_2000_is_warned_about_naming_seconds() -> None:
    with pytest.warns(RestwireWarning) as caught:
        endpoint = RestEndpoint(path="/ticker", poll_frequency=2000)
    (warning,) = caught
    assert str(warning.message) == (
        "poll_frequency is in seconds: 2000 is 33.3 minutes; for 2 seconds "
        "write 2 (if 33.3 minutes is meant, write "
        "datetime.timedelta(seconds=2000))"
    )
    assert issubclass(warning.category, UserWarning)
    assert (warning.filename, warning.lineno) == (
        HERE,
        _line_of('RestEndpoint(path="/ticker", poll_frequency=2000)'),
    )
    assert endpoint.poll_frequency == 2000  # kept as given: a warning, not a guess


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        (
            "timeout",
            5000,
            "timeout is in seconds: 5000 is 1.39 hours; for 5 seconds write 5",
        ),
        ("error_expiry_length", 1000, "1000 is 16.7 minutes; for 1 second write 1"),
        ("data_expiry_length", 60000, "60000 is 16.7 hours; for 60 seconds write 60"),
        ("data_expiry_length", 3_600_000, "3.6e+06 is 41.7 days; for 3600 seconds"),
        ("poll_frequency", 1500.0, "1500 is 25 minutes; for 1.5 seconds write 1.5"),
    ],
)
def test_each_duration_that_looks_like_milliseconds_is_warned_about(
    option: str, value: float, said: str
) -> None:
    options: dict[str, Any] = {option: value}
    with pytest.warns(RestwireWarning, match=f"^{option} is in seconds") as caught:
        RestEndpoint(path="/x", **options)
    assert said in str(caught[0].message)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("poll_frequency", 2),
        ("poll_frequency", 999),
        ("timeout", 30),
        ("timeout", 600.5),
        ("error_expiry_length", 5),
        # an hour, a day, a week: seconds people write, not whole thousands
        ("data_expiry_length", 3600),
        ("data_expiry_length", 86400),
        ("data_expiry_length", 604800),
        ("data_expiry_length", 1800),
        # a timedelta says its unit
        ("poll_frequency", datetime.timedelta(hours=1)),
        ("data_expiry_length", datetime.timedelta(seconds=60000)),
        ("timeout", datetime.timedelta(seconds=5000)),
    ],
)
def test_plausible_seconds_and_timedeltas_are_not_warned_about(
    option: str, value: Any
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RestEndpoint(path="/x", **{option: value})


def test_the_rule_for_each_option() -> None:
    assert looks_like_milliseconds("poll_frequency", 3600)  # a poll an hour apart
    assert not looks_like_milliseconds("data_expiry_length", 3600)
    assert looks_like_milliseconds("data_expiry_length", 1000)
    assert not looks_like_milliseconds("data_expiry_length", 1001)
    assert not looks_like_milliseconds("poll_frequency", True)
    assert not looks_like_milliseconds("max_body_size", 10_000_000)


def test_an_endpoint_extended_from_one_warned_about_is_not_warned_again() -> None:
    with pytest.warns(RestwireWarning):
        api = RestEndpoint(url_prefix="http://x.test", poll_frequency=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ticker = api.extend(path="/ticker")
        api.use()
        resource(path="/tickers/:id", schema=None, endpoint=api)
    assert ticker.poll_frequency == 2000
    with pytest.warns(RestwireWarning, match="^data_expiry_length"):
        api.extend(data_expiry_length=5000)  # a new value is checked


def test_resource_warns_once_at_the_users_line() -> None:
    with pytest.warns(RestwireWarning) as caught:
        resource(
            path="/tickers/:id",
            schema=None,
            endpoint=RestEndpoint(data_expiry_length=2000),
        )
    assert [w.lineno for w in caught] == [
        _line_of("RestEndpoint(data_expiry_length=2000)")
    ]


def test_a_subclass_default_is_warned_about_at_the_class() -> None:
    with pytest.warns(
        RestwireWarning, match="^poll_frequency is in seconds: 5000"
    ) as caught:

        class Ticker(RestEndpoint):
            poll_frequency = 5000

    assert caught[0].lineno == _line_of("class Ticker(RestEndpoint)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Ticker(path="/ticker")  # the class was warned about, not each endpoint


def test_a_polls_frequency_argument_is_checked_too() -> None:
    endpoint = RestEndpoint(url_prefix="http://x.test", path="/ticker")
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
    with Controller(transport=transport) as controller:
        with pytest.warns(RestwireWarning, match="^frequency is in seconds: 2000"):
            subscription = controller.subscribe(
                endpoint, None, lambda value: None, frequency=2000
            )
        subscription.cancel()


def _line_of(text: str) -> int:
    with open(HERE, encoding="utf-8") as source:
        lines = source.read().splitlines()
    found = [
        number
        for number, line in enumerate(lines, start=1)
        if text in line and "_line_of" not in line
    ]
    assert len(found) == 1, (text, found)
    return found[0]
