"""Timeouts, over a real socket under both drivers: a timeout is named in
the error and reads the same under both drivers; an endpoint sets its own
(a number of seconds, an ``httpx.Timeout`` or a ``timedelta``, or ``None``
for the client's); a timeout of no known form is refused where written."""

from __future__ import annotations

import datetime
from typing import Any

import httpx
import pytest

from restwire import RestEndpoint, TransportError
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio


async def test_a_timeout_is_named_and_reads_the_same_under_both_drivers(
    controller_factory: Any, origin_a: RecordingServer
) -> None:
    controller = controller_factory(timeout=httpx.Timeout(5.0, read=0.05))
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow")
    with pytest.raises(TransportError) as caught:
        await controller.fetch(slow, {"seconds": 0.3})
    assert str(caught.value) == (
        f"GET {origin_a.origin}/slow?seconds=0.3: ReadTimeout: nothing came for "
        "0.05 s (the read timeout)"
    )


@pytest.mark.parametrize("timeout", [0.05, httpx.Timeout(5.0, read=0.05)])
async def test_an_endpoint_sets_its_own_timeout(
    controller: Any, origin_a: RecordingServer, timeout: Any
) -> None:
    slow = RestEndpoint(url_prefix=origin_a.origin, path="/slow", timeout=timeout)
    with pytest.raises(TransportError) as caught:
        await controller.fetch(slow, {"seconds": 0.5})
    # the read timeout, as a rule; on a loaded machine a plain 0.05 (all
    # four timeouts) may run out while connecting: the endpoint's either way
    assert "0.05 s (the " in str(caught.value)
    if isinstance(timeout, httpx.Timeout):
        assert "nothing came for 0.05 s (the read timeout)" in str(caught.value)
    patient = slow.extend(timeout=datetime.timedelta(seconds=2))
    assert await controller.fetch(patient, {"seconds": 0.1}) == {}
    assert slow.extend(timeout=None).timeout is None  # back to the client's


@pytest.mark.parametrize("bad", [-1, 0, "5"])
def test_a_timeout_of_no_known_form_is_refused(bad: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="timeout"):
        RestEndpoint(path="/x", timeout=bad)
