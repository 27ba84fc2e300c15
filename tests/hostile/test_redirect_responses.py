"""The response of a redirect, over a real socket under both drivers: with
``follow_redirects=False``, ``fetch_response`` returns the 3xx (and
``fetch``, whose value needs a 2xx, raises); a followed chain lists its
hops in ``response.history``."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from restwire import NetworkError, RestEndpoint
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio


async def test_fetch_response_returns_the_redirect_it_was_told_not_to_follow(
    controller: Any, origin_a: RecordingServer
) -> None:
    target = origin_a.url("/echo")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=f"/redirect/302?to={quote(target, safe='')}".replace(":", "\\:"),
        follow_redirects=False,
    )
    response = await controller.fetch_response(endpoint)
    assert response.status_code == 302
    assert response.headers["location"] == target
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint)  # a value needs a 2xx
    assert caught.value.status == 302


async def test_a_followed_chain_lists_its_hops_in_history(
    controller: Any, origin_a: RecordingServer
) -> None:
    last = origin_a.url("/echo")
    middle = origin_a.url(f"/redirect/307?to={quote(last, safe='')}")
    endpoint = RestEndpoint(
        url_prefix=origin_a.origin,
        path=f"/redirect/302?to={quote(middle, safe='')}".replace(":", "\\:"),
    )
    response = await controller.fetch_response(endpoint)
    assert response.status_code == 200
    assert [hop.status_code for hop in response.history] == [302, 307]
    assert str(response.url) == last
